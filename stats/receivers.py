"""What the statistics do when the record changes (tournaments.signals), connected in StatsConfig.ready."""
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from ratingsite import page_cache
from stats.models import SummaryRefresh
from stats.tasks import refresh_summaries


def refresh_after_commit(sender, **kwargs) -> None:
    """Games changed, rated or not: the summary tables count them all; rebuilt once the change commits.
    The public pages show the change itself (an event, its games) once it commits."""
    page_cache.bump_on_commit()
    transaction.on_commit(refresh_summaries.delay)


@receiver(post_save, sender=SummaryRefresh, dispatch_uid="stats-refreshed-pages")
def pages_after_refresh(sender, **kwargs) -> None:
    """A refresh records itself last: the statistics pages show its figures once it commits."""
    page_cache.bump_on_commit()
