import pytest

from tests.factories import CoachFactory, EventFactory, RoundFactory, play

pytestmark = pytest.mark.django_db


def test_home_counts_coaches_events_and_games(client):
    event = EventFactory(name="Dutch Open")
    EventFactory(status="draft")
    round_ = RoundFactory(event=event)
    a, b, c, d = CoachFactory.create_batch(4)
    play(round_, a, b)
    play(round_, c, d)
    response = client.get("/")
    assert response.status_code == 200
    counts = response.context["counts"]
    assert (counts["coaches"], counts["events"], counts["sanctioned_events"], counts["games"]) == (4, 1, 1, 2)  # not the draft
    assert "Dutch Open" in response.content.decode()


def test_home_navigation_links_only_to_pages_that_exist(client):
    response = client.get("/")
    for item in response.context["site_nav"]:
        assert client.get(item["url"]).status_code == 200
