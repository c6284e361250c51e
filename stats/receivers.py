"""What the statistics do when the record changes (tournaments.signals), connected in StatsConfig.ready."""
from django.db.models.signals import post_save
from django.dispatch import receiver

from ratingsite import page_cache
from stats.models import SummaryRefresh
from stats.services import summaries_request


def refresh_after_commit(sender, **kwargs) -> None:
    """Games changed, rated or not: the summary tables count them all; rebuilt once the change commits
    (owed until then, so a broker outage loses no refresh). The public pages show the change itself
    (an event, its games) once it commits."""
    page_cache.bump_on_commit()
    summaries_request()


@receiver(post_save, sender=SummaryRefresh, dispatch_uid="stats-refreshed-pages")
def pages_after_refresh(sender, **kwargs) -> None:
    """A refresh records itself last: the statistics pages show its figures once it commits."""
    page_cache.bump_on_commit()
