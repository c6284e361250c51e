"""Cursor pagination over a unique sort key: a page's cursor holds the sort values of its last row,
and the next page is the rows after them (keyset). A row added or removed meanwhile moves no other:
paging on neither repeats nor skips a row that was there throughout. The cursor is opaque to clients
(base64 of JSON)."""
from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
from dataclasses import dataclass
from operator import attrgetter

from django.db.models import F, Q, QuerySet

DEFAULT_LIMIT = 50
MAX_LIMIT = 200


class BadCursor(ValueError):
    """A cursor this API did not give out, or one of another list."""


@dataclass(frozen=True)
class Order:
    """A unique sort: (field, descending) pairs, the last one unique. Only the fields named in
    `nulls_last` may be null: ascending, with the nulls after every value (as an index gives them on
    PostgreSQL, so the sort reads the index)."""

    fields: tuple[tuple[str, bool], ...]
    name: str  # tells one list's cursor from another's
    nulls_last: frozenset[str] = frozenset()

    def sort(self) -> list:
        return [
            F(name).asc(nulls_last=True) if name in self.nulls_last else (f"-{name}" if descending else name)
            for name, descending in self.fields
        ]


def _encode_value(value):
    if isinstance(value, dt.datetime):
        return {"t": value.isoformat()}
    if isinstance(value, dt.date):
        return {"d": value.isoformat()}
    return value


def _decode_value(value):
    if isinstance(value, dict):
        if "t" in value:
            return dt.datetime.fromisoformat(value["t"])
        if "d" in value:
            return dt.date.fromisoformat(value["d"])
        raise BadCursor("unknown value")
    return value


def encode(order: Order, row) -> str:
    values = [_encode_value(attrgetter(name.replace("__", "."))(row)) for name, _ in order.fields]
    raw = json.dumps([order.name, values], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(order: Order, cursor: str) -> list:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        name, values = json.loads(raw)
    except (binascii.Error, ValueError, TypeError) as error:
        raise BadCursor("This cursor is not one the API gave out.") from error
    if name != order.name or not isinstance(values, list) or len(values) != len(order.fields):
        raise BadCursor("This cursor belongs to another list.")
    try:
        return [_decode_value(value) for value in values]
    except (ValueError, TypeError, KeyError) as error:
        raise BadCursor("This cursor is not one the API gave out.") from error


def _after(order: Order, values: list) -> Q:
    """The rows that sort after `values`: (a > x) or (a = x and b > y) or ..."""
    found = Q(pk__in=[])
    equal = Q()
    for (name, descending), value in zip(order.fields, values, strict=True):
        if name in order.nulls_last:
            if value is not None:  # a null is after every value
                found |= equal & (Q(**{f"{name}__gt": value}) | Q(**{f"{name}__isnull": True}))
            equal &= Q(**{f"{name}__isnull": True}) if value is None else Q(**{name: value})
            continue
        found |= equal & Q(**{f"{name}__{'lt' if descending else 'gt'}": value})
        equal &= Q(**{name: value})
    return found


def page(queryset: QuerySet, order: Order, *, cursor: str | None, limit: int) -> tuple[list, str | None]:
    """(the rows of the page after `cursor`, the next page's cursor or None at the end)."""
    limit = max(1, min(limit, MAX_LIMIT))
    if cursor:
        queryset = queryset.filter(_after(order, decode(order, cursor)))
    rows = list(queryset.order_by(*order.sort())[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (encode(order, rows[-1]) if more and rows else None)
