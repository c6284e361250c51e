"""The KNSB history runner against the calculator: on random histories, run_history's rows and
summaries are those of the calculator's formulas applied game by game and list by list by hand."""
from collections import defaultdict
from dataclasses import replace
from datetime import date, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from rating_engines.common import GameRecord, round_half_away
from rating_engines.knsb import KnsbConfig, close_periods, run_history
from rating_engines.knsb.calculator import (
    DepotGame,
    PeriodGame,
    expected_score,
    k_factor,
    kept_between,
    list_performance,
    nv_after,
    rate_period,
    rating_change,
    start_rating,
    total,
)

V = "bb2020"
FIRST_DAY = datetime(2023, 11, 3, 10)
COACHES = range(1, 9)
# A day after every drawn game's list (the games span four months from FIRST_DAY): closing the lists up
# to date.max would make some 95,000 empty monthly lists an example, 1.5 s of nothing.
ALL_LISTS_MADE = date(2025, 1, 1)

scores = st.sampled_from([0.0, 0.5, 1.0])
# (day offset, home, away, home score): days within four months
games_st = st.lists(st.tuples(st.integers(0, 115), st.sampled_from(COACHES), st.sampled_from(COACHES), scores),
                    min_size=1, max_size=40).map(lambda gs: [g for g in gs if g[1] != g[2]]).filter(bool)
imported_list = st.lists(st.tuples(st.integers(1300, 2500), st.integers(1, 120)), min_size=len(COACHES),
                         max_size=len(COACHES))
options = st.fixed_dictionaries({"we_table": st.booleans(), "lpr_margin": st.sampled_from([0.0, 10.0]),
                                 "nv_cap": st.sampled_from([100, 30])})


def _records(drawn) -> list[GameRecord]:
    drawn = sorted(drawn, key=lambda g: g[0])
    return [GameRecord(game_id=i + 1, played_at=FIRST_DAY + timedelta(days=day, minutes=i), event_id=1,
                       variant=V, home=home, home_race="orc", away=away, away_race="elf", home_score=w)
            for i, (day, home, away, w) in enumerate(drawn)]


def _month(d) -> int:
    return d.year * 12 + d.month - 1


def _list_dated(month: int) -> str:
    return date(month // 12, month % 12 + 1, 1).isoformat()


def _by_hand_rated(games, ratings: dict, config: KnsbConfig, late=()):
    """Rows and summaries of monthly lists from `ratings` (coach -> (rating, Nv)), by the calculator.

    `late` games arrive after the list of their month was made: they are rated in the list of the
    month of the last of `games`, with R0, Rc and Nv from the list in force when they were played.
    """
    rows, summaries = {}, {}
    by_month = defaultdict(list)
    for g in games:
        by_month[_month(g.played_at)].append(g)
    first, last = min(by_month), max(by_month)
    in_force = {}  # month -> the ratings of its list
    for month in range(first, last + 1):
        in_force[month] = dict(ratings)
        label = _list_dated(month + 1)
        period = defaultdict(list)  # coach -> [((game_id, side), PeriodGame)]
        on_time = [(g, ratings) for g in by_month[month]]
        taken = [(g, in_force[max(first, _month(g.played_at))]) for g in late] if month == last else []
        for g, on_list in on_time + taken:  # late games come in after the month's games
            (r0, nv0), (rc, nvc) = on_list[g.home], on_list[g.away]
            for side, coach, mine, theirs, nv, w in (("home", g.home, r0, rc, nv0, g.home_score),
                                                     ("away", g.away, rc, r0, nvc, 1.0 - g.home_score)):
                we = expected_score(mine - theirs, sigma=config.sigma, table=config.we_table)
                k = k_factor(mine, nv)
                rows[(g.game_id, side)] = [mine, theirs, w, we, k, rating_change(k, w, we), None, label]
                period[coach].append(((g.game_id, side), PeriodGame(mine, theirs, w, nv)))
        new = {}
        for coach, played in period.items():
            rl, nv = ratings[coach]
            wt = total(p.w for _, p in played)
            rtt = total(rows[key][5] for key, _ in played)
            lpr = list_performance([p.rc for _, p in played], wt, rl, sigma=config.sigma)
            rn, limitation = kept_between(rl, lpr.lpr, round_half_away(rl + rtt), config.lpr_margin)
            for (key, _), wx in zip(played, lpr.wx):
                rows[key][6] = wx
            new[coach] = (rn, nv_after(nv, len(played), config.nv_cap))
            summaries[(coach, label)] = (rl, rn, len(played), wt, total(rows[key][3] for key, _ in played), rtt,
                                         total(p.rc for _, p in played) / len(played), lpr.wxt, lpr.lpr,
                                         limitation, new[coach][1])
            whole = rate_period(rl, nv, [p for _, p in played], sigma=config.sigma, we_table=config.we_table,
                                lpr_margin=config.lpr_margin, nv_cap=config.nv_cap)
            assert (whole.rn, whole.rtt, whole.lpr, whole.wxt, whole.limitation, whole.nv) == \
                (rn, rtt, lpr.lpr, lpr.wxt, limitation, new[coach][1])
        ratings = {**ratings, **new}
    return rows, summaries


def _engine(games, config: KnsbConfig, split: int):
    """run_history over two calls (the state carried over), then every list made."""
    first = run_history(games[:split], config)
    second = run_history(games[split:], config, first.state)
    rest = close_periods(second.state, config, ALL_LISTS_MADE)
    return first.rows + second.rows + rest.rows, first.summaries + second.summaries + rest.summaries


@settings(max_examples=60, deadline=None)
@given(games_st, imported_list, options, st.integers(0, 40))
def test_the_runner_rates_rated_coaches_as_the_calculator_does(drawn, imported, params, split):
    games = _records(drawn)
    config = KnsbConfig(initial_list=tuple((c, float(r), n) for c, (r, n) in zip(COACHES, imported)), **params)
    rows, summaries = _engine(games, config, min(split, len(games)))
    ratings = {c: (float(r), min(config.nv_cap, n)) for c, (r, n) in zip(COACHES, imported)}
    expected_rows, expected_summaries = _by_hand_rated(games, ratings, config)

    assert {(r.game_id, r.side): [r.r0, r.rc, r.w, r.we, r.k, r.rt, r.wx, r.period] for r in rows} == expected_rows
    assert all(r.counted for r in rows) and len(rows) == 2 * len(games)
    assert {(s.coach, s.period): (s.rl, s.rn, s.nt, s.wt, s.wet, s.rtt, s.rct, s.wxt, s.lpr, s.limitation, s.nv)
            for s in summaries if s.nt} == expected_summaries


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(COACHES), st.sampled_from(COACHES), scores), min_size=1, max_size=30),
       st.integers(1, 6))
def test_start_ratings_from_bootstrap_depots_are_the_calculators(drawn, min_games):
    drawn = [g for g in drawn if g[0] != g[1]]
    games = _records([(day % 25, home, away, w) for day, (home, away, w) in enumerate(drawn)])
    config = KnsbConfig(depot_min_games=min_games)
    result = run_history(games, config)
    listed = close_periods(result.state, config, date(2023, 12, 1))

    depots = defaultdict(list)  # coach -> depot games, every one against the bootstrap rating
    for g in games:
        depots[g.home].append(DepotGame(config.bootstrap_rating, g.home_score, g.played_at.date()))
        depots[g.away].append(DepotGame(config.bootstrap_rating, 1.0 - g.home_score, g.played_at.date()))
    expected = {coach: start_rating(depot, min_games=min_games, list_date=date(2023, 12, 1))
                for coach, depot in depots.items()}
    starts = {s.coach: s for s in listed.summaries if s.is_start}
    assert set(starts) == {coach for coach, start in expected.items() if start is not None}
    for coach, s in starts.items():
        start = expected[coach]
        assert (s.rn, s.nv, s.nt, s.wt, s.rct, s.wxt, s.lpr) == \
            (start.rs, start.nv, start.nt, start.wt, start.rct, start.wxt, start.rs)
        wx = [r.wx for r in listed.rows if r.coach == coach and r.counted]
        assert wx == list(start.wx)


@settings(max_examples=40, deadline=None)
@given(games_st, games_st, imported_list, options)
def test_late_games_take_their_own_lists_figures_as_the_calculator_does(drawn, drawn_late, imported, params):
    games = _records(drawn)
    open_month = _month(games[-1].played_at)
    late = [replace(g, game_id=g.game_id + 1000) for g in _records(drawn_late) if _month(g.played_at) < open_month]
    config = KnsbConfig(initial_list=tuple((c, float(r), n) for c, (r, n) in zip(COACHES, imported)), **params)
    first = run_history(games, config)
    second = run_history(late, config, first.state)
    rest = close_periods(second.state, config, ALL_LISTS_MADE)
    rows, summaries = first.rows + second.rows + rest.rows, first.summaries + second.summaries + rest.summaries
    ratings = {c: (float(r), min(config.nv_cap, n)) for c, (r, n) in zip(COACHES, imported)}
    expected_rows, expected_summaries = _by_hand_rated(games, ratings, config, late)

    assert {(r.game_id, r.side): [r.r0, r.rc, r.w, r.we, r.k, r.rt, r.wx, r.period] for r in rows} == expected_rows
    assert {(s.coach, s.period): (s.rl, s.rn, s.nt, s.wt, s.wet, s.rtt, s.rct, s.wxt, s.lpr, s.limitation, s.nv)
            for s in summaries if s.nt} == expected_summaries
