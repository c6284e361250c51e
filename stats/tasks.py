"""Celery tasks: rebuild the statistics summaries (safe to run twice: each run rebuilds them whole),
and send a refresh an outage kept back."""
from celery import shared_task
from django.db import OperationalError

from stats.services import REFRESH_TASK, summaries_dispatch, summaries_refresh


@shared_task(name=REFRESH_TASK, autoretry_for=(OperationalError,), retry_backoff=5, max_retries=3, acks_late=True)
def refresh_summaries() -> int:
    """Rebuild every summary table; returns the games counted."""
    return summaries_refresh().games


@shared_task
def dispatch_owed_refresh() -> bool:
    """Every minute: send the statistics refresh a broker outage kept back."""
    return summaries_dispatch()
