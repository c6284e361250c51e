"""The shared engine contract: rounding, parameter checks, exclusion reasons, the GC pause."""
import gc
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rating_engines.common import (
    AWAY,
    BYE,
    FORFEIT,
    CountingRule,
    GameRecord,
    PeriodSummary,
    Reason,
    check_fields,
    paused_gc,
    round_half_away,
    round_half_away_array,
)


def game(**changes):
    values = dict(game_id=1, played_at=datetime(2022, 3, 5, 10), event_id=1, variant="bb2020",
                  home=1, home_race="orc", away=2, away_race="elf", home_score=1.0)
    return GameRecord(**{**values, **changes})


def test_round_half_away_rounds_a_decimal_half_up():
    assert round_half_away(154.465, 2) == 154.47


def test_round_half_away_rounds_a_negative_half_away_from_zero():
    assert round_half_away(-2.5) == -3.0


def test_round_half_away_rounds_an_exact_binary_half_up_unlike_round():
    assert (round(0.125, 2), round_half_away(0.125, 2)) == (0.12, 0.13)


@pytest.mark.parametrize("value, places, expected", [
    (1.005, 2, 1.01),  # stored as 1.00499999999999989...
    (154.465, 2, 154.47),
    (2.675, 2, 2.68),  # round() gives 2.67
    (-2.5, 0, -3.0),
    (0.5, 0, 1.0),  # round() gives 0
])
def test_round_half_away_rounds_decimal_halves_away_from_zero(value, places, expected):
    assert round_half_away(value, places) == expected


@given(st.integers(min_value=-10**6, max_value=10**6), st.integers(min_value=0, max_value=3))
def test_round_half_away_rounds_every_decimal_half_as_decimal_round_half_up(units, places):
    # up to a million units of the last place: ratings to 0.01 up to 10 000
    half = (Decimal(units) + Decimal("0.5")).scaleb(-places)  # e.g. 100, 2 -> 1.005
    expected = half.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    assert round_half_away(float(half), places) == float(expected)


@given(
    st.lists(st.one_of(
        st.floats(min_value=-1e7, max_value=1e7, allow_nan=False),
        st.integers(min_value=-10**7, max_value=10**7).map(lambda units: units / 200),  # halves of 0.01
    ), min_size=1, max_size=30),
    st.integers(min_value=0, max_value=3),
)
def test_the_vectorised_round_half_away_gives_the_scalar_ones_figures(values, places):
    rounded = round_half_away_array(np.array(values), places)
    assert rounded.tolist() == [round_half_away(v, places) for v in values]


def test_the_vectorised_round_half_away_rounds_halves_away_from_zero():
    assert round_half_away_array(np.array([154.465, -2.5, 0.125, 2.675]), 2).tolist() == [154.47, -2.5, 0.13, 2.68]
    assert round_half_away_array(np.array([-2.5, 0.5, -0.4])).tolist() == [-3.0, 1.0, 0.0]


def test_check_fields_names_the_unknown_parameter():
    @dataclass
    class Config:
        tau: float = 0.2

    with pytest.raises(ValueError, match="Config: unknown parameter.*taux"):
        check_fields(Config, {"tau": 0.3, "taux": 1})


def test_paused_gc_restores_an_enabled_collector():
    assert gc.isenabled()
    with paused_gc():
        paused = gc.isenabled()
    assert (paused, gc.isenabled()) == (False, True)


def test_paused_gc_leaves_a_disabled_collector_disabled():
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_record_exclusion_names_the_first_reason_that_applies():
    assert [
        game(sanctioned=False, kind=FORFEIT).record_exclusion(),
        game(away=None, away_race=None, kind=BYE).record_exclusion(),
        game(kind=FORFEIT, conceded_by=AWAY).record_exclusion(),
        game(away_race_ranked=False).record_exclusion(),
        game().record_exclusion(),
    ] == [Reason.EVENT_NOT_SANCTIONED, Reason.BYE, Reason.FORFEIT, Reason.RACE_NOT_RANKED, None]


def test_wt_percent_is_the_score_share_of_counted_games():
    summary = PeriodSummary(coach=1, race=None, variant="bb2020", period="2022-03",
                            effective=datetime(2022, 4, 1).date(), rl=150.0, rn=151.0, nt=4, wt=3.0)
    assert summary.wt_percent == 75.0


def test_every_engine_updated_in_place_gives_what_a_copying_run_gives():
    from datetime import date, datetime

    from rating_engines import glicko, knsb, naf_elo
    from rating_engines.common import GameRecord

    games = sorted(
        (GameRecord(i, datetime(2024, 1 + i % 5, 1 + i % 27, 10), 1 + i // 4, "blood-bowl-2020", i % 7, "human",
                    7 + i % 5, "orc", (1.0, 0.5, 0.0)[i % 3], event_coaches=12) for i in range(1, 60)),
        key=lambda g: (g.played_at, g.game_id),
    )
    first, second, until = games[:30], games[30:], date(2024, 7, 1)
    for module, config in ((naf_elo, naf_elo.EloConfig()), (glicko, glicko.GlickoConfig()), (knsb, knsb.KnsbConfig())):
        copying = module.run_history(second, config, module.run_history(first, config).state)
        copying_closed = module.close_periods(copying.state, config, until)
        state = module.run_history(first, config).state
        in_place = module.run_history(second, config, state, in_place=True)
        in_place_closed = module.close_periods(state, config, until, in_place=True)
        assert in_place.state is state and in_place_closed.state is state
        assert in_place.rows + in_place_closed.rows == copying.rows + copying_closed.rows
        assert in_place.summaries + in_place_closed.summaries == copying.summaries + copying_closed.summaries


class TestCountingRule:
    """One rule for every engine: the record's reasons first, then the system's variants and races."""

    def test_a_ranked_played_game_in_the_systems_variant_counts(self):
        assert CountingRule(["bb2020"], ["goblin"]).exclusion(game()) is None

    @pytest.mark.parametrize("changes, reason", [
        ({"sanctioned": False}, Reason.EVENT_NOT_SANCTIONED),
        ({"kind": BYE, "away": None, "away_race": None}, Reason.BYE),
        ({"kind": FORFEIT}, Reason.FORFEIT),
        ({"away_race_ranked": False}, Reason.RACE_NOT_RANKED),
        ({"variant": "bb7"}, Reason.VARIANT_EXCLUDED),
        ({"away_race": "goblin"}, Reason.RACE_EXCLUDED),
        # the record's reason wins over the system's
        ({"sanctioned": False, "variant": "bb7"}, Reason.EVENT_NOT_SANCTIONED),
        ({"variant": "bb7", "home_race": "goblin"}, Reason.VARIANT_EXCLUDED),
    ])
    def test_why_a_game_does_not_count(self, changes, reason):
        assert CountingRule(["bb2020"], ["goblin"]).exclusion(game(**changes)) == reason

    def test_no_variant_list_takes_every_variant(self):
        assert CountingRule(None, ()).exclusion(game(variant="bb7")) is None
