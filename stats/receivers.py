"""What the statistics do when the record changes (tournaments.signals), connected in StatsConfig.ready."""
from django.db import transaction

from stats.tasks import refresh_summaries


def refresh_after_commit(sender, **kwargs) -> None:
    """Games changed, rated or not: the summary tables count them all; rebuilt once the change commits."""
    transaction.on_commit(refresh_summaries.delay)
