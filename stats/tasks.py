"""Celery task: rebuild the statistics summaries (safe to run twice: each run rebuilds them whole)."""
from celery import shared_task
from django.db import OperationalError

from stats.services import summaries_refresh


@shared_task(autoretry_for=(OperationalError,), retry_backoff=5, max_retries=3, acks_late=True)
def refresh_summaries() -> int:
    """Rebuild every summary table; returns the games counted."""
    return summaries_refresh().games
