"""Sending to the broker from an outbox (queued runs, owed statistics refreshes): a message the
broker does not take (down, refusing, hung: its calls time out, settings' broker options) stays
owed, and the outbox's dispatcher sends it later."""
import datetime as dt
import logging
from functools import partial

from celery import current_app
from django.conf import settings
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnavailable

from ratingsite.after_response import after_response

BROKER_ERRORS = (BrokerUnavailable, ConnectionError, TimeoutError)
# how long a dispatcher leaves a message owed before sending it: its transaction may still be
# committing, and then sends its own
SETTLED = dt.timedelta(seconds=30)

logger = logging.getLogger(__name__)


def sent(message, *, owed: str) -> bool:
    """Send a Celery signature or group; False, and logged, when the broker does not take it (`owed`
    names what stays owed)."""
    try:
        message.apply_async()
    except BROKER_ERRORS as error:
        logger.warning("%s stay owed, the broker did not take them (%s): the dispatcher sends them", owed, error)
        return False
    return True


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
