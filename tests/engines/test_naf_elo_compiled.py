"""NAF Elo's compiled fast path equals the calculator applied game by game (by_hand), row for row,
summary for summary, and the state it leaves equals the history runner's."""
import math
from datetime import date, datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rating_engines.common import GameRecord, round_half_away
from rating_engines.naf_elo import EloConfig, EloState
from rating_engines.naf_elo import run_history as python_run_history
from rating_engines.naf_elo.compiled import _round_half_away, columns_of, final_ratings, run_columns, run_history
from tests.engines.test_naf_elo_fast_path import by_hand, configs, histories, known_ratings

DAY = datetime(2023, 5, 6)


@settings(max_examples=150, deadline=None)
@given(histories(), configs, known_ratings)
def test_the_compiled_path_equals_the_calculator_game_by_game(games, config, ratings):
    result = run_history(games, config, EloState(ratings=dict(ratings)))
    assert (result.state.ratings, result.rows, result.summaries) == by_hand(games, config, ratings)


@settings(max_examples=80, deadline=None)
@given(histories(), configs, known_ratings, st.integers(0, 40), st.integers(0, 40))
def test_chunks_in_place_leave_the_state_the_history_runner_leaves(games, config, ratings, split, second_split):
    """Run in three chunks, as the recalculation does month by month: the open events a chunk
    hands to the next (their totals, ends and order) and every row and summary equal the
    Python runner's."""
    ordered = sorted(games, key=lambda g: (g.played_at, g.game_id))
    cuts = sorted([split, second_split])
    chunks = [ordered[:cuts[0]], ordered[cuts[0]:cuts[1]], ordered[cuts[1]:]]
    compiled, python = EloState(ratings=dict(ratings)), EloState(ratings=dict(ratings))
    for chunk in chunks:
        ours = run_history(chunk, config, compiled, in_place=True)
        theirs = python_run_history(chunk, config, python, in_place=True)
        assert (ours.rows, ours.summaries) == (theirs.rows, theirs.summaries)
        assert compiled == python
        assert list(compiled.ratings) == list(python.ratings)  # keys added in the same order
    ratings_by_hand, rows, _ = by_hand(games, config, ratings)
    assert compiled.ratings == ratings_by_hand


@pytest.mark.parametrize("value", [
    -100.005, 100.005, 154.465, -154.465, 0.005, -0.005, 0.004999, 1.125, 2.675, 1e-12, -1e-12, 0.0, -0.0,
    123456.785, -99999.995, 0.015, 1.005, 149.995,
])
def test_the_compiled_rounding_is_round_half_away_to_the_bit(value):
    ours = _round_half_away(value, 100.0)
    theirs = round_half_away(value, 2)
    assert (ours, math.copysign(1.0, ours)) == (theirs, math.copysign(1.0, theirs))
    assert _round_half_away(value * 100, 1.0) == round_half_away(value * 100)


@settings(max_examples=300, deadline=None)
@given(st.floats(-1e7, 1e7, allow_nan=False) | st.integers(-10**9, 10**9).map(lambda c: c / 1000 + 0.005))
def test_the_compiled_rounding_equals_round_half_away_anywhere(value):
    assert _round_half_away(value, 100.0) == round_half_away(value, 2)


def test_the_bare_loop_ends_where_the_history_does():
    games = [GameRecord(i, DAY.replace(hour=9 + i % 8, day=1 + i // 8), 1 + i // 8, "bb2020", 1 + i % 5, "orc",
                        1 + (i + 1 + i // 5) % 5, "orc", [1.0, 0.5, 0.0][i % 3], event_coaches=3 + i)
             for i in range(40) if i % 5 != (i + 1 + i // 5) % 5]
    config = EloConfig()
    result = python_run_history(games, config)
    columns = columns_of(games, config)
    ratings = np.full(len(columns.keys), config.start_rating)
    k = np.array([config.k(g.event_coaches, major=g.major) for g in games])
    final_ratings(columns.home_key, columns.away_key, columns.home_score, k, ratings)
    assert dict(zip(columns.keys, ratings.tolist())) == result.state.ratings


def test_run_columns_gives_the_rows_numbers_as_columns():
    games = [GameRecord(1, DAY, 7, "bb2020", 1, "orc", 2, "elf", 1.0, event_coaches=20, event_end=date(2023, 5, 7)),
             GameRecord(2, DAY, 7, "bb2020", 3, "orc", None, None, 1.0, kind="bye")]
    out = run_columns(columns_of(games, EloConfig()), EloConfig())
    k = 2.0 * math.sqrt(20)
    p = 0.5
    assert (out.k[0], out.p_home[0], out.rt_home[0], out.rt_away[0]) == (k, p, k * 0.5, k * -0.5)
    assert math.isnan(out.k[1])
    assert out.ratings.tolist() == [round_half_away(150 + k / 2, 2), round_half_away(150 - k / 2, 2), 150.0]
    assert [s.coach for s in out.summaries()] == [1, 2]
    assert out.open_segments == [(0, 7)]


def test_a_negative_event_size_is_refused_as_the_calculator_refuses_it():
    game = GameRecord(1, DAY, 1, "bb2020", 1, "orc", 2, "orc", 1.0, event_coaches=-1)
    with pytest.raises(ValueError, match="naf_coaches must not be negative"):
        run_history([game], EloConfig())
