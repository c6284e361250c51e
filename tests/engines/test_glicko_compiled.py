"""Glicko's compiled fast path equals the Python runner row for row, summary for summary and
state for state, bit for bit once both take exp and log from libm (numpy's AVX-512 exp and log
differ from libm in the last bit of some values), and the calculator applied by hand within the
last bits of exp, per race (monthly, two-weekly, by event) and pooled (Global Glicko)."""
from __future__ import annotations

from datetime import date, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rating_engines.common import GameRecord
from rating_engines.glicko import GlickoConfig, GlickoState, batch
from rating_engines.glicko import close_periods as python_close_periods
from rating_engines.glicko import run_history as python_run_history
from rating_engines.glicko.compiled import close_periods, columns_of, final_ratings, run_columns, run_history
from rating_engines.glicko.state import NEW
from tests.engines.libm import libm_numpy
from tests.engines.test_glicko_fast_path import (
    EXACT,
    V,
    assert_the_models_summaries,
    by_hand,
    configs,
    histories,
    seeded_ratings,
    seeded_state,
)

all_configs = st.one_of(
    configs,
    st.just(GlickoConfig.global_defaults()),
    st.builds(GlickoConfig.global_defaults, tau=st.sampled_from([0.2, 0.5]), phi_cap=st.sampled_from([None, 300.0])),
)


def libm_exp():
    return libm_numpy(batch)


def both_runs(games, config, state):
    ours = run_history(games, config, state)
    with libm_exp():
        theirs = python_run_history(games, config, state)
    return ours, theirs


@settings(max_examples=150, deadline=None)
@given(histories(), all_configs, seeded_ratings)
def test_the_compiled_path_equals_the_python_runner_bit_for_bit(games, config, seeded):
    state, _, _ = seeded_state(seeded, config)
    ours, theirs = both_runs(games, config, state)
    assert ours.rows == theirs.rows
    assert ours.summaries == theirs.summaries
    assert ours.state == theirs.state
    # the period left open, rated as close_periods rates it, also to the bit
    ours = close_periods(ours.state, config, date.max)
    with libm_exp():
        theirs = python_close_periods(theirs.state, config, date.max)
    assert (ours.rows, ours.summaries, ours.state) == (theirs.rows, theirs.summaries, theirs.state)


@settings(max_examples=80, deadline=None)
@given(histories(), all_configs, seeded_ratings, st.integers(0, 40), st.integers(0, 40))
def test_chunks_in_place_leave_the_state_the_python_runner_leaves(games, config, seeded, split, second_split):
    """Run in three chunks, as the recalculation does: the open periods a chunk hands to the next
    and every row and summary equal the Python runner's."""
    cuts = sorted([split, second_split])
    chunks = [games[:cuts[0]], games[cuts[0]:cuts[1]], games[cuts[1]:]]
    compiled, python = seeded_state(seeded, config)[0], seeded_state(seeded, config)[0]
    for chunk in chunks:
        ours = run_history(chunk, config, compiled, in_place=True)
        with libm_exp():
            theirs = python_run_history(chunk, config, python, in_place=True)
        assert (ours.rows, ours.summaries) == (theirs.rows, theirs.summaries)
        assert compiled == python


@settings(max_examples=80, deadline=None)
@given(histories(), all_configs, seeded_ratings)
def test_the_compiled_path_holds_the_calculators_figures(games, config, seeded):
    state, ratings, index = seeded_state(seeded, config)
    first = run_history(games, config, state)
    rest = close_periods(first.state, config, date.max)
    summaries = first.summaries + rest.summaries
    model = by_hand(games, config, ratings, index)
    assert_the_models_summaries(summaries, model, config)
    counted = {(r.game_id, r.side): (r.r0, r.rc, r.opponent_phi, r.g, r.we, r.rt)
               for r in first.rows + rest.rows if r.counted}
    assert counted.keys() == model.rows.keys()
    for at, figures in counted.items():
        assert figures == pytest.approx(model.rows[at], rel=EXACT)


def test_a_new_race_in_a_compiled_chunk_starts_at_the_median_of_the_races_the_state_holds():
    """The coach's five races come from the chunk before (rated as it is closed); the compiled
    chunk itself holds two keys only. The start is the median of the five (ratings.md, cross-talk)."""
    races = ["orc", "elf", "dwarf", "goblin", "lizardman"]
    january = [GameRecord(i + 1, datetime(2022, 1, 10, 9 + i), 1, V, 4, race, 1, "orc", [1.0, 0.0, 0.5, 1.0, 0.0][i])
               for i, race in enumerate(races)]
    later = [GameRecord(6, datetime(2022, 2, 7, 9), 2, V, 1, "orc", 4, "human", 0.0),
             GameRecord(7, datetime(2022, 3, 7, 9), 3, V, 1, "orc", 2, "orc", 1.0)]
    config = GlickoConfig()
    compiled, python = GlickoState(), GlickoState()
    run_history(january, config, compiled, in_place=True)
    with libm_exp():
        python_run_history(january, config, python, in_place=True)
    ours = run_history(later, config, compiled, in_place=True)
    with libm_exp():
        theirs = python_run_history(later, config, python, in_place=True)
    closed = sorted(s.mu for s in ours.summaries if s.coach == 4 and s.period == "2022-01")
    human = next(s for s in ours.summaries if s.race == "human")
    assert len(closed) == 5 and len(set(closed)) == 3
    assert human.mu_before == closed[2]
    assert (ours.rows, ours.summaries) == (theirs.rows, theirs.summaries)
    assert compiled == python


def test_the_bare_loop_ends_where_the_history_does():
    start = datetime(2022, 1, 3, 9)
    games = [GameRecord(i, start + timedelta(days=3 * i), 1 + i // 4, V, 1 + i % 5, "orc", 1 + (i + 1 + i // 5) % 5,
                        "orc", [1.0, 0.5, 0.0][i % 3]) for i in range(60) if i % 5 != (i + 1 + i // 5) % 5]
    config = GlickoConfig.global_defaults()
    state = GlickoState()
    out = run_columns(columns_of(games, config), config, state)
    assert len(out.summaries()) > 20
    columns = columns_of(games, config)
    n = len(columns.keys)
    mu, phi, sigma = np.full(n, config.mu0), np.full(n, config.phi0), np.full(n, config.sigma0)
    last = np.full(n, NEW, dtype=np.int64)
    final_ratings(columns.period, columns.home_key, columns.away_key, columns.home_score, mu, phi, sigma, last,
                  config.tau, config.decay_cap)
    numbers = [state.key_index[key] for key in columns.keys]
    assert (mu.tolist(), phi.tolist(), sigma.tolist()) == (
        state.mu[numbers].tolist(), state.phi[numbers].tolist(), state.sigma[numbers].tolist())


def test_run_columns_rates_a_month_as_the_calculator_does():
    from rating_engines.glicko import GlickoRating, rate

    games = [GameRecord(1, datetime(2023, 5, 6, 9), 7, V, 1, "orc", 2, "elf", 1.0),
             GameRecord(2, datetime(2023, 5, 7, 9), 7, V, 3, "orc", None, None, 1.0, kind="bye")]
    state = GlickoState()
    out = run_columns(columns_of(games, GlickoConfig()), GlickoConfig(), state)
    want = rate(GlickoRating(), [(GlickoRating(), 1.0)])
    assert (state.mu[0], state.phi[0], state.sigma[0]) == (want.mu, want.phi, want.sigma)
    assert [(s.coach, s.nt, s.games_played, s.period, s.effective) for s in out.summaries()] == [
        (1, 1, 1, "2023-05", date(2023, 6, 1)), (2, 1, 1, "2023-05", date(2023, 6, 1))]
    assert [(r.coach, r.counted, r.we) for r in out.rows()] == [(1, True, 0.5), (2, True, 0.5), (3, False, None)]


def test_the_web_process_does_not_load_numba_through_glicko():
    from tests.test_compiled_imports import loaded_after

    code = ("import django; django.setup(); from django.urls import get_resolver; "
            "resolver = get_resolver(); resolver.url_patterns; import rating_engines.glicko")
    assert loaded_after(code) == "[]"
    assert loaded_after("import rating_engines.glicko.compiled") == "['llvmlite', 'numba']"


@pytest.mark.parametrize("months", [1, 2])  # rated by the compiled step (held open), and by the loop
def test_a_period_whose_volatility_does_not_converge_raises(monkeypatch, months):
    from rating_engines.glicko import VolatilityNotConverged, calculator

    monkeypatch.setattr(calculator, "MAX_ITERATIONS", 1)
    games = [GameRecord(i, datetime(2023, 4 + i, 6, 9), 7, V, 1, "orc", 2, "elf", 1.0) for i in range(months)]
    with pytest.raises(VolatilityNotConverged):
        close_periods(run_history(games, GlickoConfig()).state, GlickoConfig(), date.max)
