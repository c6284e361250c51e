"""Reads of the open-data files (the downloads app): every publication of the public systems in the order
the files are written, and the figures of the data status page (the latest run and list of each
system). The files' rows are `export_rows`' (history.py), the same as export_ratings prints."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Count, Max

from ratings.models import CurrentRating, Publication, PublishedEntry, RatingSystem, RecalculationRun, RunStatus


def open_data_publications(systems: list[RatingSystem]) -> list[Publication]:
    """Every published list (each edition) of these systems: by system, date, edition."""
    return list(
        Publication.objects.filter(system__in=systems).select_related("system")
        .order_by("system__display_order", "system__name", "date", "edition")
    )


@dataclass(frozen=True)
class SystemStatus:
    """What the data status page says of one system: its latest successful run and its latest list."""

    system: RatingSystem
    run_finished: dt.datetime | None
    run_seconds: float | None
    run_games: int | None
    coaches: int  # coaches rated in the system now (its current ratings)
    list_date: dt.date | None
    list_edition: int | None
    list_published: dt.datetime | None
    lists: int  # publications, every edition counted


def systems_status(systems: list[RatingSystem]) -> list[SystemStatus]:
    """Each system's latest successful run (when it finished, how long it took, the games it read),
    its rated coaches, and its latest published list, in the order of `systems`."""
    ids = [system.pk for system in systems]
    runs: dict[int, RecalculationRun] = {}
    for run in RecalculationRun.objects.filter(system_id__in=ids, status=RunStatus.SUCCEEDED).order_by("system_id", "-finished_at", "-id"):
        runs.setdefault(run.system_id, run)
    coaches = dict(
        CurrentRating.objects.filter(system_id__in=ids).values("system_id").annotate(n=Count("coach_id", distinct=True))
        .order_by().values_list("system_id", "n")
    )
    counts = dict(Publication.objects.filter(system_id__in=ids).values("system_id").annotate(n=Count("id")).order_by()
                  .values_list("system_id", "n"))
    latest: dict[int, Publication] = {}
    newest = Publication.objects.filter(system_id__in=ids).values("system_id").annotate(day=Max("date")).order_by()
    for row in newest:
        found = Publication.objects.filter(system_id=row["system_id"], date=row["day"]).order_by("-edition").first()
        if found is not None:
            latest[row["system_id"]] = found
    statuses = []
    for system in systems:
        run, publication = runs.get(system.pk), latest.get(system.pk)
        statuses.append(SystemStatus(
            system=system,
            run_finished=run.finished_at if run else None,
            run_seconds=run.duration if run else None,
            run_games=run.games_processed if run else None,
            coaches=coaches.get(system.pk, 0),
            list_date=publication.date if publication else None,
            list_edition=publication.edition if publication else None,
            list_published=publication.published_at if publication else None,
            lists=counts.get(system.pk, 0),
        ))
    return statuses


def knsb_layout_rows(publication: Publication) -> list[tuple]:
    """A published list's entries for the KNSB's own list layout: (variant slug, race slug or "",
    coach number, public name of the day, value, Nv), by variant and race, then in export_rows'
    order (ranked first by rank, the highest value first, the coach number breaking ties)."""
    rows = list(PublishedEntry.objects.filter(publication=publication).values_list(
        "variant_slug", "race_slug", "rank", "coach_number", "coach_name", "value", "nv"))
    rows.sort(key=lambda r: (r[0], r[1], r[2] is None, r[2] or 0, -r[5], r[3]))
    return [(variant, race, number, name, value, nv) for variant, race, _, number, name, value, nv in rows]
