"""The month-by-month replay's lists: ranks from the board's columns, complete lists and movements."""
import datetime as dt
import pickle
from dataclasses import replace

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rating_engines import knsb, methods, naf_elo
from rating_engines.common import CalculationRow, Correction, GameRecord, PeriodSummary, Reason, RecordColumns
from rating_engines.naf_elo import compiled
from rating_engines.protocol import LateResults
from ratings.replay import Board, Ledger, ListRules, apply_chunk, next_month, replay
from tests.engines.test_common import as_columns
from tests.engines.test_naf_elo_fast_path import DAY as ELO_DAY
from tests.engines.test_naf_elo_fast_path import configs as elo_configs
from tests.engines.test_naf_elo_fast_path import histories as elo_histories

RACES = ["orc", "human", None]
VARIANTS = ["blood-bowl-2020", "blood-bowl-2016"]


def naive_ranks(rows, *, per_race: bool) -> tuple[dict, dict]:
    """Rank active keys by value (best first) within a group; equal values share the first's rank."""
    ordered = sorted((r for r in rows if r[2]), key=lambda r: (-r[1], r[0][0]))
    out = []
    for group_of in ((lambda key: (key[2], key[1])) if per_race else (lambda key: key[2]), lambda key: key[2]):
        ranks, seen = {}, {}
        for key, value, _ in ordered:
            count, last_value, last_rank = seen.get(group_of(key), (0, None, 0))
            rank = last_rank if value == last_value else count + 1
            seen[group_of(key)] = (count + 1, value, rank)
            ranks[key] = rank
        out.append(ranks)
    return out[0], out[1]


keys = st.tuples(st.integers(1, 40), st.sampled_from(RACES), st.sampled_from(VARIANTS))


@given(
    st.dictionaries(keys, st.tuples(st.sampled_from([150.0, 151.5, 149.25, 160.0, 140.0]), st.booleans()), max_size=60),
    st.booleans(),
)
def test_board_ranks_match_a_plain_ranking_ties_included(figures, per_race):
    board = Board()
    board.add(list(figures))
    values = np.array([v for v, _ in figures.values()], dtype=float)
    active = np.array([a for _, a in figures.values()], dtype=bool)
    rank, overall = board.ranks(values, active, per_race=per_race)
    want_rank, want_overall = naive_ranks([(k, v, a) for k, (v, a) in figures.items()], per_race=per_race)
    assert {k: r for k, r in zip(figures, rank.tolist()) if r} == want_rank
    assert {k: r for k, r in zip(figures, overall.tolist()) if r} == want_overall


def game(game_id, day, home, away, score):
    return GameRecord(
        game_id=game_id, played_at=dt.datetime.combine(day, dt.time(10)), event_id=game_id, variant=VARIANTS[0],
        home=home, home_race="orc", away=away, away_race="human", home_score=score, event_coaches=8,
    )


def lists(games, until, complete):
    config = naf_elo.EloConfig()
    rules = ListRules(glicko=False, inactive_after_months=2)
    return list(replay(naf_elo, config, games, Ledger(), start=None, until=until, rules=rules, per_race=True,
                       complete=complete))


def test_months_without_a_complete_list_keep_only_their_movements():
    games = [game(1, dt.date(2024, 1, 10), 1, 2, 1.0), game(2, dt.date(2024, 2, 10), 3, 4, 0.0)]
    chunks = lists(games, dt.date(2024, 5, 15), complete=lambda day: day.month == 3)
    by_date = {c.end: c for c in chunks if c.is_list}
    # February: 1 and 2 still ranked but did not play, so only 3 and 4 (starters) are written
    february = by_date[dt.date(2024, 3, 1)]
    assert february.complete and {e.key[0] for e in february.entries} == {1, 2, 3, 4}
    march = by_date[dt.date(2024, 4, 1)]
    assert not march.complete
    # 1 and 2 last played in January: their rank lapses on the April list, which says so
    assert [(e.key[0], e.rank, e.games_played) for e in march.entries] == [(1, None, 0), (2, None, 0)]
    assert (march.rated, march.ranked, march.starters) == (2, 2, 0)
    january = by_date[dt.date(2024, 2, 1)]
    assert [(e.key[0], e.starter, e.change) for e in january.entries] == [(1, True, None), (2, True, None)]
    assert (january.rated, january.ranked, january.starters) == (2, 2, 2)


def entry_arrays(entries):
    return {"keys": list(entries.keys), **entries.columns()}  # None for NaN


def test_a_list_drawn_both_ways_holds_what_each_way_alone_draws():
    """The verification's replay draws a list both ways where a publication was drawn otherwise than
    the stored list: the other way's entries are those a replay drawing it that way gives, and the
    board moves on as it does either way (the later lists are the same)."""
    games = [game(1, dt.date(2024, 1, 10), 1, 2, 1.0), game(2, dt.date(2024, 2, 10), 3, 4, 0.0),
             game(3, dt.date(2024, 4, 10), 1, 3, 0.5)]
    until, config = dt.date(2024, 6, 15), naf_elo.EloConfig()
    rules = ListRules(glicko=False, inactive_after_months=2)

    def chunks(complete, both=lambda day: False):
        return list(replay(naf_elo, config, games, Ledger(), start=None, until=until, rules=rules, per_race=True,
                           complete=complete, both=both))

    odd = lambda day: day.month % 2 == 1  # noqa: E731
    drawn = chunks(odd, both=lambda day: day.month > 2)
    complete, movements = chunks(lambda day: True), chunks(lambda day: False)
    assert [c.end for c in drawn] == [c.end for c in complete] == [c.end for c in movements]
    for chunk, whole, moved in zip(drawn, complete, movements):
        assert entry_arrays(chunk.entries) == entry_arrays(whole.entries if chunk.complete else moved.entries)
        assert (chunk.rated, chunk.ranked, chunk.starters) == (whole.rated, whole.ranked, whole.starters)
        if chunk.is_list and chunk.end.month > 2:
            assert chunk.other is not None
            assert entry_arrays(chunk.other) == entry_arrays(moved.entries if chunk.complete else whole.entries)
        else:
            assert chunk.other is None
    # the two ways differ: a complete list holds the ranked keys that did not play
    assert any({k for k, *_ in c.other.keys} != {k for k, *_ in c.entries.keys} for c in drawn if c.other is not None)


def test_the_current_ratings_carry_the_record_and_the_change_since_the_last_full_month():
    games = [game(1, dt.date(2024, 1, 10), 1, 2, 1.0), game(2, dt.date(2024, 2, 10), 1, 3, 1.0),
             game(3, dt.date(2024, 3, 5), 1, 2, 0.5)]
    chunks = lists(games, dt.date(2024, 3, 20), complete=lambda day: True)
    # the last full month is February: the list dated its first day saw game 1 only
    february = {e.key[0]: e for c in chunks if c.end == dt.date(2024, 2, 1) for e in c.entries}
    assert february[1].value > 150.0 > february[2].value
    current = {e.key[0]: e for e in chunks[-1].entries}
    assert (current[1].wins, current[1].draws, current[1].losses) == (2, 1, 0)
    assert current[1].last_played == dt.date(2024, 3, 5)
    assert current[1].value_change == current[1].value - february[1].value
    assert current[2].value_change == current[2].value - february[2].value
    assert current[3].value_change is None  # not rated on the February list
    assert (current[1].rank, current[1].rank_change) == (1, 0)


def event_game(game_id, when, event_id, event_end, home, away, score):
    return GameRecord(
        game_id=game_id, played_at=when, event_id=event_id, variant=VARIANTS[0], home=home, home_race="orc",
        away=away, away_race="human", home_score=score, event_coaches=20, event_end=event_end,
    )


def test_an_elo_rating_is_its_value_after_its_last_game_whatever_event_that_game_belongs_to():
    # A league (event 1, May to July) overlaps a weekend event (event 2): coach 1's last two games
    # are event 2's, and event 1 ends (and is summarised) after them.
    league_end, weekend_end = dt.date(2022, 7, 31), dt.date(2022, 6, 3)
    games = [
        event_game(1, dt.datetime(2022, 5, 20, 23), 2, weekend_end, 1, 2, 0.0),
        event_game(2, dt.datetime(2022, 5, 24, 22), 1, league_end, 1, 3, 0.0),
        event_game(3, dt.datetime(2022, 5, 30, 21), 2, weekend_end, 1, 4, 1.0),
        event_game(4, dt.datetime(2022, 6, 3, 19), 2, weekend_end, 1, 5, 1.0),
        event_game(5, dt.datetime(2022, 6, 20, 19), 1, league_end, 6, 7, 1.0),  # the league goes on without coach 1
    ]
    k = naf_elo.k_value(20, major=False)
    rating = 150.0
    for opponent_score in (1.0, 1.0, 0.0, 0.0):  # coach 1's results: L, L, W, W against 150-rated debutants
        rating = naf_elo.update(rating, 150.0, 1.0 - opponent_score, k)
    chunks = lists(games, dt.date(2022, 8, 15), complete=lambda day: True)
    key = (1, "orc", VARIANTS[0])
    current = {e.key: e for e in chunks[-1].entries}
    assert current[key].value == rating
    on_list = {c.end: {e.key: e.value for e in c.entries} for c in chunks if c.is_list}
    assert on_list[dt.date(2022, 7, 1)][key] == rating  # June's list: every game played before 1 July
    assert on_list[dt.date(2022, 6, 1)][key] == naf_elo.update(
        naf_elo.update(naf_elo.update(150.0, 150.0, 0.0, k), 150.0, 0.0, k), 150.0, 1.0, k)


# KNSB: late results and corrections go forward, so a run from a checkpoint gives what a run from scratch gives

KNSB_START = dt.date(2024, 1, 1)


@st.composite
def reported_games(draw):
    """Games of five coaches (1-3 on an imported list, 4-5 rated from their depot), each with its
    event's end, the day it was first reported (None: history without a date), perhaps a later
    correction, and whether its event is sanctioned (an unsanctioned game counts for no one, its
    rows footnoted, and shows in the games played)."""
    games = []
    for game_id in range(1, draw(st.integers(4, 14)) + 1):
        played = KNSB_START + dt.timedelta(days=draw(st.integers(0, 150)))
        home, away = draw(st.sampled_from([(h, a) for h in range(1, 6) for a in range(1, 6) if h != a]))
        end = played + dt.timedelta(days=draw(st.integers(0, 40)))
        reported = draw(st.one_of(st.none(), st.just(end), st.builds(lambda d, end=end: end + dt.timedelta(days=d), st.integers(1, 90))))
        score = draw(st.sampled_from([0.0, 0.5, 1.0]))
        correction = None
        if reported is not None and draw(st.booleans()):
            correction = (reported + dt.timedelta(days=draw(st.integers(0, 60))), draw(st.sampled_from([0.0, 0.5, 1.0])))
        sanctioned = draw(st.sampled_from([True, True, True, False]))
        games.append((game_id, played, end, reported, home, away, score, correction, sanctioned))
    return games


def known_at(games, day):
    """The records a run on `day` reads: games reported by then, each with its corrections made by then."""
    records = []
    for game_id, played, end, reported, home, away, score, correction, sanctioned in games:
        if reported is not None and reported > day:
            continue
        record = GameRecord(
            game_id=game_id, played_at=dt.datetime.combine(played, dt.time(10)) + dt.timedelta(minutes=game_id),
            event_id=game_id, variant=VARIANTS[0], home=home, home_race="orc", away=away, away_race="human",
            home_score=score, event_end=end, reported_on=reported, sanctioned=sanctioned,
        )
        if correction is not None and correction[0] <= day:
            record.home_score = correction[1]
            record.corrections = (Correction(correction[0], score, "played", reported),)
        records.append(record)
    return sorted(records, key=lambda g: (g.played_at, g.game_id))


def last_report(record):
    return record.corrections[-1].corrected_on if record.corrections else record.reported_on


KNSB_CONFIG = knsb.KnsbConfig(initial_list=((1, 1700, 40), (2, 1500, 100), (3, 1600, 8)), depot_min_games=2)
KNSB_RULES = ListRules(glicko=False, inactive_after_months=12)


def knsb_chunks(games, ledger, *, start, until):
    return [(c.end, c.rows, c.summaries, list(c.entries)) for c in replay(
        knsb, KNSB_CONFIG, games, ledger, start=start, until=until, rules=KNSB_RULES, per_race=False)]


# The first example hypothesis found of a crash: every game unsanctioned (no lists), one corrected
# after its month; the replay gave the correction ahead of the game it corrects.
NO_LIST_CORRECTED = [
    (1, dt.date(2024, 1, 1), dt.date(2024, 1, 1), None, 1, 2, 0.0, None, False),
    (2, dt.date(2024, 1, 1), dt.date(2024, 1, 1), dt.date(2024, 1, 1), 1, 2, 0.0, (dt.date(2024, 2, 1), 0.5), False),
    (3, dt.date(2024, 1, 1), dt.date(2024, 2, 2), dt.date(2024, 2, 2), 1, 2, 0.0, None, True),
    (4, dt.date(2024, 1, 1), dt.date(2024, 1, 1), None, 1, 2, 0.0, None, False),
]


@example(NO_LIST_CORRECTED, 31, 1)
@given(reported_games(), st.integers(0, 200), st.integers(1, 120))
def test_a_knsb_run_from_a_checkpoint_gives_the_lists_of_a_run_from_scratch(games, first_run, later):
    """As the site runs: a first run keeps a checkpoint at every list; a later one, for the results
    reported or corrected since, starts from the latest checkpoint on or before the first day those
    were played (the games it reads: played since, or reported since) and gives what a run from scratch gives."""
    t1 = KNSB_START + dt.timedelta(days=first_run)
    t2 = t1 + dt.timedelta(days=later)
    checkpoints = {}
    ledger = Ledger()
    for chunk in replay(knsb, KNSB_CONFIG, known_at(games, t1), ledger, start=None, until=t1, rules=KNSB_RULES,
                        per_race=False):
        if chunk.is_list:
            checkpoints[chunk.end] = pickle.dumps(ledger)
    before = {(g.game_id, g.home_score) for g in known_at(games, t1)}
    now = known_at(games, t2)
    changed = [g.played_at.date() for g in now if (g.game_id, g.home_score) not in before]
    since = min(changed, default=t2)
    start = max((day for day in checkpoints if day <= since), default=None)
    if start is None:
        return  # no checkpoint to start from: the run is one from scratch
    read = [g for g in now if g.played_at.date() >= start or (last_report(g) is not None and last_report(g) >= start)]
    resumed = knsb_chunks(read, pickle.loads(checkpoints[start]), start=start, until=t2)
    scratch = [chunk for chunk in knsb_chunks(now, Ledger(), start=None, until=t2) if chunk[0] > start]
    assert resumed == scratch


def test_a_knsb_replay_without_lists_rates_a_correction_after_the_game_it_corrects():
    """No game counts yet (no lists): the games are replayed for their footnoted rows, and one
    corrected after its month goes forward as it would with lists drawn. Its rows are those of a
    replay where a game reported a day later counts (and lists are drawn), less that game's."""
    day = dt.date(2024, 2, 1)
    alone = knsb_chunks(known_at(NO_LIST_CORRECTED, day), Ledger(), start=None, until=day)
    assert [end for end, *_ in alone] == [day]  # no list: one chunk, up to the run's day
    rows = [(r.game_id, r.side, r.w, r.counted, r.reason) for r in alone[0][1]]
    assert rows == [(game, side, w, False, Reason.EVENT_NOT_SANCTIONED)
                    for game in (1, 2, 4) for side, w in (("home", 0.0), ("away", 1.0))]
    with_lists = knsb_chunks(known_at(NO_LIST_CORRECTED, day + dt.timedelta(days=1)), Ledger(), start=None,
                             until=day + dt.timedelta(days=1))
    assert alone[0][1] == [r for end, rows, *_ in with_lists for r in rows if r.game_id != 3]
    # on 2 March, past the list that rates the correction: its rows too, as with lists
    day = dt.date(2024, 3, 2)
    unsanctioned = [g for g in NO_LIST_CORRECTED if g[0] != 3]
    alone = knsb_chunks(known_at(unsanctioned, day), Ledger(), start=None, until=day)
    with_lists = knsb_chunks(known_at(NO_LIST_CORRECTED, day), Ledger(), start=None, until=day)
    assert [end for end, *_ in alone] == [day] and [end for end, *_ in with_lists] == [dt.date(2024, 2, 1), dt.date(2024, 3, 1), day]
    assert ("2024-03-01", 0.5) in {(r.period, r.w) for r in alone[0][1] if r.game_id == 2 and r.side == "home"}
    assert alone[0][1] == [r for end, rows, *_ in with_lists for r in rows if r.game_id != 3]


def unranked_game(game_id, played, reported=None, ranked=False, corrections=()):
    """A sanctioned game of coaches 1 and 2 (both on the imported list), of an unranked race unless `ranked`."""
    return GameRecord(
        game_id=game_id, played_at=dt.datetime.combine(played, dt.time(10)), event_id=game_id,
        variant=VARIANTS[0], home=1, home_race="orc", away=2, away_race="human", home_score=1.0,
        event_end=played, reported_on=reported, home_race_ranked=ranked, corrections=corrections,
    )


def home_periods(chunks):
    return [(r.game_id, r.period, r.list_date) for _, rows, *_ in chunks for r in rows if r.side == "home"]


@given(reported_games(), st.integers(0, 250))
def test_a_knsb_replay_where_no_game_counts_footnotes_every_game(games, day):
    """Every event unsanctioned: no list, one chunk up to the run's day, and every row it gives (late
    results and corrections among them) footnoted, never counted."""
    games = [(*game[:-1], False) for game in games]
    until = KNSB_START + dt.timedelta(days=day)
    known = known_at(games, until)
    chunks = knsb_chunks(known, Ledger(), start=None, until=until)
    played = [g for g in known if g.played_at.date() <= until]  # those played after it wait for a later run
    assert [end for end, *_ in chunks] == ([until] if played else [])
    rows = [r for _, chunk_rows, *_ in chunks for r in chunk_rows]
    assert {(r.counted, r.reason) for r in rows} <= {(False, Reason.EVENT_NOT_SANCTIONED)}
    assert {r.game_id for r in rows} <= {g.game_id for g in played}


def test_a_knsb_late_result_played_before_the_lists_start_follows_the_games_played_before_its_list():
    """The first chunk holds the sanctioned games played before the first counted one (here of an
    unranked race): a late result among them goes into its list's month, after the games played
    before that month, as a replay with lists from their month would give it."""
    game = unranked_game
    on_time, late = game(1, dt.date(2024, 1, 5)), game(2, dt.date(2024, 1, 10), reported=dt.date(2024, 2, 15))
    counted = game(3, dt.date(2024, 3, 3), ranked=True)
    chunks = knsb_chunks([on_time, late, counted], Ledger(), start=None, until=dt.date(2024, 4, 10))
    assert [end for end, *_ in chunks] == [dt.date(2024, 4, 1), dt.date(2024, 4, 10)]
    rows = chunks[0][1]
    assert [(r.game_id, r.counted) for r in rows if r.side == "home"] == [(1, False), (2, False), (3, True)]
    # the late one in the list after the month it was reported in, with the ratings of its month of play
    assert [(r.game_id, r.period, r.list_date) for r in rows if r.side == "home"] == [
        (1, "2024-02-01", dt.date(2024, 1, 1)), (2, "2024-03-01", dt.date(2024, 1, 1)), (3, "2024-04-01", dt.date(2024, 3, 1)),
    ]


def test_knsb_late_results_of_two_lists_in_the_first_chunk_each_wait_for_their_own():
    """Two late results before the lists start, for the lists of March and April, and a result
    reported late then corrected: each goes into its own list (the correction's take-back and new
    result into the list after the month of the correction), as with lists drawn from January."""
    on_time = unranked_game(1, dt.date(2024, 1, 2))
    late = unranked_game(2, dt.date(2024, 1, 5), reported=dt.date(2024, 2, 3))
    later = unranked_game(3, dt.date(2024, 2, 5), reported=dt.date(2024, 3, 3))
    corrected = replace(unranked_game(4, dt.date(2024, 1, 10), reported=dt.date(2024, 3, 10)), home_score=0.5,
                        corrections=(Correction(dt.date(2024, 3, 10), 1.0, "played", dt.date(2024, 2, 15)),))
    counted = unranked_game(5, dt.date(2024, 5, 3), ranked=True)
    games = sorted([on_time, late, later, corrected, counted], key=lambda g: (g.played_at, g.game_id))
    chunks = knsb_chunks(games, Ledger(), start=None, until=dt.date(2024, 6, 10))
    jan, feb = dt.date(2024, 1, 1), dt.date(2024, 2, 1)
    assert sorted(home_periods(chunks)) == [
        (1, "2024-02-01", jan), (2, "2024-03-01", jan), (3, "2024-04-01", feb),
        (4, "2024-03-01", jan), (4, "2024-04-01", jan), (5, "2024-06-01", dt.date(2024, 5, 1)),
    ]
    # the same rows as a replay whose lists start in January (a counted game of coaches 1 and 3 on 1 January)
    first = replace(unranked_game(9, dt.date(2024, 1, 1), ranked=True), away=3, played_at=dt.datetime(2024, 1, 1, 9))
    with_lists = knsb_chunks([first, *games], Ledger(), start=None, until=dt.date(2024, 6, 10))
    assert sorted(home_periods(with_lists)) == sorted([(9, "2024-02-01", jan), *home_periods(chunks)])


def stretched(games: list[GameRecord], weeks_a_day: int) -> list[GameRecord]:
    """The games with every day since the first stretched to `weeks_a_day` weeks: a few months of play."""
    def later(day):
        return day + (day - ELO_DAY.date()) * (7 * weeks_a_day - 1)
    out = []
    for g in games:
        played = dt.datetime.combine(later(g.played_at.date()), g.played_at.time())
        out.append(replace(g, played_at=played, event_end=g.event_end and later(g.event_end)))
    return sorted(out, key=lambda g: (g.played_at, g.game_id))


def chunk_figures(chunks) -> list:
    return [(c.start, c.end, c.rows, c.summaries, list(c.entries), c.games, c.rated, c.ranked, c.starters)
            for c in chunks]


@settings(max_examples=60, deadline=None)
@given(elo_histories(), elo_configs, st.integers(1, 3), st.integers(0, 40))
def test_a_long_replay_runs_naf_elos_compiled_history_to_the_same_chunks(games, config, weeks, checkpoint_at):
    """A replay of COMPILED_FROM_GAMES games or more runs the compiled history, month by month from
    the ledger's state: every chunk (rows, summaries, list entries, counts) is the Python history's,
    from scratch and from a checkpoint taken after any month."""
    games = stretched(games, weeks)
    until = next_month(games[-1].played_at.date()) + dt.timedelta(days=3)
    rules = ListRules(glicko=False, inactive_after_months=2)
    long = methods.for_replay(naf_elo, methods.COMPILED_FROM_GAMES)
    assert long is not naf_elo and long.run_history is compiled.run_history

    def run(module, ledger, start, games):
        return list(replay(module, config, games, ledger, start=start, until=until, rules=rules,
                           per_race=config.per_race, complete=lambda day: day.month % 2 == 0))

    theirs, ours = Ledger(), Ledger()
    expected = run(naf_elo, theirs, None, games)
    assert chunk_figures(run(long, ours, None, games)) == chunk_figures(expected)
    assert ours.engine_state == theirs.engine_state and ours.games == theirs.games
    # from the ledger as it stood after some month's list (a checkpoint), the months after it
    lists = [c.end for c in expected if c.is_list]
    if lists:
        start = lists[checkpoint_at % len(lists)]
        ledger = Ledger()
        for chunk in replay(naf_elo, config, games, ledger, start=None, until=until, rules=rules,
                            per_race=config.per_race, complete=lambda day: day.month % 2 == 0):
            if chunk.end == start:
                checkpoint = pickle.dumps(ledger)
        later = [g for g in games if g.played_at.date() >= start]
        resumed = run(long, pickle.loads(checkpoint), start, later)
        assert chunk_figures(resumed) == chunk_figures(run(naf_elo, pickle.loads(checkpoint), start, later))
        assert chunk_figures(resumed) == chunk_figures([c for c in expected if c.start >= start])


def test_a_short_replay_keeps_the_python_history_and_other_methods_theirs():
    from rating_engines import glicko

    assert methods.for_replay(naf_elo, methods.COMPILED_FROM_GAMES - 1) is naf_elo
    for module in (glicko, knsb):
        assert methods.for_replay(module, 10 * methods.COMPILED_FROM_GAMES) is module
    long = methods.for_replay(naf_elo, methods.COMPILED_FROM_GAMES)
    assert (long.close_periods, long.current_ratings) == (naf_elo.close_periods, naf_elo.current_ratings)
    assert not isinstance(long, LateResults)


def test_the_recalculation_maps_each_method_to_its_engine_module():
    from rating_engines import glicko
    from ratings.configuration import engine
    from ratings.models import Method

    assert engine(Method.NAF_ELO) == (naf_elo, naf_elo.EloConfig)
    assert engine(Method.GLICKO) == (glicko, glicko.GlickoConfig)
    assert engine(Method.KNSB) == (knsb, knsb.KnsbConfig)


def reference_record(rows, rated):
    """Each rated key's wins, draws, losses and last day, and every key's (counted, played), row by row."""
    played, record = {}, {}
    for row in rows:
        key = (row.coach, row.race, row.variant)
        reverses = row.reason == Reason.REVERSED
        if not reverses:
            counted, seen = played.get(key, (0, 0))
            played[key] = (counted + row.counted, seen + 1)
        if (row.counted or reverses) and key in rated:
            wins, draws, losses, last = record.get(key, (0, 0, 0, -1))
            sign = -1 if reverses else 1
            outcome = (sign if row.w == 1.0 else 0, sign if row.w not in (0.0, 1.0) else 0, sign if row.w == 0.0 else 0)
            record[key] = (wins + outcome[0], draws + outcome[1], losses + outcome[2], max(last, row.played_at.toordinal()))
    return played, record


calculation_rows = st.lists(st.builds(
    lambda coach, race, w, counted, reason, day: CalculationRow(
        1, "home", coach, race, VARIANTS[0], 2, "orc", dt.datetime(2024, 3, day, 10), "p", w, counted, reason),
    st.integers(1, 4), st.sampled_from(RACES), st.sampled_from([0.0, 0.5, 1.0]), st.booleans(),
    st.sampled_from([None, None, Reason.REVERSED, Reason.IN_DEPOT]), st.integers(1, 28),
), max_size=30)


@settings(max_examples=200, deadline=None)
@given(calculation_rows, st.sets(st.tuples(st.integers(1, 4), st.sampled_from(RACES))), st.booleans())
def test_a_chunks_rows_go_on_the_record_of_each_rated_key_as_counted_row_by_row(rows, rated, columns):
    """Wins, draws and losses of the rated keys' counted games (a result taken back comes off),
    their last day of play, and every key's games counted and played (a result taken back is neither)."""
    board = Board()
    summaries = [PeriodSummary(coach, race, VARIANTS[0], "p", dt.date(2024, 3, 1), None, 150.0) for coach, race in sorted(rated, key=str)]
    played = apply_chunk(board, as_columns(rows) if columns else rows, summaries)
    expected_played, expected_record = reference_record(rows, {(c, r, VARIANTS[0]) for c, r in rated})
    assert played == expected_played and list(played) == list(expected_played)
    record = {key: (int(board.wins[i]), int(board.draws[i]), int(board.losses[i]), int(board.last_played[i]))
              for key, i in board.index.items()}
    assert record == {key: expected_record.get(key, (0, 0, 0, -1)) for key in board.index}


def as_record_columns(records: list[GameRecord]) -> RecordColumns:
    """`records` as the history reader hands a long replay its games: columns, a record made when asked for."""
    # a race of each (slug, ranked) pair: generated games may rank a race on one side only
    races = sorted({(g.home_race, g.home_race_ranked) for g in records} |
                   {(g.away_race, g.away_race_ranked) for g in records if g.away_race is not None})
    race_id = {race: number for number, race in enumerate(races)}
    kinds, concessions = sorted({g.kind for g in records}), [None, "home", "away"]
    columns = {
        "game_id": [g.game_id for g in records], "event_id": [g.event_id for g in records], "home": [g.home for g in records],
        "home_race": [race_id[g.home_race, g.home_race_ranked] for g in records],
        "away": [-1 if g.away is None else g.away for g in records],
        "away_race": [-1 if g.away_race is None else race_id[g.away_race, g.away_race_ranked] for g in records],
        "home_score": [g.home_score for g in records], "event_coaches": [g.event_coaches for g in records],
        "kind": [kinds.index(g.kind) for g in records], "conceded_by": [concessions.index(g.conceded_by) for g in records],
        "reported_on": [g.reported_on.toordinal() if g.reported_on else 0 for g in records],
    }
    table = RecordColumns(
        [g.played_at for g in records], {name: np.array(values, dtype=float if name == "home_score" else np.int64)
                                         for name, values in columns.items()},
        events={g.event_id: (g.variant, g.major, g.sanctioned, g.event_end) for g in records},
        races={-1: (None, False), **{number: race for race, number in race_id.items()}},
        corrections={g.game_id: g.corrections for g in records if g.corrections}, kinds=kinds, concessions=concessions,
    )
    assert list(table) == records  # each game an event of its own here, its report date its first result's
    return table


@example(NO_LIST_CORRECTED, 31)
@given(reported_games(), st.integers(0, 250))
def test_a_replay_given_the_games_as_columns_gives_the_chunks_of_the_records(games, day):
    """KNSB (late results go forward, corrections put other records in a game's place, unsanctioned
    games outside the lists' months are left out), from scratch and from a checkpoint."""
    until = KNSB_START + dt.timedelta(days=day)
    records = known_at(games, until)
    ledger, by_columns = Ledger(), Ledger()
    expected = knsb_chunks(records, ledger, start=None, until=until)
    assert knsb_chunks(as_record_columns(records), by_columns, start=None, until=until) == expected
    assert by_columns.engine_state == ledger.engine_state and by_columns.games == ledger.games
    ends = [end for end, *_ in expected[:-1]]
    if ends:
        start = ends[len(ends) // 2]
        ledger = Ledger()
        for chunk in replay(knsb, KNSB_CONFIG, records, ledger, start=None, until=until, rules=KNSB_RULES, per_race=False):
            if chunk.end == start:
                checkpoint = pickle.dumps(ledger)
        read = [g for g in records if g.played_at.date() >= start or (last_report(g) is not None and last_report(g) >= start)]
        assert knsb_chunks(as_record_columns(read), pickle.loads(checkpoint), start=start, until=until) == \
            knsb_chunks(read, pickle.loads(checkpoint), start=start, until=until)


@given(reported_games(), st.integers(0, 250), st.integers(0, 9))
def test_the_games_forwarded_as_columns_are_the_records_forwarded(games, day, month):
    """On time or late, from the first game or from a checkpoint: columns look only at the games
    reported after their event (and the corrected ones), and give what the records give."""
    from ratings.replay import forwarded

    until = KNSB_START + dt.timedelta(days=day)
    records = known_at(games, until)
    start = None if month == 0 else dt.date(2024, month, 1)
    if start is not None:  # as a run from a checkpoint reads them: played since, or reported since
        records = [g for g in records if g.played_at.date() >= start or (last_report(g) is not None and last_report(g) >= start)]
    expected = forwarded(records, knsb.late_month, knsb.placements, start=start, until=until)
    on_time, late = forwarded(as_record_columns(records), knsb.late_month, knsb.placements, start=start, until=until)
    assert isinstance(on_time, RecordColumns) and (list(on_time), late) == (list(expected[0]), expected[1])


@settings(max_examples=40, deadline=None)
@given(elo_histories(), elo_configs, st.integers(1, 3))
def test_a_long_elo_replay_given_the_games_as_columns_gives_the_chunks_of_the_records(games, config, weeks):
    # as read from the record: an event's variant, majority, sanction and end are its games', and a
    # bye's missing race is never ranked
    games = stretched(games, weeks)
    events = {}
    for g in games:
        events.setdefault(g.event_id, (g.variant, g.major, g.sanctioned, g.event_end))
    games = [
        replace(g, **dict(zip(("variant", "major", "sanctioned", "event_end"), events[g.event_id], strict=True)),
                away_race_ranked=g.away_race_ranked and g.away_race is not None)
        for g in games
    ]
    until = next_month(games[-1].played_at.date()) + dt.timedelta(days=3)
    rules = ListRules(glicko=False, inactive_after_months=2)
    long = methods.for_replay(naf_elo, methods.COMPILED_FROM_GAMES)

    def run(given):
        return chunk_figures(replay(long, config, given, Ledger(), start=None, until=until, rules=rules,
                                    per_race=config.per_race, complete=lambda day: day.month % 2 == 0))

    assert run(as_record_columns(games)) == run(games)
