"""What the page reads share: the event period labels, record counts, id lists and day values."""
from __future__ import annotations

import datetime as dt

from django.db import connection
from django.db.models import Count, Q
from django.db.models.expressions import RawSQL

from ratings.models import (
    Method,
    RatingSystem,
)
from tournaments.models import Event

EVENT_PREFIX = "event:"


def _record_counts(*, byes: bool = True) -> dict:
    """Games, wins, draws and losses of grouped game sides: a bye is a game (and never a draw), or
    with `byes` False no game at all."""
    played = Q() if byes else Q(opponent__isnull=False)  # an empty filter is none (Django leaves it out)
    return {
        "games": Count("id", filter=played),
        "wins": Count("id", filter=played & Q(score=1)),
        "draws": Count("id", filter=Q(score=0.5, opponent__isnull=False)),
        "losses": Count("id", filter=played & Q(score=0)),
    }


def _by_ids(queryset, ids: set):
    """`queryset` narrowed to primary keys `ids`: one array parameter on PostgreSQL, not one placeholder each."""
    if connection.vendor == "postgresql":
        return queryset.filter(pk__in=RawSQL("SELECT unnest(%s::bigint[])", [list(ids)]))
    return queryset.filter(pk__in=ids)


def _event_id(label: str) -> int | None:
    if label.startswith(EVENT_PREFIX):
        try:
            return int(label[len(EVENT_PREFIX):])
        except ValueError:
            return None
    return None


def _event_names(ids: set[int]) -> dict[int, str]:
    return dict(_by_ids(Event.objects.all(), ids).values_list("pk", "name")) if ids else {}


def _day(value) -> dt.date | None:
    if value is None:
        return None
    return value.date() if isinstance(value, dt.datetime) else value


def period_title(system: RatingSystem, label: str, event_names: dict) -> str:
    """How a period label reads on the page."""
    if label.startswith(EVENT_PREFIX):
        name = event_names.get(int(label[len(EVENT_PREFIX):]))
        return name or label
    if system.method == Method.KNSB:
        return f"List of {label}"
    if len(label) == 7:
        return dt.date.fromisoformat(f"{label}-01").strftime("%B %Y")
    try:
        start = dt.date.fromisoformat(label)
    except ValueError:
        return label
    return f"Two weeks from {start:%Y-%m-%d}"
