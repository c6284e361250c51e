"""How a run's rows are stored: calculation rows as the tuples COPY takes, from objects or columns."""
import datetime as dt
from types import SimpleNamespace

from ratings.services.storage import ROW_FIELDS, row_tuples
from tests.engines.test_common import ROWS, as_columns

KEYS = SimpleNamespace(race={None: None, "orc": 4, "elf": 9}, variant={"bb2020": 2})
CHUNK = dt.date(2022, 3, 1)


def test_calculation_rows_are_stored_in_row_fields_order_with_ids_and_no_reason_as_empty():
    stored = list(row_tuples(5, ROWS, CHUNK, KEYS))
    assert [dict(zip(ROW_FIELDS, values)) for values in stored][0] == {
        "system": 5, "game": 7, "side": "home", "coach": 1, "race": 4, "variant": 2, "opponent": 2, "opponent_race": 9,
        "played_at": dt.datetime(2022, 3, 5, 10), "period": "event:3", "chunk": CHUNK, "w": 1.0, "counted": True,
        "reason": "", "r0": 150.0, "rc": 140.0, "we": 0.58, "k": 10.0, "rt": 4.2, "wx": None, "list_date": None,
        "depot_date": None, "opponent_phi": None, "g": None,
    }
    bye = dict(zip(ROW_FIELDS, stored[2]))
    assert (bye["opponent"], bye["opponent_race"], bye["reason"], bye["counted"]) == (None, None, "bye", False)


def test_rows_held_as_columns_are_stored_as_the_same_tuples():
    expected = list(row_tuples(5, ROWS, CHUNK, KEYS))
    assert list(row_tuples(5, as_columns(ROWS), CHUNK, KEYS)) == expected
    assert list(row_tuples(5, as_columns(ROWS, leave_out=("wx", "g", "list_date")), CHUNK, KEYS)) == expected
    assert list(row_tuples(5, [], CHUNK, KEYS)) == []
