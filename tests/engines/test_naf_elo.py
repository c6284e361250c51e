"""NAF Elo (ratings.md section 1): worked examples, properties, degenerate cases, configuration."""
import math
import pickle
from datetime import date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rating_engines.common import AWAY, BYE, FORFEIT, HOME, GameRecord, Reason
from rating_engines.naf_elo import (
    EloConfig,
    EloState,
    close_periods,
    home_score,
    k_value,
    run_history,
    update,
    win_probability,
)

V = "bb2020"
DAY = datetime(2022, 3, 5)


def game(game_id, home, away, home_score, *, hour=10, day=DAY, event_id=1, coaches=20,
         home_race="orc", away_race="elf", **extra):
    return GameRecord(
        game_id=game_id, played_at=day + timedelta(hours=hour), event_id=event_id, variant=V,
        home=home, home_race=home_race, away=away, away_race=away_race, home_score=home_score,
        event_coaches=coaches, **extra,
    )


def rated(*pairs, race="orc"):
    """An EloState holding (coach, rating) pairs in one race."""
    return EloState(ratings={(coach, race, V): rating for coach, rating in pairs})


# --- worked examples (checks of section 1) ---------------------------------------------------

def test_twenty_coaches_win_between_equals():
    k = k_value(20, major=False)
    assert (round(k, 6), update(150, 150, 1, k), update(150, 150, 0, k)) == (
        8.944272, 154.47, 145.53)


def test_major_180_v_150_expected_score():
    assert round(win_probability(180, 150), 6) == 0.613137


def test_major_180_v_150_win():
    k = k_value(5, major=True)
    assert (update(180, 150, 1, k), update(150, 180, 0, k)) == (185.99, 144.01)


def test_major_180_v_150_draw():
    k = k_value(5, major=True)
    assert (update(180, 150, 0.5, k), update(150, 180, 0.5, k)) == (178.25, 151.75)


def test_round_k_twenty_coaches_win_between_equals():
    k = k_value(20, major=False, round_k=True)
    assert (k, update(150, 150, 1, k), update(150, 150, 0, k)) == (9, 154.50, 145.50)


def test_round_k_major_is_15():
    assert k_value(200, major=True, round_k=True) == 15


def test_round_k_is_11_for_any_non_major_with_28_coaches_or_more():
    assert {k_value(n, major=False, round_k=True) for n in (28, 32, 90)} == {11}


def test_conceder_loses_makes_a_conceded_game_a_loss_for_the_conceder():
    assert [home_score(1.0, HOME, conceder_loses=True), home_score(0.0, AWAY, conceder_loses=True),
            home_score(1.0, HOME, conceder_loses=False), home_score(0.5, None, conceder_loses=True)] == [0.0, 1.0, 1.0, 0.5]


def test_non_major_max_caps_the_coach_count():
    assert k_value(90, major=False, non_major_max=30) == 2 * math.sqrt(30)


def test_four_coach_event_over_two_rounds():
    w, x, y, z = 1, 2, 3, 4
    state = rated((w, 150.0), (x, 150.0), (y, 160.0), (z, 140.0))
    games = [
        game(1, w, x, 1.0, hour=10, coaches=4, away_race="orc"),
        game(2, y, z, 0.5, hour=10, coaches=4, away_race="orc"),
        game(3, w, y, 0.0, hour=13, coaches=4, away_race="orc"),
        game(4, x, z, 1.0, hour=13, coaches=4, away_race="orc"),
    ]
    result = run_history(games, EloConfig(), state)
    after_round_1 = [round(r.r0 + r.rt, 2) for r in result.rows[:4]]
    assert after_round_1 == [152.00, 148.00, 159.70, 140.30]
    assert [result.state.ratings[(c, "orc", V)] for c in (w, y, x, z)] == [
        150.12, 161.58, 149.88, 138.42
    ]


def test_run_history_reproduces_the_twenty_coach_example():
    result = run_history([game(1, 1, 2, 1.0, coaches=20)], EloConfig())
    home, away = result.rows
    assert (home.r0, home.rc, home.we, round(home.k, 6), home.w) == (
        150.0, 150.0, 0.5, 8.944272, 1.0)
    assert (round(home.rt, 6), round(away.rt, 6)) == (4.472136, -4.472136)
    ratings = result.state.ratings
    assert (ratings[(1, "orc", V)], ratings[(2, "elf", V)]) == (154.47, 145.53)


def test_run_history_reproduces_the_major_draw():
    state = EloState(ratings={(1, "orc", V): 180.0, (2, "elf", V): 150.0})
    result = run_history([game(1, 1, 2, 0.5, major=True, coaches=12)], EloConfig(), state)
    ratings = result.state.ratings
    assert (ratings[(1, "orc", V)], ratings[(2, "elf", V)]) == (178.25, 151.75)


def test_config_caps_non_majors_at_32_coaches_by_default():
    config = EloConfig()
    result = run_history([game(1, 1, 2, 1.0, coaches=40)], config)
    assert config.non_major_max == 32
    assert [r.k for r in result.rows] == [2 * math.sqrt(32)] * 2
    ratings = result.state.ratings
    # 150 ± ½·2·√32 = 150 ± 5.656854
    assert (ratings[(1, "orc", V)], ratings[(2, "elf", V)]) == (155.66, 144.34)


@pytest.mark.parametrize("config, major, k", [
    (EloConfig(), False, 2 * math.sqrt(32)),
    (EloConfig(non_major_max=30), False, 2 * math.sqrt(30)),
    (EloConfig(), True, 2 * math.sqrt(60)),
    (EloConfig(non_major_max=30), True, 2 * math.sqrt(60)),
], ids=["non-major-default-cap-32", "non-major-cap-30", "major-60", "major-whatever-the-cap"])
def test_forty_coach_event_k_in_run_history(config, major, k):
    result = run_history([game(1, 1, 2, 1.0, coaches=40, major=major)], config)
    assert [r.k for r in result.rows] == [k, k]


def test_round_k_option_in_run_history():
    result = run_history([game(1, 1, 2, 1.0, coaches=20)], EloConfig(round_k=True))
    assert [r.k for r in result.rows] == [9.0, 9.0]
    assert result.state.ratings[(1, "orc", V)] == 154.50


# --- rows, summaries, exclusions -----------------------------------------------------------

def test_event_summary_holds_rating_before_and_after_and_totals():
    games = [game(1, 1, 2, 1.0, hour=10), game(2, 1, 3, 0.5, hour=13, away_race="dwarf")]
    result = run_history(games, EloConfig())
    summary = next(s for s in result.summaries if s.coach == 1)
    assert (summary.period, summary.rl, summary.rn, summary.nt, summary.games_played) == (
        "event:1", 150.0, result.state.ratings[(1, "orc", V)], 2, 2)
    assert (summary.wt, summary.is_start, summary.effective) == (1.5, True, DAY.date())
    assert summary.wet == pytest.approx(result.rows[0].we + result.rows[2].we)
    assert summary.rtt == pytest.approx(result.rows[0].rt + result.rows[2].rt)
    assert summary.rct == pytest.approx((150.0 + 150.0) / 2)


def test_a_summary_is_in_force_from_the_keys_last_game_of_the_event():
    # events overlap: an event ending later can hold a key's earlier games, so its summary's
    # rating is in force from the key's last game there, not from the event's end
    games = [game(1, 1, 2, 1.0, event_end=date(2022, 3, 6)),
             game(2, 1, 3, 0.0, event_end=date(2022, 3, 6), day=DAY + timedelta(days=1))]
    result = run_history(games, EloConfig())
    assert {s.coach: s.effective for s in result.summaries} == {
        1: date(2022, 3, 6), 2: date(2022, 3, 5), 3: date(2022, 3, 6),
    }


def test_state_keeps_the_rounded_rating_and_rows_the_unrounded_change():
    result = run_history([game(1, 1, 2, 1.0, coaches=20)], EloConfig())
    row = result.rows[0]
    assert row.rt != result.state.ratings[(1, "orc", V)] - 150.0
    assert result.state.ratings[(1, "orc", V)] == round(150.0 + row.rt, 2)


def test_games_are_applied_in_played_at_then_game_id_order():
    games = [game(7, 1, 2, 1.0, hour=13), game(3, 1, 2, 1.0, hour=10), game(2, 1, 2, 0.0, hour=13)]
    result = run_history(games, EloConfig())
    assert [r.game_id for r in result.rows[::2]] == [3, 2, 7]


def test_second_round_uses_the_rating_from_the_first():
    result = run_history([game(1, 1, 2, 1.0, hour=10), game(2, 1, 3, 1.0, hour=13)], EloConfig())
    assert result.rows[2].r0 == 154.47


def test_excluded_race_keeps_a_row_per_side_with_the_reason():
    config = EloConfig(excluded_races=("goblin",))
    result = run_history([game(1, 1, 2, 1.0, away_race="goblin")], config)
    assert [(r.side, r.counted, r.reason, r.w) for r in result.rows] == [
        (HOME, False, Reason.RACE_EXCLUDED, 1.0), (AWAY, False, Reason.RACE_EXCLUDED, 0.0)]
    assert (result.state.ratings, result.summaries) == ({}, [])


def test_variant_not_in_config_keeps_rows_with_the_reason():
    result = run_history([game(1, 1, 2, 1.0)], EloConfig(variants=("sevens",)))
    assert {r.reason for r in result.rows} == {Reason.VARIANT_EXCLUDED}


def test_bye_has_one_row_and_forfeit_two():
    games = [
        game(1, 1, None, 1.0, away_race=None, kind=BYE),
        game(2, 2, 3, 1.0, kind=FORFEIT, conceded_by=AWAY),
    ]
    result = run_history(games, EloConfig())
    assert [(r.game_id, r.side, r.reason) for r in result.rows] == [
        (1, HOME, Reason.BYE), (2, HOME, Reason.FORFEIT), (2, AWAY, Reason.FORFEIT)]


def test_unsanctioned_event_does_not_count():
    result = run_history([game(1, 1, 2, 1.0, sanctioned=False)], EloConfig())
    assert {r.reason for r in result.rows} == {Reason.EVENT_NOT_SANCTIONED}


def test_excluded_games_count_in_games_played_of_a_rated_key():
    games = [game(1, 1, 2, 1.0, hour=10), game(2, 1, 3, 1.0, hour=13, kind=FORFEIT)]
    summary = next(s for s in run_history(games, EloConfig()).summaries if s.coach == 1)
    assert (summary.nt, summary.games_played) == (1, 2)


def test_conceder_loses_whatever_the_score():
    conceded = game(1, 1, 2, 1.0, conceded_by=HOME)
    assert run_history([conceded], EloConfig(conceder_loses=True)).rows[0].w == 0.0
    assert run_history([conceded], EloConfig()).rows[0].w == 1.0


def test_pooled_races_rate_the_coach_once_per_variant():
    games = [game(1, 1, 2, 1.0, hour=10), game(2, 1, 2, 1.0, hour=13, home_race="dwarf")]
    result = run_history(games, EloConfig(per_race=False))
    assert sorted(result.state.ratings) == [(1, None, V), (2, None, V)]
    assert (result.rows[2].r0, result.rows[2].race) == (154.47, None)


def test_close_periods_changes_no_rating():
    state = run_history([game(1, 1, 2, 1.0)], EloConfig()).state
    result = close_periods(state, EloConfig(), date(2022, 4, 1))
    assert (result.state.ratings, result.rows, result.summaries, result.state.open_events) == (
        state.ratings, [], [], {})


def test_resume_rejects_a_game_before_the_state():
    state = run_history([game(2, 1, 2, 1.0, hour=13)], EloConfig()).state
    with pytest.raises(ValueError, match="recalculate from an earlier state"):
        run_history([game(1, 1, 2, 1.0, hour=10)], EloConfig(), state)


@pytest.mark.parametrize("in_place", [False, True])
def test_the_same_game_twice_in_one_call_is_refused(in_place):
    twice = game(7, 1, 2, 1.0)
    with pytest.raises(ValueError, match="game 7 was given twice"):
        run_history([twice, game(8, 1, 3, 1.0, hour=13), twice], EloConfig(), in_place=in_place)


@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("already", ["last", "earlier"])
def test_a_game_already_in_the_state_is_refused(already, in_place):
    first, last = game(7, 1, 2, 1.0, hour=10), game(8, 1, 3, 1.0, hour=13)
    state = run_history([first, last], EloConfig()).state
    again = last if already == "last" else first
    before = pickle.dumps(state)
    expected = "game 8 was given twice" if already == "last" else "recalculate from an earlier state"
    with pytest.raises(ValueError, match=expected):
        run_history([again], EloConfig(), state, in_place=in_place)
    assert pickle.dumps(state) == before


@pytest.mark.parametrize("order", [1, -1])
def test_run_history_leaves_the_given_state_as_it_was(order):
    """The twenty-coach win (154.47 / 145.53) goes into the result's state, in play order or not."""
    state = EloState(ratings={(1, "orc", V): 150.0, (2, "elf", V): 150.0})
    before = pickle.dumps(state)
    games = [game(1, 1, 2, 1.0), game(2, 3, 4, 0.5, hour=11)][::order]
    result = run_history(games, EloConfig(), state)
    assert (result.state.ratings[(1, "orc", V)], result.state.ratings[(2, "elf", V)]) == (154.47, 145.53)
    assert pickle.dumps(state) == before
    assert state.ratings == {(1, "orc", V): 150.0, (2, "elf", V): 150.0}


def test_run_history_in_place_updates_the_given_state():
    state = EloState(ratings={(1, "orc", V): 150.0, (2, "elf", V): 150.0})
    result = run_history([game(1, 1, 2, 1.0)], EloConfig(), state, in_place=True)
    assert result.state is state
    assert (state.ratings[(1, "orc", V)], state.ratings[(2, "elf", V)]) == (154.47, 145.53)


def test_state_survives_pickling():
    state = run_history([game(1, 1, 2, 1.0)], EloConfig()).state
    assert pickle.loads(pickle.dumps(state)) == state


def test_event_open_at_the_split_is_summarised_again_cumulatively():
    games = [game(1, 1, 2, 1.0, hour=10), game(2, 1, 3, 1.0, hour=13, away_race="dwarf")]
    first = run_history(games[:1], EloConfig())
    second = run_history(games[1:], EloConfig(), first.state)
    summary = next(s for s in second.summaries if s.coach == 1)
    assert (summary.rl, summary.nt, summary.wt) == (150.0, 2, 2.0)


# --- degenerate cases ------------------------------------------------------------------------

def test_coach_with_one_game_starts_at_150():
    summary = run_history([game(1, 1, 2, 0.0)], EloConfig()).summaries[0]
    assert (summary.rl, summary.rn, summary.nt, summary.is_start) == (150.0, 145.53, 1, True)


def test_hundred_and_zero_percent_scores():
    games = [game(i, 1, i + 1, 1.0, hour=8 + i, away_race="elf") for i in range(1, 4)]
    summaries = {s.coach: s for s in run_history(games, EloConfig()).summaries}
    assert (summaries[1].wt, summaries[1].nt, summaries[2].wt) == (3.0, 3, 0.0)


def test_a_cr_below_zero_rounds_half_away_from_zero_too():
    # 4 coaches, K = 4, equals: each loser 1.995 − 2 = −0.005 → −0.01, each winner 1.995 + 2 = 3.995 → 4.00
    state = EloState(ratings={(coach, race, V): 1.995 for coach, race in [(1, "orc"), (2, "elf"), (3, "elf"), (4, "orc")]})
    games = [game(1, 1, 2, 0.0, coaches=4), game(2, 4, 3, 1.0, coaches=4, hour=11)]
    ratings = run_history(games, EloConfig(), state).state.ratings
    assert [ratings[key] for key in [(1, "orc", V), (2, "elf", V), (3, "elf", V), (4, "orc", V)]] == \
        [-0.01, 4.0, -0.01, 4.0]


def test_huge_gap_favourite_gains_nothing_and_upset_gains_k():
    k = k_value(20, major=False)
    assert (update(3000, 1000, 1, k), update(1000, 3000, 1, k)) == (3000.0, round(1000 + k, 2))


def test_no_games_give_an_empty_result():
    result = run_history([], EloConfig())
    assert (result.rows, result.summaries, result.state) == ([], [], EloState())


def test_negative_coach_count_is_rejected():
    with pytest.raises(ValueError, match="naf_coaches"):
        k_value(-1, major=False)


# --- configuration ---------------------------------------------------------------------------

def test_unknown_parameter_is_named():
    with pytest.raises(ValueError, match="k_factor"):
        EloConfig.from_params({"k_factor": 20})


@pytest.mark.parametrize("name, value", [
    ("start_rating", float("nan")), ("non_major_max", 0), ("major_coaches", 2.5),
    ("round_k", "yes"), ("per_race", 1), ("variants", ()), ("excluded_races", "goblin"),
])
def test_out_of_range_value_is_named(name, value):
    with pytest.raises(ValueError, match=f"EloConfig.{name}"):
        EloConfig.from_params({name: value})


def test_params_round_trip():
    config = EloConfig(round_k=True, variants=["bb2020"], excluded_races=["goblin"])
    assert EloConfig.from_params(config.as_params()) == config


# --- properties ------------------------------------------------------------------------------

ratings = st.integers(0, 40_000).map(lambda cents: cents / 100)
scores = st.sampled_from([0.0, 0.5, 1.0])
coach_counts = st.integers(0, 200)


@given(ratings, ratings, scores, coach_counts, st.booleans())
def test_game_is_zero_sum_up_to_rounding(a, b, score, coaches, major):
    k = k_value(coaches, major=major)
    change = (update(a, b, score, k) - a) + (update(b, a, 1 - score, k) - b)
    assert abs(change) <= 0.01 + 1e-9


@given(ratings, coach_counts)
def test_draw_between_equals_changes_nothing(rating, coaches):
    assert update(rating, rating, 0.5, k_value(coaches, major=False)) == rating


@given(ratings, ratings)
def test_expected_scores_sum_to_one(a, b):
    assert win_probability(a, b) + win_probability(b, a) == pytest.approx(1.0, abs=1e-12)


@st.composite
def histories(draw):
    """Games over three weeks of two-day events, with some exclusions and byes."""
    games = []
    for game_id in range(1, draw(st.integers(1, 30)) + 1):
        day = draw(st.integers(0, 20))
        event = day // 2
        home, away = draw(st.lists(st.integers(1, 6), min_size=2, max_size=2, unique=True))
        kind = draw(st.sampled_from(["played"] * 8 + [FORFEIT, BYE]))
        games.append(GameRecord(
            game_id=game_id,
            played_at=DAY + timedelta(days=day, hours=draw(st.sampled_from([9, 13]))),
            event_id=event + 1, variant=draw(st.sampled_from([V, V, "sevens"])), home=home,
            home_race=draw(st.sampled_from(["orc", "elf", "goblin"])),
            away=None if kind == BYE else away,
            away_race=None if kind == BYE else draw(st.sampled_from(["orc", "dwarf"])),
            home_score=draw(scores), event_coaches=8 + 3 * event, major=event % 4 == 3, kind=kind,
            event_end=(DAY + timedelta(days=2 * event + 1)).date(),
        ))
    return games


configs = st.builds(EloConfig, per_race=st.booleans(), round_k=st.booleans(),
                    excluded_races=st.sampled_from([(), ("goblin",)]),
                    variants=st.sampled_from([None, (V,)]))


def _latest(summaries):
    """Summaries by rating key and event, later ones replacing earlier (how they are stored)."""
    return {(s.coach, s.race, s.variant, s.period): s for s in summaries}


@settings(max_examples=150, deadline=None)
@given(histories(), configs, st.integers(0, 21 * 24))
def test_split_and_resume_equals_one_run(games, config, split_hour):
    split = DAY + timedelta(hours=split_hour)
    whole = run_history(games, config)
    first = run_history([g for g in games if g.played_at < split], config)
    second = run_history([g for g in games if g.played_at >= split], config, first.state)
    assert first.rows + second.rows == whole.rows
    assert second.state == whole.state
    assert _latest(first.summaries + second.summaries) == _latest(whole.summaries)


@settings(max_examples=50, deadline=None)
@given(histories(), configs)
def test_same_input_gives_identical_output(games, config):
    one = run_history(games, config)
    two = run_history(list(reversed(games)), config)
    assert (pickle.dumps(one.rows), pickle.dumps(one.summaries)) == (
        pickle.dumps(two.rows), pickle.dumps(two.summaries))
    assert one.state == two.state
