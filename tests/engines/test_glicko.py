"""NAF Glicko and Global Glicko (ratings.md sections 2 and 3): worked examples, properties,
degenerate cases, configuration."""
import math
import pickle
import random
from datetime import date, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rating_engines import glicko
from rating_engines.common import AWAY, BYE, FORFEIT, HOME, GameRecord, Reason
from rating_engines.glicko import (
    GLOBAL_DEFAULTS,
    GlickoConfig,
    GlickoRating,
    GlickoState,
    VolatilityNotConverged,
    calendar_period,
    close_periods,
    decay,
    g_factor,
    initial_for_new_race,
    rate,
    ratings_as_of,
    run_history,
)

V = "bb2020"
JAN = datetime(2022, 1, 10)
MONTHLY = GlickoConfig()
DEC_2021 = calendar_period(date(2021, 12, 1), MONTHLY)[0]


def game(game_id, home, away, home_score, *, when=JAN, home_race="orc", away_race="orc",
         event_id=1, **extra):
    return GameRecord(
        game_id=game_id, played_at=when + timedelta(minutes=game_id), event_id=event_id,
        variant=V, home=home, home_race=home_race, away=away, away_race=away_race,
        home_score=home_score, **extra,
    )


def seeded(ratings, period_index=DEC_2021):
    """A state with (coach, race) -> (mu, phi[, sigma]) rated at the end of December 2021."""
    return GlickoState.from_ratings(
        {(coach, race, V): GlickoRating(*values) for (coach, race), values in ratings.items()},
        period_index=period_index,
    )


def rated(games, config=MONTHLY, state=None, until=date(2022, 2, 1)):
    """Run the games and rate every period that ended before `until`."""
    first = run_history(games, config, state)
    closed = close_periods(first.state, config, until)
    return first.rows + closed.rows, first.summaries + closed.summaries, closed.state


def summary_of(summaries, coach, race="orc"):
    return next(s for s in summaries if (s.coach, s.race) == (coach, race))


# --- worked examples (checks of section 2) ---------------------------------------------------

def test_glickmans_example():
    player = GlickoRating(1500, 200, 0.06)
    results = [(GlickoRating(1400, 30), 1), (GlickoRating(1550, 100), 0),
               (GlickoRating(1700, 300), 0)]
    new = rate(player, results, tau=0.5)
    # Glickman prints sigma' = 0.05999, truncated: it is 0.0599960
    assert (round(new.mu, 2), round(new.phi, 2), math.floor(new.sigma * 1e5) / 1e5) == (
        1464.05, 151.52, 0.05999)


def test_new_coach_five_games_in_one_month():
    results = [(GlickoRating(1600, 80), 1), (GlickoRating(1550, 100), 0),
               (GlickoRating(1500, 60), 0.5), (GlickoRating(1450, 120), 1),
               (GlickoRating(1400, 90), 1)]
    new = rate(GlickoRating(1500, 350, 0.06), results, tau=0.2)
    assert (round(new.mu, 2), round(new.phi, 2), round(new.mu - 2.5 * new.phi, 2)) == (
        1623.02, 149.15, 1250.14)


def test_idle_for_18_months_from_phi_60():
    assert round(decay(GlickoRating(1500, 60, 0.06), periods=18).phi, 2) == 74.54


def test_new_race_starts_at_median_mu_and_max_phi():
    existing = [GlickoRating(1700, 70), GlickoRating(1600, 90), GlickoRating(1550, 150)]
    assert initial_for_new_race(existing) == GlickoRating(1600, 150, 0.06)


def test_new_race_with_one_existing_rating_starts_fresh():
    assert initial_for_new_race([GlickoRating(1700, 70)]) == GlickoRating(1500, 350, 0.06)


def test_run_history_reproduces_glickmans_example():
    state = seeded({(1, "orc"): (1500, 200, 0.06), (2, "orc"): (1400, 30, 0.06),
                    (3, "orc"): (1550, 100, 0.06), (4, "orc"): (1700, 300, 0.06)})
    games = [game(1, 1, 2, 1.0), game(2, 3, 1, 1.0), game(3, 1, 4, 0.0)]
    _, summaries, _ = rated(games, GlickoConfig(tau=0.5), state)
    player = summary_of(summaries, 1)
    assert (round(player.mu, 2), round(player.phi, 2), math.floor(player.sigma * 1e5) / 1e5) == (
        1464.05, 151.52, 0.05999)


def test_run_history_reproduces_the_new_coach_example():
    opponents = [(1600, 80), (1550, 100), (1500, 60), (1450, 120), (1400, 90)]
    state = seeded({(coach, "orc"): (mu, phi, 0.06)
                    for coach, (mu, phi) in enumerate(opponents, 2)})
    games = [game(i, 1, coach, score) for i, (coach, score) in enumerate(
        [(2, 1.0), (3, 0.0), (4, 0.5), (5, 1.0), (6, 1.0)], 1)]
    _, summaries, _ = rated(games, MONTHLY, state)
    coach = summary_of(summaries, 1)
    assert (round(coach.mu, 2), round(coach.phi, 2), round(coach.rn, 2), coach.is_start) == (
        1623.02, 149.15, 1250.14, True)


def test_run_history_decays_an_idle_rating_for_18_months():
    state = seeded({(1, "orc"): (1500, 60, 0.06), (2, "orc"): (1500, 60, 0.06)})
    _, summaries, _ = rated([game(1, 1, 2, 0.5, when=datetime(2023, 7, 3))], MONTHLY, state,
                            until=date(2023, 8, 1))
    assert round(summary_of(summaries, 1).phi_before, 2) == 74.54


def test_list_as_of_decays_idle_ratings_up_to_the_last_ended_period():
    state = seeded({(1, "orc"): (1500, 60, 0.06)})
    assert round(ratings_as_of(state, MONTHLY, date(2023, 7, 1))[(1, "orc", V)].phi, 2) == 74.54


def test_run_history_starts_a_new_race_from_the_coachs_other_races():
    state = seeded({(1, "orc"): (1700, 70, 0.06), (1, "elf"): (1600, 90, 0.06),
                    (1, "dwarf"): (1550, 150, 0.06), (2, "orc"): (1500, 100, 0.06)})
    _, summaries, _ = rated([game(1, 1, 2, 1.0, home_race="human")], MONTHLY, state)
    new = summary_of(summaries, 1, "human")
    assert (new.mu_before, new.phi_before, new.sigma_before, new.is_start) == (
        1600, 150, 0.06, True)


def test_a_race_created_earlier_in_the_period_counts_as_existing():
    state = seeded({(1, "orc"): (1700, 70, 0.06), (2, "orc"): (1500, 100, 0.06)})
    games = [game(1, 1, 2, 1.0, home_race="elf"), game(2, 1, 2, 1.0, home_race="dwarf")]
    _, summaries, _ = rated(games, MONTHLY, state)
    elf, dwarf = summary_of(summaries, 1, "elf"), summary_of(summaries, 1, "dwarf")
    assert (elf.mu_before, elf.phi_before) == (1500, 350)
    assert (dwarf.mu_before, dwarf.phi_before) == (1600, 350)


def test_cross_race_start_can_be_switched_off():
    state = seeded({(1, "orc"): (1700, 70, 0.06), (1, "elf"): (1600, 90, 0.06),
                    (2, "orc"): (1500, 100, 0.06)})
    _, summaries, _ = rated([game(1, 1, 2, 1.0, home_race="human")],
                            GlickoConfig(cross_race_start=False), state)
    assert summary_of(summaries, 1, "human").mu_before == 1500


# --- periods, rows, summaries -----------------------------------------------------------------

def test_month_period_is_rated_when_a_game_of_a_later_month_arrives():
    games = [game(1, 1, 2, 1.0), game(2, 1, 2, 1.0, when=datetime(2022, 2, 3))]
    result = run_history(games, MONTHLY)
    assert {(r.period, r.game_id) for r in result.rows} == {("2022-01", 1)}
    assert {s.effective for s in result.summaries} == {date(2022, 2, 1)}
    assert list(result.state.open_periods) == ["2022-02"]


def at(game_id, home, away, home_score, played_at):
    """A game at exactly `played_at` (the `game` helper adds game_id minutes)."""
    return GameRecord(game_id=game_id, played_at=played_at, event_id=1, variant=V, home=home,
                      home_race="orc", away=away, away_race="orc", home_score=home_score)


def test_games_on_the_first_and_the_last_day_of_a_month_are_one_period():
    games = [at(1, 1, 2, 1.0, datetime(2022, 1, 1, 0, 0)),
             at(2, 1, 2, 0.5, datetime(2022, 1, 31, 23, 59)),
             at(3, 1, 2, 0.0, datetime(2022, 2, 1, 0, 0))]
    result = run_history(games, MONTHLY)
    # January is rated once, both games against the start-of-period ratings
    assert [(r.game_id, r.period, r.r0, r.rc) for r in result.rows] == \
        [(1, "2022-01", 1500, 1500)] * 2 + [(2, "2022-01", 1500, 1500)] * 2
    assert [(s.coach, s.period, s.nt, s.mu_before, s.effective) for s in result.summaries] == \
        [(1, "2022-01", 2, 1500, date(2022, 2, 1)), (2, "2022-01", 2, 1500, date(2022, 2, 1))]
    expected = rate(GlickoRating(), [(GlickoRating(), 1.0), (GlickoRating(), 0.5)])
    first = result.summaries[0]
    assert (first.mu, first.phi) == pytest.approx((expected.mu, expected.phi), rel=1e-9)
    # the game at midnight on 1 February opens February
    assert list(result.state.open_periods) == ["2022-02"]
    assert result.state.periods_closed == 1


@st.composite
def one_month(draw):
    """Games at any minute of one calendar month, its first and last minute likely."""
    year, month = draw(st.integers(2000, 2030)), draw(st.integers(1, 12))
    start = datetime(year, month, 1)
    last = (datetime(year + month // 12, month % 12 + 1, 1) - start).days * 24 * 60 - 1
    minutes = st.one_of(st.just(0), st.just(last), st.integers(0, last))
    games = []
    for game_id in range(1, draw(st.integers(1, 8)) + 1):
        home, away = draw(st.permutations([1, 2, 3]))[:2]
        games.append(at(game_id, home, away, draw(st.sampled_from([0.0, 0.5, 1.0])),
                        start + timedelta(minutes=draw(minutes))))
    return f"{year:04d}-{month:02d}", games


@settings(max_examples=80, deadline=None)
@given(one_month())
def test_every_game_of_a_calendar_month_is_rated_in_one_period(month):
    label, games = month
    result = close_periods(run_history(games, MONTHLY).state, MONTHLY, date.max)
    assert {(r.period, r.r0, r.rc) for r in result.rows} == {(label, 1500, 1500)}
    played = {c: sum(c in (g.home, g.away) for g in games) for c in (1, 2, 3)}
    assert sorted((s.coach, s.nt) for s in result.summaries) == \
        sorted((c, n) for c, n in played.items() if n)
    assert result.state.periods_closed == 1


def test_close_periods_rates_only_periods_that_ended_before_the_date():
    state = run_history([game(1, 1, 2, 1.0)], MONTHLY).state
    assert close_periods(state, MONTHLY, date(2022, 1, 31)).rows == []
    assert [r.game_id for r in close_periods(state, MONTHLY, date(2022, 2, 1)).rows] == [1, 1]


def test_opponents_are_taken_at_their_start_of_period_rating():
    rows, _, _ = rated([game(1, 1, 2, 1.0), game(2, 1, 3, 1.0), game(3, 2, 3, 0.0)])
    assert [(r.r0, r.rc, r.opponent_phi) for r in rows] == [(1500, 1500, 350)] * 6


def test_rows_hold_g_expected_score_and_each_games_share_of_the_change():
    state = seeded({(1, "orc"): (1550, 80, 0.06), (2, "orc"): (1450, 120, 0.06),
                    (3, "orc"): (1600, 60, 0.06)})
    rows, summaries, _ = rated([game(1, 1, 2, 1.0), game(2, 3, 1, 0.5)], MONTHLY, state)
    first = rows[0]
    mine = [r for r in rows if r.coach == 1]
    player = summary_of(summaries, 1)
    assert (first.r0, first.rc, first.opponent_phi, first.k) == (1550, 1450, 120, None)
    assert first.g == pytest.approx(g_factor(120), abs=1e-15)
    expected_we = 1 / (1 + math.exp(-g_factor(120) * 100 / glicko.SCALE))
    assert first.we == pytest.approx(expected_we, abs=1e-15)
    assert sum(r.rt for r in mine) == pytest.approx(player.mu - player.mu_before, abs=1e-9)
    assert player.rtt == pytest.approx(player.mu - player.mu_before, abs=1e-9)


def test_summary_values_are_mu_minus_two_and_a_half_phi():
    _, summaries, _ = rated([game(1, 1, 2, 1.0)])
    coach = summary_of(summaries, 1)
    assert (coach.rl, coach.rn) == (1500 - 2.5 * 350, coach.mu - 2.5 * coach.phi)


def test_summary_counts_excluded_games_of_a_key_that_played():
    games = [game(1, 1, 2, 1.0), game(2, 1, 3, 1.0, kind=FORFEIT)]
    coach = summary_of(rated(games)[1], 1)
    assert (coach.nt, coach.games_played, coach.wt) == (1, 2, 1.0)


def test_summary_counts_the_uncounted_games_of_the_away_side_too():
    # coach 1 plays away in both: a counted win, then a forfeit that counts for no one
    games = [game(1, 2, 1, 0.0), game(2, 3, 1, 1.0, kind=FORFEIT)]
    coach = summary_of(rated(games)[1], 1)
    assert (coach.nt, coach.games_played, coach.wt) == (1, 2, 1.0)


def test_rows_of_a_period_keep_the_order_of_play_with_excluded_games_among_them():
    games = [game(1, 1, 2, 1.0), game(2, 1, 3, 1.0, kind=FORFEIT), game(3, 2, 3, 0.5)]
    rows, _, _ = rated(games)
    assert [(r.game_id, r.side, r.counted) for r in rows] == [
        (1, HOME, True), (1, AWAY, True), (2, HOME, False), (2, AWAY, False), (3, HOME, True), (3, AWAY, True)]


def test_global_glicko_defaults():
    config = GlickoConfig.global_defaults()
    assert (config.per_race, config.period, config.excluded_races, config.phi0) == (
        False, "two_weeks", ("goblin", "halfling", "ogre"), 350.0)
    assert GlickoConfig.from_params(GLOBAL_DEFAULTS) == config


def test_global_glicko_excludes_goblin_games_for_both_sides():
    rows, summaries, _ = rated([game(1, 1, 2, 1.0, away_race="goblin")],
                               GlickoConfig.global_defaults())
    assert [(r.race, r.counted, r.reason) for r in rows] == [
        (None, False, Reason.RACE_EXCLUDED)] * 2
    assert summaries == []


def test_global_glicko_pools_a_coachs_races():
    games = [game(1, 1, 2, 1.0, home_race="orc"), game(2, 1, 2, 1.0, home_race="elf")]
    _, summaries, state = rated(games, GlickoConfig.global_defaults())
    assert (len(state.keys), summary_of(summaries, 1, None).nt) == (2, 2)


def test_two_week_periods_run_monday_to_sunday_from_2000_01_03():
    config = GlickoConfig.global_defaults()
    assert [calendar_period(day, config)[1:] for day in (date(2022, 1, 16), date(2022, 1, 17))] == [
        ("2022-01-03", date(2022, 1, 16)), ("2022-01-17", date(2022, 1, 30))]
    rows, summaries, _ = rated([game(1, 1, 2, 1.0, when=datetime(2022, 1, 16, 20))], config)
    assert (rows[0].period, summaries[0].effective) == ("2022-01-03", date(2022, 1, 17))


def test_event_periods_are_labelled_by_event_and_take_effect_the_day_after():
    config = GlickoConfig(period="event")
    games = [game(1, 1, 2, 1.0, event_end=date(2022, 1, 11)),
             game(2, 1, 2, 0.0, event_id=2, when=datetime(2022, 1, 20))]
    rows, summaries, _ = rated(games, config, until=date.max)
    assert [(r.period, r.game_id) for r in rows[::2]] == [("event:1", 1), ("event:2", 2)]
    assert [s.effective for s in summaries[::2]] == [date(2022, 1, 12), date(2022, 1, 21)]


def test_variant_not_in_config_keeps_rows_with_the_reason():
    rows, _, state = rated([game(1, 1, 2, 1.0)], GlickoConfig(variants=("sevens",)))
    assert ({r.reason for r in rows}, state.keys) == ({Reason.VARIANT_EXCLUDED}, [])


def test_bye_keeps_one_row():
    rows, _, _ = rated([game(1, 1, None, 1.0, away_race=None, kind=BYE)])
    assert [(r.side, r.reason) for r in rows] == [(HOME, Reason.BYE)]


def test_list_as_of_needs_ended_periods_closed():
    state = run_history([game(1, 1, 2, 1.0)], MONTHLY).state
    with pytest.raises(ValueError, match="close_periods"):
        ratings_as_of(state, MONTHLY, date(2022, 2, 1))


def test_list_leaves_out_keys_of_a_period_still_running():
    state = run_history([game(1, 1, 2, 1.0)], MONTHLY).state
    assert ratings_as_of(state, MONTHLY, date(2022, 1, 20)) == {}


def test_resume_rejects_a_game_before_the_state():
    state = run_history([game(5, 1, 2, 1.0)], MONTHLY).state
    with pytest.raises(ValueError, match="recalculate from an earlier state"):
        run_history([game(1, 1, 2, 1.0)], MONTHLY, state)


@pytest.mark.parametrize("in_place", [False, True])
def test_the_same_game_twice_in_one_call_is_refused(in_place):
    twice = game(7, 1, 2, 1.0)
    with pytest.raises(ValueError, match="game 7 was given twice"):
        run_history([twice, game(8, 1, 3, 1.0), twice], MONTHLY, in_place=in_place)


@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("already", ["last", "earlier"])
def test_a_game_already_in_the_state_is_refused(already, in_place):
    first, last = game(7, 1, 2, 1.0), game(8, 1, 3, 1.0)
    state = run_history([first, last], MONTHLY).state
    again = last if already == "last" else first
    before = pickle.dumps(state)
    expected = "game 8 was given twice" if already == "last" else "recalculate from an earlier state"
    with pytest.raises(ValueError, match=expected):
        run_history([again], MONTHLY, state, in_place=in_place)
    assert pickle.dumps(state) == before


def test_state_survives_pickling():
    games = [game(1, 1, 2, 1.0), game(2, 1, 3, 1.0, when=datetime(2022, 2, 1))]
    state = run_history(games, MONTHLY).state
    assert pickle.loads(pickle.dumps(state)) == state


# --- lazy decay ------------------------------------------------------------------------------

@given(st.floats(20, 400), st.floats(0.01, 0.2), st.integers(0, 120), st.floats(50, 500))
def test_decay_over_n_periods_equals_n_single_steps(phi, sigma, periods, cap):
    stepped = GlickoRating(1500, phi, sigma)
    for _ in range(periods):
        stepped = decay(stepped, periods=1, phi_cap=cap)
    assert decay(GlickoRating(1500, phi, sigma), periods=periods, phi_cap=cap).phi == pytest.approx(
        stepped.phi, rel=1e-12)


def test_lazily_decayed_start_equals_the_decay_of_each_idle_month():
    state = seeded({(1, "orc"): (1600, 50, 0.07), (2, "orc"): (1500, 349.5, 0.06)})
    _, summaries, _ = rated([game(1, 1, 2, 1.0, when=datetime(2022, 7, 4))], MONTHLY, state,
                            until=date(2022, 8, 1))
    expected = [GlickoRating(1600, 50, 0.07), GlickoRating(1500, 349.5, 0.06)]
    for _ in range(6):
        expected = [decay(r, periods=1, phi_cap=350) for r in expected]
    assert [summary_of(summaries, c).phi_before for c in (1, 2)] == pytest.approx(
        [r.phi for r in expected], rel=1e-12)
    assert summary_of(summaries, 2).phi_before == 350


# --- the vectorised period against the scalar rate -------------------------------------------

ratings_st = st.tuples(st.floats(1000, 2200), st.floats(30, 350), st.floats(0.03, 0.09))


@settings(max_examples=60, deadline=None)
@given(st.lists(ratings_st, min_size=2, max_size=8),
       st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.sampled_from([0.0, 0.5, 1.0])),
                min_size=1, max_size=25))
def test_period_update_equals_the_scalar_rate(start, pairings):
    n = len(start)
    pairs = [(h % n, a % n, s) for h, a, s in pairings if h % n != a % n]
    state = seeded({(c, "orc"): r for c, r in enumerate(start)})
    games = [game(i, h, a, s) for i, (h, a, s) in enumerate(pairs, 1)]
    _, summaries, _ = rated(games, MONTHLY, state)
    for c in {c for h, a, _ in pairs for c in (h, a)}:
        results = [(GlickoRating(*start[a]), s) for h, a, s in pairs if h == c]
        results += [(GlickoRating(*start[h]), 1 - s) for h, a, s in pairs if a == c]
        expected = rate(GlickoRating(*start[c]), results, tau=0.2)
        got = summary_of(summaries, c)
        assert (got.mu, got.phi) == pytest.approx((expected.mu, expected.phi), rel=1e-9)
        # the iteration stops within 1e-6 of the root, so sums in another order may end a step apart
        assert got.sigma == pytest.approx(expected.sigma, rel=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.lists(ratings_st, min_size=2, max_size=6),
       st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.sampled_from([0.0, 0.5, 1.0])),
                min_size=1, max_size=20),
       st.randoms(use_true_random=False))
def test_order_of_games_inside_a_period_does_not_matter(start, pairings, rnd):
    n = len(start)
    pairs = [(h % n, a % n, s) for h, a, s in pairings if h % n != a % n]
    state = seeded({(c, "orc"): r for c, r in enumerate(start)})
    games = [game(i, h, a, s) for i, (h, a, s) in enumerate(pairs, 1)]
    times = [g.played_at for g in games]
    rnd.shuffle(times)
    shuffled = [GameRecord(**{**_fields(g), "played_at": t}) for g, t in zip(games, times)]
    one = rated(games, MONTHLY, state)[2]
    two = rated(shuffled, MONTHLY, state)[2]
    for key in one.key_index:
        a, b = one.stored_rating(key), two.stored_rating(key)
        assert (a.mu, a.phi) == pytest.approx((b.mu, b.phi), rel=1e-9)
        assert a.sigma == pytest.approx(b.sigma, rel=1e-6)


def _fields(g):
    return {name: getattr(g, name) for name in GameRecord.__dataclass_fields__}


# --- degenerate cases ------------------------------------------------------------------------

def test_no_games_and_no_open_period():
    result = close_periods(GlickoState(), MONTHLY, date(2030, 1, 1))
    assert (result.rows, result.summaries, result.state) == ([], [], GlickoState())


def test_rate_without_games_only_grows_phi():
    idle = GlickoRating(1500, 60, 0.06)
    assert rate(idle, []) == decay(idle, phi_cap=None)


def test_coach_with_one_game():
    _, summaries, _ = rated([game(1, 1, 2, 1.0)])
    coach = summary_of(summaries, 1)
    expected = rate(GlickoRating(), [(GlickoRating(), 1.0)])
    assert (coach.nt, coach.mu, coach.phi) == (
        1, pytest.approx(expected.mu), pytest.approx(expected.phi))


def test_hundred_percent_and_zero_percent_scores():
    state = seeded({(c, "orc"): (1500, 80, 0.06) for c in range(2, 7)})
    games = [game(i, 1, c, 1.0) for i, c in enumerate(range(2, 7), 1)]
    games += [game(i, 7, c, 0.0) for i, c in enumerate(range(2, 7), 10)]
    _, summaries, _ = rated(games, MONTHLY, state)
    winner, loser = summary_of(summaries, 1), summary_of(summaries, 7)
    expected = rate(GlickoRating(), [(GlickoRating(1500, 80), 1.0)] * 5)
    assert (winner.wt, loser.wt) == (5.0, 0.0)
    assert (winner.mu, winner.phi) == pytest.approx((expected.mu, expected.phi), rel=1e-9)
    assert (round(winner.mu, 2), round(loser.mu, 2)) == (1796.35, 1203.65)


def test_huge_rating_gap():
    favourite, underdog = GlickoRating(3000, 50, 0.06), GlickoRating(1000, 50, 0.06)
    expected_win = rate(favourite, [(underdog, 1.0)])
    upset = rate(underdog, [(favourite, 1.0)])
    assert 0 < expected_win.mu - 3000 < 1e-3
    assert (round(upset.mu, 2), round(upset.phi, 2)) == (1014.83, 51.07)
    assert upset.sigma > 0.06


def test_volatility_that_does_not_converge_raises(monkeypatch):
    monkeypatch.setattr(glicko.calculator, "MAX_ITERATIONS", 1)
    with pytest.raises(VolatilityNotConverged):
        rate(GlickoRating(1500, 200, 0.06), [(GlickoRating(1400, 30), 1.0)], tau=0.5)


def test_period_whose_volatility_does_not_converge_raises(monkeypatch):
    monkeypatch.setattr(glicko.calculator, "MAX_ITERATIONS", 1)
    with pytest.raises(VolatilityNotConverged):
        rated([game(1, 1, 2, 1.0)])


def test_volatility_when_delta_squared_equals_phi_squared_plus_v_is_bracketed_below():
    # step 5 at the edge: Δ² = 4 = φ² + v takes B from a − k·τ (ln(Δ² − φ² − v) would be ln 0); then
    # f(a) = −σ⁴ / (2·(φ² + v + σ²)²) ≈ −4e-7, so σ' stays 0.06 to six places
    assert round(glicko.calculator.new_volatility(0.06, 1.0, 3.0, 2.0, 0.5), 6) == 0.06


def test_volatility_whose_bracket_closes_at_the_root_needs_no_step(monkeypatch):
    # Δ² − φ² − v = 2.25 − 1 − 1 = 0.25 = σ²: B = ln σ² = A, the root itself (f(A) = 0)
    monkeypatch.setattr(glicko.calculator, "MAX_ITERATIONS", 0)
    assert glicko.calculator.new_volatility(0.5, 1.0, 1.0, 1.5, 0.5) == pytest.approx(0.5, abs=1e-12)


def test_lower_bracket_is_the_first_a_minus_k_tau_where_f_is_not_negative():
    # Glickman's step 5.2 on f(x) = −x − 2 from a = 0, τ = 0.5: f(−0.5), f(−1), f(−1.5) < 0, f(−2) = 0 → B = −2
    assert glicko.calculator._lower_bracket(lambda x: -x - 2.0, 0.0, 0.5) == -2.0


def test_lower_brackets_of_a_period_stop_at_the_first_f_not_negative():
    # the same step for many keys at once: a = 0 and a = 1 with f(x) = −x − 2 and f(x) = 1 − x, τ = 0.5
    def f(x, which):
        return np.where(which == 0, -x - 2.0, 1.0 - x)

    big_b = np.zeros(2)
    glicko.batch._lower_brackets(f, np.array([0.0, 1.0]), 0.5, big_b, np.array([0, 1]))
    assert big_b.tolist() == [-2.0, 0.5]


def test_volatility_not_converged_is_an_arithmetic_error():
    assert issubclass(VolatilityNotConverged, ArithmeticError)


# --- configuration ---------------------------------------------------------------------------

def test_unknown_parameter_is_named():
    with pytest.raises(ValueError, match="taux"):
        GlickoConfig.from_params({"taux": 0.5})


@pytest.mark.parametrize("name, value", [
    ("tau", 0), ("phi0", -1), ("sigma0", 2.0), ("mu0", float("inf")), ("period", "week"),
    ("period_anchor", date(2000, 1, 4)), ("period_anchor", "not a date"), ("per_race", "no"),
    ("phi_cap", 0), ("inactive_phi", -5), ("value_phi_multiplier", -1),
    ("excluded_races", "goblin"), ("variants", ()),
])
def test_out_of_range_value_is_named(name, value):
    with pytest.raises(ValueError, match=f"GlickoConfig.{name}"):
        GlickoConfig.from_params({name: value})


@pytest.mark.parametrize("mu0, accepted", [
    (-10_000, True), (10_000, True), (-10_000.5, False), (10_000.5, False),
])
def test_mu0_may_lie_anywhere_from_minus_to_plus_ten_thousand(mu0, accepted):
    if accepted:
        assert GlickoConfig.from_params({"mu0": mu0}).mu0 == mu0
    else:
        with pytest.raises(ValueError, match="GlickoConfig.mu0"):
            GlickoConfig.from_params({"mu0": mu0})


def test_params_round_trip():
    config = GlickoConfig.global_defaults(phi0=500.0, value_phi_multiplier=3.0, inactive_phi=250.0)
    assert GlickoConfig.from_params(config.as_params()) == config


def test_phi_cap_defaults_to_phi0():
    caps = (GlickoConfig(phi0=500.0).decay_cap, GlickoConfig(phi_cap=300.0).decay_cap)
    assert caps == (500.0, 300.0)


def test_value_and_activity():
    config = GlickoConfig()
    assert (config.value(GlickoRating(1700, 100)), config.is_active(GlickoRating(1700, 100)),
            config.is_active(GlickoRating(1700, 100.01))) == (1450.0, True, False)


# --- split and resume, determinism -----------------------------------------------------------

START = datetime(2022, 1, 1)


@st.composite
def histories(draw):
    """Games over four months: new races, byes, forfeits, goblins, a second variant."""
    games = []
    for game_id in range(1, draw(st.integers(1, 30)) + 1):
        day = draw(st.integers(0, 120))
        home, away = draw(st.lists(st.integers(1, 5), min_size=2, max_size=2, unique=True))
        kind = draw(st.sampled_from(["played"] * 8 + [FORFEIT, BYE]))
        games.append(GameRecord(
            game_id=game_id,
            played_at=START + timedelta(days=day, hours=draw(st.sampled_from([9, 13]))),
            event_id=day // 3 + 1, variant=draw(st.sampled_from([V, V, "sevens"])), home=home,
            home_race=draw(st.sampled_from(["orc", "elf", "goblin", "dwarf"])),
            away=None if kind == BYE else away,
            away_race=None if kind == BYE else draw(st.sampled_from(["orc", "human"])),
            home_score=draw(st.sampled_from([0.0, 0.5, 1.0])), kind=kind,
            event_end=(START + timedelta(days=day // 3 * 3 + 2)).date(),
        ))
    return games


configs = st.builds(
    GlickoConfig, per_race=st.booleans(), period=st.sampled_from(glicko.PERIODS),
    excluded_races=st.sampled_from([(), ("goblin",)]), cross_race_start=st.booleans(),
)


def _everything(games, config, state=None):
    first = run_history(games, config, state)
    rest = close_periods(first.state, config, date.max)
    return first, rest


@settings(max_examples=150, deadline=None)
@given(histories(), configs, st.integers(0, 121 * 24))
def test_split_and_resume_equals_one_run(games, config, split_hour):
    split = START + timedelta(hours=split_hour)
    whole = run_history(games, config)
    first = run_history([g for g in games if g.played_at < split], config)
    second = run_history([g for g in games if g.played_at >= split], config, first.state)
    assert first.rows + second.rows == whole.rows
    assert first.summaries + second.summaries == whole.summaries
    assert second.state == whole.state
    assert close_periods(second.state, config, date.max).rows == close_periods(
        whole.state, config, date.max).rows


@settings(max_examples=50, deadline=None)
@given(histories(), configs)
def test_same_input_gives_identical_output(games, config):
    one = _everything(games, config)
    two = _everything(list(reversed(games)), config)
    for a, b in zip(one, two):
        assert pickle.dumps((a.rows, a.summaries)) == pickle.dumps((b.rows, b.summaries))
    assert one[1].state == two[1].state


def test_close_periods_does_not_change_the_given_state():
    state = run_history([game(1, 1, 2, 1.0)], MONTHLY).state
    before = pickle.dumps(state)
    close_periods(state, MONTHLY, date.max)
    assert pickle.dumps(state) == before


def test_random_history_keeps_phi_within_the_cap():
    rnd = random.Random(7)
    games = []
    for game_id in range(1, 300):
        home = rnd.randint(1, 8)
        games.append(game(game_id, home, home % 8 + 1, rnd.choice([0.0, 0.5, 1.0]),
                          when=START + timedelta(days=rnd.randint(0, 700)),
                          home_race=rnd.choice(["orc", "elf"])))
    _, _, state = rated(games, MONTHLY, until=date.max)
    assert max(state.phi[: len(state.keys)]) <= 350


@given(st.floats(min_value=0.001, max_value=0.5), st.floats(min_value=10.0, max_value=300.0))
def test_the_decay_step_is_what_one_idle_period_adds_to_phi_squared(sigma, phi):
    assert glicko.decay_step(sigma) == pytest.approx((glicko.SCALE * sigma) ** 2, rel=1e-15)
    grown = float(glicko.decayed_phi(phi, sigma, 1, math.inf))
    assert grown * grown - phi * phi == pytest.approx(glicko.decay_step(sigma), rel=1e-9, abs=1e-9)
    assert glicko.decay_step(0.06) == pytest.approx(108.6403, abs=1e-4)
