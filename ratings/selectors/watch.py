"""Reads for the members' notices: the current figures of the coaches members watch, and what a run
published. Plain tuples and dicts, so that the members' app never touches the ratings' models."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ratings.models import CurrentRating, Publication, RatingSystem


@dataclass(frozen=True)
class WatchedFigure:
    """One current rating of a watched coach: its key and its value."""

    coach_id: int
    race_id: int | None
    variant_id: int
    value: float
    rank: int | None
    race: str
    variant: str


def watched_figures(*, system_id: int, coach_ids: set[int] | list[int]) -> list[WatchedFigure]:
    """The system's current ratings of these coaches, every race and variant (one query)."""
    if not coach_ids:
        return []
    rows = CurrentRating.objects.filter(system_id=system_id, coach_id__in=list(coach_ids)).values_list(
        "coach_id", "race_id", "variant_id", "value", "rank", "race__name", "variant__name",
    )
    return [
        WatchedFigure(coach, race, variant, value, rank, race_name or "all races", variant_name)
        for coach, race, variant, value, rank, race_name, variant_name in rows
    ]


@dataclass(frozen=True)
class PublishedBrief:
    """A publication as a notice names it."""

    system_id: int
    system_slug: str
    system_name: str
    date: dt.date
    edition: int
    rated: int


def publications_brief(*, ids: list[int]) -> list[PublishedBrief]:
    """The publications with these ids, oldest list first."""
    return [
        PublishedBrief(*row) for row in Publication.objects.filter(pk__in=ids).order_by("date", "edition").values_list(
            "system_id", "system__slug", "system__name", "date", "edition", "rated",
        )
    ]


def notice_systems() -> list[tuple[int, str]]:
    """(id, name) of every active rating system, in display order: what a member's notices may cover."""
    return list(RatingSystem.objects.filter(active=True).order_by("display_order", "name").values_list("pk", "name"))


def system_brief(*, system_id: int) -> tuple[str, str, str]:
    """(slug, name, method) of a rating system."""
    slug, name, method = RatingSystem.objects.filter(pk=system_id).values_list("slug", "name", "method").get()
    return slug, name, method
