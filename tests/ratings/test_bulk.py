"""Bulk reads: columns come back as NumPy arrays with the values the rows hold, on either database
(in no particular order: the test sorts them)."""
import datetime as dt

import numpy as np
import pytest

from ratings.bulk import fetch_columns
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event
from tournaments.models import Game

pytestmark = pytest.mark.django_db


def test_fetch_columns_gives_each_column_its_rows_values_and_kind():
    coaches = CoachFactory.create_batch(4)
    event = add_event(coaches, dt.date(2024, 3, 9), [[(0, 1, (2, 0)), (2, 3, (1, 1))], [(0, 2, (0, 3))]])
    games = list(Game.objects.filter(event=event).order_by("id"))

    columns = fetch_columns(
        [("id", "i", "id"), ("half", "f", "home_touchdowns * 0.5"), ("won", "b", "home_touchdowns > away_touchdowns"),
         ("at", "t", "played_at")],
        "tournaments_game WHERE event_id = %s", [event.pk],
    )
    order = np.argsort(columns["id"])
    columns = {name: column[order] for name, column in columns.items()}

    assert columns["id"].dtype == np.int64 and columns["id"].tolist() == [g.pk for g in games]
    assert columns["half"].dtype == np.float64 and columns["half"].tolist() == [1.0, 0.5, 0.0]
    assert columns["won"].dtype == bool and columns["won"].tolist() == [True, False, False]
    assert columns["at"].tolist() == [g.played_at.timestamp() for g in games]


def test_fetch_columns_of_no_rows_are_empty_arrays_of_their_kind():
    columns = fetch_columns([("id", "i", "id"), ("at", "t", "played_at")], "tournaments_game WHERE id < 0", [])

    assert (len(columns["id"]), columns["id"].dtype, len(columns["at"]), columns["at"].dtype) == (0, np.int64, 0, np.float64)


@pytest.mark.postgresql
def test_changed_rows_keeps_equal_rows_deletes_the_others_and_inserts_only_the_new():
    # rows with a timestamp (stored with time zone, compared as the naive UTC the engines hold), a
    # duplicate, and a None: the figures of one run's current ratings stand in for any table
    from ratings.bulk import ChangedRows, bulk_insert
    from ratings.models import CalculationRow, RatingSystem

    coaches = CoachFactory.create_batch(2)
    event = add_event(coaches, dt.date(2024, 3, 9), [[(0, 1, (2, 0))]])
    game = Game.objects.get(event=event)
    system = RatingSystem.objects.get(slug="elo")
    fields = ["system", "game", "side", "coach", "variant", "played_at", "period", "chunk", "w", "counted", "reason", "rt"]
    at, chunk = dt.datetime(2024, 3, 9, 10), dt.date(2024, 3, 1)

    def row(side, rt, coach=coaches[0].pk):
        return (system.pk, game.pk, side, coach, event.variant_id, at, "2024-03", chunk, 1.0, True, "", rt)

    bulk_insert(CalculationRow, fields, [row("home", 8.0), row("home", 8.0), row("away", -8.0), row("home", None)])
    stored = dict(CalculationRow.objects.filter(system=system).values_list("pk", "rt"))

    with ChangedRows(CalculationRow, fields, where="system_id = %s AND chunk >= %s", params=[system.pk, chunk]) as rows:
        rows.write([row("home", 8.0), row("away", -7.5), row("home", None), row("home", None)])

    after = dict(CalculationRow.objects.filter(system=system).values_list("pk", "rt"))
    assert (rows.kept, rows.deleted, rows.count) == (2, 2, 2)
    assert sorted(after.values(), key=str) == sorted([8.0, -7.5, None, None], key=str)
    kept = {pk for pk in after if pk in stored}
    assert sorted((stored[pk] for pk in kept), key=str) == sorted([8.0, None], key=str)
