"""The outermost services commit on their own: a change a person makes is one durable transaction."""
import pytest
from django.db import transaction

from ratings import services as ratings_services
from ratings.models import RatingSystem
from tests.factories import EventFactory
from tournaments import services
from tournaments.models import Event, EventStatus

pytestmark = pytest.mark.django_db


def test_a_sanction_refuses_to_run_inside_a_callers_transaction():
    event = EventFactory(status=EventStatus.SUBMITTED)
    with pytest.raises(RuntimeError, match="durable atomic block cannot be nested"), transaction.atomic():
        services.event_sanction(event=event, actor=None)
    assert Event.objects.get(pk=event.pk).status == EventStatus.SUBMITTED


def test_a_parameter_change_refuses_to_run_inside_a_callers_transaction():
    system = RatingSystem.objects.get(slug="elo")
    with pytest.raises(RuntimeError, match="durable atomic block cannot be nested"), transaction.atomic():
        ratings_services.rating_system_update(system=system, actor=None, parameters={"round_k": True})
    assert RatingSystem.objects.get(slug="elo").parameters.get("round_k") is not True
