"""Celery tasks of the members: the notices of a committed run, and the dispatcher of those owed.
Each takes ids, calls one service, and is safe to run twice."""
from celery import shared_task
from django.db import OperationalError

from members import services


@shared_task(name=services.NOTICES_TASK, autoretry_for=(OperationalError,), retry_backoff=5, max_retries=5, acks_late=True)
def notices_for_run(run_id: int) -> str:
    """Record the notices of a committed run (once) and mail them to those who want them; a mail
    server that fails leaves the e-mail owed for the dispatcher, and fails nothing."""
    owed = services.notices_for_run(run_id=run_id)
    if owed is None:
        return "missing"
    return "mailed" if owed.mailed_at is not None else "mail owed"


@shared_task
def dispatch_owed_notices() -> int:
    """Every minute: send the notices' tasks a broker outage kept back or the broker lost, and try
    again the e-mail a mail server refused; returns the runs sent."""
    return len(services.notices_dispatch())
