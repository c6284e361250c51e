"""The stored figures of one system, read once, and the names that describe a key in a message."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
from django.db import connection

from assurance.verification.tables import (
    CURRENT_COLUMNS,
    ENTRY_COLUMNS,
    EPOCH,
    EPOCH_TIME,
    LIMITATIONS,
    NO_DAY,
    REASONS,
    ROW_COLUMNS,
    SIDES,
    SUMMARY_COLUMNS,
    Codes,
    Column,
    Table,
    _day,
    read_table,
)
from ratings.models import (
    CalculationRow,
    CurrentRating,
    PeriodSummary,
    RatingListEntry,
    RatingSystem,
)
from ratings.services.storage import _Keys
from tournaments.models import Coach


@dataclass
class Stored:
    rows: Table
    summaries: Table
    entries: Table  # rating_list holds the list's date (days), not its id
    current: Table
    lists: dict  # date -> RatingList


def read_stored(system: RatingSystem, codes: dict[str, Codes], lists: dict) -> Stored:
    sid = system.pk
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT period FROM {CalculationRow._meta.db_table} WHERE system_id = %s UNION "
            f"SELECT DISTINCT period FROM {PeriodSummary._meta.db_table} WHERE system_id = %s",
            [sid, sid],
        )
        for (label,) in sorted(cursor.fetchall()):
            codes["period"].code(label)
    entries = read_table(RatingListEntry, ENTRY_COLUMNS, sid, codes)
    by_id = sorted((rating_list.pk, _day(day)) for day, rating_list in lists.items())
    ids = np.array([pk for pk, _ in by_id], dtype=np.int64)
    days = np.array([day for _, day in by_id], dtype=np.int64)
    if len(ids):
        at = np.minimum(np.searchsorted(ids, entries["rating_list"]), len(ids) - 1)
        entries["rating_list"] = np.where(ids[at] == entries["rating_list"], days[at], NO_DAY)
    else:
        entries["rating_list"] = np.full(len(entries), NO_DAY, dtype=np.int64)
    return Stored(
        rows=read_table(CalculationRow, ROW_COLUMNS, sid, codes),
        summaries=read_table(PeriodSummary, SUMMARY_COLUMNS, sid, codes),
        entries=entries,
        current=read_table(CurrentRating, CURRENT_COLUMNS, sid, codes),
        lists=lists,
    )


def _codes() -> dict[str, Codes]:
    return {"side": Codes(SIDES), "reason": Codes(REASONS), "limitation": Codes(LIMITATIONS), "period": Codes()}


class _Names:
    """Stored values as the lines show them."""

    def __init__(self, keys: _Keys, codes: dict[str, Codes]):
        self.codes = codes
        self.race = {pk: slug for slug, pk in keys.race.items() if pk is not None}
        self.variant = {pk: slug for slug, pk in keys.variant.items()}
        self._numbers: dict[int, int] = {}

    def number(self, coach: int):
        if coach not in self._numbers:
            self._numbers[coach] = Coach.objects.filter(pk=coach).values_list("number", flat=True).first()
        return self._numbers[coach]

    def key(self, coach, race, variant) -> str:
        number = self.number(int(coach))
        race_name = self.race.get(int(race), "all races") if race else "all races"
        return f"coach {number if number is not None else f'id {coach}'} ({race_name}, {self.variant.get(int(variant), variant)})"

    def value(self, column: Column, value):
        value = value.item() if hasattr(value, "item") else value
        if column.kind == "f":
            return None if value != value else value
        if column.kind == "d":
            return None if value == NO_DAY else EPOCH + dt.timedelta(days=value)
        if column.kind == "t":
            return EPOCH_TIME + dt.timedelta(microseconds=value)
        if column.kind == "s":
            return self.codes[column.codes].label(value)
        if column.kind == "b":
            return bool(value)
        return None if value == column.none else value


def _month(days: np.ndarray) -> np.ndarray:
    """The month number (year·12 + month) of days counted from 2000-01-01."""
    since_1970 = (np.asarray(days, dtype=np.int64) + (EPOCH - dt.date(1970, 1, 1)).days).astype("datetime64[D]")
    return since_1970.astype("datetime64[M]").astype(np.int64)


def _number(value) -> str:
    value = value.item() if hasattr(value, "item") else value
    if value is None or (isinstance(value, float) and value != value):
        return "none"
    return f"{value:.10g}" if isinstance(value, float) else str(value)


def _date(days) -> str:
    days = int(days)
    return "none" if days == NO_DAY else (EPOCH + dt.timedelta(days=days)).isoformat()
