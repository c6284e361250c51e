"""Reads for the staff pages of the ratings: the staff home, rating-system settings and runs."""
from django.db.models import QuerySet

from audit.models import Action, AuditRecord
from ratings.models import RatingSystem, RecalculationRun, RunStatus, Trigger
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


def sanction_runs(*, event: Event) -> list[RecalculationRun]:
    """The runs the event's latest sanction queued, one per system (a run the sweep retried: its
    retry), each with `expected`: the seconds its system's last successful run took (None before the
    first). Empty if it was never sanctioned."""
    record = (
        AuditRecord.objects.filter(object_type=event._meta.model_name, object_id=str(event.pk), action=Action.EVENT_SANCTION)
        .order_by("-at", "-id").first()
    )
    if record is None:
        return []
    # the sanction queues them in its own transaction, after its audit record
    queued = RecalculationRun.objects.filter(
        created_at__gte=record.at, trigger__in=[Trigger.SANCTIONED, Trigger.BACKDATED], requested_by=record.actor_id,
    ).select_related("system").order_by("created_at", "pk")
    runs: dict[int, RecalculationRun] = {}
    for run in queued:
        runs.setdefault(run.system_id, run)
    for system_id, run in list(runs.items()):
        retry = run.retries.select_related("system").order_by("pk").last()
        if retry is not None:  # its process was lost and the sweep retried it: the retry carries the sanction on
            runs[system_id] = retry
    for run in runs.values():
        done = RecalculationRun.objects.filter(system=run.system_id, status=RunStatus.SUCCEEDED).exclude(pk=run.pk).exclude(duration=None)
        run.expected = done.order_by("-finished_at").values_list("duration", flat=True).first()
    return list(runs.values())
