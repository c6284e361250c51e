"""The record's one seam: its services say what changed; the ratings and statistics answer."""
import datetime as dt

import pytest

from ratings.models import RecalculationRun, RunStatus, Trigger
from stats.models import SummaryRefreshRequest
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import organiser
from tournaments import services, signals
from tournaments.models import EventStatus
from tournaments.uploads import GameEntry

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


def test_the_record_owns_its_trigger_words_and_the_ratings_keep_each_as_a_run_trigger():
    assert {trigger.value for trigger in signals.ResultsTrigger} == {"sanctioned", "backdated", "corrected", "merge"}
    assert {Trigger(trigger) for trigger in signals.ResultsTrigger} == {
        Trigger.SANCTIONED, Trigger.BACKDATED, Trigger.CORRECTED, Trigger.MERGE,
    }


def test_a_merge_asks_for_the_merge_trigger_from_the_duplicates_first_game(heard):
    keep, duplicate, other = CoachFactory(), CoachFactory(), CoachFactory()
    event = EventFactory(start_date=dt.date(2024, 3, 2))
    play(RoundFactory(event=event, number=1), duplicate, other, (1, 0))
    services.coach_merge(keep=keep, duplicate=duplicate, actor=None)
    assert [(call["trigger"], call["since"]) for call in heard] == [(signals.ResultsTrigger.MERGE, dt.date(2024, 3, 2))]
    assert RecalculationRun.objects.filter(trigger=Trigger.MERGE).exists()


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


@pytest.fixture
def refreshes():
    """The statistics refreshes the record's services asked for."""
    calls = []

    def listener(sender, **kwargs):
        calls.append(sender)

    signals.record_changed.connect(listener, dispatch_uid="test-record-listener")
    yield calls
    signals.record_changed.disconnect(dispatch_uid="test-record-listener")


def test_a_drafts_upload_asks_for_no_statistics_refresh_as_the_statistics_do_not_show_it(refreshes):
    owner = organiser()
    event = EventFactory(start_date=dt.date(2024, 5, 4), status=EventStatus.DRAFT, organiser=owner)
    home, away = CoachFactory(), CoachFactory()
    games = [GameEntry(line=1, round=1, date=event.start_date, home_coach=home.number, home_race="human",
                       away_coach=away.number, away_race="orc", home_td=2)]
    services.results_upload(event=event, actor=owner, games=games)
    assert event.games.get().home_touchdowns == 2
    game = event.games.get()
    services.game_correct(game=game, actor=None, home_touchdowns=1)  # staff's correction of a draft's game
    assert refreshes == [] and not SummaryRefreshRequest.objects.exists()


def test_an_open_play_correction_refreshes_the_statistics_which_count_it(refreshes):
    event = EventFactory(start_date=dt.date(2024, 5, 4), status=EventStatus.OPEN_PLAY)
    game = play(RoundFactory(event=event, number=1), CoachFactory(), CoachFactory(), (1, 0))
    services.game_correct(game=game, actor=None, home_touchdowns=0, away_touchdowns=2)
    assert len(refreshes) == 1
    assert not RecalculationRun.objects.exists()  # open play is unrated: no run
