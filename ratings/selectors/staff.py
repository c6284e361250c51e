"""Reads for the staff pages of the ratings: the staff home, rating-system settings and runs."""
from django.db.models import QuerySet

from ratings.models import RatingSystem, RecalculationRun
from tournaments.models import Event, EventStatus


def submitted_event_count() -> int:
    """How many events wait for sanctioning."""
    return Event.objects.filter(status=EventStatus.SUBMITTED).count()


def recent_runs(*, limit: int = 5) -> QuerySet[RecalculationRun]:
    """The latest recalculation runs with their rating system, newest first."""
    return RecalculationRun.objects.select_related("system")[:limit]


def staff_systems() -> QuerySet[RatingSystem]:
    """Every rating system, active or not, in display order, with its variants and excluded races."""
    return RatingSystem.objects.prefetch_related("variants", "excluded_races")


def rating_system_get(*, pk: int) -> RatingSystem:
    """The rating system of that id; raises RatingSystem.DoesNotExist."""
    return RatingSystem.objects.get(pk=pk)


def run_list() -> QuerySet[RecalculationRun]:
    """Every recalculation run with its system and who asked for it, newest first."""
    return RecalculationRun.objects.select_related("system", "requested_by")


def run_get(*, pk: int) -> RecalculationRun:
    """The run of that id with its system and who asked for it; raises RecalculationRun.DoesNotExist."""
    return RecalculationRun.objects.select_related("system", "requested_by").get(pk=pk)
