"""Sending to the broker from an outbox (queued runs, owed statistics refreshes): a message the
broker does not take (down, refusing, hung: its calls time out, settings' broker options) stays
owed, and the outbox's dispatcher sends it later."""
import datetime as dt
import logging
import time
from functools import partial

from celery import current_app
from celery.exceptions import Retry
from django.conf import settings
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnavailable

from ratingsite.after_response import after_response

BROKER_ERRORS = (BrokerUnavailable, ConnectionError, TimeoutError)
# how long a dispatcher leaves a message owed before sending it: its transaction may still be
# committing, and then sends its own
SETTLED = dt.timedelta(seconds=30)
LONGEST_PAUSE = 60.0  # seconds an in-process retry waits at most (a task's backoff may ask for more)

logger = logging.getLogger(__name__)


def sent(message, *, owed: str) -> bool:
    """Send a Celery signature or group; False, and logged, when the broker does not take it (`owed`
    names what stays owed)."""
    try:
        if current_app.conf.task_always_eager:
            carried_out_here(message)
        else:
            message.apply_async()
    except BROKER_ERRORS as error:
        logger.warning("%s stay owed, the broker did not take them (%s): the dispatcher sends them", owed, error)
        return False
    return True


def carried_out_here(message) -> None:
    """Without a broker: carry `message` out in this process, its retries too. Celery, propagating an
    eager task's errors, raises the task's Retry (a transient database error: SQLite's table locked)
    instead of running it again, and the work was lost; here it runs again after the task's own
    backoff, as on a worker, until its retries run out and the error is raised."""
    while True:
        try:
            message.apply_async()
            return
        except Retry as retry:
            if retry.sig is None:
                raise
            wait = retry.when if isinstance(retry.when, int | float) else 0
            logger.warning("%s: %s; carried out again in %.1f s", message, retry.exc, wait)
            pause(min(max(float(wait), 0.0), LONGEST_PAUSE))
            message = retry.sig


def pause(seconds: float) -> None:
    time.sleep(seconds)


def sent_later(message, *, owed: str) -> bool:
    """Without a broker (tasks run in this process), inside a web request: send `message` once the
    response has gone (ratingsite.after_response) instead of holding the answer, and True. Otherwise
    False: the caller sends it now."""
    return bool(current_app.conf.task_always_eager) and after_response(partial(sent, message, owed=owed))


def owed_again(outbox, *, what: str) -> int:
    """Put back in the outbox (`outbox`: its rows still unanswered) every message that went out longer
    than settings.RECALCULATION_RESEND_AFTER ago: the broker lost it (Redis restarted without
    persistence, failed over, evicted the key), and nothing would send it again. The dispatcher
    then sends it; a message that was only slow makes one refresh more. Returns how many."""
    lost = outbox.filter(enqueued_at__lt=timezone.now() - settings.RECALCULATION_RESEND_AFTER).update(enqueued_at=None)
    if lost:
        logger.warning("%s %s sent long ago and still unanswered (the broker lost them?): sent again", lost, what)
    return lost
