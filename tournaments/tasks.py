"""Celery tasks of the record: the daily erasure of the coaches whose grace period has passed (safe to
run twice: an erased coach is no longer due)."""
from celery import shared_task

from .privacy import coaches_erase_due


@shared_task
def erase_due_coaches() -> list[int]:
    """Every day: erase the coaches whose erasure was asked for 30 days ago or more; their numbers."""
    return coaches_erase_due()
