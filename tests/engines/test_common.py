"""The shared engine contract: rounding, parameter checks, exclusion reasons, the GC pause."""
import gc
import pickle
from dataclasses import dataclass
from dataclasses import replace as replace_record
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rating_engines import knsb
from rating_engines.common import (
    AWAY,
    BYE,
    FORFEIT,
    HOME,
    CalculationRow,
    Correction,
    CountingRule,
    GameRecord,
    PeriodSummary,
    Reason,
    RecordColumns,
    RowColumns,
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


# A GameRecord and a KNSB DepotEntry (of that game) pickled before they were pickled by their
# fields' values: checkpoints stored then must still load.
_PICKLED_BY_NAME = (
    b'\x80\x05\x95\x8d\x02\x00\x00\x00\x00\x00\x00\x8c\x15rating_engines.common\x94\x8c\nGameRecord\x94\x93\x94)\x81\x94N}\x94(\x8c\x07game_id\x94K\x07\x8c\tplayed_at\x94\x8c\x08datetime\x94\x8c\x08datetime\x94\x93\x94C\n\x07\xe8\x03\x02\x0b\x00\x00\x00\x00\x00\x94\x85\x94R\x94\x8c\x08event_id\x94K\x03\x8c\x07variant\x94\x8c\x0fblood-bowl-2020\x94\x8c\x04home\x94K\x0b\x8c\thome_race\x94\x8c\x03orc\x94\x8c\x04away\x94K\x0c\x8c\taway_race\x94\x8c\telf-union\x94\x8c\nhome_score\x94G?\xe0\x00\x00\x00\x00\x00\x00\x8c\revent_coaches\x94K\x18\x8c\x05major\x94\x88\x8c\nsanctioned\x94\x88\x8c\x10home_race_ranked\x94\x89\x8c\x10away_race_ranked\x94\x88\x8c\x04kind\x94\x8c\x06played\x94\x8c\x0bconceded_by\x94h\x13\x8c\tevent_end\x94h\x07\x8c\x04date\x94\x93\x94C\x04\x07\xe8\x03\x03\x94\x85\x94R\x94\x8c\x0breported_on\x94h!C\x04\x07\xe8\x04\t\x94\x85\x94R\x94\x8c\x0bcorrections\x94h\x00\x8c\nCorrection\x94\x93\x94(h!C\x04\x07\xe8\x04\t\x94\x85\x94R\x94G?\xf0\x00\x00\x00\x00\x00\x00h\x1dNt\x94\x81\x94\x85\x94\x8c\x08reverses\x94\x89u\x86\x94b\x8c\x19rating_engines.knsb.state\x94\x8c\nDepotEntry\x94\x93\x94)\x81\x94N}\x94(\x8c\x04game\x94h\x03\x8c\x04side\x94h\x10\x8c\x02rc\x94G@\x97p\x00\x00\x00\x00\x00\x8c\x01w\x94G?\xe0\x00\x00\x00\x00\x00\x00\x8c\nlist_month\x94M"\x01\x8c\x0bdepot_month\x94M#\x01\x8c\x0cplayed_month\x94M"\x01\x8c\tbootstrap\x94\x88u\x86\x94b\x86\x94.'
)


def _recorded_game():
    return game(game_id=7, played_at=datetime(2024, 3, 2, 11), event_id=3, variant="blood-bowl-2020", home=11,
                away=12, away_race="elf-union", home_score=0.5, event_coaches=24, major=True,
                home_race_ranked=False, conceded_by="away", event_end=date(2024, 3, 3),
                reported_on=date(2024, 4, 9), corrections=(Correction(date(2024, 4, 9), 1.0, "played", None),))


def test_a_game_is_pickled_by_its_values_not_its_field_names():
    # a checkpoint holds thousands of games (KNSB depots, open periods): names in each cost 6x the time
    g = _recorded_game()
    pickled = pickle.dumps(g, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickle.loads(pickled) == g
    assert b"home_race_ranked" not in pickled
    assert len(pickled) < 300


def test_a_game_pickled_by_its_field_names_still_loads():
    g, depot_entry = pickle.loads(_PICKLED_BY_NAME)
    assert g == _recorded_game()
    assert (depot_entry.game, depot_entry.side, depot_entry.rc, depot_entry.list_month, depot_entry.bootstrap) == (
        g, "home", 1500.0, 290, True)


ROWS = [
    CalculationRow(7, HOME, 1, "orc", "bb2020", 2, "elf", datetime(2022, 3, 5, 10), "event:3", 1.0, True,
                   r0=150.0, rc=140.0, we=0.58, k=10.0, rt=4.2),
    CalculationRow(7, AWAY, 2, "elf", "bb2020", 1, "orc", datetime(2022, 3, 5, 10), "event:3", 0.0, True,
                   r0=140.0, rc=150.0, we=0.42, k=10.0, rt=-4.2),
    CalculationRow(8, HOME, 3, "orc", "bb2020", None, None, datetime(2022, 3, 5, 13), "event:3", 1.0, False,
                   reason=Reason.BYE),
]


def as_columns(rows, leave_out=()):
    names = [f for f in CalculationRow.__dataclass_fields__ if f not in leave_out]
    return RowColumns(len(rows), {name: [getattr(row, name) for row in rows] for name in names})


def test_row_columns_are_the_rows_they_hold_with_defaults_for_the_fields_left_out():
    columns = as_columns(ROWS, leave_out=("wx", "list_date", "depot_date", "opponent_phi", "g"))
    assert len(columns) == 3 and list(columns) == ROWS and columns[2] == ROWS[2]
    assert columns == ROWS and columns != ROWS[:2] and columns == as_columns(ROWS)
    assert list(columns.column("wx")) == [None, None, None]
    for name in ("game_id", "reason", "rt", "g", "played_at"):
        assert list(columns.column(name)) == [getattr(r, name) for r in ROWS]


def test_row_columns_refuse_a_field_calculation_rows_do_not_have():
    with pytest.raises(ValueError, match="CalculationRow: unknown parameter.*rating"):
        RowColumns(1, {"rating": [1.0]})


# RecordColumns: records encoded as the history reader encodes them, against the records themselves
_RACES = {10: ("orc", True), 11: ("elf", True), 12: ("goblin", False), -1: (None, False)}
_EVENTS = {1: ("bb2020", False, True, date(2022, 3, 6)), 2: ("sevens", True, False, None), 3: ("bb2020", True, True, None)}
_KINDS, _CONCESSIONS = ["played", BYE, FORFEIT], [None, HOME, AWAY]


@st.composite
def recorded_games(draw):
    """Games in play order, with what RecordColumns is built from: their times, columns and corrections."""
    n = draw(st.integers(min_value=0, max_value=25))
    minutes = sorted(draw(st.lists(st.integers(0, 60 * 24 * 90), min_size=n, max_size=n)))
    games, corrections = [], {}
    for game_id, minute in enumerate(minutes, start=100):
        event_id = draw(st.sampled_from(sorted(_EVENTS)))
        home_race = draw(st.sampled_from([10, 11, 12]))
        bye = draw(st.booleans())
        away, away_race = (None, -1) if bye else (draw(st.integers(2, 9)), draw(st.sampled_from([10, 11, 12])))
        variant, major, sanctioned, end = _EVENTS[event_id]
        reported = draw(st.none() | st.dates(date(2022, 1, 1), date(2022, 12, 31)))
        g = GameRecord(
            game_id, datetime(2022, 1, 1) + (minute * (datetime(2022, 1, 1, 0, 1) - datetime(2022, 1, 1))), event_id,
            variant, 1, _RACES[home_race][0], away, _RACES[away_race][0], draw(st.sampled_from([0.0, 0.5, 1.0])),
            draw(st.integers(0, 60)), major, sanctioned, _RACES[home_race][1], _RACES[away_race][1],
            BYE if bye else draw(st.sampled_from(["played", FORFEIT])), draw(st.sampled_from(_CONCESSIONS)), end, reported,
        )
        if draw(st.integers(0, 4)) == 0:  # a corrected game: its report date is its first result's
            found = tuple(
                Correction(draw(st.dates(date(2022, 1, 1), date(2022, 12, 31))), 0.5, "played", draw(st.none() | st.dates()))
                for _ in range(draw(st.integers(1, 2)))
            )
            corrections[game_id] = found
            g.corrections, g.reported_on = found, found[0].reported_on
        games.append((g, home_race, away_race, reported))
    records = [g for g, *_ in games]
    columns = {
        "game_id": np.array([g.game_id for g in records], dtype=np.int64),
        "event_id": np.array([g.event_id for g in records], dtype=np.int64),
        "home": np.array([g.home for g in records], dtype=np.int64),
        "home_race": np.array([race for _, race, _, _ in games], dtype=np.int32),
        "away": np.array([-1 if g.away is None else g.away for g in records], dtype=np.int64),
        "away_race": np.array([race for _, _, race, _ in games], dtype=np.int32),
        "home_score": np.array([g.home_score for g in records], dtype=np.float64),
        "event_coaches": np.array([g.event_coaches for g in records], dtype=np.int32),
        "kind": np.array([_KINDS.index(g.kind) for g in records], dtype=np.int8),
        "conceded_by": np.array([_CONCESSIONS.index(g.conceded_by) for g in records], dtype=np.int8),
        "reported_on": np.array([0 if day is None else day.toordinal() for *_, day in games], dtype=np.int32),
    }
    table = RecordColumns([g.played_at for g in records], columns, events=_EVENTS, races=_RACES,
                          corrections=corrections, kinds=_KINDS, concessions=_CONCESSIONS)
    return records, table


@given(recorded_games(), st.data())
def test_record_columns_give_the_records_they_hold_whole_sliced_and_taken(recorded, data):
    records, table = recorded
    assert len(table) == len(records) and table.times == [g.played_at for g in records]
    assert list(table) == records
    if records:
        i = data.draw(st.integers(-len(records), len(records) - 1))
        assert table[i] == records[i]
    lo, hi = data.draw(st.integers(0, len(records))), data.draw(st.integers(0, len(records)))
    part = table[lo:hi]
    assert isinstance(part, RecordColumns) and list(part) == records[lo:hi] and part.times == table.times[lo:hi]
    positions = data.draw(st.lists(st.integers(0, max(len(records) - 1, 0)), max_size=len(records))) if records else []
    taken = table.take(np.array(positions, dtype=np.int64))
    assert list(taken) == [records[p] for p in positions] and taken.times == [records[p].played_at for p in positions]
    assert table.sanctioned().tolist() == [g.sanctioned for g in records]
    day = data.draw(st.dates(date(2022, 1, 1), date(2023, 1, 1)))
    last_report = [g.corrections[-1].corrected_on if g.corrections else g.reported_on for g in records]
    assert table.reported_since(day).tolist() == [found is not None and found >= day for found in last_report]
    after_event = [bool(g.corrections) or (g.reported_on is not None and (g.event_end is None or g.reported_on > g.event_end))
                   for g in records]
    assert table.reported_after_event().tolist() == after_event
    # the others are on time for KNSB, the one method that takes results late
    assert all(knsb.late_month(g) is None for g, maybe in zip(records, after_event) if not maybe)


def test_record_columns_refuse_a_missing_column_and_columns_of_other_lengths():
    with pytest.raises(TypeError, match="no column for away, away_race"):
        RecordColumns([], {name: np.zeros(0) for name in RecordColumns.INTS if name not in ("away", "away_race")} |
                      {"home_score": np.zeros(0)}, events={}, races={}, corrections={}, kinds=[], concessions=[None])
    with pytest.raises(ValueError, match="one value a game"):
        RecordColumns([datetime(2022, 1, 1)], {name: np.zeros(2, dtype=np.int64) for name in (*RecordColumns.INTS, "home_score")},
                      events={}, races={}, corrections={}, kinds=[], concessions=[None])
    with pytest.raises(IndexError):
        RecordColumns([], {name: np.zeros(0, dtype=np.int64) for name in (*RecordColumns.INTS, "home_score")},
                      events={}, races={}, corrections={}, kinds=[], concessions=[None])[0]


@given(recorded_games(), st.data())
def test_record_columns_give_a_replaced_record_in_its_place_through_slices_and_takes(recorded, data):
    records, table = recorded
    if not records:
        return
    positions = data.draw(st.lists(st.integers(0, len(records) - 1), min_size=1, max_size=2 * len(records)))
    chosen = [records[p] for p in positions]
    replaced = {}
    for at in data.draw(st.sets(st.integers(0, len(positions) - 1))):
        g = chosen[at]  # a correction's record in the game's place: the result taken back, reported later
        replaced[at] = replace_record(g, home_score=1.0 - g.home_score, reverses=True, sanctioned=not g.sanctioned,
                                      corrections=(Correction(date(2023, 2, 1), g.home_score, "played", None),))
    expected = [replaced.get(i, g) for i, g in enumerate(chosen)]
    taken = table.take(np.array(positions, dtype=np.int64), replaced=replaced)
    assert list(taken) == expected and taken.times == [g.played_at for g in expected]
    assert [taken[i] for i in range(-len(expected), len(expected))] == expected + expected
    lo, hi = data.draw(st.integers(0, len(expected))), data.draw(st.integers(0, len(expected)))
    step = data.draw(st.sampled_from([None, 1, 2, -1]))
    assert list(taken[lo:hi:step]) == expected[lo:hi:step]
    again = data.draw(st.lists(st.integers(0, len(expected) - 1), max_size=len(expected)))
    assert list(taken.take(np.array(again, dtype=np.int64))) == [expected[i] for i in again]
    assert taken.sanctioned().tolist() == [g.sanctioned for g in expected]
    day = data.draw(st.dates(date(2022, 1, 1), date(2023, 3, 1)))
    last_report = [g.corrections[-1].corrected_on if g.corrections else g.reported_on for g in expected]
    assert taken.reported_since(day).tolist() == [found is not None and found >= day for found in last_report]
    # a record given in a game's place is looked at as it is, whatever its game's columns say
    assert all(taken.reported_after_event()[at] for at in replaced)
    with pytest.raises(IndexError, match="replaced outside"):
        table.take(np.array(positions, dtype=np.int64), replaced={len(positions): records[0]})
