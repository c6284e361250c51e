"""Reads of the ranking pages: the current ranking, a stored list's or its publication's, the
variants a system rates, and the games waiting for the next KNSB list."""
from __future__ import annotations

import datetime as dt

from django.core.cache import cache
from django.db.models import F, Sum

from ratings.models import (
    RANKING_ORDER,
    CurrentRating,
    Method,
    Publication,
    PublishedEntry,
    RatingList,
    RatingListEntry,
    RatingSystem,
)
from ratings.selectors.waiting import WaitingCount, waiting_counts, waiting_rows


def ranking_current(system: RatingSystem):
    """The current ratings of a system, best first, unranked entries after the ranked ones."""
    return (
        CurrentRating.objects.filter(system=system)
        .select_related("coach", "race", "variant")
        .order_by(*RANKING_ORDER)
        .counted_as_of(system.recalculated_at and f"{system.pk}:{system.recalculated_at.isoformat()}")
    )


def ranking_variants(system: RatingSystem) -> list[dict]:
    """The variants the system rates, the most played first (by the games its current ratings hold):
    a ranking shows one at a time, the first by default. Kept until the system's next run commits."""
    def build():
        return list(
            CurrentRating.objects.filter(system=system).order_by().values("variant__slug", "variant__name")
            .annotate(played=Sum("games")).order_by("-played", "variant__name")
        )
    if system.recalculated_at is None:
        return build()
    return cache.get_or_set(f"ranking-variants:{system.pk}:{system.recalculated_at.isoformat()}", build, 24 * 3600) or []


def ranking_of_list(rating_list: RatingList):
    """The entries of a stored monthly list, best first."""
    return (
        RatingListEntry.objects.filter(rating_list=rating_list)
        .select_related("coach", "race", "variant")
        .order_by(*RANKING_ORDER)
        .counted_as_of(f"list:{rating_list.pk}")  # a recomputed list is stored anew, under another id
    )


def rating_list_on(system: RatingSystem, year: int, month: int) -> RatingList | None:
    """The stored list of a system dated the 1st of that month, if there is one."""
    return RatingList.objects.filter(system=system, date=dt.date(year, month, 1)).first()


def publication_on(system: RatingSystem, year: int, month: int, edition: int | None = None) -> Publication | None:
    """The list of that month as published (that edition, else the latest), if it has been published."""
    editions = Publication.objects.filter(system=system, date=dt.date(year, month, 1))
    return (editions.filter(edition=edition) if edition else editions).select_related("published_by").order_by("-edition").first()


PUBLISHED_ORDER = (F("overall_rank").asc(nulls_last=True), F("value").desc(), F("coach_number"))


def ranking_of_publication(publication: Publication):
    """The entries of a list as published, best first."""
    return (
        PublishedEntry.objects.filter(publication=publication).order_by(*PUBLISHED_ORDER)
        .counted_as_of(f"publication:{publication.pk}")
    )


def ranking_waiting(system: RatingSystem, *, coach_ids: set[int]) -> dict[tuple, WaitingCount]:
    """(coach id, race id, variant id) -> the games of those coaches' keys waiting for the next list
    (KNSB; empty otherwise)."""
    if system.method != Method.KNSB or not coach_ids:
        return {}
    return waiting_counts([row for row in waiting_rows(system, coach_ids=coach_ids) if row.coach_id in coach_ids])
