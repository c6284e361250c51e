"""Recompute a system from scratch in memory and compare with every stored figure."""
from __future__ import annotations

import datetime as dt
import math

from django.utils import timezone

from ratings import selectors
from ratings.configuration import engine_for, list_rules
from ratings.models import CalculationRow, CurrentRating, PeriodSummary, RatingList, RatingListEntry, RatingSystem
from ratings.replay import Ledger, replay
from ratings.services import (
    CURRENT_FIELDS, ENTRY_FIELDS, ROW_FIELDS, SUMMARY_FIELDS, _Keys, current_rows, entry_rows, row_tuples,
    summary_values,
)


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-9)
    if isinstance(a, dt.datetime) and isinstance(b, dt.datetime):
        return selectors.naive_utc(a) == selectors.naive_utc(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) == bool(b)
    return a == b


class Differences:
    def __init__(self, limit: int):
        self.limit = limit
        self.count = 0
        self.first: list[str] = []

    def compare(self, what: str, fields: list[str], expected: dict, stored: dict) -> None:
        for key in sorted(expected.keys() | stored.keys(), key=repr):
            want, have = expected.get(key), stored.get(key)
            if want is None or have is None:
                self._add(f"{what} {key}: {'missing from the store' if have is None else 'stored but not recomputed'}")
                continue
            for name, a, b in zip(fields, want, have):
                if not _same(a, b):
                    self._add(f"{what} {key}: {name} recomputed {a!r}, stored {b!r}")
                    break

    def _add(self, line: str) -> None:
        self.count += 1
        if len(self.first) < self.limit:
            self.first.append(line)


def verify_system(system: RatingSystem, *, today: dt.date | None = None, limit: int = 10) -> Differences:
    """Every stored calculation row, summary, list entry and current rating against a fresh replay."""
    today = today or timezone.now().date()
    module, config = engine_for(system)
    keys = _Keys()
    sid = system.pk
    diffs = Differences(limit)
    games = selectors.game_records()
    expected_summaries: dict = {}
    expected_rows = 0
    lists = {rating_list.date: rating_list for rating_list in RatingList.objects.filter(system=system)}
    for chunk in replay(
        module, config, games, Ledger(), start=None, until=today, rules=list_rules(system, config),
        per_race=system.per_race, complete=lambda day: day not in lists or lists[day].complete,
    ):
        chunk_date = chunk.start
        stored_rows = CalculationRow.objects.filter(system=system, chunk=chunk_date)
        expected = {
            (r.game_id, r.side, r.period): values[1:]
            for r, values in zip(chunk.rows, row_tuples(sid, chunk.rows, chunk_date, keys))
        }
        stored = {(v[0], v[1], v[8]): v for v in stored_rows.values_list(*[f"{f}_id" if f in _FK_ROW else f for f in ROW_FIELDS[1:]])}
        diffs.compare("calculation row", ROW_FIELDS[1:], expected, stored)
        expected_rows += len(expected)
        for s in chunk.summaries:
            values = summary_values(sid, s, chunk_date, keys)
            expected_summaries[(s.period, values[1], values[2], values[3])] = values[1:6] + values[7:]
        if chunk.is_list:
            rating_list = lists.get(chunk.end)
            expected = {values[1:4]: values[1:] for values in entry_rows(sid, chunk.entries, keys)}
            stored = {}
            if rating_list is None:
                diffs._add(f"rating list of {chunk.end}: missing from the store")
            else:
                counts = (chunk.rated, chunk.ranked, chunk.starters)
                if counts != (rating_list.rated, rating_list.ranked, rating_list.starters):
                    diffs._add(f"rating list of {chunk.end}: counts recomputed {counts}, stored "
                               f"{(rating_list.rated, rating_list.ranked, rating_list.starters)}")
                fields = [f"{f}_id" if f in {"coach", "race", "variant"} else f for f in ENTRY_FIELDS[2:]]
                stored = {(v[0], v[1], v[2]): v for v in RatingListEntry.objects.filter(rating_list=rating_list).values_list(*fields)}
            diffs.compare(f"list {chunk.end} entry", ENTRY_FIELDS[2:], expected, stored)
        else:
            expected = {values[1:4]: values[4:] for values in current_rows(sid, chunk.entries, keys)}
            fields = [f"{f}_id" if f in {"coach", "race", "variant"} else f for f in CURRENT_FIELDS[1:]]
            stored = {(v[0], v[1], v[2]): v[3:] for v in CurrentRating.objects.filter(system=system).values_list(*fields)}
            diffs.compare("current rating", CURRENT_FIELDS[4:], expected, stored)
    fields = [f"{f}_id" if f in {"coach", "race", "variant"} else f for f in SUMMARY_FIELDS[1:]]
    stored = {}
    for v in PeriodSummary.objects.filter(system=system).values_list(*fields):
        stored[(v[3], v[0], v[1], v[2])] = v[:5] + v[6:]
    diffs.compare("summary", SUMMARY_FIELDS[1:6] + SUMMARY_FIELDS[7:], expected_summaries, stored)
    stored_rows = CalculationRow.objects.filter(system=system).count()
    if stored_rows != expected_rows:
        diffs._add(f"{stored_rows} calculation rows stored, {expected_rows} recomputed")
    extra_lists = RatingList.objects.filter(system=system).exclude(date__lte=today).count()
    if extra_lists:
        diffs._add(f"{extra_lists} stored list(s) dated after {today}")
    return diffs


_FK_ROW = {"game", "coach", "race", "variant", "opponent", "opponent_race"}
