"""The month-by-month replay's lists: ranks from the board's columns, complete lists and movements."""
import datetime as dt
import pickle

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rating_engines import knsb, naf_elo
from rating_engines.common import Correction, GameRecord
from ratings.replay import Board, Ledger, ListRules, replay

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
    event's end, the day it was first reported (None: history without a date) and perhaps a later correction."""
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
        games.append((game_id, played, end, reported, home, away, score, correction))
    return games


def known_at(games, day):
    """The records a run on `day` reads: games reported by then, each with its corrections made by then."""
    records = []
    for game_id, played, end, reported, home, away, score, correction in games:
        if reported is not None and reported > day:
            continue
        record = GameRecord(
            game_id=game_id, played_at=dt.datetime.combine(played, dt.time(10)) + dt.timedelta(minutes=game_id),
            event_id=game_id, variant=VARIANTS[0], home=home, home_race="orc", away=away, away_race="human",
            home_score=score, event_end=end, reported_on=reported,
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


def test_the_recalculation_maps_each_method_to_its_engine_module():
    from rating_engines import glicko
    from ratings.configuration import engine
    from ratings.models import Method

    assert engine(Method.NAF_ELO) == (naf_elo, naf_elo.EloConfig)
    assert engine(Method.GLICKO) == (glicko, glicko.GlickoConfig)
    assert engine(Method.KNSB) == (knsb, knsb.KnsbConfig)
