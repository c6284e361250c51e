"""Only what is public is public: a draft, submitted or rejected event is its organiser's and the
staff's alone, on every page, export and count; open play is public in the statistics, labelled
as unsanctioned, and never rated."""
import datetime as dt

import pytest

from ratings import services
from ratings.models import CalculationRow, RatingSystem, Trigger
from stats.services import summaries_refresh
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import staff
from tournaments import services as record
from tournaments.models import Award, EventStatus

pytestmark = pytest.mark.django_db

PRIVATE = (EventStatus.DRAFT, EventStatus.SUBMITTED, EventStatus.REJECTED)
TODAY = dt.date(2024, 9, 15)


@pytest.fixture
def record_of_every_kind():
    """One sanctioned event, one open-play month, and one event of every private status: each with
    one game between two coaches of its own and an award (names say which is which)."""
    events = {}
    for number, status in enumerate((EventStatus.SANCTIONED, EventStatus.OPEN_PLAY, *PRIVATE)):
        event = EventFactory(name=f"{status.label} Bowl", status=status, start_date=dt.date(2024, 3, 2 + number),
                             country="NL", city=f"City{number}", latitude=52.0, longitude=5.0)
        home, away = CoachFactory(name=f"{status.label} Home"), CoachFactory(name=f"{status.label} Away")
        play(RoundFactory(event=event, number=1), home, away, (2, 1), home_race="human", away_race="orc")
        Award.objects.create(event=event, category=f"{status.label} Award", coach=home)
        events[status] = event
    summaries_refresh()
    for system in RatingSystem.objects.filter(active=True):
        run = services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
        services.recalculation_execute(run_id=run.pk, today=TODAY)
    return events


PUBLIC_PAGES = [
    "/", "/events/", "/events/?status=any", "/stats/games/", "/stats/games/?_export=csv", "/stats/awards/",
    "/stats/awards/?_export=csv", "/stats/map/", "/stats/map/?_export=csv", "/stats/win-ratios/",
    "/stats/top/", "/stats/legends/",
]


@pytest.mark.parametrize("url", PUBLIC_PAGES)
def test_no_public_page_or_export_names_an_event_that_is_not_public(client, record_of_every_kind, url):
    response = client.get(url)
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()
    for status in PRIVATE:
        assert f"{status.label} Bowl" not in text and f"{status.label} Award" not in text and f"{status.label} Home" not in text


def test_the_public_event_list_and_pages_hold_sanctioned_events_and_open_play_only(client, record_of_every_kind):
    events = record_of_every_kind
    listed = client.get("/events/?status=any").content.decode()
    assert "Sanctioned Bowl" in listed and "Open play (unsanctioned) Bowl" in listed
    for status in PRIVATE:
        assert client.get(f"/events/{events[status].pk}/").status_code == 404
    page = client.get(f"/events/{events[EventStatus.OPEN_PLAY].pk}/").content.decode()
    assert "<strong>Open play (unsanctioned)</strong>: its games count for no rating" in page
    refused = client.get("/events/?status=submitted")
    assert refused.status_code == 400 and "Select a valid choice" in refused.content.decode()


def test_the_home_page_counts_public_events_and_their_games_only(client, record_of_every_kind):
    counts = client.get("/").context["counts"]
    assert (counts["events"], counts["sanctioned_events"], counts["games"]) == (2, 1, 2)


def test_a_coach_page_lists_only_public_events(client, record_of_every_kind):
    for status in PRIVATE:
        coach = record_of_every_kind[status].games.get().home_coach
        page = client.get(f"/coaches/{coach.number}/").content.decode()
        assert f"{status.label} Bowl" not in page and f"{status.label} Award" not in page


def test_the_statistics_count_open_play_labelled_as_such_and_nothing_private(client, record_of_every_kind):
    games = client.get("/stats/games/").context["table"]
    assert games.paginator.count == 2
    only_open = client.get("/stats/games/?sanctioned=no").context["table"]
    assert [row.record.event.name for row in only_open.page.object_list] == ["Open play (unsanctioned) Bowl"]
    assert "Open play only (unsanctioned, never rated)" in client.get("/stats/games/").content.decode()
    tampered = client.get(f"/stats/games/?event={record_of_every_kind[EventStatus.DRAFT].pk}")
    assert tampered.status_code == 400 and "No event has the number" in tampered.content.decode()


def test_ratings_rate_sanctioned_games_footnote_open_play_and_hold_no_row_of_a_private_event(record_of_every_kind):
    rows = CalculationRow.objects.filter(system__slug="elo")
    assert set(rows.filter(counted=True).values_list("game__event__status", flat=True)) == {EventStatus.SANCTIONED}
    open_play = rows.filter(game__event__status=EventStatus.OPEN_PLAY)
    assert open_play.count() == 2 and set(open_play.values_list("reason", flat=True)) == {"event_not_sanctioned"}
    assert not rows.filter(game__event__status__in=PRIVATE).exists()


def test_open_play_is_never_sanctioned_and_staff_still_see_every_event(client, record_of_every_kind):
    with pytest.raises(Exception, match="never sanctioned"):
        record.event_sanction(event=record_of_every_kind[EventStatus.OPEN_PLAY], actor=None)
    client.force_login(staff())
    queue = client.get("/staff/events/?status=submitted").content.decode()
    assert "Submitted Bowl" in queue


def test_the_migration_makes_the_imported_open_play_months_open_play_and_leaves_rejected_events_rejected():
    from importlib import import_module

    from django.apps import apps

    migration = import_module("tournaments.migrations.0012_open_play")
    month = EventFactory(source="fumbbl-open:2020-08", status=EventStatus.REJECTED)
    rejected = EventFactory(source="fumbbl-tournament:1", status=EventStatus.REJECTED)
    migration.open_play(apps, None)
    month.refresh_from_db()
    rejected.refresh_from_db()
    assert (month.status, rejected.status) == (EventStatus.OPEN_PLAY, EventStatus.REJECTED)
