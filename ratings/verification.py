"""Verify a rating system's stored figures, two ways.

1. Against a fresh recalculation: every stored calculation row, summary, list entry and current
   rating is compared with what a replay from scratch in memory gives.
2. Against themselves, independently of the replay: every stored figure is checked against the
   stored rows it rests on, by its method's formula (engines/*): each row's We, k and Rt from its
   own columns; each summary's totals from its rows; each key's chain of ratings from one game or
   period to the next; each current rating and list entry from the key's rows or summaries in force
   at its date. A replay that shares a bug with the recalculation agrees with what it stored; the
   stored figures then still disagree with their own rows.

Both read every table once per system, as columns (NumPy arrays): on PostgreSQL as one binary COPY
per table of fixed-width values (no Python object per value), elsewhere through the cursor. The
games are read once for all systems (`verify_systems`), and on PostgreSQL systems are verified
`jobs` at a time in processes forked after the read, as the recalculation runs them.
"""
from __future__ import annotations

import datetime as dt
import os
import pickle
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from operator import attrgetter

import numpy as np
from django.db import connection
from django.utils import timezone

from ratings import selectors
from ratings.configuration import engine_for, list_rules
from ratings.engines import glicko, knsb, naf_elo
from ratings.engines.common import AWAY, HOME, Reason, paused_gc, round_half_away
from ratings.models import (
    CalculationRow,
    CurrentRating,
    Method,
    PeriodSummary,
    RatingList,
    RatingListEntry,
    RatingSystem,
)
from ratings.replay import Ledger, replay
from ratings.services.storage import _key_arrays, _Keys
from ratings.services.workers import can_fork, in_processes
from tournaments.models import Coach

EPOCH = dt.date(2000, 1, 1)  # PostgreSQL's binary dates and times count from here
EPOCH_TIME = dt.datetime(2000, 1, 1)
_US = dt.timedelta(microseconds=1)
DAY_US = 86_400_000_000
NO_DAY = (dt.date(9999, 12, 31) - EPOCH).days  # a date column's none
NO_RANK_CHANGE = np.iinfo(np.int64).min
_ORDINAL = EPOCH.toordinal()

SIDES = (HOME, AWAY)
REASONS = ("", *sorted(value for name, value in vars(Reason).items() if not name.startswith("_")))
LIMITATIONS = (knsb.LIMIT_NONE, knsb.LIMIT_LPR, knsb.LIMIT_RL)

# how closely a figure must match: the replay gives the same arithmetic (old `_same`); a figure
# recomputed from stored columns may add in another order or go through another (equal) formula
REPLAY_TOLERANCE = {"rtol": 1e-12, "atol": 1e-9}
FORMULA_TOLERANCE = {"rtol": 1e-9, "atol": 1e-9}


# --- differences ------------------------------------------------------------------------------


class Differences:
    """What a verification found: differences from a fresh recalculation (`replayed`) and stored
    figures that disagree with their own rows or formula (`inconsistent`), with the first lines of each."""

    def __init__(self, limit: int):
        self.limit = limit
        self.replayed = 0
        self.inconsistent = 0
        self.first_replayed: list[str] = []
        self.first_inconsistent: list[str] = []

    @property
    def count(self) -> int:
        return self.replayed + self.inconsistent

    @property
    def first(self) -> list[str]:
        return self.first_replayed + self.first_inconsistent

    def _add(self, line: str) -> None:
        """A difference from the fresh recalculation."""
        self.replayed += 1
        if len(self.first_replayed) < self.limit:
            self.first_replayed.append(line)

    def differences(self, count: int, lines: Callable[[int], Iterator[str]]) -> None:
        """`count` differences from the fresh recalculation; `lines(n)` gives the first n described."""
        self.replayed += count
        self._describe(self.first_replayed, count, lines)

    def inconsistency(self, count: int, lines: Callable[[int], Iterator[str]]) -> None:
        """`count` stored figures disagreeing with their rows; `lines(n)` gives the first n described."""
        self.inconsistent += count
        self._describe(self.first_inconsistent, count, lines)

    def _describe(self, first: list[str], count: int, lines: Callable[[int], Iterator[str]]) -> None:
        room = self.limit - len(first)
        if count and room > 0:
            first.extend(lines(min(room, count)))


# --- columns ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """One stored column read as a NumPy array. Kinds: "i" integer (`none` for null), "f" float
    (NaN for null), "b" boolean, "d" date (days since 2000-01-01, NO_DAY for null), "t" time of
    play (microseconds since 2000-01-01 UTC), "s" text as a code (its index in a code table; -1
    for text not in it)."""

    name: str
    kind: str
    none: int = -1
    codes: str = ""


def _columns(spec: str) -> list[Column]:
    out = []
    for item in spec.split():
        name, _, rest = item.partition(":")
        kind, _, extra = rest.partition("=")
        if kind == "s":
            out.append(Column(name, kind, codes=extra))
        else:
            out.append(Column(name, kind, int(extra) if extra else -1))
    return out


ROW_COLUMNS = _columns(
    "game:i side:s=side coach:i race:i=0 variant:i opponent:i=0 opponent_race:i=0 played_at:t period:s=period chunk:d "
    "w:f counted:b reason:s=reason r0:f rc:f we:f k:f rt:f wx:f list_date:d depot_date:d opponent_phi:f g:f"
)
SUMMARY_COLUMNS = _columns(
    "coach:i race:i=0 variant:i period:s=period effective:d chunk:d rl:f rn:f nt:i games_played:i wt:f wet:f rtt:f "
    "rct:f wxt:f lpr:f limitation:s=limitation nv:i mu:f phi:f sigma:f mu_before:f phi_before:f sigma_before:f is_start:b"
)
ENTRY_COLUMNS = _columns(
    "rating_list:i coach:i race:i=0 variant:i value:f mu:f phi:f sigma:f nv:i games:i rank:i=0 overall_rank:i=0 "
    "change:f games_counted:i games_played:i"
)
CURRENT_COLUMNS = _columns(
    f"coach:i race:i=0 variant:i value:f mu:f phi:f sigma:f nv:i games:i rank:i=0 overall_rank:i=0 wins:i draws:i "
    f"losses:i last_played:d value_change:f rank_change:i={NO_RANK_CHANGE}"
)
# what the replay comparison leaves out: the chunk that wrote a summary (a partial run keeps the
# summaries of events open at its checkpoint that got no further games)
SUMMARY_COMPARED = [c for c in SUMMARY_COLUMNS if c.name != "chunk"]


class Codes:
    """A code table: text <-> its index."""

    def __init__(self, labels=()):
        self.labels: list[str] = []
        self.index: dict[str, int] = {}
        for label in labels:
            self.code(label)

    def code(self, label: str) -> int:
        found = self.index.get(label)
        if found is None:
            found = self.index[label] = len(self.labels)
            self.labels.append(label)
        return found

    def from_hashes(self, hashes: np.ndarray) -> np.ndarray:
        """PostgreSQL: the codes of texts given as hashtextextended(text, 0) (-1: not in the table)."""
        if getattr(self, "_hashed", None) is None or len(self._hashed[0]) != len(self.labels):
            with connection.cursor() as cursor:
                cursor.execute("SELECT hashtextextended(label, 0) FROM unnest(%s::text[]) WITH ORDINALITY AS l(label, n) "
                               "ORDER BY n", [self.labels])
                values = np.array([h for (h,) in cursor.fetchall()], dtype=np.int64)
            order = np.argsort(values, kind="stable")
            if len(values) > 1 and np.any(values[order][1:] == values[order][:-1]):
                raise ValueError("two labels with the same hash")  # about one chance in 10¹¹ for 10,000 labels
            self._hashed = (values[order], order.astype(np.int64))
        ordered, code = self._hashed
        if not len(ordered):
            return np.full(len(hashes), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(ordered, hashes), len(ordered) - 1)
        return np.where(ordered[at] == hashes, code[at], -1)

    def label(self, code: int):
        return self.labels[code] if 0 <= code < len(self.labels) else None


class _Cached(dict):
    def __init__(self, convert):
        super().__init__()
        self.convert = convert

    def __missing__(self, key):
        value = self[key] = self.convert(key)
        return value


def _day(value) -> int:
    if value is None:
        return NO_DAY
    if isinstance(value, str):
        value = dt.date.fromisoformat(value[:10])
    return value.toordinal() - _ORDINAL


def _micro(value) -> int:
    return (selectors.naive_utc(value) - EPOCH_TIME) // _US


def _array(values: list, column: Column, codes: dict[str, Codes], cache: dict) -> np.ndarray:
    """Python values (None for null) as the column's array."""
    n = len(values)
    kind = column.kind
    if kind == "f":
        return np.array(values, dtype=float) if n else np.zeros(0)
    if kind == "i":
        try:
            return np.fromiter(values, np.int64, n)
        except TypeError:  # nulls
            return np.fromiter((column.none if v is None else v for v in values), np.int64, n)
    if kind == "b":
        return np.fromiter(map(bool, values), bool, n)
    if kind == "d":
        days = cache.setdefault("d", _Cached(_day))
        return np.fromiter(map(days.__getitem__, values), np.int64, n)
    if kind == "t":
        micros = cache.setdefault("t", _Cached(_micro))
        return np.fromiter(map(micros.__getitem__, values), np.int64, n)
    index = codes[column.codes].index
    return np.fromiter((index.get("" if v is None else v, -1) for v in values), np.int64, n)


class Table(dict):
    """Columns by name, all of one length."""

    def __len__(self) -> int:
        for column in self.values():
            return len(column)
        return 0

    @classmethod
    def concatenate(cls, parts: list[Table], columns: list[Column]) -> Table:
        return cls({
            c.name: np.concatenate([p[c.name] for p in parts]) if parts else np.zeros(0, float if c.kind == "f" else np.int64)
            for c in columns
        })


_BINARY = {"i": ">i8", "f": ">f8", "b": "?", "d": ">i8", "t": ">i8", "s": ">i8"}
_NATIVE = {"i": np.int64, "f": np.float64, "b": bool, "d": np.int64, "t": np.int64, "s": np.int64}


def read_table(model, columns: list[Column], system_id: int, codes: dict[str, Codes]) -> Table:
    """The system's rows of `model`, as columns."""
    table = model._meta.db_table
    fields = {c.name: model._meta.get_field(c.name).column for c in columns}
    if connection.vendor != "postgresql":
        sql = f"SELECT {', '.join(f't.{fields[c.name]}' for c in columns)} FROM {table} t WHERE t.system_id = %s"
        with connection.cursor() as cursor:
            cursor.execute(sql, [system_id])
            rows = cursor.fetchall()
        values = list(zip(*rows)) if rows else [()] * len(columns)
        cache: dict = {}
        return Table({c.name: _array(list(v), c, codes, cache) for c, v in zip(columns, values)})
    select = []
    for c in columns:
        col = f"t.{fields[c.name]}"
        if c.kind == "i":
            select.append(f"coalesce({col}, {int(c.none)})::int8")
        elif c.kind == "f":
            select.append(f"coalesce({col}, 'NaN')::float8")
        elif c.kind == "b":
            select.append(f"coalesce({col}, false)")
        elif c.kind == "d":
            select.append(f"(coalesce({col}, DATE '9999-12-31') - DATE '2000-01-01')::int8")
        elif c.kind == "t":
            select.append(f"{col}::timestamptz")
        else:  # text as its 64-bit hash, turned into its code here (a join with the code table costs more than the rest)
            select.append(f"hashtextextended(coalesce({col}, ''), 0)")
    sql = f"SELECT {', '.join(select)} FROM {table} t WHERE t.system_id = %s"
    out = _copy_binary(sql, [system_id], columns)
    for c in columns:
        if c.kind == "s":
            out[c.name] = codes[c.codes].from_hashes(out[c.name])
    return out


def _copy_binary(sql: str, params: list, columns: list[Column]) -> Table:
    """A query's rows as columns, through one binary COPY: every value fixed-width and not null, so
    each row is one record of a NumPy dtype, parsed a few megabytes at a time."""
    import psycopg

    fields = [("n", ">i2")]
    for i, c in enumerate(columns):
        fields += [(f"length{i}", ">i4"), (c.name, _BINARY[c.kind])]
    dtype = np.dtype(fields)
    size = dtype.itemsize
    parts: dict[str, list[np.ndarray]] = {c.name: [] for c in columns}
    pending = bytearray()
    started = False

    def parse(final: bool) -> None:
        count = len(pending) // size
        if final and count * size + 2 != len(pending):
            raise ValueError("unexpected end of a binary COPY")
        if not count:
            return
        records = np.frombuffer(pending, dtype, count=count)
        if np.any(records["n"] != len(columns)):
            raise ValueError("a binary COPY row with another number of fields")
        for c in columns:
            parts[c.name].append(records[c.name].astype(_NATIVE[c.kind]))
        del records
        del pending[:count * size]

    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor, cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT BINARY)", params) as copy:
        for block in copy:
            pending += block
            if not started and len(pending) >= 19:
                header = 19 + int.from_bytes(pending[15:19], "big")
                if len(pending) >= header:
                    del pending[:header]
                    started = True
            if started and len(pending) >= 1 << 24:
                parse(False)
    parse(True)
    return Table({
        c.name: np.concatenate(parts[c.name]) if parts[c.name] else np.zeros(0, _NATIVE[c.kind]) for c in columns
    })


# --- keys: several integer columns as one int64, in the same order -----------------------------


def _packed(sets: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Each set of columns (the same number in each) as one int64 per row, ordered as the columns
    are lexicographically, the same way for every set (so that they can be compared and searched)."""
    width = len(sets[0])
    sets = [[np.asarray(c, dtype=np.int64) for c in s] for s in sets]
    lows, bits = [], []
    for j in range(width):
        filled = [s[j] for s in sets if len(s[j])]
        low = min(int(c.min()) for c in filled) if filled else 0
        high = max(int(c.max()) for c in filled) if filled else 0
        lows.append(low)
        bits.append(max(1, (high - low).bit_length()))
    while sum(bits) > 63:  # rank the widest column by its distinct values (the order is kept)
        j = int(np.argmax(bits))
        _, inverse = np.unique(np.concatenate([s[j] for s in sets]), return_inverse=True)
        bounds = np.cumsum([0] + [len(s[j]) for s in sets])
        for s, a, b in zip(sets, bounds[:-1], bounds[1:]):
            s[j] = inverse[a:b].astype(np.int64)
        lows[j] = 0
        new = max(1, int(inverse.max(initial=0)).bit_length())
        if new >= bits[j]:
            raise ValueError("keys too wide to pack")
        bits[j] = new
    out = []
    for s in sets:
        packed = np.zeros(len(s[0]), dtype=np.int64)
        for j in range(width):
            packed = (packed << bits[j]) | (s[j] - lows[j])
        out.append(packed)
    return out


def _find(data: list[np.ndarray], query: list[np.ndarray]) -> np.ndarray:
    """For each query row, the index of the data row with the same columns (-1: none)."""
    packed, wanted = _packed([data, query])
    if not len(packed):
        return np.full(len(wanted), -1, dtype=np.int64)
    order = np.argsort(packed, kind="stable")
    ordered = packed[order]
    at = np.minimum(np.searchsorted(ordered, wanted), len(ordered) - 1)
    return np.where(ordered[at] == wanted, order[at], -1)


def _latest(key: np.ndarray, value: np.ndarray, query_key: np.ndarray, query_value: np.ndarray, *,
            inclusive: bool) -> np.ndarray:
    """For each query, the index of the data row of the same key with the greatest value before
    (or at, `inclusive`) the query's (the last of equals in data order); -1: none."""
    packed, wanted = _packed([[key, value], [query_key, query_value]])
    if not len(packed):
        return np.full(len(wanted), -1, dtype=np.int64)
    order = np.argsort(packed, kind="stable")
    at = np.searchsorted(packed[order], wanted, side="right" if inclusive else "left") - 1
    found = order[np.maximum(at, 0)]
    return np.where((at >= 0) & (key[found] == query_key), found, -1)


def _count_before(key: np.ndarray, value: np.ndarray, query_key: np.ndarray, query_value: np.ndarray, *,
                  inclusive: bool) -> np.ndarray:
    """For each query, how many data rows of its key have a value before (or at) the query's."""
    floor = np.full(len(query_key), min(int(value.min(initial=0)), int(query_value.min(initial=0))), dtype=np.int64)
    packed, wanted, start = _packed([[key, value], [query_key, query_value], [query_key, floor]])
    ordered = np.sort(packed)
    return np.searchsorted(ordered, wanted, side="right" if inclusive else "left") - np.searchsorted(ordered, start)


def _close(a: np.ndarray, b: np.ndarray, tolerance: dict) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return (a == b) | (np.isnan(a) & np.isnan(b)) | np.isclose(a, b, **tolerance)


def _map(function: Callable, *columns: np.ndarray, dtype=float, distinct: bool = False) -> np.ndarray:
    """An engine's scalar function over columns: called once per distinct value of a single column
    (or per distinct tuple, `distinct`), otherwise once per row."""
    n = len(columns[0])
    if not n:
        return np.zeros(0, dtype=dtype)
    if len(columns) == 1:
        values, inverse = np.unique(columns[0], return_inverse=True)
        return np.fromiter(map(function, values.tolist()), dtype, len(values))[inverse.reshape(-1)]
    if distinct:
        stacked = np.stack([np.asarray(c, dtype=float) for c in columns], axis=1)
        values, inverse = np.unique(stacked, axis=0, return_inverse=True)
        return np.fromiter((function(*args) for args in values.tolist()), dtype, len(values))[inverse.reshape(-1)]
    return np.fromiter(map(function, *(c.tolist() for c in columns)), dtype, n)


def _vectorised(function: Callable, values: np.ndarray, *columns: np.ndarray, sample: int = 1000) -> np.ndarray:
    """`values`, a NumPy form of the engine's scalar `function` over `columns`, checked against the
    function itself on up to `sample` rows spread over them (calling it for millions of rows costs
    seconds): the verification's formula must stay the engine's."""
    n = len(values)
    if n:
        rows = np.unique(np.linspace(0, n - 1, min(n, sample)).astype(np.int64))
        engine = np.fromiter(map(function, *(c[rows].tolist() for c in columns)), float, len(rows))
        if not np.all(_close(values[rows], engine, {"rtol": 1e-12, "atol": 1e-12})):
            raise RuntimeError(f"the verification's form of {function.__module__}.{function.__qualname__} no longer "
                               "gives what the engine does")
    return values


def _sum(group: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Per group, the sum of its weights in the order given (floats, also when there are none)."""
    return np.bincount(group, np.asarray(weights, dtype=float), size).astype(float, copy=False)


def _first_last(group: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions of each group's first and last element in `group` (-1: none)."""
    first = np.full(size, -1, dtype=np.int64)
    last = np.full(size, -1, dtype=np.int64)
    positions = np.arange(len(group))
    first[group[::-1]] = positions[::-1]
    last[group] = positions
    return first, last


# --- the replay -------------------------------------------------------------------------------


_ROW_VALUES = attrgetter(
    "game_id", "side", "coach", "race", "variant", "opponent", "opponent_race", "played_at", "period", "w", "counted",
    "reason", "r0", "rc", "we", "k", "rt", "wx", "list_date", "depot_date", "opponent_phi", "g",
)
_SUMMARY_VALUES = attrgetter(*[c.name for c in SUMMARY_COLUMNS if c.name != "chunk"])
_ENTRY_FIGURES = [c.name for c in ENTRY_COLUMNS[4:]]
_CURRENT_FIGURES = [c.name for c in CURRENT_COLUMNS[3:]]


class _Replayed:
    """What a fresh replay gives, as the stored columns."""

    def __init__(self, keys: _Keys, codes: dict[str, Codes]):
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


def _replay(system, module, config, games, today: dt.date, lists: dict, keys: _Keys, codes: dict) -> _Replayed:
    out = _Replayed(keys, codes)
    for chunk in replay(
        module, config, games, Ledger(), start=None, until=today, rules=list_rules(system, config),
        per_race=system.per_race, complete=lambda day: day not in lists or lists[day].complete,
    ):
        out.add(chunk)
    return out


# --- the stored figures -----------------------------------------------------------------------


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


# --- 1. against the replay ----------------------------------------------------------------------


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
    _compare(diffs, "calculation row", ["game", "side", "period"], ROW_COLUMNS,
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


# --- 2. against themselves --------------------------------------------------------------------


class _Checks:
    """The stored figures of one system against their own rows and formulas (engines/*)."""

    def __init__(self, diffs: Differences, system: RatingSystem, config, stored: Stored, names: _Names,
                 games: list, today: dt.date):
        self.diffs, self.system, self.config, self.names = diffs, system, config, names
        self.games, self.today = games, today
        self.method = system.method
        self.multiplier = getattr(config, "value_phi_multiplier", 2.5)
        R, S, E, C = stored.rows, stored.summaries, stored.entries, stored.current
        self.R, self.S, self.E, self.C = R, S, E, C
        # every key as one int64: the row's own, its opponent's (pooled systems: no race), summaries, entries, current
        opponent_race = R["opponent_race"] if system.per_race else np.zeros(len(R), dtype=np.int64)
        self.kR, self.kO, self.kS, self.kE, self.kC = _packed([
            [R["coach"], R["race"], R["variant"]], [R["opponent"], opponent_race, R["variant"]],
            [S["coach"], S["race"], S["variant"]], [E["coach"], E["race"], E["variant"]],
            [C["coach"], C["race"], C["variant"]],
        ])
        # summaries in order of their key, then date
        self.s_order = np.lexsort((S["period"], S["effective"], self.kS))
        ordered = self.kS[self.s_order]
        previous = np.full(len(S), -1, dtype=np.int64)
        follows = np.flatnonzero(ordered[1:] == ordered[:-1]) + 1
        previous[self.s_order[follows]] = self.s_order[follows - 1]
        self.s_previous = previous
        # the counted rows, in order of play per key (as the engines take them)
        counted = np.flatnonzero(R["counted"])
        self.c = counted[np.lexsort((R["game"][counted], R["played_at"][counted], self.kR[counted]))]
        # each row's own summary (the key's, in the row's period)
        self.r_summary = _find([self.kS, S["period"]], [self.kR, R["period"]])

    # -- reporting --

    def row(self, i) -> str:
        R = self.R
        return (f"calculation row (game {R['game'][i]}, {SIDES[R['side'][i]] if 0 <= R['side'][i] < 2 else '?'}, "
                f"{self.names.codes['period'].label(R['period'][i])}) of "
                f"{self.names.key(R['coach'][i], R['race'][i], R['variant'][i])}")

    def summary(self, i) -> str:
        S = self.S
        return (f"summary {self.names.codes['period'].label(S['period'][i])} of "
                f"{self.names.key(S['coach'][i], S['race'][i], S['variant'][i])}")

    def current(self, i) -> str:
        return f"current rating of {self.names.key(self.C['coach'][i], self.C['race'][i], self.C['variant'][i])}"

    def entry(self, i) -> str:
        E = self.E
        return f"list {_date(E['rating_list'][i])} entry of {self.names.key(E['coach'][i], E['race'][i], E['variant'][i])}"

    def bad(self, where: np.ndarray, line: Callable[[int], str]) -> None:
        """Report the rows at `where` (indices, or a mask), each described by `line(i)`."""
        where = np.flatnonzero(where) if where.dtype == bool else where
        self.diffs.inconsistency(len(where), lambda n: (line(int(i)) for i in where[:n]))

    def expect(self, describe: Callable[[int], str], name: str, stored: np.ndarray, expected: np.ndarray, why,
               rows: np.ndarray | None = None, tolerance: dict = FORMULA_TOLERANCE) -> None:
        """stored[rows] must equal expected (the figure `name`, from `why`: text, or a function of the row)."""
        rows = np.arange(len(stored)) if rows is None else rows
        got = stored[rows]
        if got.dtype.kind == "f" or np.asarray(expected).dtype.kind == "f":
            same = _close(got.astype(float), np.asarray(expected, dtype=float), tolerance)
        else:
            same = got == expected
        wrong = np.flatnonzero(~same)
        expected = np.broadcast_to(expected, got.shape)

        def lines(n):
            for j in wrong[:n]:
                i = int(rows[j])
                reason = why(i, j) if callable(why) else why
                yield f"{describe(i)}: {name} stored {_number(got[j])}, {reason} gives {_number(expected[j])}"

        self.diffs.inconsistency(len(wrong), lines)

    # -- shared by the methods --

    def partner(self, rows: np.ndarray) -> np.ndarray:
        """For each row, the other side's row of the same game and period (-1: none)."""
        R = self.R
        return _find([R["game"], R["side"], R["period"]], [R["game"][rows], 1 - R["side"][rows], R["period"][rows]])

    def summary_totals(self, rated: np.ndarray) -> dict:
        """Per summary, the totals of its key's counted rows in its period (in order of play); `rated`:
        the rows with an expected score (We, Rt)."""
        R, S = self.R, self.S
        rows = self.c
        own = self.r_summary[rows]
        self.bad(rows[own < 0], lambda i: f"{self.row(i)}: counted, but the key has no summary for its period")
        rows, own = rows[own >= 0], own[own >= 0]
        n = len(S)
        scored = rated[rows]
        totals = {
            "nt": np.bincount(own, minlength=n),
            "wt": _sum(own, R["w"][rows], n),
            "wet": _sum(own[scored], R["we"][rows][scored], n),
            "rtt": _sum(own[scored], R["rt"][rows][scored], n),
            "wx": _sum(own, np.nan_to_num(R["wx"][rows]), n),
        }
        with np.errstate(invalid="ignore", divide="ignore"):
            totals["rct"] = np.where(totals["nt"] > 0, _sum(own, R["rc"][rows], n) / totals["nt"], np.nan)
        first, last = _first_last(own, n)
        totals["first"] = np.where(first >= 0, rows[np.maximum(first, 0)], -1)
        totals["last"] = np.where(last >= 0, rows[np.maximum(last, 0)], -1)
        every = self.r_summary[self.r_summary >= 0]
        totals["played"] = np.bincount(every, minlength=n)
        return totals

    def sums(self, totals: dict, fields=("nt", "wt", "wet", "rtt", "rct"), where: np.ndarray | None = None) -> None:
        S = self.S
        has = totals["nt"] > 0
        self.bad(~has & (S["nt"] > 0) if "nt" in fields else np.zeros(len(S), bool),
                 lambda i: f"{self.summary(i)}: nt {S['nt'][i]} but no counted row of the key in that period")
        rows = np.flatnonzero(has if where is None else has & where)
        for name in fields:
            self.expect(self.summary, name, S[name], totals[name][rows], "its counted rows", rows)

    def record(self, table: Table, describe, keys: np.ndarray) -> None:
        """games, wins, draws, losses and the last day played of each key of `table` (at `keys`),
        from its counted rows."""
        R = self.R
        rows = self.c
        n = len(keys)
        group = _find([keys], [self.kR[rows]])
        ok = group >= 0
        group, w = group[ok], R["w"][rows][ok]
        games = np.bincount(group, minlength=n)
        wins = np.bincount(group[w == 1.0], minlength=n)
        losses = np.bincount(group[w == 0.0], minlength=n)
        last = np.full(n, -1, dtype=np.int64)
        np.maximum.at(last, group, R["played_at"][rows][ok] // DAY_US)
        for name, values in (("games", games), ("wins", wins), ("draws", games - wins - losses), ("losses", losses),
                             ("last_played", np.where(last < 0, NO_DAY, last))):
            self.expect(describe, name, table[name], values, "its counted rows")

    def keys_match(self, keys: np.ndarray, describe, with_summary: np.ndarray, what: str) -> np.ndarray:
        """The current ratings (at `keys`) must be exactly the keys with a summary; returns each one's
        latest summary (-1: none)."""
        S = self.S
        latest = _latest(self.kS[self.s_order], S["effective"][self.s_order], keys,
                         np.full(len(keys), NO_DAY, dtype=np.int64), inclusive=True)
        latest = np.where(latest >= 0, self.s_order[np.maximum(latest, 0)], -1)
        self.bad(latest < 0, lambda i: f"{describe(i)}: the key has no {what}")
        having = np.unique(with_summary)
        missing = having[_find([keys], [having]) < 0]
        lookup = _find([self.kS], [missing])
        self.bad(lookup, lambda i: f"{self.summary(i)}: the key has a summary but no current rating")
        return latest

    # -- the methods --

    def run(self) -> None:
        if self.method == Method.NAF_ELO:
            self.elo()
        elif self.method == Method.KNSB:
            self.knsb()
        elif self.method == Method.GLICKO:
            self.glicko()

    def elo(self) -> None:
        R, S, E, C, config = self.R, self.S, self.E, self.C, self.config
        rows = self.c
        r0, rc, w, we, k, rt = (R[name][rows] for name in ("r0", "rc", "w", "we", "k", "rt"))
        self.expect(self.row, "we", R["we"], _map(naf_elo.win_probability, r0, rc), "win_probability(R0, Rc)", rows)
        self.expect(self.row, "rt", R["rt"], k * (w - we), "k·(W − We)", rows)
        # k: the event's, from its number of coaches and whether it is a major
        games = self.games
        ids = np.fromiter((g.game_id for g in games), np.int64, len(games))
        coaches = np.fromiter((g.event_coaches for g in games), np.int64, len(games))
        major = np.fromiter((g.major for g in games), bool, len(games))
        k_of = partial(naf_elo.k_value, non_major_max=config.non_major_max, round_k=config.round_k,
                       major_coaches=config.major_coaches)
        game = _find([ids], [R["game"][rows]])
        known = game >= 0
        event_k = _map(lambda n, m: k_of(int(n), major=bool(m)), coaches[game[known]], major[game[known]])
        self.expect(self.row, "k", R["k"], event_k, lambda i, j: "the event's K (its coaches, major or not)",
                    rows[known])
        allowed = np.array(sorted({k_of(n, major=False) for n in range(config.non_major_max + 1)} | {k_of(0, major=True)}))
        unknown = rows[~known]
        self.bad(unknown[~np.isin(R["k"][unknown], allowed)], lambda i: f"{self.row(i)}: k {_number(R['k'][i])} is "
                 "not a K the configuration allows")
        self.opponents(rows)
        # the chain: each counted row starts from the rating after the key's previous one
        after = _map(naf_elo.rating_after, r0, rt)
        key = self.kR[rows]
        first = np.ones(len(rows), dtype=bool)
        first[1:] = key[1:] != key[:-1]
        before = np.where(first, config.start_rating, np.roll(after, 1))
        self.expect(self.row, "r0", R["r0"], before, lambda i, j: (
            "the start rating (the key's first counted game)" if first[j] else
            f"the rating after the key's previous counted game (game {R['game'][rows[j - 1]]})"), rows)
        # summaries: one per key and event, from its rows
        totals = self.summary_totals(np.ones(len(R), dtype=bool))
        self.sums(totals)
        position = np.empty(len(R), dtype=np.int64)
        position[rows] = np.arange(len(rows))
        has = np.flatnonzero(totals["first"] >= 0)
        first_row, last_row = totals["first"][has], totals["last"][has]
        self.expect(self.summary, "rl", S["rl"], R["r0"][first_row], "its first counted row's R0", has)
        self.expect(self.summary, "rn", S["rn"], after[position[last_row]], "its last counted row (R0 + Rt, to 0.01)", has)
        self.expect(self.summary, "is_start", S["is_start"], first[position[first_row]],
                    "whether its first counted row is the key's first", has)
        self.expect(self.summary, "games_played", S["games_played"], totals["played"][has], "its rows", has)
        self.expect(self.summary, "effective", S["effective"], R["played_at"][last_row] // DAY_US,
                    "the day of its last counted row", has)
        # the current ratings and list entries: the rating after the key's last counted game before their date
        latest = _latest(key, R["played_at"][rows], self.kC, np.full(len(C), np.iinfo(np.int64).max), inclusive=True)
        self.keys_match(self.kC, self.current, self.kS, "summary")
        self.bad(latest < 0, lambda i: f"{self.current(i)}: the key has no counted game")
        have = np.flatnonzero(latest >= 0)
        self.expect(self.current, "value", C["value"], after[latest[have]], lambda i, j: (
            f"the rating after its last counted game (game {R['game'][rows[latest[have[j]]]]} on "
            f"{_date(R['played_at'][rows[latest[have[j]]]] // DAY_US)})"), have)
        self.record(C, self.current, self.kC)
        day = E["rating_list"]
        start = np.where(day == NO_DAY, np.iinfo(np.int64).max, day * DAY_US)
        latest = _latest(key, R["played_at"][rows], self.kE, start, inclusive=False)
        self.bad(latest < 0, lambda i: f"{self.entry(i)}: the key has no counted game before that date")
        have = np.flatnonzero(latest >= 0)
        self.expect(self.entry, "value", E["value"], after[latest[have]], lambda i, j: (
            f"the rating after its last counted game before that date (game {R['game'][rows[latest[have[j]]]]})"), have)
        games_before = _count_before(key, R["played_at"][rows], self.kE, start, inclusive=False)
        self.expect(self.entry, "games", E["games"], games_before, "its counted rows before that date")

    def opponents(self, rows: np.ndarray) -> None:
        """Each counted row's Rc is the opponent's R0 in the same game, and the two scores add up to 1."""
        R = self.R
        other = self.partner(rows)
        self.bad(rows[other < 0], lambda i: f"{self.row(i)}: counted, but the opponent's row of that game is missing")
        paired, other = rows[other >= 0], other[other >= 0]
        self.expect(self.row, "rc", R["rc"], R["r0"][other], "the opponent's R0 in that game", paired)
        self.expect(self.row, "w", R["w"], 1.0 - R["w"][other], "1 − the opponent's W", paired)

    def knsb(self) -> None:
        R, S, C, config = self.R, self.S, self.C, self.config
        rows = self.c
        initial = {coach: (rating, min(config.nv_cap, games), born) for coach, rating, games, born in config.initial_list}
        # each rated row's R0, Nv and k: the key's on the list in force at its list date
        rated_mask = R["counted"] & ~np.isnan(R["we"])
        rated = rows[rated_mask[rows]]
        on_list = _latest(self.kS[self.s_order], S["effective"][self.s_order], self.kR[rated], R["list_date"][rated],
                          inclusive=True)
        on_list = np.where(on_list >= 0, self.s_order[np.maximum(on_list, 0)], -1)
        coach = R["coach"][rated]
        imported = np.array([c in initial for c in coach.tolist()], dtype=bool) if initial else np.zeros(len(rated), bool)
        rating = np.where(on_list >= 0, S["rn"][np.maximum(on_list, 0)], np.nan)
        nv = np.where(on_list >= 0, S["nv"][np.maximum(on_list, 0)], -1)
        if initial:
            from_import = (on_list < 0) & imported
            rating[from_import] = [initial[c][0] for c in coach[from_import].tolist()]
            nv[from_import] = [initial[c][1] for c in coach[from_import].tolist()]
        unrated = (on_list < 0) & ~imported
        self.bad(rated[unrated], lambda i: f"{self.row(i)}: counted with an R0, but the key has no rating on the list "
                                           f"of {_date(R['list_date'][i])}")
        known = ~unrated
        self.expect(self.row, "r0", R["r0"], rating[known], lambda i, j: f"the key's rating on the list of "
                    f"{_date(R['list_date'][i])}", rated[known])
        junior = np.zeros(len(rated), dtype=bool)
        if config.junior_age is not None and any(born is not None for _, _, born in initial.values()):
            year = (R["list_date"][rated] + _ORDINAL)
            years = np.array([dt.date.fromordinal(int(d)).year for d in year.tolist()], dtype=np.int64)
            born = np.array([initial.get(c, (0, 0, None))[2] or -10_000 for c in coach.tolist()], dtype=np.int64)
            junior = (born > -10_000) & (years - born <= config.junior_age)
        k = _map(lambda r, n, j: knsb.k_factor(r, int(n), junior=bool(j)) if n >= 1 else np.nan,
                 R["r0"][rated][known], nv[known], junior[known], distinct=True)
        self.expect(self.row, "k", R["k"], k, "k_factor(R0, the Nv of its list)", rated[known])
        self.expect(self.row, "we", R["we"], _map(partial(knsb.expected_score, sigma=config.sigma, table=config.we_table),
                                                  R["r0"][rated] - R["rc"][rated]), "Φ((R0 − Rc)/σ)", rated)
        self.expect(self.row, "rt", R["rt"], R["k"][rated] * (R["w"][rated] - R["we"][rated]), "k·(W − We)", rated)
        self.opponents(rated)
        # Wx: each counted row's expected score at its summary's LPR
        own = self.r_summary[rows]
        with_summary = rows[own >= 0]
        lpr = S["lpr"][own[own >= 0]]
        phi = partial(knsb.expected_score, sigma=config.sigma)
        self.expect(self.row, "wx", R["wx"], _map(phi, lpr - R["rc"][with_summary]), "Φ((LPR − Rc)/σ)", with_summary)
        # summaries: their totals, LPR, Rn and Nv from their rows and the previous list
        totals = self.summary_totals(rated_mask)
        self.sums(totals)
        start = S["is_start"]
        has = totals["nt"] > 0
        extra = has & ((S["wt"] == 0) | (S["wt"] == S["nt"]))
        against = np.where(start, S["rct"], S["rl"])
        wx_extra = np.where(extra, _map(phi, np.where(extra, S["lpr"] - against, 0.0)), 0.0)
        rows_with = np.flatnonzero(has)
        self.expect(self.summary, "wxt", S["wxt"], (totals["wx"] + wx_extra)[rows_with],
                    "its rows' Wx (and the extra remise's)", rows_with)
        self.lpr(totals, extra, against)
        previous = self.s_previous
        prior = np.maximum(previous, 0)
        prior_rn = np.where(previous >= 0, S["rn"][prior], np.nan)
        prior_nv = np.where(previous >= 0, S["nv"][prior], -1)
        if initial:
            first_imported = np.flatnonzero((previous < 0) & np.isin(S["coach"], list(initial)))
            prior_rn[first_imported] = [initial[c][0] for c in S["coach"][first_imported].tolist()]
            prior_nv[first_imported] = [initial[c][1] for c in S["coach"][first_imported].tolist()]
        rated_before = ~np.isnan(prior_rn)
        self.expect(self.summary, "is_start", S["is_start"], ~rated_before, "whether the key was rated on the list before")
        chained = np.flatnonzero(rated_before & ~start)
        self.expect(self.summary, "rl", S["rl"], prior_rn[chained], "the key's previous summary (Rn)", chained)
        self.expect(self.summary, "nv", S["nv"], np.minimum(config.nv_cap, prior_nv[chained] + S["nt"][chained]),
                    "min(cap, the previous Nv + Nt)", chained)
        starts = np.flatnonzero(start)
        self.expect(self.summary, "rn", S["rn"], S["lpr"][starts], "a start rating's LPR", starts)
        self.expect(self.summary, "nv", S["nv"], np.minimum(config.nv_cap, S["nt"][starts]), "min(cap, Nt)", starts)
        idle = np.flatnonzero(~start & ~has)
        self.expect(self.summary, "rn", S["rn"], S["rl"][idle], "Rl (no counted game)", idle)
        self.limits(np.flatnonzero(~start & has))
        # current ratings and list entries: the key's latest summary in force at their date
        latest = self.keys_match(self.kC, self.current, self.kS, "summary")
        have = np.flatnonzero(latest >= 0)
        self.expect(self.current, "value", C["value"], S["rn"][latest[have]], "its latest summary (Rn)", have)
        self.expect(self.current, "nv", C["nv"], S["nv"][latest[have]], "its latest summary", have)
        self.record(C, self.current, self.kC)
        self.entries_from_summaries(lambda latest, have, day: (S["rn"][latest], {"nv": S["nv"][latest]}))

    def lpr(self, totals: dict, extra: np.ndarray, against: np.ndarray) -> None:
        """The LPR is the rounded solution x of Σ We(x − Rc) = Wt (with the extra remise at 0 % or 100 %):
        the sum at LPR − ½ is at most Wt, at LPR + ½ at least."""
        R, S, config = self.R, self.S, self.config
        rows = self.c
        own = self.r_summary[rows]
        rows, own = rows[own >= 0], own[own >= 0]
        n = len(S)
        phi = partial(knsb.expected_score, sigma=config.sigma)
        has = totals["nt"] > 0
        target = S["wt"] + 0.5 * extra
        sums = []
        for shift in (-0.5, 0.5):
            total = _sum(own, _map(phi, S["lpr"][own] + shift - R["rc"][rows]), n)
            total += np.where(extra, _map(phi, np.where(extra, S["lpr"] + shift - against, 0.0)), 0.0)
            sums.append(total)
        slack = 1e-9
        wrong = np.flatnonzero(has & ~((sums[0] <= target + slack) & (sums[1] >= target - slack)))
        self.bad(wrong, lambda i: f"{self.summary(i)}: lpr stored {_number(S['lpr'][i])} is not the rounded solution of "
                                  f"Σ We(LPR − Rc) = Wt{' + ½ (extra remise)' if extra[i] else ''}: the sum is "
                                  f"{_number(sums[0][i])} at LPR − ½ and {_number(sums[1][i])} at LPR + ½, "
                                  f"for {_number(target[i])}")

    def limits(self, where: np.ndarray) -> None:
        """Rn = round(Rl + Rtt), kept between Rl and LPR (± the margin on the LPR side), and which limit applied."""
        S, margin = self.S, self.config.lpr_margin
        rl, lpr = S["rl"][where], S["lpr"][where]
        raw = _map(round_half_away, rl + S["rtt"][where])
        up, down = rl < lpr, rl > lpr
        low = np.where(up, rl, lpr - margin)
        high = np.where(down, rl, lpr + margin)
        above, below = raw > high, raw < low
        rn = np.where(above, high, np.where(below, low, raw))
        code = np.where(above, np.where(down, 2, 1), np.where(below, np.where(up, 2, 1), 0))
        self.expect(self.summary, "rn", S["rn"], rn, "round(Rl + Rtt) kept between Rl and LPR", where)
        self.expect(self.summary, "limitation", S["limitation"], code, "round(Rl + Rtt) against Rl and LPR", where)

    def entries_from_summaries(self, figures: Callable) -> None:
        """Each list entry from the key's latest summary in force at the list's date."""
        S, E = self.S, self.E
        latest = _latest(self.kS[self.s_order], S["effective"][self.s_order], self.kE, E["rating_list"], inclusive=True)
        latest = np.where(latest >= 0, self.s_order[np.maximum(latest, 0)], -1)
        self.bad(latest < 0, lambda i: f"{self.entry(i)}: the key has no summary in force at that date")
        have = np.flatnonzero(latest >= 0)
        value, others = figures(latest[have], have, E["rating_list"][have])
        self.expect(self.entry, "value", E["value"], value, "its latest summary in force at that date", have)
        for name, expected in others.items():
            self.expect(self.entry, name, E[name], expected, "its latest summary in force at that date", have)
        # games: the counted rows of the lists up to its date (a row's chunk ends at the next list)
        rows = self.c
        games = _count_before(self.kR[rows], self.R["chunk"][rows], self.kE, E["rating_list"], inclusive=False)
        self.expect(self.entry, "games", E["games"], games, "its counted rows up to that date")

    def glicko(self) -> None:
        R, S, C, config = self.R, self.S, self.C, self.config
        rows = self.c
        scale = glicko.SCALE
        # each counted row against its own summary and the opponent's (start-of-period ratings)
        own = self.r_summary[rows]
        theirs = _find([self.kS, S["period"]], [self.kO[rows], R["period"][rows]])
        self.bad(rows[theirs < 0], lambda i: f"{self.row(i)}: counted, but the opponent has no summary for the period")
        ok = (own >= 0) & (theirs >= 0)
        rows, own, theirs = rows[ok], own[ok], theirs[ok]
        self.expect(self.row, "r0", R["r0"], S["mu_before"][own], "the key's mu before the period", rows)
        self.expect(self.row, "rc", R["rc"], S["mu_before"][theirs], "the opponent's mu before the period", rows)
        self.expect(self.row, "opponent_phi", R["opponent_phi"], S["phi_before"][theirs],
                    "the opponent's phi before the period", rows)
        self.expect(self.row, "g", R["g"], _map(glicko.g_factor, R["opponent_phi"][rows]), "g(opponent phi)", rows)
        g, w, we = R["g"][rows], R["w"][rows], R["we"][rows]
        r0, rc, opponent_phi, phi_after = R["r0"][rows], R["rc"][rows], R["opponent_phi"][rows], S["phi"][own]
        e = _vectorised(lambda mu, mu_j, phi_j: glicko.expected_score(mu, glicko.GlickoRating(mu_j, phi_j)),
                        1.0 / (1.0 + np.exp(-_map(glicko.g_factor, opponent_phi) * (r0 - rc) / scale)),
                        r0, rc, opponent_phi)
        self.expect(self.row, "we", R["we"], e, "E = 1/(1 + exp(−g·(μ − μj)))", rows)
        phi_new = phi_after / scale
        rt = _vectorised(lambda mu, phi, mu_j, phi_j, score: glicko.game_change(mu, phi, glicko.GlickoRating(mu_j, phi_j), score),
                         phi_new * phi_new * scale * g * (w - e), r0, phi_after, rc, opponent_phi, w)
        self.expect(self.row, "rt", R["rt"], rt, "φ′²·g·(W − E)", rows)
        # summaries: totals, the new mu and phi from the rows, and the values
        totals = self.summary_totals(R["counted"])
        self.sums(totals)
        n = len(S)
        has = np.flatnonzero(totals["nt"] > 0)
        inv_v = _sum(own, g * g * we * (1.0 - we), n)
        self.expect(self.summary, "mu", S["mu"], S["mu_before"][has] + S["rtt"][has], "mu before + Rtt", has)
        phi_b, sigma = S["phi_before"][has] / scale, S["sigma"][has]
        self.expect(self.summary, "phi", S["phi"], scale / np.sqrt(1.0 / (phi_b * phi_b + sigma * sigma) + inv_v[has]),
                    "1/√(1/(φ² + σ′²) + 1/v)", has)
        m = self.multiplier
        self.expect(self.summary, "rl", S["rl"], S["mu_before"] - m * S["phi_before"], f"mu before − {m}·phi before")
        self.expect(self.summary, "rn", S["rn"], S["mu"] - m * S["phi"], f"mu − {m}·phi")
        self.expect(self.summary, "games_played", S["games_played"], totals["played"][has], "its rows", has)
        # the chain: a period starts from the previous one's mu, sigma and phi, decayed over the idle periods
        previous = self.s_previous
        chained = np.flatnonzero(previous >= 0)
        before = previous[chained]
        self.expect(self.summary, "is_start", S["is_start"], previous < 0, "whether the key has an earlier summary")
        self.expect(self.summary, "mu_before", S["mu_before"], S["mu"][before], "the previous period's mu", chained)
        self.expect(self.summary, "sigma_before", S["sigma_before"], S["sigma"][before], "the previous period's sigma",
                    chained)
        index = self.period_index()
        if index is not None:
            idle = index[S["period"][chained]] - index[S["period"][before]] - 1
            decayed = glicko.decayed_phi(S["phi"][before], S["sigma"][before], idle, config.decay_cap)
            self.expect(self.summary, "phi_before", S["phi_before"], decayed,
                        lambda i, j: f"the previous period's phi decayed over {idle[j]} idle period(s)", chained)
        starts = np.flatnonzero(previous < 0)
        self.expect(self.summary, "sigma_before", S["sigma_before"], np.full(len(starts), config.sigma0), "sigma0",
                    starts)
        if not (self.system.per_race and config.cross_race_start):
            self.expect(self.summary, "mu_before", S["mu_before"], np.full(len(starts), config.mu0), "mu0", starts)
            self.expect(self.summary, "phi_before", S["phi_before"], np.full(len(starts), config.phi0), "phi0", starts)
        # current ratings and list entries: the latest summary, phi decayed to their date (Board.standing)
        latest = self.keys_match(self.kC, self.current, self.kS, "summary")
        have = np.flatnonzero(latest >= 0)
        today = _day(self.today)
        value, phi = self.standing(latest[have], np.full(len(have), today))
        self.expect(self.current, "value", C["value"], value, "its latest summary, phi decayed to today", have)
        self.expect(self.current, "phi", C["phi"], phi, "its latest summary, phi decayed to today", have)
        self.expect(self.current, "mu", C["mu"], S["mu"][latest[have]], "its latest summary", have)
        self.expect(self.current, "sigma", C["sigma"], S["sigma"][latest[have]], "its latest summary", have)
        self.record(C, self.current, self.kC)

        def figures(latest, have, day):
            value, phi = self.standing(latest, day)
            return value, {"phi": phi, "mu": S["mu"][latest], "sigma": S["sigma"][latest]}

        self.entries_from_summaries(figures)

    def period_index(self) -> np.ndarray | None:
        """Each period code's number (glicko.calendar_period); None for event periods."""
        config = self.config
        if config.period == "event":
            return None
        labels = self.names.codes["period"].labels
        index = np.zeros(len(labels), dtype=np.int64)
        for code, label in enumerate(labels):
            try:
                day = dt.date.fromisoformat(label if len(label) == 10 else f"{label}-01")
            except ValueError:
                continue
            index[code] = glicko.calendar_period(day, config)[0]
        return index

    def standing(self, summaries: np.ndarray, days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(value, phi) of the summaries' keys on those days: phi decayed over every idle period since
        the summary took effect, as Board.standing does."""
        S, config = self.S, self.config
        effective, on = S["effective"][summaries], np.asarray(days, dtype=np.int64)
        if config.period == "two_weeks":
            idle = (on - effective) // 14
        else:
            idle = _month(on) - _month(effective)
        phi = glicko.decayed_phi(S["phi"][summaries], S["sigma"][summaries], idle, config.decay_cap)
        return S["mu"][summaries] - self.multiplier * phi, phi


def check_stored(diffs: Differences, system: RatingSystem, config, stored: Stored, names: _Names, games: list,
                 today: dt.date) -> None:
    """The stored figures against their own rows and formulas, independently of any replay."""
    _Checks(diffs, system, config, stored, names, games, today).run()


# --- entry points -----------------------------------------------------------------------------


def verify_system(system: RatingSystem, *, today: dt.date | None = None, limit: int = 10, games: list | None = None,
                  replayed: bool = True) -> Differences:
    """Every stored calculation row, summary, list entry and current rating against a fresh replay
    (unless not `replayed`) and against its own rows and formula. `games`: read once for several systems."""
    today = today or timezone.now().date()
    module, config = engine_for(system)
    keys = _Keys()
    codes = _codes()
    names = _Names(keys, codes)
    diffs = Differences(limit)
    lists = {rating_list.date: rating_list for rating_list in RatingList.objects.filter(system=system)}
    with paused_gc():
        if games is None:
            games = selectors.game_records()
        expected = _replay(system, module, config, games, today, lists, keys, codes) if replayed else None
        stored = read_stored(system, codes, lists)
        if expected is not None:
            compare_with_replay(diffs, expected, stored, today, names)
            del expected
        check_stored(diffs, system, config, stored, names, games, today)
    return diffs


def verify_systems(systems: list[RatingSystem], *, today: dt.date | None = None, limit: int = 10, jobs: int = 1,
                   replayed: bool = True) -> Iterator[tuple[RatingSystem, Differences]]:
    """`verify_system` for each system, the games read once for all. On PostgreSQL up to `jobs` at
    once, in a pool of processes forked after the games are read (as recalculation_execute_many runs)."""
    today = today or timezone.now().date()
    with paused_gc():
        games = [selectors.game_records()]
    if jobs <= 1 or len(systems) <= 1 or connection.vendor != "postgresql" or connection.in_atomic_block or not can_fork():
        for system in systems:
            yield system, verify_system(system, today=today, limit=limit, games=games[0], replayed=replayed)
        return
    with tempfile.TemporaryDirectory(prefix="verify_ratings") as folder:
        by_id = {system.pk: system for system in systems}

        def execute(system_id: int) -> None:
            diffs = verify_system(by_id[system_id], today=today, limit=limit, games=games[0], replayed=replayed)
            with open(os.path.join(folder, str(system_id)), "wb") as out:
                pickle.dump(diffs, out)

        lost = in_processes(list(by_id), jobs, execute, forked=games.clear)
        for system in systems:
            try:
                with open(os.path.join(folder, str(system.pk)), "rb") as found:
                    yield system, pickle.load(found)
            except FileNotFoundError:
                why = "was lost" if system.pk in lost else "wrote nothing"
                raise RuntimeError(f"verifying {system.slug} ended abnormally (its process {why})") from None
