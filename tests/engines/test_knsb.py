"""KNSB list rating (ratings.md section 4): worked examples, properties, degenerate cases."""
import math
import pickle
from datetime import date, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rating_engines.common import AWAY, BYE, FORFEIT, HOME, Correction, GameRecord, Reason, round_half_away
from rating_engines.knsb import (
    SIGMA,
    KnsbConfig,
    KnsbState,
    PeriodGame,
    close_periods,
    expected_score,
    k_factor,
    late_month,
    performance_rating,
    placements,
    rate_period,
    run_history,
    start_rating,
)
from rating_engines.knsb.calculator import date_of_list, nv_after

V = "bb2020"
MARCH = datetime(2024, 3, 2)
MARCH_LIST = date(2024, 3, 1)
APRIL_LIST = date(2024, 4, 1)

# the six-game check: player 1 (1800, Nv 40) against coaches 2..7
SIX = [(1700, 1.0), (1850, 0.5), (1900, 0.0), (1750, 1.0), (2000, 0.5), (1600, 1.0)]


def game(game_id, home, away, home_score, *, when=MARCH, hours=0, home_race="orc",
         away_race="elf", variant=V, **extra):
    return GameRecord(
        game_id=game_id, played_at=when + timedelta(hours=hours), event_id=1, variant=variant,
        home=home, home_race=home_race, away=away, away_race=away_race, home_score=home_score,
        **extra,
    )


def series(home, opponents, scores, *, when=MARCH, first_id=1):
    """`home` plays each opponent in turn, an hour apart."""
    return [game(first_id + i, home, opponent, score, when=when, hours=i)
            for i, (opponent, score) in enumerate(zip(opponents, scores))]


def imported(*entries, **params):
    return KnsbConfig(initial_list=tuple(entries), **params)


def rated_to(config, games, until):
    """run_history, then make every list up to `until`; the two results joined."""
    first = run_history(games, config)
    rest = close_periods(first.state, config, until)
    return first.rows + rest.rows, first.summaries + rest.summaries, rest.state


def summary_of(summaries, coach):
    (found,) = [s for s in summaries if s.coach == coach]
    return found


# --- worked examples (checks of section 4) -------------------------------------------------

def test_expected_score_for_200_points():
    assert round(expected_score(200), 6) == 0.758036


def test_expected_score_for_84_points():
    assert round(expected_score(84), 6) == 0.615621


def test_expected_score_for_minus_100_points():
    assert round(expected_score(-100), 6) == 0.363169


def test_k_for_forty_games():
    assert round(k_factor(1800, 40), 4) == 34.1526


def test_six_games_from_1800_on_forty_games():
    result = rate_period(1800, 40, [PeriodGame(1800, rc, w) for rc, w in SIX])
    assert (round(result.wet, 3), round(result.rtt, 4), result.lpr, result.rn, result.nv) == \
        (3.0, 34.1526, 1936, 1834, 46)
    assert result.limitation == "none"


def test_three_wins_take_an_extra_remise():
    result = rate_period(1500, 100, [(None, 1450, 1), (None, 1520, 1), (None, 1480, 1)])
    assert (round(result.rtt, 4), result.lpr, result.rn, result.extra_remise) == \
        (35.7635, 1818, 1536, True)
    assert result.wxt == pytest.approx(result.wt + 0.5, abs=0.01)


def test_lpr_limitation_caps_the_gain():
    games = [(None, 1800, 1)] * 5 + [(None, 1800, 0.5)] + [(None, 1800, 0)] * 4
    result = rate_period(1800, 6, games)
    assert round(k_factor(1800, 6), 4) == 88.1816
    assert (round(result.rtt, 4), result.lpr, result.rn, result.limitation) == \
        (44.0908, 1836, 1836, "lpr")


def test_rl_limitation_with_a_game_from_an_older_list():
    result = rate_period(1800, 100, [PeriodGame(1650, 1750, 0.5), PeriodGame(1800, 1750, 0.5)])
    assert (round(result.rtt, 4), result.lpr, result.rn, result.limitation) == \
        (1.6843, 1750, 1800, "rl")


def test_start_rating_from_six_depot_games():
    depot = [(1500, 1), (1600, 0.5), (1700, 0), (1400, 1), (1550, 0.5), (1650, 0.5)]
    start = start_rating(depot)
    assert (start.rs, start.nv) == (1631, 6)


# --- the same through run_history ----------------------------------------------------------

def test_history_six_games_from_1800_on_forty_games():
    config = imported((1, 1800, 40), *[(2 + i, rc, 100) for i, (rc, _) in enumerate(SIX)])
    games = series(1, range(2, 8), [w for _, w in SIX])
    rows, summaries, _ = rated_to(config, games, APRIL_LIST)
    mine = summary_of(summaries, 1)
    assert (round(mine.wet, 3), round(mine.rtt, 4), mine.lpr, mine.rn, mine.nv, mine.nt) == \
        (3.0, 34.1526, 1936, 1834, 46, 6)
    assert (mine.period, mine.effective, mine.rl, mine.limitation) == \
        ("2024-04-01", APRIL_LIST, 1800, "none")
    my_rows = [r for r in rows if r.coach == 1]
    assert [(r.r0, r.rc, r.w, round(r.k, 4), r.list_date) for r in my_rows] == \
        [(1800, rc, w, 34.1526, MARCH_LIST) for rc, w in SIX]


def test_history_three_wins_take_an_extra_remise():
    config = imported((1, 1500, 100), (2, 1450, 100), (3, 1520, 100), (4, 1480, 100))
    rows, summaries, _ = rated_to(config, series(1, [2, 3, 4], [1, 1, 1]), APRIL_LIST)
    mine = summary_of(summaries, 1)
    assert (round(mine.rtt, 4), mine.lpr, mine.rn) == (35.7635, 1818, 1536)
    assert mine.wxt == pytest.approx(mine.wt + 0.5, abs=0.01)


def test_history_lpr_limitation():
    config = imported((1, 1800, 6), *[(c, 1800, 100) for c in range(2, 12)])
    scores = [1] * 5 + [0.5] + [0] * 4
    _, summaries, _ = rated_to(config, series(1, range(2, 12), scores), APRIL_LIST)
    mine = summary_of(summaries, 1)
    assert (round(mine.rtt, 4), mine.lpr, mine.rn, mine.limitation) == (44.0908, 1836, 1836, "lpr")


def test_history_start_rating_from_six_depot_games():
    depot = [(1500, 1), (1600, 0.5), (1700, 0), (1400, 1), (1550, 0.5), (1650, 0.5)]
    config = imported(*[(2 + i, rc, 100) for i, (rc, _) in enumerate(depot)])
    rows, summaries, state = rated_to(config, series(1, range(2, 8), [w for _, w in depot]),
                                      APRIL_LIST)
    mine = summary_of(summaries, 1)
    assert (mine.is_start, mine.rl, mine.rn, mine.nv, mine.nt, mine.lpr) == \
        (True, None, 1631, 6, 6, 1631)
    assert [(r.counted, r.reason, r.r0, r.rc, r.depot_date, r.period)
            for r in rows if r.coach == 1] == \
        [(True, None, None, rc, APRIL_LIST, "2024-04-01") for rc, _ in depot]
    assert state.rating(1, V) == (1631, 6)


def test_a_result_reported_by_its_events_end_is_on_time_however_long_the_event_ran():
    # played 31 January, the event ended and reported it on 1 February: the February list rates it
    g = game(1, 1, 2, 1.0, when=datetime(2024, 1, 31), event_end=date(2024, 2, 1), reported_on=date(2024, 2, 1))
    assert late_month(g) is None


def test_a_result_reported_late_within_its_month_of_play_is_still_on_time():
    g = game(1, 1, 2, 1.0, when=datetime(2024, 1, 10), event_end=date(2024, 1, 10), reported_on=date(2024, 1, 31))
    assert late_month(g) is None


def test_a_result_reported_after_its_list_was_out_goes_into_the_list_after_its_report():
    # played in January, reported 3 February (the February list is out): the March list rates it
    g = game(1, 1, 2, 1.0, when=datetime(2024, 1, 10), event_end=date(2024, 1, 10), reported_on=date(2024, 2, 3))
    assert date_of_list(late_month(g) + 1) == date(2024, 3, 1)


def test_history_late_game_keeps_the_older_list():
    config = imported((1, 1650, 100), (2, 1750, 100), (3, 1750, 100), (4, 1600, 100))
    january = datetime(2024, 1, 10)
    first = run_history([game(1, 1, 4, 1.0, when=january),
                         game(2, 1, 3, 0.5, when=datetime(2024, 2, 10))], config)
    rl = first.state.rating(1, V)
    assert rl[0] == 1650 + round(25 * (1 - expected_score(50)))
    late = run_history([game(3, 1, 2, 0.5, when=january, hours=5)], config, first.state)
    rest = close_periods(late.state, config, date(2024, 3, 1))
    (row,) = [r for r in rest.rows if r.game_id == 3 and r.side == HOME]
    assert (row.r0, row.rc, row.k, row.list_date, row.period) == \
        (1650, 1750, 25, date(2024, 1, 1), "2024-03-01")
    expected = rate_period(rl[0], rl[1], [(1650, 1750, 0.5, 100), (None, 1750, 0.5)])
    mine = summary_of(rest.summaries, 1)
    assert (mine.rl, mine.rn, mine.rtt, mine.lpr, mine.limitation) == \
        (expected.rl, expected.rn, expected.rtt, expected.lpr, expected.limitation)


def test_history_start_rating_has_no_expected_score_nor_change():
    """Seed 004: a start rating's games have no We, so its Wet and Rtt are 0; Wt, Rct are its games'."""
    depot = [(1500, 1), (1600, 0.5), (1700, 0), (1400, 1), (1550, 0.5), (1650, 0.5)]
    config = imported(*[(2 + i, rc, 100) for i, (rc, _) in enumerate(depot)])
    _, summaries, _ = rated_to(config, series(1, range(2, 8), [w for _, w in depot]), APRIL_LIST)
    mine = summary_of(summaries, 1)
    assert (mine.nt, mine.games_played, mine.wt, mine.wet, mine.rtt, round(mine.rct, 4), mine.limitation) == \
        (6, 6, 3.5, 0.0, 0.0, 1566.6667, "none")


# --- corrections -----------------------------------------------------------------------------

def corrected_in_may(new_score, *, kind="played"):
    """Player 1 (1800, Nv 40: k 34.1526) beat player 2 (1700, Nv 100: k 25) in March, rated by the
    April list (1812 and 1691); in May the result became `new_score`. Rows and summaries of the June
    list, which takes the old result back and rates the new one, both with R0 and Rc of the March list."""
    config = imported((1, 1800, 40), (2, 1700, 100))
    record = game(1, 1, 2, new_score, kind=kind,
                  corrections=(Correction(date(2024, 5, 10), 1.0, "played", None),))
    (_, old), (may, back), (_, new) = placements(record)
    assert (may, back.reverses, back.home_score, new.home_score) == (2024 * 12 + 4, True, 1.0, new_score)
    first = run_history([old], config)
    april = close_periods(first.state, config, date(2024, 5, 1))
    assert [summary_of(april.summaries, c).rn for c in (1, 2)] == [1812, 1691]
    late = run_history([back, new], config, april.state)
    june = close_periods(late.state, config, date(2024, 6, 1))
    return june.rows, june.summaries, june.state


def test_a_corrected_result_takes_the_old_rt_back_and_rates_the_new_one():
    # old Rt: 34.1526 * (1 - We(100) 0.636831) = +12.4032 and 25 * (0 - 0.363169) = -9.0792, taken
    # back; the loss instead: 34.1526 * (0 - 0.636831) = -21.7494 and 25 * (1 - 0.363169) = +15.9208
    rows, summaries, state = corrected_in_may(0.0)
    assert [(r.side, r.coach, r.race, r.opponent, r.counted, r.reason, r.r0, r.rc, round(r.we, 6), round(r.k, 4),
             round(r.rt, 4), r.list_date, r.period) for r in rows] == [
        (HOME, 1, None, 2, False, Reason.REVERSED, 1800, 1700, 0.636831, 34.1526, -12.4032, MARCH_LIST, "2024-06-01"),
        (AWAY, 2, None, 1, False, Reason.REVERSED, 1700, 1800, 0.363169, 25, 9.0792, MARCH_LIST, "2024-06-01"),
        (HOME, 1, None, 2, True, None, 1800, 1700, 0.636831, 34.1526, -21.7494, MARCH_LIST, "2024-06-01"),
        (AWAY, 2, None, 1, True, None, 1700, 1800, 0.363169, 25, 15.9208, MARCH_LIST, "2024-06-01"),
    ]
    # Rtt = -k of each: Rn = round(1812 - 34.1526) = 1778 (LPR 1560 below), round(1691 + 25) = 1716;
    # Nv: the game taken back leaves it, the corrected one enters it
    one, two = summary_of(summaries, 1), summary_of(summaries, 2)
    assert (one.rl, round(one.rtt, 4), one.nt, one.wt, one.lpr, one.rn, one.limitation, one.nv) == \
        (1812, -34.1526, 1, 0.0, 1560, 1778, "none", 41)
    assert (two.rl, round(two.rtt, 4), two.nt, two.wt, two.rn, two.nv) == (1691, 25.0, 1, 1.0, 1716, 100)
    assert (state.rating(1, V), state.rating(2, V)) == ((1778, 41), (1716, 100))


def test_a_list_that_only_takes_a_result_back_moves_by_the_rt_taken_back():
    # corrected to a forfeit, the game counts no more: Rn = round(1812 - 12.4032) = 1800 and
    # round(1691 + 9.0792) = 1700, no LPR (no counted game), Nv one game less
    rows, summaries, state = corrected_in_may(1.0, kind=FORFEIT)
    assert [(r.side, r.counted, r.reason) for r in rows] == [
        (HOME, False, Reason.REVERSED), (AWAY, False, Reason.REVERSED),
        (HOME, False, Reason.FORFEIT), (AWAY, False, Reason.FORFEIT),
    ]
    one, two = summary_of(summaries, 1), summary_of(summaries, 2)
    assert (one.rl, round(one.rtt, 4), one.nt, one.games_played, one.wt, one.wet, one.lpr, one.rn, one.nv) == \
        (1812, -12.4032, 0, 1, 0.0, 0.0, None, 1800, 40)
    assert (two.rl, round(two.rtt, 4), two.nt, two.lpr, two.rn, two.nv) == (1691, 9.0792, 0, None, 1700, 99)
    assert (state.rating(1, V), state.rating(2, V)) == ((1800, 40), (1700, 99))


# --- depot and bootstrap ---------------------------------------------------------------------

def test_depot_with_five_games_waits():
    config = imported(*[(c, 1600, 100) for c in range(2, 7)])
    rows, summaries, state = rated_to(config, series(1, range(2, 7), [1, 0, 1, 0.5, 1]),
                                      APRIL_LIST)
    assert [s.coach for s in summaries if s.coach == 1] == []
    assert [(r.counted, r.reason, r.rc, r.depot_date) for r in rows if r.coach == 1] == \
        [(False, Reason.IN_DEPOT, 1600, APRIL_LIST)] * 5
    assert state.rating(1, V) is None


def test_sixth_game_later_makes_the_start_rating_with_depot_dates():
    config = imported(*[(c, 1600, 100) for c in range(2, 8)])
    games = series(1, range(2, 7), [1, 0, 1, 0.5, 1]) + [
        game(6, 1, 7, 0.5, when=datetime(2024, 5, 3))]
    rows, summaries, state = rated_to(config, games, date(2024, 6, 1))
    june = [r for r in rows if r.coach == 1 and r.period == "2024-06-01"]
    assert [(r.counted, r.depot_date) for r in june] == \
        [(True, APRIL_LIST)] * 5 + [(True, date(2024, 6, 1))]
    mine = summary_of(summaries, 1)
    # Nt: the six depot games; Gt: every game since March, the month of the oldest (seed 004)
    assert (mine.is_start, mine.nt, mine.games_played, mine.period) == (True, 6, 6, "2024-06-01")
    assert state.rating(1, V) == (mine.rn, 6)


def test_a_starters_gt_counts_every_game_since_the_oldest_depot_game_counted_or_not():
    # seed 004: Nt the games the start rating rests on, Gt every game of the coach in the variant
    # from the month of the oldest of them: here a forfeit, an unsanctioned game, a bye and an
    # unranked race beside the six depot games of March to May
    config = imported(*[(c, 1600, 100) for c in range(2, 9)])
    april, may = datetime(2024, 4, 6), datetime(2024, 5, 4)
    games = (
        [game(90, 1, 8, 1.0, when=datetime(2024, 2, 3), sanctioned=False)]  # before the oldest depot game
        + series(1, range(2, 5), [1, 0, 1])
        + [game(10, 1, 5, 0.0, when=april, kind=FORFEIT), game(11, 1, 6, 1.0, when=april, hours=1, sanctioned=False),
           game(12, 1, None, 1.0, when=april, hours=2, kind=BYE)]
        + series(1, range(5, 8), [0.5, 1, 0], when=may, first_id=20)
        + [game(30, 1, 8, 1.0, when=may, hours=5, away_race_ranked=False)]
    )
    rows, summaries, state = rated_to(config, games, date(2024, 6, 1))
    mine = summary_of(summaries, 1)
    assert (mine.is_start, mine.period, mine.nt) == (True, "2024-06-01", 6)
    assert mine.games_played == 6 + 4  # March to May: the depot games and the four that did not count


def test_a_keys_lpr_does_not_depend_on_keys_without_games_numbered_after_it():
    # the last key with games used to lose its last term from the search bracket when keys
    # without counted games followed it: 1844.5 instead of 1971.5 here (found by verify_ratings)
    from rating_engines.knsb.normal import solve_lpr as _solve_lpr

    kid, rc = [0, 0, 0], [1500.0, 1500.0, 1900.0]
    alone = _solve_lpr(np.array(kid), np.array(rc), np.array([2.5]), 1, SIGMA)
    followed = _solve_lpr(np.array(kid), np.array(rc), np.array([2.5, 0.0, 0.0]), 3, SIGMA)
    assert followed[0] == pytest.approx(alone[0], abs=1e-6)
    assert sum(expected_score(followed[0] - r) for r in rc) == pytest.approx(2.5, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.floats(1000, 2400), st.sampled_from([0.0, 0.5, 1.0])),
                min_size=1, max_size=25), st.integers(0, 3))
def test_every_lpr_solves_its_own_equation_whatever_the_other_keys(games, empty_after):
    from rating_engines.knsb.settlement import settle as _settle

    keys = sorted({k for k, _, _ in games})
    number = {k: i for i, k in enumerate(keys)}
    kid = np.array([number[k] for k, _, _ in games])
    rc, w = np.array([r for _, r, _ in games]), np.array([s for _, _, s in games])
    nkeys = len(keys) + empty_after
    t = _settle(kid, rc, w, np.zeros(len(rc)), np.zeros(len(rc)), nkeys, SIGMA, rl=[1500.0] * nkeys)
    for key in range(len(keys)):
        mine = kid == key
        extra = [1500.0] if t.extra[key] else []
        total = sum(expected_score(t.lpr_exact[key] - r) for r in [*rc[mine], *extra])
        assert total == pytest.approx(w[mine].sum() + 0.5 * len(extra), abs=1e-6)


def test_depot_games_older_than_24_months_expire():
    config = imported(*[(c, 1600, 100) for c in range(2, 8)])
    old = series(1, range(2, 7), [1, 0, 1, 0.5, 1], when=datetime(2020, 1, 10))
    late_sixth = [game(6, 1, 7, 1.0, when=datetime(2022, 1, 20))]
    rows, summaries, state = rated_to(config, old + late_sixth, date(2022, 2, 1))
    expired = [r for r in rows if r.reason == Reason.DEPOT_EXPIRED]
    assert [(r.game_id, r.period, r.depot_date) for r in expired] == \
        [(i, "2022-02-01", date(2020, 2, 1)) for i in range(1, 6)]
    assert state.rating(1, V) is None


def test_depot_games_24_months_old_still_count():
    config = imported(*[(c, 1600, 100) for c in range(2, 8)])
    old = series(1, range(2, 7), [1, 0, 1, 0.5, 1], when=datetime(2020, 2, 10))
    sixth = [game(6, 1, 7, 1.0, when=datetime(2022, 1, 20))]
    _, summaries, state = rated_to(config, old + sixth, date(2022, 2, 1))
    assert summary_of(summaries, 1).is_start
    assert state.rating(1, V)[1] == 6


def test_bootstrap_depots_games_between_unrated_coaches():
    games = [game(i + 1, 1, 2, 1.0, hours=i) for i in range(6)]
    rows, summaries, state = rated_to(KnsbConfig(), games, APRIL_LIST)
    winner, loser = summary_of(summaries, 1), summary_of(summaries, 2)
    # 6 of 6 and an extra remise against Rct = 1500: 7·Φ((Rs − 1500)/σ) = 6.5
    assert (winner.rn, loser.rn) == (1919, 1081)
    assert (winner.rct, winner.nv, winner.wxt) == (1500, 6, pytest.approx(6.5, abs=0.01))
    assert {(r.counted, r.reason, r.rc) for r in rows} == {(True, Reason.DEPOT_BOOTSTRAP, 1500)}


def test_bootstrap_rows_wait_in_the_depot_footnoted():
    rows, _, _ = rated_to(KnsbConfig(), [game(1, 1, 2, 1.0)], APRIL_LIST)
    assert [(r.side, r.counted, r.reason, r.rc, r.depot_date) for r in rows] == \
        [(HOME, False, Reason.DEPOT_BOOTSTRAP, 1500, APRIL_LIST),
         (AWAY, False, Reason.DEPOT_BOOTSTRAP, 1500, APRIL_LIST)]


def test_without_bootstrap_unrated_opponents_never_count():
    rows, summaries, state = rated_to(KnsbConfig(bootstrap_rating=None),
                                      [game(i, 1, 2, 1.0, hours=i) for i in range(1, 8)],
                                      APRIL_LIST)
    assert {(r.counted, r.reason, r.rc) for r in rows} == {(False, Reason.OPPONENT_UNRATED, None)}
    assert summaries == [] and state.depot == {}


def test_rated_coach_against_unrated_opponent_does_not_count():
    config = imported((1, 1700, 100))
    rows, summaries, _ = rated_to(config, [game(1, 1, 2, 1.0)], APRIL_LIST)
    mine = [r for r in rows if r.coach == 1]
    assert [(r.counted, r.reason, r.r0, r.rc) for r in mine] == \
        [(False, Reason.OPPONENT_UNRATED, 1700, None)]
    theirs = [r for r in rows if r.coach == 2]
    assert [(r.counted, r.reason, r.rc) for r in theirs] == [(False, Reason.IN_DEPOT, 1700)]
    summary = summary_of(summaries, 1)
    assert (summary.rl, summary.rn, summary.nt, summary.games_played, summary.lpr) == \
        (1700, 1700, 0, 1, None)


def test_a_listed_coachs_first_game_against_an_unlisted_one_plays_on_the_imported_rating():
    # game 1 makes the rating table; player 3 (listed at 1500) is first seen in game 2, against
    # player 4, who is on no list: 3 keeps 1500 (opponent unrated), 4's game enters its depot at Rc 1500
    config = imported((1, 1700, 100), (2, 1600, 100), (3, 1500, 100))
    rows, summaries, state = rated_to(config, [game(1, 1, 2, 1.0), game(2, 3, 4, 1.0, hours=1)], APRIL_LIST)
    assert [(r.side, r.coach, r.counted, r.reason, r.r0, r.rc) for r in rows if r.game_id == 2] == \
        [(HOME, 3, False, Reason.OPPONENT_UNRATED, 1500, None), (AWAY, 4, False, Reason.IN_DEPOT, None, 1500)]
    listed = summary_of(summaries, 3)
    assert (listed.rl, listed.rn, listed.nt, listed.games_played) == (1500, 1500, 0, 1)
    assert (state.rating(3, V), state.rating(4, V)) == ((1500, 100), None)


# --- what counts ---------------------------------------------------------------------------

@pytest.mark.parametrize("extra, reason", [
    ({"sanctioned": False}, Reason.EVENT_NOT_SANCTIONED),
    ({"kind": FORFEIT}, Reason.FORFEIT),
    ({"away_race_ranked": False}, Reason.RACE_NOT_RANKED),
    ({"variant": "sevens"}, Reason.VARIANT_EXCLUDED),
    ({"home_race": "goblin"}, Reason.RACE_EXCLUDED),
])
def test_excluded_games_keep_rows_with_their_reason(extra, reason):
    config = imported((1, 1700, 100), (2, 1600, 100), variants=(V,), excluded_races=("goblin",))
    rows, _, state = rated_to(config, [game(1, 1, 2, 1.0, **extra)], APRIL_LIST)
    assert [(r.side, r.counted, r.reason) for r in rows] == [(HOME, False, reason),
                                                             (AWAY, False, reason)]
    assert state.rating(1, V) in (None, (1700, 100))


def test_a_game_between_an_excluded_race_and_a_ranked_one_counts_for_neither():
    # game 1 makes the rating table; in game 2 only the goblin is left out, and the orc's rating
    # moves by game 1 alone: 1700 + 25 * (1 - We(100) 0.636831) = 1709.08 -> 1709
    config = imported((1, 1700, 100), (2, 1600, 100), (3, 1500, 100), excluded_races=("goblin",))
    games = [game(1, 1, 2, 1.0), game(2, 3, 1, 1.0, hours=1, home_race="goblin", away_race="orc")]
    rows, summaries, state = rated_to(config, games, APRIL_LIST)
    assert [(r.side, r.coach, r.race, r.counted, r.reason) for r in rows if r.game_id == 2] == \
        [(HOME, 3, None, False, Reason.RACE_EXCLUDED), (AWAY, 1, None, False, Reason.RACE_EXCLUDED)]
    orc, goblin = summary_of(summaries, 1), summary_of(summaries, 3)
    assert (orc.nt, orc.games_played, round(orc.rtt, 4), orc.rn) == (1, 2, 9.0792, 1709)
    assert (goblin.rl, goblin.rn, goblin.nt, goblin.games_played) == (1500, 1500, 0, 1)
    assert (state.rating(1, V), state.rating(3, V)) == ((1709, 100), (1500, 100))


def test_bye_has_one_row():
    config = imported((1, 1700, 100))
    rows, _, _ = rated_to(config, [game(1, 1, None, 1.0, away_race=None, kind=BYE)], APRIL_LIST)
    assert [(r.side, r.opponent, r.counted, r.reason) for r in rows] == \
        [(HOME, None, False, Reason.BYE)]


def test_races_pool_into_one_rating_by_default():
    config = imported((1, 1700, 100), (2, 1700, 100))
    games = [game(1, 1, 2, 1.0), game(2, 1, 2, 1.0, hours=1, home_race="elf", away_race="orc")]
    rows, summaries, _ = rated_to(config, games, APRIL_LIST)
    assert {r.race for r in rows} == {None}
    assert summary_of(summaries, 1).nt == 2


def test_per_race_rates_each_race_on_its_own():
    config = imported((1, 1700, 100), (2, 1700, 100), per_race=True)
    games = [game(1, 1, 2, 1.0), game(2, 1, 2, 1.0, hours=1, home_race="elf", away_race="orc")]
    _, summaries, state = rated_to(config, games, APRIL_LIST)
    assert sorted((s.coach, s.race, s.nt) for s in summaries) == \
        [(1, "elf", 1), (1, "orc", 1), (2, "elf", 1), (2, "orc", 1)]
    assert state.rating(1, V, "orc") == state.rating(1, V, "elf")


def test_juniors_get_the_junior_k():
    config = imported((1, 1800, 40, 2010), (2, 1800, 40, 1980))
    rows, _, _ = rated_to(config, [game(1, 1, 2, 1.0)], APRIL_LIST)
    assert [(r.coach, r.k) for r in rows] == [(1, 40), (2, k_factor(1800, 40))]


def test_birth_years_can_come_with_the_history():
    config = imported((1, 2200, 100), (2, 2200, 100))
    result = run_history([game(1, 1, 2, 0.5)], config, birth_years={1: 2008})
    rest = close_periods(result.state, config, APRIL_LIST)
    assert [(r.coach, r.k) for r in rest.rows] == [(1, 30), (2, 20)]


def test_a_junior_turns_senior_at_the_new_year_list():
    config = imported((1, 1800, 40, 2005), (2, 1800, 100))
    games = [game(1, 1, 2, 0.5, when=datetime(2023, 11, 5)),
             game(2, 1, 2, 0.5, when=datetime(2024, 1, 5))]
    rows, _, _ = rated_to(config, games, date(2024, 2, 1))
    assert [r.k for r in rows if r.coach == 1] == [40, 216 / math.sqrt(41)]


def test_late_game_from_before_the_start_rating_is_not_used():
    depot = [(1500, 1), (1600, 0.5), (1700, 0), (1400, 1), (1550, 0.5), (1650, 0.5)]
    config = imported(*[(2 + i, rc, 100) for i, (rc, _) in enumerate(depot)])
    first = run_history(series(1, range(2, 8), [w for _, w in depot])
                        + [game(7, 2, 3, 0.5, when=datetime(2024, 4, 2))], config)
    late = run_history([game(8, 1, 4, 1.0, when=MARCH, hours=20)], config, first.state)
    rest = close_periods(late.state, config, date(2024, 5, 1))
    (row,) = [r for r in rest.rows if r.game_id == 8 and r.coach == 1]
    assert (row.counted, row.reason, row.r0, row.list_date) == \
        (False, Reason.IN_DEPOT, None, MARCH_LIST)
    assert rest.state.rating(1, V) == (1631, 6)


# --- lists ---------------------------------------------------------------------------------

def test_a_list_with_no_games_changes_nothing():
    config = imported((1, 1700, 100), (2, 1600, 100))
    games = [game(1, 1, 2, 1.0), game(2, 1, 2, 0.5, when=datetime(2024, 6, 5))]
    result = run_history(games, config)
    assert result.lists == [MARCH_LIST, APRIL_LIST, date(2024, 5, 1), date(2024, 6, 1)]
    assert {s.period for s in result.summaries} == {"2024-04-01"}
    assert result.state.list_date == date(2024, 6, 1)


def test_close_periods_makes_the_monthly_lists_without_games():
    config = imported((1, 1700, 100), (2, 1600, 100))
    first = run_history([game(1, 1, 2, 1.0)], config)
    closed = close_periods(first.state, config, date(2024, 6, 15))
    assert closed.lists == [APRIL_LIST, date(2024, 5, 1), date(2024, 6, 1)]
    assert first.state.list_date == MARCH_LIST  # the given state is left alone
    assert closed.state.next_list_date == date(2024, 7, 1)


def test_close_periods_expires_the_depot_with_no_games_at_all():
    first = run_history([game(1, 1, 2, 1.0, when=datetime(2020, 1, 10))], KnsbConfig())
    closed = close_periods(first.state, KnsbConfig(), date(2022, 6, 1))
    assert len(closed.lists) == 29
    assert [(r.reason, r.period) for r in closed.rows] == \
        [(Reason.DEPOT_BOOTSTRAP, "2020-02-01")] * 2 + [(Reason.DEPOT_EXPIRED, "2022-02-01")] * 2
    assert closed.state.depot == {}


def test_provisional_rows_leave_the_state_alone():
    config = imported((1, 1700, 100), (2, 1600, 100))
    first = run_history([game(1, 1, 2, 1.0)], config)
    provisional = close_periods(first.state, config, first.state.next_list_date)
    again = close_periods(first.state, config, first.state.next_list_date)
    assert provisional.rows == again.rows and len(provisional.rows) == 2
    assert first.state.period.rows and first.state.rating(1, V) == (1700, 100)


def test_run_history_leaves_the_given_state_alone():
    config = imported((1, 1700, 100), (2, 1600, 100))
    first = run_history([game(1, 1, 2, 1.0)], config)
    before = pickle.dumps(first.state)
    run_history([game(2, 1, 2, 1.0, when=datetime(2024, 5, 1))], config, first.state)
    assert pickle.dumps(first.state) == before


def test_a_listed_coach_who_has_not_played_has_the_imported_rating_once_lists_run():
    # player 3 was imported at 1500 on 120 games: Nv 100 on the list (the cap); no list before the first game
    config = imported((1, 1700, 100), (2, 1600, 100), (3, 1500, 120))
    assert KnsbState(config).rating(3, V) is None
    state = run_history([game(1, 1, 2, 1.0)], config).state
    assert state.rating(3, V) == (1500, 100)


def test_games_out_of_order_are_rated_in_order():
    config = imported((1, 1700, 100), (2, 1600, 100), (3, 1500, 100))
    games = [game(1, 1, 2, 1.0), game(2, 2, 3, 0.5, hours=1), game(3, 1, 3, 0.0, hours=2,
                                                                   when=datetime(2024, 4, 2))]
    assert run_history(games[::-1], config).rows == run_history(games, config).rows


def test_a_game_given_twice_is_refused():
    with pytest.raises(ValueError, match="twice"):
        run_history([game(1, 1, 2, 1.0), game(1, 1, 2, 1.0)], KnsbConfig())


def test_state_from_another_config_is_refused():
    first = run_history([game(1, 1, 2, 1.0)], KnsbConfig())
    with pytest.raises(ValueError, match="different KnsbConfig"):
        run_history([], KnsbConfig(lpr_margin=10), first.state)


# --- degenerate cases ------------------------------------------------------------------------

def test_one_game_draw_has_the_opponents_rating_as_lpr():
    result = rate_period(1600, 100, [(None, 1700, 0.5)])
    assert (result.lpr, result.extra_remise, result.rn) == (1700, False, 1603)


def test_hundred_percent_and_zero_percent_use_the_extra_remise():
    win = rate_period(1600, 100, [(None, 1600, 1)])
    loss = rate_period(1600, 100, [(None, 1600, 0)])
    # 2·Φ((x − 1600)/σ) = 1.5 with the draw against Rl = 1600
    assert (win.lpr, loss.lpr) == (1600 + round(SIGMA * 0.6744897501960817),
                                   1600 - round(SIGMA * 0.6744897501960817))
    assert (win.rn, loss.rn) == (1613, 1588)
    assert (win.wxt, loss.wxt) == (pytest.approx(1.5, abs=0.01), pytest.approx(0.5, abs=0.01))


def test_huge_rating_gap():
    win = rate_period(4000, 100, [(None, 1000, 1)])
    loss = rate_period(4000, 100, [(None, 1000, 0)])
    assert (win.rows[0].we, win.rtt, win.rn, win.limitation) == (1.0, 0.0, 4000, "none")
    assert (loss.rtt, loss.rn, loss.limitation) == (-10.0, 3990, "none")
    # the game against 1000 saturates at 0 or 1, so the extra remise against 4000 decides
    assert (loss.lpr, win.lpr) == (1000, 4000)


def test_no_games_keep_the_rating():
    result = rate_period(1600, 30, [])
    assert (result.rn, result.nv, result.lpr, result.nt) == (1600, 30, None, 0)
    assert (result.limitation, result.rows, result.wt, result.wet, result.rtt, result.rct, result.wxt) == \
        ("none", (), 0.0, 0.0, 0.0, None, None)


def test_lpr_margin_lets_the_rating_pass_the_lpr_by_the_margin():
    games = [(None, 1800, 1)] * 5 + [(None, 1800, 0.5)] + [(None, 1800, 0)] * 4
    assert rate_period(1800, 6, games, lpr_margin=5).rn == 1841


def test_wx_is_the_expected_score_at_the_lpr():
    result = rate_period(1500, 100, [(None, 1500 + d, 0.5) for d in range(-3000, 3001, 7)])
    assert max(abs(r.wx - expected_score(result.lpr - r.rc)) for r in result.rows) < 2e-15


def test_we_table_rounds_to_three_decimals():
    assert (expected_score(84, table=True), expected_score(-84, table=True)) == (0.616, 0.384)


def test_k_factor_bands():
    assert [k_factor(r, 100) for r in (2000, 2100, 2200, 2400, 2500)] == [25, 25, 20, 10, 10]
    assert [k_factor(r, 100, junior=True) for r in (2000, 2200, 2500)] == [40, 30, 10]
    assert (k_factor(1500, 29, junior=True), k_factor(1500, 30, junior=True)) == \
        (216 / math.sqrt(29), 40)


def test_nv_is_capped_at_100_games():
    assert (nv_after(40, 6), nv_after(95, 10)) == (46, 100)


def test_unrated_players_have_no_k():
    with pytest.raises(ValueError, match="Nv"):
        k_factor(1500, 0)


@pytest.mark.parametrize("score", [0, 3])
def test_performance_rating_has_no_solution_at_zero_or_full_score(score):
    with pytest.raises(ValueError, match="no solution"):
        performance_rating([1500, 1600, 1700], score)


def test_start_rating_waits_below_six_games_and_drops_old_ones():
    depot = [(1500, 1, date(2022, 1, 5))] + [(1500, 0.5, date(2023, 6, 1))] * 5
    assert start_rating(depot, list_date=date(2024, 2, 1)) is None
    assert start_rating(depot, list_date=date(2024, 1, 1)).nv == 6


# --- configuration ---------------------------------------------------------------------------

def test_config_rejects_unknown_parameters():
    with pytest.raises(ValueError, match="sigmaa"):
        KnsbConfig.from_params({"sigmaa": 300})


@pytest.mark.parametrize("name, value", [
    ("sigma", 0), ("lpr_margin", -1), ("depot_min_games", 0), ("depot_months", 0),
    ("nv_cap", 0), ("bootstrap_rating", "x"), ("junior_age", -1), ("per_race", "yes"),
    ("we_table", 1), ("variants", []), ("excluded_races", "goblin"),
    ("initial_list", [(1, 1500, 0)]), ("initial_list", [(1, 1500, 10), (1, 1600, 10)]),
])
def test_config_rejects_out_of_range_values_naming_them(name, value):
    with pytest.raises(ValueError, match=name):
        KnsbConfig.from_params({name: value})


def test_config_round_trips_through_params():
    config = KnsbConfig.from_params({"variants": ["bb2020"], "initial_list": [[1, 1500, 20, 2001]],
                                     "bootstrap_rating": None})
    assert KnsbConfig.from_params(config.as_params()) == config
    assert config.initial_list == ((1, 1500.0, 20, 2001),)


# --- properties --------------------------------------------------------------------------------

ratings = st.integers(min_value=0, max_value=3000)
scores = st.sampled_from([0.0, 0.5, 1.0])


@given(st.lists(ratings, min_size=1, max_size=20), st.data())
def test_lpr_solves_its_equation(opponents, data):
    halves = data.draw(st.integers(min_value=1, max_value=2 * len(opponents) - 1))
    x = performance_rating(opponents, halves / 2)
    assert sum(expected_score(x - rc) for rc in opponents) == pytest.approx(halves / 2, abs=1e-9)


@given(ratings, st.lists(st.tuples(ratings, scores), min_size=1, max_size=15),
       st.integers(min_value=1, max_value=100))
def test_rn_lies_between_rl_and_lpr(rl, games, nv):
    result = rate_period(rl, nv, [(None, rc, w) for rc, w in games])
    assert min(rl, result.lpr) <= result.rn <= max(rl, result.lpr)
    assert result.wxt == pytest.approx(result.wt + 0.5 * result.extra_remise, abs=0.05 * result.nt)


@given(st.floats(min_value=-5000, max_value=5000), st.booleans())
def test_expected_scores_of_both_sides_sum_to_one(diff, table):
    assert expected_score(diff, table=table) + expected_score(-diff, table=table) == \
        pytest.approx(1.0, abs=1e-15)


@st.composite
def histories(draw):
    """A few coaches, some imported, playing over about a year and a half, in order of play."""
    n = draw(st.integers(min_value=1, max_value=40))
    days = sorted(draw(st.lists(st.integers(min_value=0, max_value=540), min_size=n, max_size=n)))
    games = []
    for i, day in enumerate(days):
        home = draw(st.integers(min_value=1, max_value=6))
        away = draw(st.integers(min_value=1, max_value=6).filter(lambda c, home=home: c != home))
        games.append(game(i + 1, home, away, draw(scores),
                          when=datetime(2023, 1, 1) + timedelta(days=day), hours=i % 20,
                          home_race=draw(st.sampled_from(["orc", "elf"]))))
    games.sort(key=lambda g: (g.played_at, g.game_id))
    return games


FLUSH = date(2026, 1, 1)  # after every generated history
CONFIG = KnsbConfig(initial_list=((1, 1700, 30), (2, 1500, 100), (3, 1600, 8)), depot_min_games=2)


@settings(max_examples=60, deadline=None)
@given(histories(), st.data())
def test_split_and_resume_equals_one_run(games, data):
    cut = data.draw(st.integers(min_value=0, max_value=len(games)))
    at = games[cut].played_at if cut < len(games) else datetime.max
    whole = run_history(games, CONFIG)
    head = run_history([g for g in games if g.played_at < at], CONFIG)
    tail = run_history([g for g in games if g.played_at >= at], CONFIG, head.state)
    assert head.rows + tail.rows == whole.rows
    assert head.summaries + tail.summaries == whole.summaries
    assert head.lists + tail.lists == whole.lists
    assert tail.state == whole.state
    assert close_periods(tail.state, CONFIG, FLUSH).rows == \
        close_periods(whole.state, CONFIG, FLUSH).rows


@settings(max_examples=30, deadline=None)
@given(histories())
def test_same_input_gives_bit_identical_output(games):
    one = run_history(games, CONFIG)
    two = run_history(games, CONFIG)
    assert pickle.dumps((one.rows, one.summaries)) == pickle.dumps((two.rows, two.summaries))


@settings(max_examples=30, deadline=None)
@given(histories())
def test_history_rows_agree_with_their_summaries(games):
    result = close_periods(run_history(games, CONFIG).state, CONFIG, FLUSH)
    for s in result.summaries:
        mine = [r for r in result.rows if r.coach == s.coach and r.period == s.period and r.counted]
        assert s.nt == len(mine)
        assert s.wt == sum(r.w for r in mine)
        for r in mine:
            assert r.wx == pytest.approx(expected_score(s.lpr - r.rc), abs=1e-12)
        if not s.is_start and s.nt:
            assert s.rtt == pytest.approx(sum(r.rt for r in mine), abs=1e-9)
            assert min(s.rl, s.lpr) <= s.rn <= max(s.rl, s.lpr)


# --- both sides of a game between coaches rated from their depots (the fast loop) -----------
# Coaches rated from the imported list take the general path; coaches rated from their own
# depot games, playing each other in the month after their start rating, take the fast loop.

FEBRUARY = datetime(2024, 2, 10)


def _bootstrap_month(scores, *, pairs=((1, 2),) * 6, when=datetime(2024, 1, 10)):
    """January games between unrated coaches: each gets a start rating on the 1 February list."""
    return [game(100 + i, home, away, score, when=when, hours=i)
            for i, ((home, away), score) in enumerate(zip(pairs, scores))]


def _assert_rows_follow_the_formula(rows, *, table=False):
    for r in rows:
        assert r.we == pytest.approx(expected_score(r.r0 - r.rc, table=table), abs=1e-15), r
        assert r.rt == pytest.approx(r.k * (r.w - r.we), abs=1e-12), r


def _games_taken_by_the_general_path(monkeypatch) -> list:
    """The ids of the games the engine hands to its general (slow) path, as they arrive."""
    from rating_engines.knsb.games import GameIntake

    taken = []
    for name in ("slow", "unrated"):
        original = getattr(GameIntake, name)

        def spy(self, g, *args, _original=original):
            taken.append(g.game_id)
            return _original(self, g, *args)

        monkeypatch.setattr(GameIntake, name, spy)
    return taken


def test_fast_loop_gives_each_side_its_own_expected_score(monkeypatch):
    config = KnsbConfig()
    feb = [game(1, 1, 2, 0.5, when=FEBRUARY), game(2, 2, 1, 1.0, when=FEBRUARY, hours=3)]
    general = _games_taken_by_the_general_path(monkeypatch)
    rows, summaries, state = rated_to(config, _bootstrap_month([1, 1, 1, 1, 0.5, 0]) + feb,
                                      date(2024, 3, 1))
    assert not {1, 2} & set(general)  # both February games went through the fast loop
    march = [r for r in rows if r.period == "2024-03-01"]
    # coach 1 starts at 1693, coach 2 at 1307 (4½ of 6 against the bootstrap 1500), k 88.1816
    assert [(r.game_id, r.side, r.coach, r.r0, r.rc, round(r.we, 6)) for r in march] == [
        (1, HOME, 1, 1693, 1307, 0.911652), (1, AWAY, 2, 1307, 1693, 0.088348),
        (2, HOME, 2, 1307, 1693, 0.088348), (2, AWAY, 1, 1693, 1307, 0.911652),
    ]
    _assert_rows_follow_the_formula(march)
    for coach in (1, 2):
        mine = [r for r in march if r.coach == coach]
        expected = rate_period(mine[0].r0, 6, [(None, r.rc, r.w) for r in mine])
        summary = next(s for s in summaries if s.coach == coach and s.period == "2024-03-01")
        assert (summary.rtt, summary.wet, summary.lpr, summary.rn, summary.limitation) == \
            (expected.rtt, expected.wet, expected.lpr, expected.rn, expected.limitation)
    assert (state.rating(1, V), state.rating(2, V)) == ((1576, 8), (1424, 8))


def _fast_and_general(january_scores, february, we_table):
    """The February list twice: coaches rated from depots (fast loop), and the same ratings
    imported (general path). Returns both (rows, summaries)."""
    config = KnsbConfig(depot_min_games=1, we_table=we_table)
    pairs = [(1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3)]
    first = run_history(_bootstrap_month(january_scores, pairs=pairs), config)
    after_january = close_periods(first.state, config, date(2024, 2, 1)).state
    fast = run_history(february, config, after_january)
    fast = close_periods(fast.state, config, date(2024, 3, 1))
    imported_config = KnsbConfig(
        depot_min_games=1, we_table=we_table,
        initial_list=tuple((c, *after_january.rating(c, V)) for c in (1, 2, 3, 4)))
    general = rated_to(imported_config, february, date(2024, 3, 1))
    return (fast.rows, fast.summaries), general[:2]


@settings(max_examples=40, deadline=None)
@given(st.lists(scores, min_size=6, max_size=6),
       st.lists(st.tuples(st.permutations([1, 2, 3, 4]), scores), min_size=1, max_size=12),
       st.booleans())
def test_fast_loop_rows_equal_the_general_paths_and_the_formula(january, february, we_table):
    games = [game(i + 1, order[0], order[1], w, when=FEBRUARY, hours=i)
             for i, (order, w) in enumerate(february)]
    (fast_rows, fast_summaries), (rows, summaries) = _fast_and_general(january, games, we_table)
    assert fast_rows == rows
    assert fast_summaries == summaries
    assert all(r.counted for r in rows) and len(rows) == 2 * len(games)
    _assert_rows_follow_the_formula(fast_rows, table=we_table)


# --- the limits when the rating falls --------------------------------------------------------

def test_lpr_limitation_stops_a_fall_at_the_lpr():
    games = [(None, 1800, 1)] * 4 + [(None, 1800, 0.5)] + [(None, 1800, 0)] * 5
    result = rate_period(1800, 6, games)
    # round(1800 − 44.0908) = 1756 would go below the LPR 1764
    assert (round(result.rtt, 4), result.lpr, result.rn, result.limitation) == \
        (-44.0908, 1764, 1764, "lpr")


def test_rl_limitation_stops_a_fall_away_from_the_lpr_at_rl():
    result = rate_period(1800, 100, [PeriodGame(1950, 1850, 0.5), PeriodGame(1800, 1850, 0.5)])
    # round(1800 − 1.6843) = 1798 would move down, away from the LPR 1850
    assert (round(result.rtt, 4), result.lpr, result.rn, result.limitation) == \
        (-1.6843, 1850, 1800, "rl")


def test_history_lpr_limitation_of_a_fall():
    config = imported((1, 1800, 6), *[(c, 1800, 100) for c in range(2, 12)])
    scores_ = [1] * 4 + [0.5] + [0] * 5
    _, summaries, state = rated_to(config, series(1, range(2, 12), scores_), APRIL_LIST)
    mine = summary_of(summaries, 1)
    assert (round(mine.rtt, 4), mine.lpr, mine.rn, mine.limitation) == \
        (-44.0908, 1764, 1764, "lpr")
    assert state.rating(1, V) == (1764, 16)


@given(ratings, st.lists(st.tuples(st.one_of(st.none(), ratings), ratings, scores),
                         min_size=1, max_size=12),
       st.integers(min_value=1, max_value=100))
def test_limitation_names_the_bound_that_kept_the_rating(rl, games, nv):
    result = rate_period(rl, nv, games)
    raw = round_half_away(rl + result.rtt)
    low, high = sorted((rl, result.lpr))
    if low <= raw <= high:
        expected = (raw, "none")
    elif rl == result.lpr or (raw - rl) * (result.lpr - rl) > 0:
        expected = (result.lpr, "lpr")  # past the LPR, on its side of Rl
    else:
        expected = (rl, "rl")  # away from the LPR
    assert (result.rn, result.limitation) == expected


# --- depot expiry inside a history -----------------------------------------------------------

def test_start_rating_after_expiry_rests_on_the_younger_depot_games_only():
    # the six younger games are the start-rating check (Rs 1631); the two old ones, losses
    # against 1400, would pull it down
    config = imported((2, 1500, 100), (3, 1600, 100), (4, 1700, 100), (5, 1400, 100),
                      (6, 1550, 100), (7, 1650, 100))
    games = [
        game(1, 1, 5, 0.0, when=datetime(2020, 1, 10)),
        game(2, 1, 5, 0.0, when=datetime(2020, 1, 20)),
        game(3, 1, 2, 1.0, when=datetime(2020, 2, 10)),  # 24 months before the list: counts
        game(4, 1, 3, 0.5, when=datetime(2021, 12, 5)),
        game(5, 1, 4, 0.0, when=datetime(2021, 12, 6)),
        game(6, 1, 5, 1.0, when=datetime(2022, 1, 5)),
        game(7, 1, 6, 0.5, when=datetime(2022, 1, 6)),
        game(8, 1, 7, 0.5, when=datetime(2022, 1, 7)),
    ]
    rows, summaries, state = rated_to(config, games, date(2022, 2, 1))
    mine = [r for r in rows if r.coach == 1]
    # five games in the depot at the 1 January list: it waits
    assert [(r.game_id, r.counted, r.reason) for r in mine if r.period == "2022-01-01"] == \
        [(4, False, Reason.IN_DEPOT), (5, False, Reason.IN_DEPOT)]
    assert [(r.game_id, r.counted, r.reason, r.rc, r.depot_date)
            for r in mine if r.period == "2022-02-01"] == [
        (1, False, Reason.DEPOT_EXPIRED, 1400, date(2020, 2, 1)),
        (2, False, Reason.DEPOT_EXPIRED, 1400, date(2020, 2, 1)),
        (3, True, None, 1500, date(2020, 3, 1)),
        (4, True, None, 1600, date(2022, 1, 1)),
        (5, True, None, 1700, date(2022, 1, 1)),
        (6, True, None, 1400, date(2022, 2, 1)),
        (7, True, None, 1550, date(2022, 2, 1)),
        (8, True, None, 1650, date(2022, 2, 1)),
    ]
    start = summary_of(summaries, 1)
    assert (start.is_start, start.period, start.rn, start.lpr, start.nt, start.nv) == \
        (True, "2022-02-01", 1631, 1631, 6, 6)
    assert state.rating(1, V) == (1631, 6) and state.depot == {}


def test_a_checkpoint_holding_depot_games_as_plain_tuples_carries_on_alike():
    # checkpoints stored before depot entries had names hold them as tuples in the same order
    from dataclasses import fields

    config = KnsbConfig(depot_min_games=2)
    state = run_history(_bootstrap_month([1, 0.5, 0]), config).state
    legacy = state.copy()
    legacy.depot = {key: [tuple(getattr(d, f.name) for f in fields(d)) for d in games]
                    for key, games in legacy.depot.items()}
    assert legacy.depot
    february = [game(1, 1, 2, 1.0, when=FEBRUARY)]
    assert run_history(february, config, pickle.loads(pickle.dumps(legacy))).summaries == \
        run_history(february, config, state).summaries != []


def test_a_checkpoint_holds_depot_games_by_their_values():
    # coach 3 is unrated: his games wait in his depot, and a checkpoint pickles them
    config = imported((1, 1700, 100), (2, 1600, 100))
    state = close_periods(run_history([game(1, 1, 3, 1.0), game(2, 3, 2, 0.5, hours=2)], config).state, config,
                          APRIL_LIST).state
    depot = state.depot[(None, V), 3] if (None, V) in state.ratings else next(iter(state.depot.values()))
    assert [(d.game.game_id, d.side, d.rc, d.w) for d in depot] == [(1, "away", 1700, 0.0), (2, "home", 1600, 0.5)]
    pickled = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    assert b"played_month" not in pickled and b"home_race_ranked" not in pickled
    assert pickle.loads(pickled) == state
