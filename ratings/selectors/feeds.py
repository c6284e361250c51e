"""Reads of the public feeds and embeds (the syndication app): a system's published lists, the newly
sanctioned events, one coach's rating changes, and a leaderboard or badge of the current ranking.
Public only: a hidden coach is never read by name (his public name is his label) and an event that
is not public never appears."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F, Q

from ratings.models import RANKING_ORDER, CurrentRating, PeriodSummary, Publication, RatingSystem
from ratings.selectors.common import _by_ids, _event_id
from ratings.selectors.rankings import ranking_current, ranking_variants
from tournaments.models import Coach, Event, EventStatus, Race, Visibility

FEED_ENTRIES = 30


def publications_recent(system: RatingSystem, *, limit: int = FEED_ENTRIES) -> list[Publication]:
    """The system's lists as published (every edition), the latest published first."""
    return list(Publication.objects.filter(system=system).select_related("system").order_by("-published_at", "-edition", "-pk")[:limit])


def sanctioned_events_recent(*, limit: int = FEED_ENTRIES) -> list[Event]:
    """The sanctioned events, the most recently changed first (a sanction changes an event last)."""
    return list(
        Event.objects.filter(status=EventStatus.SANCTIONED).select_related("variant").order_by("-updated_at", "-pk")[:limit]
    )


def syndicated_coach_get(*, number: int) -> Coach | None:
    """The coach of that number who may have a feed and a badge: not a hidden (or erased) one."""
    return Coach.objects.exclude(visibility=Visibility.HIDDEN).filter(number=number, erased_at__isnull=True).first()


@dataclass(frozen=True)
class RatingChange:
    """One event or period that changed a coach's rating in one key: the value before (None: his
    first rating) and after."""

    coach_number: int
    system: RatingSystem
    race_name: str
    race_slug: str
    variant_name: str
    variant_slug: str
    period: str
    effective: object  # the date the period's rating took effect
    before: float | None
    after: float
    event_id: int | None
    event_name: str | None


def coach_rating_changes(coach: Coach, systems: list[RatingSystem], *, limit: int = FEED_ENTRIES) -> list[RatingChange]:
    """The coach's latest rating changes in these systems, newest first: one per period summary that
    moved a value (or gave the first one), a period of an event only when the event is public."""
    by_id = {system.pk: system for system in systems}
    # newest first on the coach's index; a few more than asked, as a period of an event no longer public is left out
    moved = list(
        PeriodSummary.objects.filter(Q(rl__isnull=True) | ~Q(rl=F("rn")), coach=coach, system__in=list(by_id))
        .values_list("system_id", "race__name", "race__slug", "variant__name", "variant__slug", "period", "effective", "rl", "rn")
        .order_by("-effective", "system_id", "race__name", "variant__name", "period")[:limit * 2]
    )
    events = {event_id for event_id in (_event_id(row[5]) for row in moved) if event_id is not None}
    names = dict(_by_ids(Event.objects.public(), events).values_list("pk", "name")) if events else {}
    changes = []
    for system_id, race_name, race_slug, variant_name, variant_slug, period, effective, before, after in moved:
        event_id = _event_id(period)
        if event_id is not None and event_id not in names:
            continue
        changes.append(RatingChange(
            coach.number, by_id[system_id], race_name or "", race_slug or "", variant_name, variant_slug, period, effective, before, after,
            event_id, names.get(event_id) if event_id is not None else None,
        ))
        if len(changes) == limit:
            break
    return changes


def embed_race_get(*, slug: str) -> Race | None:
    """The ranked race of that slug (only ranked races are rated)."""
    return embed_races().filter(slug=slug).first()


def leaderboard(system: RatingSystem, *, rows: int, country: str = "", race: Race | None = None) -> tuple[list[CurrentRating], str | None]:
    """(the first `rows` entries of the current ranking as its page shows it with that country or race
    chosen, in the variant it shows by default, the variant's slug). Two queries: the variant (cached
    until the next run) and the entries."""
    variants = ranking_variants(system)
    variant = variants[0]["variant__slug"] if variants else None
    entries = ranking_current(system)
    if variant is not None:
        entries = entries.of_variant(variant)
    if country:
        # a hidden coach shows no nationality, so no country finds him (as on the ranking page)
        entries = entries.filter(coach__nationality=country).exclude(coach__visibility=Visibility.HIDDEN)
    if race is not None:
        entries = entries.filter(race=race)
    return list(entries[:rows]), variant


def badge_rating(coach: Coach, system: RatingSystem) -> CurrentRating | None:
    """The coach's best-placed current rating in the system (its rank first, then its value)."""
    return (
        CurrentRating.objects.filter(system=system, coach=coach).select_related("race", "variant").order_by(*RANKING_ORDER).first()
    )


def embed_races():
    """The ranked races, by name: the races a leaderboard may show."""
    return Race.objects.filter(ranked=True).order_by("name")
