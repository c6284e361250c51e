"""A replay's tail (ratings.replay.Tail): games that all come after the last rated one go on from
the state at that game and give what a replay of the whole record gives, chunk for chunk."""
import datetime as dt
import pickle
from dataclasses import replace

import lz4.frame
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assurance.verification import verify_system
from rating_engines import glicko, knsb, naf_elo
from rating_engines.common import GameRecord
from ratings import services
from ratings.models import (
    CalculationRow,
    CurrentRating,
    EngineCheckpoint,
    PeriodSummary,
    RatingList,
    RatingListEntry,
    RatingSystem,
    ReplayTail,
    Trigger,
)
from ratings.replay import Ledger, ListRules, Tail, replay
from ratings.services import storage
from tests.factories import CoachFactory
from tests.ratings.conftest import TODAY, add_event
from tournaments.models import Event, Game

START = dt.datetime(2024, 1, 1)
VARIANT = "bb2020"

# each method as the site configures it (ratings.configuration.list_rules), Glicko with each kind of period
ENGINES = {
    "elo": (naf_elo, naf_elo.EloConfig(per_race=True), ListRules(glicko=False, inactive_after_months=2)),
    "glicko-month": (glicko, glicko.GlickoConfig(per_race=True), ListRules(glicko=True)),
    "glicko-two-weeks": (glicko, glicko.GlickoConfig(per_race=False, period="two_weeks"), ListRules(glicko=True, period_days=14)),
    "glicko-event": (glicko, glicko.GlickoConfig(per_race=False, period="event"), ListRules(glicko=True)),
    "knsb": (knsb, knsb.KnsbConfig(initial_list=((1, 1700, 40), (2, 1500, 100)), depot_min_games=2),
             ListRules(glicko=False, inactive_after_months=12)),
}


@st.composite
def events(draw, first_id: int, first_day: int, count: int):
    """`count` events of one to three days from `first_day` (days after START) on, each of a few games
    between five coaches, most reported by their end, some late (KNSB rates those in a later list);
    each a later day than the one before."""
    games: list[GameRecord] = []
    day = first_day
    for event_id in range(first_id, first_id + count):
        length = draw(st.integers(0, 2))
        end = (START + dt.timedelta(days=day + length)).date()
        for _ in range(draw(st.integers(1, 5))):
            home, away = draw(st.lists(st.integers(1, 5), min_size=2, max_size=2, unique=True))
            # midnight too: a game at a month's first minute belongs to that month's chunk
            played = START + dt.timedelta(days=day + draw(st.integers(0, length)), hours=draw(st.sampled_from([0, 9, 13])))
            games.append(GameRecord(
                game_id=first_id * 100 + len(games), played_at=played, event_id=event_id, variant=VARIANT,
                home=home, home_race=draw(st.sampled_from(["orc", "elf"])), away=away, away_race="human",
                home_score=draw(st.sampled_from([0.0, 0.5, 1.0])), event_coaches=5, event_end=end,
                reported_on=draw(st.sampled_from([None, end, end, end + dt.timedelta(days=draw(st.integers(1, 60)))])),
                sanctioned=draw(st.sampled_from([True, True, True, False])),
            ))
        day += length + draw(st.integers(1, 40))
    return sorted(games, key=lambda g: (g.played_at, g.game_id))


def chunk_figures(chunks) -> list:
    return [(c.start, c.end, list(c.rows), c.summaries, list(c.entries), c.games, c.rated, c.ranked, c.starters, c.is_list)
            for c in chunks]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(ENGINES)), st.data())
def test_games_after_the_last_rated_one_go_on_from_the_tail_to_what_the_whole_record_gives(name, data):
    module, config, rules = ENGINES[name]
    before = data.draw(events(1, 0, data.draw(st.integers(1, 4))), label="before")
    last_day = before[-1].played_at.date() - START.date()
    # the first run's today: mostly after the last game, sometimes before games dated ahead
    first_today = before[-1].played_at.date() + dt.timedelta(days=data.draw(st.integers(-10, 50)))
    # as the record stood then: a result reported since would have asked for a run from its own day
    before = [replace(g, reported_on=min(g.reported_on, first_today)) if g.reported_on else g for g in before]
    # the games the second run is for: all on later days, on time (a late one goes to a later list)
    after = [replace(g, reported_on=g.event_end) for g in data.draw(events(50, last_day.days + 1, data.draw(st.integers(0, 2))))]
    # the second run's today: its games rated, and maybe some months later
    today = max([first_today, *(g.played_at.date() for g in after)]) + dt.timedelta(days=data.draw(st.integers(0, 80)))

    def run(games, ledger, *, start, until, **options):
        return list(replay(module, config, games, ledger, start=start, until=until, rules=rules, per_race=config.per_race,
                           complete=lambda day: day.month % 2 == 0, **options))

    tails: list[Tail] = []
    first = Ledger()
    run(before, first, start=None, until=first_today, keep_tail=tails.append)
    if first.first is None:  # no game counts yet (no lists: the first that counts sets their start): no tail
        assert tails == []
        return
    if not tails:
        # a game dated after today given (those of unsanctioned events wait for their day), or
        # (KNSB) a late result for a list after today still to come
        assert before[-1].played_at.date() > first_today or module is knsb
        return
    (tail,) = tails
    given_last = max((g.played_at, g.game_id) for g in before if g.sanctioned or g.played_at.date() <= first_today)
    assert tail.last == given_last
    assert tail.start == tail.last[0].date().replace(day=1)
    ledger, resumed = tail.resumed()
    again: list[Tail] = []
    # the games the record holds after it
    following = [g for g in before + after if (g.played_at, g.game_id) > tail.last]
    went_on = run(following, ledger, start=tail.start, until=today, resumed=resumed, keep_tail=again.append)
    whole = [chunk for chunk in run(before + after, Ledger(), start=None, until=today) if chunk.start >= tail.start]
    assert chunk_figures(went_on) == chunk_figures(whole)
    # the tail it leaves is the one a replay of the whole record leaves
    expected: list[Tail] = []
    run(before + after, Ledger(), start=None, until=today, keep_tail=expected.append)
    assert [(t.start, t.last) for t in again] == [(t.start, t.last) for t in expected]
    assert pickle.loads(again[0].state)[0].engine_state == pickle.loads(expected[0].state)[0].engine_state


# --- runs: the tail stored (ReplayTail), and a run that goes on from it -------------------------

SYSTEMS = ("elo", "glicko", "global-glicko", "knsb")


def run(slug, since=None, today=TODAY):
    system = RatingSystem.objects.get(slug=slug)
    queued = services.recalculation_request(system=system, trigger=Trigger.MANUAL, since=since, enqueue=False)
    return services.recalculation_execute(run_id=queued.pk, today=today)


def stored(slug) -> tuple:
    """Every stored figure of a system, column by column (lists by date, checkpoints by date and games)."""
    system = RatingSystem.objects.get(slug=slug)
    entry_fields = ["rating_list__date", *storage.ENTRY_FIELDS[1:]]
    return (
        sorted(CalculationRow.objects.filter(system=system).values_list(*storage.ROW_FIELDS), key=repr),
        sorted(PeriodSummary.objects.filter(system=system).values_list(*storage.SUMMARY_FIELDS), key=repr),
        sorted(RatingListEntry.objects.filter(system=system).values_list(*entry_fields), key=repr),
        sorted(CurrentRating.objects.filter(system=system).values_list(*storage.CURRENT_FIELDS), key=repr),
        sorted(RatingList.objects.filter(system=system).values_list("date", "rated", "ranked", "starters", "complete")),
        sorted(EngineCheckpoint.objects.filter(system=system).values_list("as_of", "games")),
        list(ReplayTail.objects.filter(system=system).values_list("start", "last_played", "last_game")),
    )


def went_on(finished) -> bool:
    return "from the stored state at its last rated game" in finished.log


ROUND = [(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1)), (6, 7, (1, 0))]


@pytest.mark.django_db
@pytest.mark.parametrize("slug", SYSTEMS)
def test_events_at_the_end_go_on_from_the_last_rated_game_and_store_what_a_full_run_stores(slug):
    coaches = CoachFactory.create_batch(8)
    add_event(coaches, dt.date(2024, 7, 13), [ROUND, [(0, 2, (1, 0)), (1, 3, (0, 0)), (4, 6, (2, 1)), (5, 7, (0, 2))]])
    add_event(coaches, dt.date(2024, 8, 10), [ROUND])
    run(slug)
    last = Game.objects.order_by("played_at", "id").last()
    assert ReplayTail.objects.filter(system__slug=slug).values_list("start", "last_game").get() == (dt.date(2024, 8, 1), last.pk)
    # an event on the last day of August: its list of 1 September drawn again
    add_event(coaches, dt.date(2024, 8, 31), [[(0, 1, (0, 1)), (2, 4, (1, 1))]])
    first = run(slug, since=dt.date(2024, 8, 31))
    assert went_on(first) and first.games_processed == 2 and first.recomputed_from == dt.date(2024, 8, 1)
    # another in September, after the list of 1 September the first drew: from its checkpoint,
    # which the tail (from 1 August) would replay more than
    add_event(coaches, dt.date(2024, 9, 7), [[(3, 5, (2, 1))]])
    second = run(slug, since=dt.date(2024, 9, 7))
    assert not went_on(second) and second.recomputed_from == dt.date(2024, 9, 1)
    # and one more, rated a month later: from the tail the second left, on 7 September; the list
    # of 1 October drawn for the first time
    add_event(coaches, dt.date(2024, 9, 14), [[(3, 5, (2, 1)), (6, 7, (0, 0))]])
    later = dt.date(2024, 10, 20)
    third = run(slug, since=dt.date(2024, 9, 14), today=later)
    assert went_on(third) and third.games_processed == 2 and third.recomputed_from == dt.date(2024, 9, 1)
    assert RatingList.objects.filter(system__slug=slug, date=dt.date(2024, 10, 1)).exists()
    after = stored(slug)
    assert verify_system(RatingSystem.objects.get(slug=slug), today=later).count == 0
    full = run(slug, today=later)
    assert not went_on(full) and full.recomputed_from is None
    assert stored(slug) == after


@pytest.mark.django_db
def test_games_on_the_last_rated_day_or_a_late_knsb_result_replay_the_month_from_its_checkpoint_and_others_go_on():
    coaches = CoachFactory.create_batch(8)
    add_event(coaches, dt.date(2024, 7, 13), [ROUND])
    add_event(coaches, dt.date(2024, 8, 10), [ROUND])
    for slug in SYSTEMS:
        run(slug)
    # the same day as the last rated game: a game of that day may be before it
    add_event(coaches, dt.date(2024, 8, 10), [[(0, 3, (1, 0))]])
    for slug in SYSTEMS:
        finished = run(slug, since=dt.date(2024, 8, 10))
        assert not went_on(finished) and f"{slug}: from 2024-08-01 (asked: 2024-08-10)" in finished.log
    # results entered after their event's end, in its month: on time for every method
    entered = add_event(coaches, dt.date(2024, 8, 17), [[(2, 5, (1, 1))]])
    Game.objects.filter(event=entered).update(reported_on=dt.date(2024, 8, 20))
    assert all(went_on(run(slug, since=dt.date(2024, 8, 17))) for slug in SYSTEMS)
    # results reported a month after their event: KNSB rates them in a later list than August's
    late = add_event(coaches, dt.date(2024, 8, 24), [[(1, 2, (0, 2))]])
    Game.objects.filter(event=late).update(reported_on=dt.date(2024, 9, 2))
    outcomes = {slug: run(slug, since=dt.date(2024, 8, 24)) for slug in SYSTEMS}
    assert {slug for slug, finished in outcomes.items() if went_on(finished)} == {"elo", "glicko", "global-glicko"}
    assert "knsb: from 2024-08-01 (asked: 2024-08-24)" in outcomes["knsb"].log
    for slug in SYSTEMS:
        assert verify_system(RatingSystem.objects.get(slug=slug), today=TODAY).count == 0


@pytest.mark.django_db
@pytest.mark.parametrize("change", ["a game added", "an event rejected", "a score changed"])
def test_a_month_whose_record_changed_without_a_run_replays_from_its_checkpoint(change):
    """A change that asked for no run (an import), or whose run failed or was cancelled, is not in
    the tail: the next run replays the month from its checkpoint, and stores what a full run stores."""
    coaches = CoachFactory.create_batch(8)
    add_event(coaches, dt.date(2024, 8, 3), [ROUND])
    add_event(coaches, dt.date(2024, 8, 10), [ROUND])
    for slug in SYSTEMS:
        run(slug)
    if change == "a game added":
        add_event(coaches, dt.date(2024, 8, 4), [[(0, 7, (3, 0))]])
    elif change == "an event rejected":
        Event.objects.filter(start_date=dt.date(2024, 8, 3)).update(status="rejected")
    else:
        Game.objects.filter(event__start_date=dt.date(2024, 8, 3)).update(home_touchdowns=5)
    add_event(coaches, dt.date(2024, 8, 31), [[(0, 1, (0, 1))]])
    for slug in SYSTEMS:
        finished = run(slug, since=dt.date(2024, 8, 31))
        assert not went_on(finished) and "the games of its last rated month changed since its last run" in finished.log
        after = stored(slug)
        run(slug)
        assert stored(slug) == after


@pytest.mark.django_db
def test_a_run_whose_replay_leaves_no_tail_deletes_the_one_before():
    coaches = CoachFactory.create_batch(8)
    add_event(coaches, dt.date(2024, 8, 10), [ROUND])
    run("elo")
    assert ReplayTail.objects.filter(system__slug="elo").exists()
    # a game dated after today is given to the engine: nothing after it may be taken for new
    add_event(coaches, dt.date(2024, 9, 20), [[(0, 1, (1, 0))]])
    run("elo", since=dt.date(2024, 9, 20))
    assert not ReplayTail.objects.filter(system__slug="elo").exists()
    add_event(coaches, dt.date(2024, 9, 21), [[(2, 3, (1, 0))]])
    assert not went_on(run("elo", since=dt.date(2024, 9, 21)))



@pytest.mark.django_db
def test_verify_ratings_reports_a_tail_that_is_not_the_replays():
    coaches = CoachFactory.create_batch(8)
    add_event(coaches, dt.date(2024, 7, 13), [ROUND])
    add_event(coaches, dt.date(2024, 8, 10), [ROUND, ROUND])
    run("elo")
    elo = RatingSystem.objects.get(slug="elo")
    assert verify_system(elo, today=TODAY).count == 0
    made = bytes(ReplayTail.objects.get(system=elo).state)

    def tampered(change) -> list[str]:
        ledger, resumed = pickle.loads(lz4.frame.decompress(made))
        change(ledger, resumed)
        ReplayTail.objects.filter(system=elo).update(state=lz4.frame.compress(pickle.dumps((ledger, resumed))))
        found = verify_system(elo, today=TODAY)
        assert found.count == 1
        return found.first

    def rating(ledger, resumed):
        ledger.engine_state.ratings[next(iter(ledger.engine_state.ratings))] += 0.01

    def board(ledger, resumed):
        ledger.board.value[0] += 1

    def rows(ledger, resumed):
        resumed.rows[-1] = resumed.rows[-1][:-1]

    assert tampered(rating)[0].startswith("replay tail: the engine's state at game")
    assert tampered(board)[0].startswith("replay tail: the ratings as of its month's start at game")
    assert tampered(rows)[0].startswith("replay tail: its month's rows so far at game")
    ReplayTail.objects.filter(system=elo).update(state=made, last_game=1)
    found = verify_system(elo, today=TODAY)
    assert found.count == 1 and found.first[0].startswith("replay tail: stored at game 1 (")
    ReplayTail.objects.filter(system=elo).delete()
    found = verify_system(elo, today=TODAY)
    assert found.count == 1 and found.first[0].startswith("replay tail: none stored, where the replay leaves one at game")
