"""The month-by-month replay's lists: ranks from the board's columns, complete lists and movements."""
import datetime as dt

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ratings.engines import naf_elo
from ratings.engines.common import GameRecord
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
