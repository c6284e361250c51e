"""Verification 1: a fresh replay in memory, and its comparison with every stored figure."""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial
from operator import attrgetter
from typing import Any

import numpy as np

from assurance.verification.differences import Differences
from assurance.verification.stored import Stored, _Names
from assurance.verification.tables import (
    _ORDINAL,
    CURRENT_COLUMNS,
    ENTRY_COLUMNS,
    NO_DAY,
    REPLAY_TOLERANCE,
    ROW_COLUMNS,
    SUMMARY_COLUMNS,
    SUMMARY_COMPARED,
    Codes,
    Column,
    Table,
    _array,
    _Cached,
    _close,
    _day,
    _micro,
    _packed,
)
from rating_engines import methods
from rating_engines.common import AWAY, RowColumns
from ratings.configuration import list_rules
from ratings.replay import Chunk, Ledger, Tail, replay
from ratings.services.storage import _key_arrays, _Keys

_ROW_NAMES = (
    "game_id", "side", "coach", "race", "variant", "opponent", "opponent_race", "played_at", "period", "w", "counted",
    "reason", "r0", "rc", "we", "k", "rt", "wx", "list_date", "depot_date", "opponent_phi", "g",
)
_ROW_VALUES = attrgetter(*_ROW_NAMES)
_SUMMARY_VALUES = attrgetter(*[c.name for c in SUMMARY_COLUMNS if c.name != "chunk"])
_ENTRY_FIGURES = [c.name for c in ENTRY_COLUMNS[4:]]
_CURRENT_FIGURES = [c.name for c in CURRENT_COLUMNS[3:]]


class _Replayed:
    """What a fresh replay gives, as the stored columns."""

    def __init__(self, keys: _Keys, codes: dict[str, Codes]):
        self.tails: list[Tail] = []  # the replay's tail, where an event at the end goes on from
        self.keys = keys
        self.codes = codes
        self.race = _Cached(lambda slug: keys.race[slug] or 0)
        self.variant = keys.variant
        self.cache: dict = {}
        self.rows: list[Table] = []
        self.summaries: dict = {}
        self.entries: list[Table] = []
        self.current = Table()
        self.lists: dict[dt.date, tuple[int, int, int]] = {}

    def add(self, chunk) -> None:
        if chunk.rows:
            self.rows.append(self._rows(chunk.rows, chunk.start))
        # an event still open at a chunk's end is summarised again, cumulatively, by the next chunk
        for s in chunk.summaries:
            self.summaries[(s.period, s.coach, s.race, s.variant)] = (chunk.start, s)
        coach, race, variant = _key_arrays(chunk.entries, self.keys)
        arrays = chunk.entries.arrays()
        if chunk.is_list:
            self.lists[chunk.end] = (chunk.rated, chunk.ranked, chunk.starters)
            table = Table(rating_list=np.full(len(coach), _day(chunk.end), dtype=np.int64), coach=coach, race=race,
                          variant=variant)
            table.update({name: arrays[name] for name in _ENTRY_FIGURES})
            self.entries.append(table)
        else:
            table = Table(coach=coach, race=race, variant=variant)
            table.update({name: arrays[name] for name in _CURRENT_FIGURES})
            last = table["last_played"]
            table["last_played"] = np.where(last < 0, NO_DAY, last - _ORDINAL)
            self.current = table

    def _rows(self, rows: list, chunk_start: dt.date) -> Table:
        n = len(rows)
        if isinstance(rows, RowColumns):  # the engine's columns as they are, without an object a row
            values = [list(rows.column(name)) for name in _ROW_NAMES]
        else:
            values = list(zip(*map(_ROW_VALUES, rows)))
        (game, side, coach, race, variant, opponent, opponent_race, played_at, period, w, counted, reason, r0, rc, we,
         k, rt, wx, list_date, depot_date, opponent_phi, g) = values
        days = self.cache.setdefault("d", _Cached(_day))
        micros = self.cache.setdefault("t", _Cached(_micro))
        period_code = self.codes["period"].code
        reason_index = self.codes["reason"].index
        floats = partial(np.array, dtype=float)
        return Table(
            game=np.fromiter(game, np.int64, n),
            side=np.fromiter(map(AWAY.__eq__, side), np.int64, n),
            coach=np.fromiter(coach, np.int64, n),
            race=np.fromiter(map(self.race.__getitem__, race), np.int64, n),
            variant=np.fromiter(map(self.variant.__getitem__, variant), np.int64, n),
            opponent=np.fromiter((0 if o is None else o for o in opponent), np.int64, n),
            opponent_race=np.fromiter(map(self.race.__getitem__, opponent_race), np.int64, n),
            played_at=np.fromiter(map(micros.__getitem__, played_at), np.int64, n),
            period=np.fromiter(map(period_code, period), np.int64, n),
            chunk=np.full(n, _day(chunk_start), dtype=np.int64),
            w=floats(w), counted=np.fromiter(counted, bool, n),
            reason=np.fromiter((reason_index.get(r or "", -1) for r in reason), np.int64, n),
            r0=floats(r0), rc=floats(rc), we=floats(we), k=floats(k), rt=floats(rt), wx=floats(wx),
            list_date=np.fromiter(map(days.__getitem__, list_date), np.int64, n),
            depot_date=np.fromiter(map(days.__getitem__, depot_date), np.int64, n),
            opponent_phi=floats(opponent_phi), g=floats(g),
        )

    def summary_table(self) -> Table:
        if not self.summaries:
            return Table.concatenate([], SUMMARY_COLUMNS)
        chunks, summaries = zip(*self.summaries.values())
        for period, *_ in self.summaries:
            self.codes["period"].code(period)
        values = dict(zip([c.name for c in SUMMARY_COLUMNS if c.name != "chunk"], zip(*map(_SUMMARY_VALUES, summaries))))
        values["race"] = [self.race[r] for r in values["race"]]
        values["variant"] = [self.variant[v] for v in values["variant"]]
        values["chunk"] = chunks
        return Table({c.name: _array(list(values[c.name]), c, self.codes, self.cache) for c in SUMMARY_COLUMNS})


def drawn_as_stored(lists: dict) -> Callable[[dt.date], bool]:
    """Whether the replay draws the list of a date complete: as the stored list of that date is (a
    date with no stored list: complete)."""
    return lambda day: day not in lists or lists[day].complete


def _replay(system, module, config, games, today: dt.date, complete: Callable[[dt.date], bool], keys: _Keys, codes: dict,
            on_list: Callable[[Chunk, Ledger], None] | None = None,
            both: Callable[[dt.date], bool] = lambda day: False) -> _Replayed:
    """The replay of the live record from the first game; `on_list(chunk, ledger)` after each list
    (those of the dates `both` holds drawn both ways)."""
    out = _Replayed(keys, codes)
    ledger = Ledger()
    for chunk in replay(
        methods.for_replay(module, len(games)), config, games, ledger, start=None, until=today, rules=list_rules(system, config),
        per_race=system.per_race, complete=complete, both=both, keep_tail=out.tails.append,
    ):
        out.add(chunk)
        if on_list is not None and chunk.is_list:
            on_list(chunk, ledger)
    return out




def compare_tail(diffs: Differences, expected: Tail | None, stored: Tail | None) -> None:
    """The stored replay tail (ReplayTail) against the fresh replay's: the game it is at, the
    engine's state there, the board and the month's rows and summaries so far. A run for an event
    at the end goes on from it: a wrong one would make the next run's figures wrong."""
    def differ(what: str) -> None:
        diffs.differences(1, lambda n: iter([f"replay tail: {what}"]))

    def at(tail: Tail) -> str:
        return f"at game {tail.last[1]} ({tail.last[0]:%Y-%m-%d %H:%M}), its month from {tail.start}"

    if expected is None or stored is None:
        if stored is not None:
            differ(f"stored {at(stored)}, where the replay leaves none")
        elif expected is not None:
            differ(f"none stored, where the replay leaves one {at(expected)}")
        return
    if (stored.start, stored.last) != (expected.start, expected.last):
        differ(f"stored {at(stored)}, where the replay's is {at(expected)}")
        return
    try:
        ledger, resumed = stored.resumed()
    except Exception as error:  # a run would replay from a checkpoint instead; it is still not the replay's
        differ(f"stored {at(stored)} cannot be read ({type(error).__name__})")
        return
    fresh, fresh_resumed = expected.resumed()
    for what, mine, theirs in (
        ("the engine's state", ledger.engine_state, fresh.engine_state),
        ("the ratings as of its month's start", ledger.board, fresh.board),
        ("the games rated before its month", (ledger.games, ledger.first), (fresh.games, fresh.first)),
        ("its month's rows so far", [row for part in resumed.rows for row in part], [row for part in fresh_resumed.rows for row in part]),
        ("its month's summaries so far", (resumed.summaries, resumed.given), (fresh_resumed.summaries, fresh_resumed.given)),
    ):
        if not _same(mine, theirs):
            differ(f"{what} {at(stored)} is not the replay's")


def _same(a: Any, b: Any) -> bool:
    """Equal values, looked into: arrays element by element (NaN equal to NaN), objects by their state."""
    if isinstance(a, np.ndarray | np.generic) or isinstance(b, np.ndarray | np.generic):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f" and b.dtype.kind == "f"))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(value, b[key]) for key, value in a.items())
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(map(_same, a, b))
    if a is None or isinstance(a, str | int | bytes | dt.date | type):
        return bool(a == b)
    mine, theirs = a.__getstate__(), b.__getstate__()
    if mine is None and theirs is None:  # a value without a state of its own (a set, a timedelta)
        return bool(a == b)
    return _same(mine, theirs)


def _compare(diffs: Differences, what: str, key_columns: list[str], columns: list[Column], expected: Table,
             stored: Table, names: _Names) -> None:
    """Every row of `stored` against the row of `expected` with the same key."""
    index = {c.name: c for c in columns}
    key_of = [index[name] for name in key_columns]

    def describe(table: Table, i) -> str:
        return repr(tuple(names.value(c, table[c.name][i]) for c in key_of))

    want, have = _packed([[expected[n] for n in key_columns], [stored[n] for n in key_columns]])
    want_order, have_order = np.argsort(want, kind="stable"), np.argsort(have, kind="stable")
    want_sorted, have_sorted = want[want_order], have[have_order]
    if len(have):
        at = np.minimum(np.searchsorted(have_sorted, want_sorted), len(have) - 1)
        found = have_sorted[at] == want_sorted
    else:
        at, found = np.zeros(len(want), dtype=np.int64), np.zeros(len(want), dtype=bool)
    e, s = want_order[found], have_order[at[found]]
    matched = np.zeros(len(have), dtype=bool)
    matched[s] = True
    twice = have_order[np.flatnonzero(have_sorted[1:] == have_sorted[:-1]) + 1]
    matched[twice] = False
    missing, extra = want_order[~found], np.flatnonzero(~matched)
    diffs.differences(len(missing), lambda n: (f"{what} {describe(expected, i)}: missing from the store" for i in missing[:n]))
    extra_twice = np.isin(extra, twice)
    diffs.differences(len(extra), lambda n: (
        f"{what} {describe(stored, i)}: {'stored more than once' if again else 'stored but not recomputed'}"
        for i, again in zip(extra[:n], extra_twice[:n])))
    reported = np.zeros(len(e), dtype=bool)
    lines: list[tuple[int, str]] = []
    for c in columns:
        if c.name in key_columns:
            continue
        a, b = expected[c.name][e], stored[c.name][s]
        same = _close(a, b, REPLAY_TOLERANCE) if c.kind == "f" else a == b
        bad = np.flatnonzero(~same & ~reported)
        reported[bad] = True
        for i in bad[:diffs.limit]:
            lines.append((int(i), f"{what} {describe(stored, s[i])}: {c.name} recomputed "
                                  f"{names.value(c, a[i])!r}, stored {names.value(c, b[i])!r}"))
    lines.sort()
    diffs.differences(int(reported.sum()), lambda n: (line for _, line in lines[:n]))


def compare_with_replay(diffs: Differences, replayed: _Replayed, stored: Stored, today: dt.date, names: _Names) -> None:
    # a KNSB correction gives a game two rows in a list: the old result taken back (reason "reversed") and the new
    _compare(diffs, "calculation row", ["game", "side", "period", "reason"], ROW_COLUMNS,
             Table.concatenate(replayed.rows, ROW_COLUMNS), stored.rows, names)
    _compare(diffs, "summary", ["period", "coach", "race", "variant"], SUMMARY_COMPARED, replayed.summary_table(),
             stored.summaries, names)
    for day, counts in replayed.lists.items():
        rating_list = stored.lists.get(day)
        if rating_list is None:
            diffs._add(f"rating list of {day}: missing from the store")
        elif counts != (rating_list.rated, rating_list.ranked, rating_list.starters):
            diffs._add(f"rating list of {day}: counts recomputed {counts}, stored "
                       f"{(rating_list.rated, rating_list.ranked, rating_list.starters)}")
    list_column = Column("rating_list", "d")
    _compare(diffs, "list entry", ["rating_list", "coach", "race", "variant"], [list_column, *ENTRY_COLUMNS[1:]],
             Table.concatenate(replayed.entries, ENTRY_COLUMNS), stored.entries, names)
    expected_current = replayed.current if len(replayed.current) else Table.concatenate([], CURRENT_COLUMNS)
    _compare(diffs, "current rating", ["coach", "race", "variant"], CURRENT_COLUMNS, expected_current, stored.current,
             names)
    later = [day for day in stored.lists if day > today]
    if later:
        diffs._add(f"{len(later)} stored list(s) dated after {today}")
