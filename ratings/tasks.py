"""Celery tasks: take ids, call one service, safe to run twice."""
import datetime as dt

from celery import shared_task
from django.conf import settings
from django.db import OperationalError, transaction
from django.utils import timezone

from ratings import services
from ratings.models import RatingSystem, RecalculationRun, RunStatus, Trigger
from ratings.replay import previous_month


@shared_task(
    name=services.RECALCULATE_TASK, bind=True, autoretry_for=(OperationalError,), retry_backoff=5, retry_backoff_max=300, max_retries=5,
    acks_late=True, soft_time_limit=settings.RECALCULATION_TIME_LIMIT, time_limit=settings.RECALCULATION_TIME_LIMIT + 60,
)
def recalculate(self, run_id: int) -> str:
    """Carry out one queued recalculation run (a transient database error retries it)."""
    try:
        run = services.recalculation_execute(run_id=run_id)
    except RecalculationRun.DoesNotExist:
        return "missing"
    except Exception:
        services.accuracy_refresh_request(system_ids=[])  # this run may be its batch's last: the others' refresh goes
        raise
    # after the run's commit, outside its duration; once the batch's last run has ended
    services.accuracy_refresh_request(system_ids=[run.system_id] if run.status == RunStatus.SUCCEEDED else [])
    return run.status


def _schedule(systems, *, since: dt.date, reason: str) -> int:
    with transaction.atomic():
        for system in systems:
            services.recalculation_request(system=system, trigger=Trigger.SCHEDULE, since=since, reason=reason)
    return len(systems)


@shared_task
def publish_monthly_lists() -> int:
    """On the 1st: close last month's periods and publish every system's list dated today."""
    today = timezone.now().date()
    systems = list(RatingSystem.objects.filter(active=True))
    return _schedule(systems, since=previous_month(today), reason=f"monthly list of {today:%Y-%m-%d}")


@shared_task
def refresh_daily() -> int:
    """Daily: bring Global Glicko (two-week periods) and every current rating up to today."""
    today = timezone.now().date()
    pending = RecalculationRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING], trigger=Trigger.SCHEDULE)
    systems = [s for s in RatingSystem.objects.filter(active=True, method="glicko", per_race=False)
               if not pending.filter(system=s).exists()]
    return _schedule(systems, since=previous_month(today), reason=f"daily refresh {today:%Y-%m-%d}")


@shared_task
def dispatch_queued_runs() -> int:
    """Every minute: send the queued runs whose message a broker outage kept from going out, and the
    accuracy refresh owed after runs; returns the runs sent."""
    runs = services.recalculation_dispatch()
    services.accuracy_refresh_dispatch()
    return len(runs)


@shared_task
def sweep_lost_runs() -> int:
    """Every minute: fail the runs whose process is gone (killed, out of memory), unblocking their
    dates, and queue each once again (a worker's lost message would wait an hour for the broker)."""
    lost = services.recalculation_sweep()
    services.recalculation_retry(run_ids=lost)
    return len(lost)
