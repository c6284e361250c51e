"""The Django admin shows the record read-only: a change there would skip the audit and the recalculation."""
import pytest
from django.contrib.auth.models import User

from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(client):
    user = User.objects.create_superuser("root", "root@example.org", "x")
    client.force_login(user)
    return user


def test_an_event_is_shown_but_cannot_be_changed_added_or_deleted(client, superuser):
    event = EventFactory(name="Delft Open", status=EventStatus.SUBMITTED)
    game = play(RoundFactory(event=event, number=1), CoachFactory(), CoachFactory(), (1, 0))
    page = client.get(f"/admin/tournaments/event/{event.pk}/change/")
    assert page.status_code == 200 and "Delft Open" in page.content.decode()
    assert 'name="_save"' not in page.content.decode()
    posted = client.post(f"/admin/tournaments/event/{event.pk}/change/", {"name": "Renamed", "status": "sanctioned"})
    assert posted.status_code == 403
    event.refresh_from_db()
    assert (event.name, event.status) == ("Delft Open", EventStatus.SUBMITTED)
    assert client.get("/admin/tournaments/event/add/").status_code == 403
    assert client.post(f"/admin/tournaments/game/{game.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get(f"/admin/tournaments/coach/{game.home_coach_id}/change/").status_code == 200
