"""KNSB's compiled fast path equals the Python runner row for row, summary for summary and state for
state, bit for bit once both take exp from libm (numpy's AVX-512 exp differs from libm in the last
bit of some values), on histories with depots, start ratings, expiry, bootstrap, byes, forfeits and
games left out, per race and pooled; and the runs it hands to the Python runner are that runner's."""
from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rating_engines.common import BYE, FORFEIT, PLAYED, GameRecord, Reason
from rating_engines.knsb import KnsbConfig, close_periods, expected_score, normal, settlement, start_rating
from rating_engines.knsb import run_history as python_run_history
from rating_engines.knsb.calculator import erf_scale
from rating_engines.knsb.compiled import (
    _LIMITS,
    _compiled_case,
    _settle,
    columns_of,
    final_ratings,
    run_columns,
    run_history,
    state_of,
)
from tests.engines.libm import libm_numpy
from tests.engines.test_knsb_fast_path import ALL_LISTS_MADE, FIRST_DAY, V, games_st, imported_list, options

OTHER = "sevens"
RACES = ("orc", "elf", "dwarf")

# (day offset, home, away or None, home score, race of each side, variant, kind, sanctioned):
# days within eight months, so that depots fill, expire and make start ratings
game_st = st.tuples(st.integers(0, 240), st.integers(1, 6), st.integers(0, 6).map(lambda away: away or None),
                    st.sampled_from([0.0, 0.5, 1.0]), st.sampled_from(RACES), st.sampled_from(RACES),
                    st.sampled_from([V] * 5 + [OTHER]), st.sampled_from([PLAYED] * 12 + [FORFEIT]),
                    st.sampled_from([True] * 12 + [False]))
histories = st.lists(game_st, min_size=20, max_size=100).map(
    lambda drawn: [g for g in drawn if g[1] != g[2]]).filter(bool)
configs = st.builds(
    KnsbConfig, per_race=st.booleans(), variants=st.sampled_from([None, (V,)]),
    excluded_races=st.sampled_from([(), ("dwarf",)]), we_table=st.booleans(), lpr_margin=st.sampled_from([0.0, 10.0]),
    depot_min_games=st.integers(1, 3), depot_months=st.integers(1, 3), nv_cap=st.sampled_from([100, 5]),
    bootstrap_rating=st.sampled_from([1500.0, None, 1320.0]),
)


def records(drawn) -> list[GameRecord]:
    drawn = sorted(drawn, key=lambda g: g[0])
    return [GameRecord(game_id=i + 1, played_at=FIRST_DAY + timedelta(days=day, minutes=i), event_id=1,
                       variant=variant, home=home, home_race=home_race, away=away,
                       away_race=None if away is None else away_race, home_score=w,
                       kind=BYE if away is None else kind, sanctioned=sanctioned)
            for i, (day, home, away, w, home_race, away_race, variant, kind, sanctioned) in enumerate(drawn)]


def libm_exp():
    return libm_numpy(normal)


def assert_same(ours, theirs):
    assert ours.rows == theirs.rows
    assert ours.summaries == theirs.summaries
    assert ours.lists == theirs.lists
    assert ours.state == theirs.state


@settings(max_examples=200, deadline=None)
@given(histories, configs)
def test_the_compiled_path_equals_the_python_runner_bit_for_bit(drawn, config):
    games = records(drawn)
    assert _compiled_case(games, config, None, None)
    ours = run_history(games, config)
    with libm_exp():
        theirs = python_run_history(games, config)
    assert_same(ours, theirs)
    # the month left open, and the lists after it, as the Python runner makes them from either state
    with libm_exp():
        assert_same(close_periods(ours.state, config, ALL_LISTS_MADE), close_periods(theirs.state, config, ALL_LISTS_MADE))


@settings(max_examples=60, deadline=None)
@given(histories, configs, st.integers(0, 80))
def test_a_run_continued_from_its_state_is_the_python_runners(drawn, config, split):
    """The recalculation's chunks: the first from no state (compiled), the next from its state."""
    games = records(drawn)
    first = run_history(games[:split], config)
    second = run_history(games[split:], config, first.state)
    with libm_exp():
        python_first = python_run_history(games[:split], config)
        python_second = python_run_history(games[split:], config, python_first.state)
    assert_same(first, python_first)
    assert_same(second, python_second)


@settings(max_examples=40, deadline=None)
@given(games_st, imported_list, options)
def test_runs_outside_the_compiled_case_are_the_python_runners(drawn, imported, params):
    """An imported list (the fast-path tests' histories), birth years: the Python runner's own run."""
    from tests.engines.test_knsb_fast_path import _records

    games = _records(drawn)
    config = KnsbConfig(initial_list=tuple((c, r, n) for c, (r, n) in zip(range(1, 9), imported)), **params)
    assert not _compiled_case(games, config, None, None)
    assert_same(run_history(games, config), python_run_history(games, config))
    plain = KnsbConfig(**params)
    assert_same(run_history(games, plain, birth_years={1: 2010}), python_run_history(games, plain, birth_years={1: 2010}))


# a list close's counted games: (player, opponent's Rc, W, R0's k) over up to six players
counted_games = st.lists(st.tuples(st.integers(0, 5), st.integers(1000, 2600), st.sampled_from([0.0, 0.5, 1.0]),
                                   st.sampled_from([216.0, 76.4, 25.0, 10.0])), min_size=1, max_size=40)
list_ratings = st.lists(st.integers(1000, 2600), min_size=6, max_size=6)


@settings(max_examples=300, deadline=None)
@given(counted_games, list_ratings, st.sampled_from([0.0, 10.0]), st.booleans())
def test_the_compiled_settle_is_settlements(games, ratings, margin, start):
    """One list close's totals, LPR, Wx, Rn and limit (or a start rating's, without Rl) over
    arrays: settlement.settle's to the bit, limits included (random ratings reach both)."""
    kid = np.array([g[0] for g in games], dtype=np.int64)
    rc = np.array([float(g[1]) for g in games])
    w = np.array([g[2] for g in games])
    rl = np.array([float(r) for r in ratings])
    sigma = KnsbConfig().sigma
    if start:
        we = rt = np.zeros(len(games))
    else:
        we = np.array([expected_score(rl[p] - r, sigma=sigma) for p, r in zip(kid.tolist(), rc.tolist())])
        rt = np.array([g[3] for g in games]) * (w - we)
    nkeys = 6
    wx, out, lim, nt = np.empty(len(games)), np.empty((nkeys, 7)), np.zeros(nkeys, dtype=np.int64), np.empty(nkeys, dtype=np.int64)
    assert _settle(kid, rc, w, we, rt, len(games), nkeys, rl, not start, sigma, margin, normal._P_GRID,
                   normal._Z_GRID, normal._PHI_COEFS, wx, out, lim, nt)
    with libm_exp():
        want = settlement.settle(kid, rc, w, we, rt, nkeys, sigma, rl=None if start else rl, margin=margin)
    played = nt > 0
    assert wx.tolist() == want.wx
    assert nt.tolist() == want.nt
    for at, name in enumerate(("wt", "wet", "rtt", "rct")):
        assert out[played, at].tolist() == np.array(getattr(want, name))[played].tolist(), name
    assert out[played, 4].tolist() == np.array(want.wxt)[played].tolist()
    assert out[played, 5].tolist() == np.array(want.lpr)[played].tolist()
    if not start:
        assert out[played, 6].tolist() == np.array(want.rn)[played].tolist()
        assert [_LIMITS[c] for c in lim[played].tolist()] == np.array(want.limitation)[played].tolist()


def test_six_depot_games_make_the_calculators_start_rating():
    """Coach 1 plays six unrated opponents (bootstrap 1500) in March: the April list gives the start
    rating of calculator.start_rating, its six rows counted, in the April list."""
    scores = [1.0, 0.5, 0.0, 1.0, 0.5, 0.5]
    march = datetime(2024, 3, 2)
    games = [GameRecord(i + 1, march + timedelta(hours=i), 1, V, 1, "orc", 2 + i, "elf", w) for i, w in enumerate(scores)]
    games.append(GameRecord(7, datetime(2024, 4, 2), 1, V, 9, "orc", 10, "elf", 1.0))
    config = KnsbConfig()
    result = run_history(games, config)
    want = start_rating([(1500.0, w) for w in scores])
    mine = [s for s in result.summaries if s.coach == 1]
    assert [(s.is_start, s.rn, s.nv, s.nt, s.lpr, s.period) for s in mine] == [(True, want.rs, 6, 6, want.rs, "2024-04-01")]
    assert [(r.counted, r.reason, r.rc, r.wx, str(r.depot_date)) for r in result.rows if r.coach == 1] == [
        (True, Reason.DEPOT_BOOTSTRAP, 1500.0, wx, "2024-04-01") for wx in want.wx]
    assert result.state.rating(1, V) == (want.rs, 6)


def test_run_columns_hands_out_every_list_before_the_last_game():
    games = [GameRecord(i + 1, datetime(2024, 1 + i, 5), 1, V, 1, "orc", 2, "elf", 1.0) for i in range(4)]
    config = KnsbConfig(depot_min_games=1)
    out, keys = run_columns(columns_of(games, config), config, 3)
    assert [date(m // 12, m % 12 + 1, 1) for m in out.closes.tolist()] == [date(2024, 2, 1), date(2024, 3, 1),
                                                                            date(2024, 4, 1)]
    state = state_of(out, keys)
    assert (state.list_month, state.stamp) == (2024 * 12 + 3, 3)
    assert [(s.coach, s.is_start, s.period) for s in out.summaries()] == [
        (1, True, "2024-02-01"), (2, True, "2024-02-01"), (1, False, "2024-03-01"), (2, False, "2024-03-01"),
        (1, False, "2024-04-01"), (2, False, "2024-04-01")]


def test_the_bare_loop_ends_where_the_runner_does_when_every_coach_is_rated():
    """Every coach on an imported list, every game counted: the bare loop's ratings and Nv are the
    runner's after the last list."""
    start = datetime(2024, 1, 3, 9)
    games = [GameRecord(i + 1, start + timedelta(days=5 * i), 1, V, 1 + i % 5, "orc", 1 + (i + 1 + i // 5) % 5, "orc",
                        [1.0, 0.5, 0.0][i % 3]) for i in range(60) if i % 5 != (i + 1 + i // 5) % 5]
    config = KnsbConfig(initial_list=tuple((c, 1500.0 + 40 * c, 6) for c in range(1, 6)))
    with libm_exp():
        state = close_periods(python_run_history(games, config).state, config, date(2025, 1, 1)).state
    columns = columns_of(games, config)
    coaches = [coach for _, coach in columns.keys]
    rating = np.array([1500.0 + 40 * c for c in coaches])
    nv = np.full(len(coaches), 6, dtype=np.int64)
    final_ratings(columns.month, columns.home_key, columns.away_key, columns.home_score, rating, nv,
                  erf_scale(config.sigma), config.sigma, config.nv_cap, normal._P_GRID, normal._Z_GRID,
                  normal._PHI_COEFS)
    assert list(zip(rating.tolist(), nv.tolist())) == [state.rating(c, V) for c in coaches]


def test_out_of_order_games_and_corrections_go_to_the_python_runner():
    a, b = (GameRecord(i, datetime(2024, 3, 2) + timedelta(days=40 * i), 1, V, 1, "orc", 2, "elf", 1.0) for i in (1, 2))
    config = KnsbConfig()
    assert not _compiled_case([b, a], config, None, None)
    assert not _compiled_case([a, replace(b, reverses=True)], config, None, None)
    assert_same(run_history([b, a], config), python_run_history([b, a], config))


def test_the_web_process_does_not_load_numba_through_knsb():
    from tests.test_compiled_imports import loaded_after

    code = ("import django; django.setup(); from django.urls import get_resolver; "
            "resolver = get_resolver(); resolver.url_patterns; import rating_engines.knsb")
    assert loaded_after(code) == "[]"
    assert loaded_after("import rating_engines.knsb.compiled") == "['llvmlite', 'numba']"
