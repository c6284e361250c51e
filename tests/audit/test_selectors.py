"""Reading the audit trail: the log, one object's records, an event's last rejection."""
import pytest

from audit import selectors
from audit.models import Action
from audit.services import audit_record
from tests.factories import CoachFactory, EventFactory
from tests.roles import staff
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db


def test_audit_records_for_an_object_are_its_own_newest_first():
    sam = staff()
    event, other = EventFactory(name="Delft Open"), EventFactory(name="Leiden Cup")
    submitted = audit_record(actor=sam, action=Action.EVENT_SUBMIT, obj=event)
    audit_record(actor=sam, action=Action.EVENT_SUBMIT, obj=other)
    sanctioned = audit_record(actor=sam, action=Action.EVENT_SANCTION, obj=event)
    records = list(selectors.audit_records_for(obj=event))
    assert records == [sanctioned, submitted]
    assert records[0].actor.username == "sam"


def test_audit_records_of_a_coach_leave_out_an_event_of_the_same_id():
    event = EventFactory()
    coach = CoachFactory(id=event.pk)
    audit_record(actor=None, action=Action.EVENT_UPDATE, obj=event)
    created = audit_record(actor=None, action=Action.COACH_CREATE, obj=coach)
    assert list(selectors.audit_records_for(obj=coach)) == [created]


def test_the_log_holds_every_record_newest_first():
    first = audit_record(actor=None, action=Action.COACH_CREATE, obj=CoachFactory())
    second = audit_record(actor=staff(), action=Action.EVENT_CREATE, obj=EventFactory())
    assert list(selectors.audit_records()) == [second, first]


def test_last_rejection_is_the_latest_reject_of_that_event():
    sam = staff()
    event = EventFactory(status=EventStatus.REJECTED)
    audit_record(actor=sam, action=Action.EVENT_REJECT, obj=event, note="Round 2 is missing.")
    audit_record(actor=sam, action=Action.EVENT_SUBMIT, obj=event)
    latest = audit_record(actor=sam, action=Action.EVENT_REJECT, obj=event, note="Game 3 has no away coach.")
    audit_record(actor=sam, action=Action.EVENT_REJECT, obj=EventFactory(), note="Another event.")
    assert selectors.last_rejection(event=event) == latest
    assert selectors.last_rejection(event=event).note == "Game 3 has no away coach."


def test_last_rejection_is_none_for_an_event_never_rejected():
    event = EventFactory()
    audit_record(actor=None, action=Action.EVENT_SUBMIT, obj=event)
    assert selectors.last_rejection(event=event) is None
