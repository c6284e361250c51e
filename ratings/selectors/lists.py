"""Reads of the monthly list pages: the lists of a system, a list's (or its publication's) starters,
movers and counts, and where the live recomputation revises a published list."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Max, Min, Q, QuerySet

from audit.models import Action, AuditRecord
from ratings.models import (
    Publication,
    PublishedEntry,
    RatingList,
    RatingListEntry,
    RatingSystem,
)
from ratingsite.formatting import fixed
from tournaments.models import EventStatus, Game, Variant


def publication_editions(publication: Publication) -> list[Publication]:
    """Every edition of a published list, the first first."""
    return list(Publication.objects.filter(system_id=publication.system_id, date=publication.date).order_by("edition"))


def published_entries(publication: Publication, variant: Variant | None = None):
    entries = PublishedEntry.objects.filter(publication=publication)
    return entries.filter(variant_slug=variant.slug) if variant is not None else entries


def published_starters(publication: Publication, variant: Variant | None = None):
    """New ratings on the list as published, best first."""
    return _starters(published_entries(publication, variant), "coach_number")


def published_movers(publication: Publication, variant: Variant | None = None, *, rising: bool, limit: int = 20) -> list:
    """The largest gains (or losses) since the previous list, as published."""
    return _movers(published_entries(publication, variant), "coach_number", rising=rising, limit=limit)


def published_counts(publication: Publication, variant: Variant | None = None) -> dict:
    """Counts of the list as published (overall from the publication; per variant when one is chosen)."""
    return _list_counts(published_entries(publication, variant), publication, variant)


def rating_lists_of(*, system: RatingSystem) -> QuerySet[RatingList]:
    """The stored monthly lists of a system, newest first."""
    return RatingList.objects.filter(system=system).order_by("-date")


def latest_list_dates(systems: list[RatingSystem]) -> dict:
    """system id -> (date of its latest list, number of lists)."""
    rows = (
        RatingList.objects.filter(system__in=systems)
        .values("system_id")
        .annotate(latest=Max("date"), lists=Count("id"))
        .order_by()
    )
    return {row["system_id"]: (row["latest"], row["lists"]) for row in rows}


def list_neighbours(rating_list: RatingList) -> tuple[RatingList | None, RatingList | None]:
    """The lists just before and just after this one."""
    dates = RatingList.objects.filter(system_id=rating_list.system_id)
    before = dates.filter(date__lt=rating_list.date).order_by("-date").first()
    after = dates.filter(date__gt=rating_list.date).order_by("date").first()
    return before, after


def list_entries(rating_list: RatingList, variant: Variant | None = None):
    entries = RatingListEntry.objects.filter(rating_list=rating_list).select_related("coach", "race", "variant")
    return entries.filter(variant=variant) if variant is not None else entries


def list_starters(rating_list: RatingList, variant: Variant | None = None):
    """New ratings on this list (no value on the previous one), best first."""
    return _starters(list_entries(rating_list, variant), "coach__number")


def list_movers(rating_list: RatingList, variant: Variant | None = None, *, rising: bool, limit: int = 20) -> list:
    """The largest gains (or losses) since the previous list."""
    return _movers(list_entries(rating_list, variant), "coach__number", rising=rising, limit=limit)


def list_counts(rating_list: RatingList, variant: Variant | None = None) -> dict:
    """Counts of the list (overall from the list row; per variant when one is chosen)."""
    entries = RatingListEntry.objects.filter(rating_list=rating_list)
    return _list_counts(entries.filter(variant=variant) if variant is not None else entries, rating_list, variant)


# A list's entries as computed (RatingListEntry) and as published (PublishedEntry) alike; `coach`
# is the path to the coach's number, `head` the list or publication (its totals and completeness).

def _starters(entries, coach: str):
    return entries.filter(change__isnull=True).order_by("-value", coach)


def _movers(entries, coach: str, *, rising: bool, limit: int) -> list:
    if rising:
        entries = entries.filter(change__gt=0).order_by("-change", coach)
    else:
        entries = entries.filter(change__lt=0).order_by("change", coach)
    return list(entries[:limit])


def _list_counts(entries, head, variant: Variant | None) -> dict:
    if variant is None:
        changed = entries.filter(change__isnull=False).exclude(change=0).count()
        return {"rated": head.rated, "ranked": head.ranked, "starters": head.starters, "changed": changed}
    counts = entries.aggregate(
        rated=Count("id"),
        ranked=Count("id", filter=Q(rank__isnull=False)),
        starters=Count("id", filter=Q(change__isnull=True)),
        changed=Count("id", filter=Q(change__isnull=False) & ~Q(change=0)),
    )
    if not head.complete:  # only the month's movements are stored: no per-variant totals
        counts.update(rated=None, ranked=None)
    return counts


@dataclass
class Revision:
    """One key whose figures the live recomputation gives otherwise than its list as published."""

    coach_number: int
    coach_name: str
    race: str
    variant: str
    published: float | None  # None: not on the list as published
    revised: float | None  # None: no longer on the list

    @property
    def difference(self) -> float | None:
        return None if self.published is None or self.revised is None else self.revised - self.published


@dataclass
class Revisions:
    """How the live recomputation of a published list differs from it, and why."""

    rows: list[Revision]
    total: int
    reasons: list[str]


def _computed_now(publication: Publication, numbers: set[int] | None = None) -> dict[tuple, tuple]:
    """The list of the publication's date as computed now (of those coaches, if given): by (coach
    number, race slug, variant slug), its coach, race and variant names and value."""
    entries = RatingListEntry.objects.filter(
        system_id=publication.system_id, rating_list__system_id=publication.system_id, rating_list__date=publication.date,
    )
    if numbers is not None:
        entries = entries.filter(coach__number__in=numbers)
    return {
        (number, race or "", variant): (name, race_name, variant_name, value)
        for number, name, race, race_name, variant, variant_name, value in entries.values_list(
            "coach__number", "coach__name", "race__slug", "race__name", "variant__slug", "variant__name", "value",
        )
    }


def revised_values(publication: Publication, entries) -> dict[tuple, float | None]:
    """The value each of these published entries has on the list as computed now, by (coach number,
    race slug, variant slug); None: no longer on it."""
    now = _computed_now(publication, {e.coach_number for e in entries})
    keys = [(e.coach_number, e.race_slug, e.variant_slug) for e in entries]
    return {key: now[key][3] if key in now else None for key in keys}


def publication_revisions(publication: Publication, *, places: int, limit: int = 50) -> Revisions:
    """Where the list as computed now (RatingListEntry) differs from the list as published, at the
    precision the list shows (`places`), the largest differences first; and the changes to the record
    reported since its publication that reach back before its date."""
    published = {
        (number, race, variant): (name, race_name, variant_name, value)
        for number, name, race, race_name, variant, variant_name, value in PublishedEntry.objects.filter(publication=publication)
        .values_list("coach_number", "coach_name", "race_slug", "race_name", "variant_slug", "variant_name", "value")
    }
    computed = _computed_now(publication)
    rows = []
    for key in published.keys() | computed.keys():
        was, now = published.get(key), computed.get(key)
        before, after = (was[3] if was else None), (now[3] if now else None)
        if before is not None and after is not None and fixed(before, places) == fixed(after, places):
            continue  # the same as the list shows it (the site's one rounding)
        name, race, variant, _ = was or now
        rows.append(Revision(key[0], name, race or "", variant, before, after))
    rows.sort(key=lambda r: (-abs((r.revised or 0) - (r.published or 0)), r.coach_number, r.race, r.variant))
    return Revisions(rows=rows[:limit], total=len(rows), reasons=_revision_reasons(publication) if rows else [])


def _revision_reasons(publication: Publication) -> list[str]:
    """The changes reported after a list's publication that reach back before its date, oldest first.
    A game carries the day it was reported: one of the publication's own day may have come after it."""
    after = publication.published_at
    reasons: list[tuple] = []
    late = (
        Game.objects.filter(event__status=EventStatus.SANCTIONED, played_at__date__lt=publication.date,
                            reported_on__gte=after.date())
        .values("event_id", "event__name").annotate(games=Count("id"), reported=Max("reported_on"))
    )
    firsts = dict(
        Game.objects.filter(event_id__in=[row["event_id"] for row in late]).values("event_id")
        .annotate(first=Min("reported_on")).values_list("event_id", "first")
    )
    for row in late:
        games = f"{row['games']} game{'s' if row['games'] > 1 else ''}"
        if firsts.get(row["event_id"]) and firsts[row["event_id"]] >= after.date():
            reasons.append((row["reported"], f"{row['event__name']}: reported {row['reported']:%Y-%m-%d}, after this list ({games})"))
        else:
            reasons.append((row["reported"], f"{row['event__name']}: {games} corrected on {row['reported']:%Y-%m-%d}"))
    for record in AuditRecord.objects.filter(
        at__gt=after, action__in=[Action.COACH_MERGE, Action.EVENT_REJECT, Action.RATING_SYSTEM_UPDATE],
    ).order_by("at"):
        if record.action == Action.RATING_SYSTEM_UPDATE and record.rating_system_id != publication.system_id:
            continue
        if record.action == Action.EVENT_REJECT and (record.before or {}).get("status") != EventStatus.SANCTIONED:
            continue
        reasons.append((record.at.date(), f"{record.get_action_display().capitalize()}: {record.object_repr} ({record.at:%Y-%m-%d})"))
    return [text for _, text in sorted(reasons, key=lambda r: r[0])]
