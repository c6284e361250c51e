"""The stored tables read as columns (NumPy arrays), the constants of their encoding, and the array
operations the checks share (keys packed into one int64, lookups, sums per group)."""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import psycopg
from django.db import connection

from rating_engines import knsb
from rating_engines.common import AWAY, HOME, Reason
from ratings import selectors

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
