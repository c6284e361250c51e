"""Every game carries the date its result entered the record: its event's sanction, the correction
applied to it, or (history loaded in bulk) its event's end; none while the event is not sanctioned."""
import datetime as dt

import pytest
from django.utils import timezone

from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tournaments import services
from tournaments.importers.fumbbl import import_matches
from tournaments.models import Event, EventStatus, Game

pytestmark = pytest.mark.django_db

PLAYED = dt.date(2024, 3, 2)


@pytest.fixture
def submitted():
    event = EventFactory(name="Late Cup", start_date=PLAYED, end_date=PLAYED, status=EventStatus.SUBMITTED)
    w, x, y, z = CoachFactory.create_batch(4)
    first = RoundFactory(event=event, number=1)
    return event, [play(first, w, x, (2, 1)), play(first, y, z, (1, 1))]


@pytest.fixture
def today(monkeypatch):
    """Sets the day the services take as today."""
    return lambda day: monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: day)


def reported(event) -> set:
    return set(Game.objects.filter(event=event).values_list("reported_on", flat=True))


def test_a_submitted_events_games_are_not_reported_and_its_sanction_reports_them_today(submitted):
    event, _ = submitted
    assert reported(event) == {None}
    services.event_sanction(event=event, actor=None)
    assert reported(event) == {timezone.localdate()}


def sanction(event, django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):  # its runs carried out, so the event may change again
        services.event_sanction(event=event, actor=None)


def test_a_correction_reports_the_corrected_game_anew_and_a_rejection_takes_them_out(
    submitted, today, django_capture_on_commit_callbacks,
):
    event, (corrected, other) = submitted
    today(dt.date(2024, 4, 10))
    sanction(event, django_capture_on_commit_callbacks)
    today(dt.date(2024, 5, 20))
    services.game_correct(game=corrected, actor=None, home_touchdowns=3)
    assert Game.objects.get(pk=corrected.pk).reported_on == dt.date(2024, 5, 20)
    assert Game.objects.get(pk=other.pk).reported_on == dt.date(2024, 4, 10)
    services.event_reject(event=event, actor=None, reason="Wrong variant")
    assert reported(event) == {None}


def test_a_correction_of_an_event_not_sanctioned_reports_nothing(submitted):
    event, (game, _) = submitted
    services.game_correct(game=game, actor=None, home_touchdowns=3)
    assert Game.objects.get(pk=game.pk).reported_on is None


def test_imported_history_counts_as_reported_at_its_events_end(fumbbl_data):
    import_matches(fumbbl_data / "fumbbl_matches.csv")
    for event in Event.objects.all():
        expected = {event.end_date} if event.status == EventStatus.SANCTIONED else {None}
        assert reported(event) == expected, event.source
    assert Game.objects.filter(reported_on__isnull=False).count() == 9


def test_the_event_page_says_when_its_results_were_reported_and_which_were_corrected_since(
    client, submitted, today, django_capture_on_commit_callbacks,
):
    event, (corrected, _) = submitted
    today(dt.date(2024, 4, 10))
    sanction(event, django_capture_on_commit_callbacks)
    today(dt.date(2024, 5, 20))
    services.game_correct(game=corrected, actor=None, home_touchdowns=3)
    page = client.get(f"/events/{event.pk}/").content.decode()
    assert "results reported on 2024-04-10" in page
    assert page.count("corrected 2024-05-20") == 1
