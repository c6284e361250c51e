"""The record's one seam: its services say what changed; the ratings and statistics answer."""
import datetime as dt

import pytest

from ratings.models import RecalculationRun, RunStatus
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tournaments import services, signals
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    calls = []

    def listener(sender, **kwargs):
        calls.append(kwargs)

    signals.results_changed.connect(listener, dispatch_uid="test-listener")
    yield calls
    signals.results_changed.disconnect(dispatch_uid="test-listener")


def test_a_sanction_says_from_which_date_the_results_changed(heard):
    event = EventFactory(start_date=dt.date(2024, 5, 4), status=EventStatus.SUBMITTED)
    play(RoundFactory(event=event, number=1), CoachFactory(), CoachFactory(), (1, 0))
    services.event_sanction(event=event, actor=None)
    assert [(call["trigger"], call["since"]) for call in heard] == [("sanctioned", dt.date(2024, 5, 4))]
    # the ratings answered: one queued run per active system from that date
    assert set(RecalculationRun.objects.values_list("from_date", "status")) == {(dt.date(2024, 5, 4), RunStatus.QUEUED)}


def test_an_edit_waits_while_a_receiver_says_the_event_is_held():
    event = EventFactory(status=EventStatus.DRAFT)

    def held(sender, *, event, **kwargs):
        return f"{event.name} is held for a test"

    signals.event_change_blocked.connect(held, dispatch_uid="test-held")
    try:
        with pytest.raises(Exception, match="is held for a test"):
            services._ensure_not_recalculating(event)
    finally:
        signals.event_change_blocked.disconnect(dispatch_uid="test-held")
    services._ensure_not_recalculating(event)  # nobody holds it now
