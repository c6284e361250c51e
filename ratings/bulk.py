"""Bulk writes for calculation rows and lists: binary COPY on PostgreSQL, executemany elsewhere;
bulk reads of rows (binary) and of columns (binary arrays, as NumPy columns).

Datetimes are written as given: naive, in UTC, as the engines hold them.
"""
import datetime as dt
from collections import Counter
from collections.abc import Iterable

import numpy as np
import psycopg
from django.db import connection

BATCH = 5000
TIMESTAMPTZ, TIMESTAMP = 1184, 1114  # type oids: same binary form, the naive one takes naive datetimes
NUMERIC = 1700


def _columns(model, fields: list[str]) -> list[str]:
    return [model._meta.get_field(name).column for name in fields]


def _column_types(table: str) -> dict[str, int]:
    """PostgreSQL: each column's type oid."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT attname, atttypid::int FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0", [table])
        return dict(cursor.fetchall())


class BulkWriter:
    """Plain tuples (in `fields` order) written to one table as they come, without model instances.

    On PostgreSQL the whole stream is one COPY sent from a thread: the server parses and indexes
    the rows on its own core while the caller computes the next ones. The connection is busy until
    the writer closes, so nothing else may use it in between.
    """

    def __init__(self, model, fields: list[str], *, table: str | None = None, freeze: bool = False):
        self.table = table or model._meta.db_table  # another table of the model's columns (a temporary one)
        # `freeze`: a table emptied in this transaction (partitions.FreshPartitions.begin) takes the rows
        # already frozen and visible, so that no later reader or vacuum writes each page again
        self.freeze = freeze
        self.columns = _columns(model, fields)
        self.count = 0
        self._batch: list[tuple] = []

    def __enter__(self) -> "BulkWriter":
        self._cursor = connection.cursor()
        if connection.vendor == "postgresql":
            from psycopg.copy import QueuedLibpqWriter

            raw = self._cursor.cursor
            oids = _column_types(self.table)
            types = [TIMESTAMP if oids[c] == TIMESTAMPTZ else oids[c] for c in self.columns]
            # binary rows are four times cheaper to build than text ones, and cheaper for the server
            # to read; numeric columns stay text (their binary form takes no floats)
            binary = NUMERIC not in types
            options = [*(["FORMAT BINARY"] if binary else []), *(["FREEZE"] if self.freeze else [])]
            sql = f'COPY {self.table} ({", ".join(self.columns)}) FROM STDIN' + (f" ({', '.join(options)})" if options else "")
            self._copying = raw.copy(sql, writer=QueuedLibpqWriter(raw))
            self._copy = self._copying.__enter__()
            if binary:
                self._copy.set_types(types)
        else:
            self._copy = None
            self._sql = (
                f'INSERT INTO {self.table} ({", ".join(self.columns)}) VALUES ({", ".join(["%s"] * len(self.columns))})'
            )
        return self

    def write(self, rows: Iterable[tuple]) -> None:
        if self._copy is not None:
            write_row = self._copy.write_row
            count = self.count
            for row in rows:
                write_row(row)
                count += 1
            self.count = count
            return
        batch = self._batch
        for row in rows:
            batch.append(row)
            if len(batch) == BATCH:
                self._flush()

    def _flush(self) -> None:
        if self._batch:
            self._cursor.executemany(self._sql, self._batch)
            self.count += len(self._batch)
            self._batch.clear()

    def __exit__(self, kind, error, trace) -> None:
        try:
            if self._copy is not None:
                self._copying.__exit__(kind, error, trace)
            elif kind is None:
                self._flush()
        finally:
            self._cursor.close()


class ChangedRows:
    """Tuples (in `fields` order) that replace the stored rows `where` selects, written as changes:
    each stored row equal to a new one stays, the others are deleted, and only the new rows that
    no stored row equals are inserted (`count`). A run that replays a month to add an event at its
    end makes mostly what is stored already; deleting and indexing it all again was most of its
    time. PostgreSQL only; the same interface as BulkWriter, the rows held until it closes.
    """

    def __init__(self, model, fields: list[str], *, where: str, params: list):
        self.model, self.fields, self.table = model, fields, model._meta.db_table
        self.columns = _columns(model, fields)
        self.where, self.params = where, params
        self.count = self.kept = self.deleted = 0
        self._rows: list[tuple] = []

    def __enter__(self) -> "ChangedRows":
        return self

    def write(self, rows: Iterable[tuple]) -> None:
        self._rows.extend(rows)

    def __exit__(self, kind, error, trace) -> None:
        if kind is None:
            self._write_changes()

    def _write_changes(self) -> None:
        types = _column_types(self.table)
        # naive datetimes in UTC, as the engines hold them and BulkWriter writes them
        select = ", ".join(f"{c} AT TIME ZONE 'UTC'" if types[c] == TIMESTAMPTZ else c for c in self.columns)
        # a row is found again by its place: its table (a partition) and its ctid there
        stored = fetch_binary(f"SELECT tableoid::int, ctid::text, {select} FROM {self.table} WHERE {self.where}", self.params)
        pending = Counter(self._rows)
        gone: dict[int, list[str]] = {}
        for table, ctid, *values in stored:
            row = tuple(values)
            if pending[row]:
                pending[row] -= 1
            else:
                gone.setdefault(table, []).append(ctid)
        with connection.cursor() as cursor:
            # the ctids as one array literal: tens of thousands of parameters quoted one by one took longer
            for table, ctids in gone.items():
                cursor.execute(f"DELETE FROM {self.table} WHERE {self.where} AND tableoid = %s AND ctid = ANY(%s::tid[])",
                               [*self.params, table, "{" + ",".join(f'"{ctid}"' for ctid in ctids) + "}"])
        self.deleted = sum(map(len, gone.values()))
        self.kept = len(stored) - self.deleted
        new = []
        for row in self._rows:
            if pending[row]:
                pending[row] -= 1
                new.append(row)
        self._rows = []
        self.count = bulk_insert(self.model, self.fields, new)


def fetch_binary(sql: str, params: list) -> list[tuple]:
    """PostgreSQL: rows in the binary format (floats and bytes are not parsed from text, which is
    most of reading tens of thousands of rows); a cursor binding parameters on the server, as
    Django's own cursors (client-side binding) cannot return binary rows. Same transaction."""
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, binary=True)
        return cursor.fetchall()


def fetch_columns(columns: list[tuple[str, str, str]], tables: str, params: list) -> dict[str, np.ndarray]:
    """`SELECT <expressions> FROM <tables>` as NumPy columns, in no particular order (sort them
    after: on PostgreSQL they are aggregates, so `tables` takes no ORDER BY). Each column is (name,
    kind, SQL expression that is never null), kind "i" integer, "f" float, "b" boolean or "t" a
    time, given as seconds since 1970. On PostgreSQL each column comes as one value, its binary
    array: a million rows in a few values, not a million messages to parse one by one."""
    if connection.vendor == "postgresql":
        arrays = (f"array_send(array_agg(({expression})::{_CASTS[kind]}))" for _, kind, expression in columns)
        sql = f"SELECT {', '.join(arrays)} FROM {tables}"
        (found,) = fetch_binary(sql, params)
        return {name: _unpack(value, kind) for (name, kind, _), value in zip(columns, found)}
    expressions = (f"CAST(strftime('%%s', {e}) AS REAL)" if kind == "t" else e for _, kind, e in columns)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(expressions)} FROM {tables}", params)
        found = cursor.fetchall()
    values = list(zip(*found)) if found else [()] * len(columns)
    return {name: np.array(v, dtype=_KINDS[kind]) for (name, kind, _), v in zip(columns, values)}


_KINDS = {"i": np.int64, "f": np.float64, "b": bool, "t": np.float64}
_ELEMENTS = {"i": ">i8", "f": ">f8", "b": "?", "t": ">i8"}
_CASTS = {"i": "int8", "f": "float8", "b": "bool", "t": "timestamptz"}
_SINCE_2000 = dt.datetime(2000, 1, 1, tzinfo=dt.UTC).timestamp()  # PostgreSQL's binary times count from then


def _unpack(value: bytes | None, kind: str) -> np.ndarray:
    """A one-dimensional PostgreSQL array without nulls in its binary form: 20 bytes of header (its
    length at 12), then each element's length (4 bytes) and value. None: the aggregate of no rows."""
    if value is None:
        return np.zeros(0, dtype=_KINDS[kind])
    count = int.from_bytes(value[12:16], "big")
    records = np.frombuffer(value, np.dtype([("length", ">i4"), ("value", _ELEMENTS[kind])]), count=count, offset=20)
    if kind == "t":  # microseconds since 2000
        return records["value"] / 1e6 + _SINCE_2000
    return records["value"].astype(_KINDS[kind])


def bulk_insert(model, fields: list[str], rows: Iterable[tuple], *, table: str | None = None, freeze: bool = False) -> int:
    """Insert plain tuples (in `fields` order); returns the count."""
    with BulkWriter(model, fields, table=table, freeze=freeze) as writer:
        writer.write(rows)
    return writer.count
