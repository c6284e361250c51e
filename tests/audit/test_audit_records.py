"""The audit trail: typed actions, and a typed link to what changed beside its readable label."""
import datetime as dt

import pytest

from audit.models import Action, AuditRecord
from audit.services import audit_record
from ratings import services as ratings_services
from ratings.models import RatingSystem
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import staff
from tournaments import services
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db


def test_a_sanction_links_its_record_to_the_event():
    sam = staff()
    event = EventFactory(name="Delft Open", start_date=dt.date(2024, 5, 4), status=EventStatus.SUBMITTED)
    play(RoundFactory(event=event, number=1), CoachFactory(), CoachFactory(), (1, 0))
    services.event_sanction(event=event, actor=sam)
    record = AuditRecord.objects.get(action=Action.EVENT_SANCTION)
    assert (record.event, record.actor, record.object_type, record.object_repr) == (event, sam, "event", str(event))
    assert (record.game, record.coach, record.rating_system, record.run, record.member) == (None,) * 5
    assert record.get_action_display() == "event sanctioned"


def test_a_parameter_change_links_its_record_to_the_rating_system():
    system = RatingSystem.objects.get(slug="elo")
    ratings_services.rating_system_update(system=system, actor=staff(), parameters={"round_k": True})
    record = AuditRecord.objects.get(action=Action.RATING_SYSTEM_UPDATE)
    assert record.rating_system == system and record.event is None


def test_a_merged_coach_keeps_its_record_when_the_duplicate_is_gone():
    keep, duplicate = CoachFactory(name="Anna"), CoachFactory(name="Anna J.")
    services.coach_merge(keep=keep, duplicate=duplicate, actor=staff())
    record = AuditRecord.objects.get(action=Action.COACH_MERGE)
    assert record.coach == keep and record.before["duplicate"]["number"] == duplicate.number


def test_an_action_outside_the_list_is_refused():
    with pytest.raises(ValueError, match="'event.delete' is not a valid Action"):
        audit_record(actor=None, action="event.delete", obj=EventFactory())
    assert not AuditRecord.objects.exists()
