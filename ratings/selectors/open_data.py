"""Reads of the open-data API (/api/v1/): the current ranking and a published list filtered as the
ranking pages filter them, the published lists, the runs, which runs rated an event, a coach's
history with the games of each period, and when the data last changed (for ETag and Last-Modified).
Public data only: public events, coaches by the name the public sees."""
from __future__ import annotations

import datetime as dt

from django.db.models import Max, Q, QuerySet

from ratings.models import (
    CalculationRow,
    CurrentRating,
    PeriodSummary,
    Publication,
    PublishedEntry,
    RatingSystem,
    RecalculationRun,
    RunStatus,
)
from ratings.selectors.common import _by_ids, _event_id
from tournaments.models import Coach, Event, Race, Variant, Visibility
from tournaments.selectors import coach_search_q


def ranking_filtered(
    system: RatingSystem, *, variant: Variant | None = None, race: Race | None = None, country: str = "",
    active: bool = False, name: str = "",
) -> QuerySet[CurrentRating]:
    """The system's current ratings narrowed as the ranking page's filters narrow them (variant, race,
    nationality, ranked only, a coach's name or number); a nationality finds no hidden coach (as on the pages)."""
    ratings = CurrentRating.objects.filter(system=system).select_related("coach", "race", "variant")
    if variant is not None:
        ratings = ratings.filter(variant=variant)
    if race is not None:
        ratings = ratings.filter(race=race)
    if country:
        ratings = ratings.filter(coach__nationality=country).exclude(coach__visibility=Visibility.HIDDEN)
    if active:
        ratings = ratings.filter(rank__isnull=False)
    if name.strip():
        ratings = ratings.filter(coach_search_q(name, path="coach__", public=True))
    return ratings


def publications_of(system: RatingSystem) -> QuerySet[Publication]:
    """Every published list of the system, every edition."""
    return Publication.objects.filter(system=system).select_related("system")


def publication_get(system: RatingSystem, date: dt.date, edition: int | None = None) -> Publication | None:
    """The list of that date as published (that edition, else its latest)."""
    editions = Publication.objects.filter(system=system, date=date).select_related("system")
    return (editions.filter(edition=edition) if edition else editions).order_by("-edition").first()


def published_filtered(
    publication: Publication, *, variant: str = "", race: str = "", country: str = "", active: bool = False, name: str = "",
) -> QuerySet[PublishedEntry]:
    """The entries of a list as published, narrowed as the list's filters narrow them (variant and race by slug)."""
    entries = PublishedEntry.objects.filter(publication=publication)
    if variant:
        entries = entries.filter(variant_slug=variant)
    if race:
        entries = entries.filter(race_slug=race)
    if country:
        shown = Coach.objects.filter(nationality=country).exclude(visibility=Visibility.HIDDEN).values("number")
        entries = entries.filter(nationality=country, coach_number__in=shown)
    if active:
        entries = entries.filter(rank__isnull=False)
    value = name.strip()
    if value:
        today = Coach.objects.filter(coach_search_q(value, public=True)).values("number")
        found = Q(coach_number__in=today) | Q(coach_name__icontains=value)
        if value.isascii() and value.isdigit():
            found |= Q(coach_number=int(value))
        entries = entries.filter(found)
    return entries


def runs_public(*, system: RatingSystem | None = None, status: str = "") -> QuerySet[RecalculationRun]:
    """The recalculation runs of the active systems (what they did and how long they took, not who
    asked or why)."""
    runs = RecalculationRun.objects.filter(system__active=True).select_related("system")
    if system is not None:
        runs = runs.filter(system=system)
    if status:
        runs = runs.filter(status=status)
    return runs


def event_rated_in(event: Event, systems: list[RatingSystem]) -> list[tuple[RatingSystem, RecalculationRun | None]]:
    """The systems whose stored calculation counts games of the event, each with the run that wrote its
    figures: the latest successful run of that system whose replay reached back to the event's dates."""
    counted = CalculationRow.objects.filter(game__event=event, system__in=systems, counted=True)
    rated = set(counted.order_by().values_list("system_id", flat=True).distinct())
    found = []
    for system in systems:
        if system.pk not in rated:
            continue
        run = (
            RecalculationRun.objects.filter(system=system, status=RunStatus.SUCCEEDED)
            .filter(Q(recomputed_from__isnull=True) | Q(recomputed_from__lte=event.end_date))
            .order_by("-finished_at", "-id").first()
        )
        found.append((system, run))
    return found


def coach_history_points(coach: Coach, system: RatingSystem) -> list[dict]:
    """The coach's rating after every event or period of a system, oldest first, with the games he
    played and those that counted there; "event_id" and "event_name" name an event's period."""
    rows = list(
        PeriodSummary.objects.filter(system=system, coach=coach)
        .values("race__name", "race__slug", "variant__name", "variant__slug", "period", "effective", "rl", "rn", "nt",
                "games_played", "mu", "phi", "sigma", "nv")
        .order_by("effective", "race__name", "variant__name", "id")
    )
    ids = {pk for pk in map(_event_id, {row["period"] for row in rows}) if pk is not None}
    names = dict(_by_ids(Event.objects.public(), ids).values_list("pk", "name")) if ids else {}
    for row in rows:
        event_id = _event_id(row["period"])
        row["event_id"] = event_id if event_id in names else None
        row["event_name"] = names.get(event_id) if event_id is not None else None
    return rows


def data_last_changed() -> dt.datetime | None:
    """When the public data last changed: the latest committed run, published list or public event change."""
    moments = [
        RatingSystem.objects.filter(active=True).aggregate(at=Max("recalculated_at"))["at"],
        Publication.objects.aggregate(at=Max("published_at"))["at"],
        Event.objects.public().aggregate(at=Max("updated_at"))["at"],
    ]
    return max((m for m in moments if m is not None), default=None)
