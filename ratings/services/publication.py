"""Publishing rating lists: a list becomes a record the first time a run makes it on or after its
date (the 1st of its month), and stays exactly as published (ratings.models.Publication)."""
from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring  # json.dumps's own, with ensure_ascii=False

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Max, Q
from django.utils import timezone

from audit.models import Action
from audit.services import audit_record
from ratings.bulk import fetch_binary
from ratings.models import Publication, PublishedEntry, RatingList, RatingListEntry, RatingSystem, RecalculationRun, RunStatus
from ratingsite import page_cache
from tournaments.models import Coach, Game, Race, Variant, Visibility

# the entry's figures, then the coach, race and variant as named on the day
_COPIED = ("value", "mu", "phi", "sigma", "nv", "games", "rank", "overall_rank", "change", "games_counted", "games_played")
# what a publication's digest covers: every field of every entry but its id, in this order
DIGESTED = ("coach_number", "coach_name", "nationality", "race_slug", "race_name", "variant_slug", "variant_name", *_COPIED)
_FLOATS = frozenset({"value", "mu", "phi", "sigma", "change"})


def entries_digest(header: tuple, entries: Iterable[tuple]) -> str:
    """SHA-256 (hex) of a publication's canonical form: its header (date, edition, rated, ranked,
    starters, complete), then each entry (DIGESTED's fields) as one line of JSON, the lines sorted.
    Floats by their shortest exact repr, so the same numbers give the same text on any database."""
    date, edition, rated, ranked, starters, complete = header
    digest = hashlib.sha256(json.dumps([str(date), edition, rated, ranked, starters, bool(complete)]).encode())
    lines = sorted(_canonical_lines(entries))
    if lines:
        digest.update(("\n" + "\n".join(lines)).encode())
    return digest.hexdigest()


def _canonical_lines(entries: Iterable[tuple]) -> list[str]:
    """Each entry as `json.dumps([...], ensure_ascii=False, separators=(",", ":"))` would write it
    (floats as floats), built a column at a time: a first run publishes millions of entries, and
    encoding each as one JSON document was most of its publishing."""
    rows = list(entries)
    if not rows:
        return []
    if any(len(row) != len(DIGESTED) for row in rows):
        raise ValueError(f"a published entry is digested by its {len(DIGESTED)} fields (DIGESTED), no more and no fewer")
    texts = [_json_texts(column, as_float=name in _FLOATS) for name, column in zip(DIGESTED, zip(*rows))]
    return ["[" + line + "]" for line in map(",".join, zip(*texts))]


_NOT_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}  # json's words for them


def _json_texts(column: tuple, *, as_float: bool) -> list[str]:
    """Each value of a column as JSON text: the common cases by type, a column at a time; any
    other value as json writes it."""
    kinds = set(map(type, column))
    if as_float:
        if not kinds <= {float, type(None)}:
            column = tuple(None if v is None else float(v) for v in column)
        texts = ["null" if v is None else repr(v) for v in column]
        if not _NOT_FINITE.keys().isdisjoint(texts):
            texts = [_NOT_FINITE.get(text, text) for text in texts]
        return texts
    if kinds == {str}:
        return list(map(encode_basestring, column))
    if kinds <= {int, type(None)}:
        return ["null" if v is None else str(v) for v in column]
    return [json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in column]


def publication_header(publication: Publication) -> tuple:
    return (publication.date, publication.edition, publication.rated, publication.ranked, publication.starters,
            publication.complete)


def publication_digest(publication: Publication) -> str:
    """The digest of a publication as it is stored now."""
    return entries_digest(publication_header(publication), PublishedEntry.objects.filter(publication=publication)
                          .values_list(*DIGESTED).iterator(10_000))


def publications_entries(publications: list[Publication], *, batch: int = 200_000) -> Iterator[tuple[Publication, list[tuple]]]:
    """Each publication with its entries (DIGESTED's fields), publications read together up to about
    `batch` entries a query (a query each cost 2.6 ms on PostgreSQL, 3 s for the 604 lists of a demo)."""
    start = 0
    while start < len(publications):
        end, size = start + 1, publications[start].rated
        while end < len(publications) and size + publications[end].rated <= batch:
            size += publications[end].rated
            end += 1
        group = publications[start:end]
        rows: dict[int, list[tuple]] = defaultdict(list)
        for pk, *row in PublishedEntry.objects.filter(publication_id__in=[p.pk for p in group]).values_list(
            "publication_id", *DIGESTED,
        ).iterator(50_000):
            rows[pk].append(tuple(row))
        for publication in group:
            yield publication, rows.pop(publication.pk, [])
        start = end


def newest_game() -> int | None:
    """The id of the newest game on record (ids only grow): what a list computed now can hold."""
    return Game.objects.aggregate(newest=Max("pk"))["newest"]


def lists_publish_due(*, system: RatingSystem, today: dt.date, newest: int | None) -> list[Publication]:
    """Publish every list of the system dated on or before `today` that has no publication yet, in
    the caller's transaction (a run's: its lists and their publication commit together); `newest`:
    the newest game on record when the run read its games (newest_game)."""
    published = Publication.objects.filter(system=system).values("date")
    due = list(RatingList.objects.filter(system=system, date__lte=today).exclude(date__in=published).order_by("date"))
    if not due:
        return []
    now = timezone.now()
    publications = Publication.objects.bulk_create([
        Publication(system=system, date=rating_list.date, edition=1, published_at=now, newest_game=newest, rated=rating_list.rated,
                    ranked=rating_list.ranked, starters=rating_list.starters, complete=rating_list.complete)
        for rating_list in due
    ])
    if not connection.features.can_return_rows_from_bulk_insert:  # SQLite before 3.35 gives no ids back
        publications = list(Publication.objects.filter(system=system, date__in=[r.date for r in due], edition=1).order_by("date"))
    for rating_list, publication in zip(due, publications):
        publication.digest = entries_digest(publication_header(publication), _copy_entries(system.pk, rating_list.pk, publication.pk))
    Publication.objects.bulk_update(publications, ["digest"], batch_size=500)
    return publications


@transaction.atomic(durable=True)
def list_republish(*, system: RatingSystem, date: dt.date, actor, reason: str, edition: int) -> Publication:
    """Publish a list again, as computed now, when a ruling must apply to it retroactively: a new
    edition beside the earlier ones, which stay readable; on record with its reason.

    `edition` is the latest edition the request was made from, and the request publishes the one
    after it, once: the same request again (a double click, a form sent twice) gets that edition
    back; another reason from a page that missed it is refused, naming the newer edition."""
    reason = reason.strip()
    if not reason:
        raise ValidationError("Give the reason for publishing this list again: it is shown with the new edition.")
    # one republication of a system at a time: the second of two requests at once sees the first's edition
    RatingSystem.objects.select_for_update().get(pk=system.pk)
    rating_list = RatingList.objects.filter(system=system, date=date).first()
    earlier = Publication.objects.filter(system=system, date=date).aggregate(last=Max("edition"))["last"]
    if rating_list is None or earlier is None:
        raise ValidationError(f"{system.name} has no published list dated {date:%Y-%m-%d} to publish again.")
    if edition > earlier:
        raise ValidationError(f"This list has no edition {edition} yet: reload its page and publish again from there.")
    if edition < earlier:
        return _published_meanwhile(system=system, date=date, edition=edition + 1, actor=actor, reason=reason)
    if RecalculationRun.objects.filter(system=system, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).exists():
        raise ValidationError(f"{system.name} is being recalculated: publish the list again once that run has finished.")
    publication = Publication.objects.create(
        system=system, date=date, edition=earlier + 1, published_at=timezone.now(), newest_game=newest_game(),
        published_by=actor if getattr(actor, "is_authenticated", False) else None,
        reason=reason, rated=rating_list.rated, ranked=rating_list.ranked, starters=rating_list.starters,
        complete=rating_list.complete,
    )
    publication.digest = entries_digest(publication_header(publication), _copy_entries(system.pk, rating_list.pk, publication.pk))
    publication.save(update_fields=["digest"])
    audit_record(actor=actor, action=Action.LIST_REPUBLISH, obj=publication, before={"edition": earlier},
                 after={"edition": publication.edition, "date": date.isoformat(), "digest": publication.digest}, note=reason)
    page_cache.bump_on_commit()
    return publication


def _published_meanwhile(*, system: RatingSystem, date: dt.date, edition: int, actor, reason: str) -> Publication:
    """The edition a request made from the one before it asks for, already published: the same
    request's (same person, same reason) is given back; anyone else's is refused with it named."""
    publication = Publication.objects.select_related("published_by").get(system=system, date=date, edition=edition)
    by = publication.published_by
    if by is not None and by == actor and publication.reason == reason:
        return publication
    who = f", by {by.get_username()}" if by is not None else ""
    raise ValidationError(
        f"Edition {edition} of this list was published meanwhile, at {timezone.localtime(publication.published_at):%Y-%m-%d %H:%M}"
        f"{who}: “{publication.reason}”. Read it, then publish again from its page if the list still needs it."
    )


def _copy_entries(system_id: int, rating_list_id: int, publication_id: int) -> list[tuple]:
    """Copy a list's entries into its publication; returns them (DIGESTED's fields) for its digest,
    as the INSERT gives them back (RETURNING) where the database can, else read back."""
    entry, published = RatingListEntry._meta.db_table, PublishedEntry._meta.db_table
    coach, race, variant = Coach._meta.db_table, Race._meta.db_table, Variant._meta.db_table
    figures = ", ".join(f"e.{name}" for name in _COPIED)
    sql = (
        f"INSERT INTO {published} (publication_id, coach_number, coach_name, nationality, race_slug, race_name,"
        f" variant_slug, variant_name, {', '.join(_COPIED)})"
        # a hidden coach is published under his label alone, without his nationality
        f" SELECT %s, c.number, c.public_name, CASE WHEN c.visibility = %s THEN '' ELSE coalesce(c.nationality, '') END,"
        f" coalesce(r.slug, ''), coalesce(r.name, ''),"
        f" v.slug, v.name, {figures}"
        f" FROM {entry} e JOIN {coach} c ON c.id = e.coach_id LEFT JOIN {race} r ON r.id = e.race_id"
        # the system too: on PostgreSQL it picks the system's partition of the entries
        f" JOIN {variant} v ON v.id = e.variant_id WHERE e.system_id = %s AND e.rating_list_id = %s"
    )
    params: list[int | str] = [publication_id, Visibility.HIDDEN, system_id, rating_list_id]
    returning = f" RETURNING {', '.join(DIGESTED)}"
    if not _returns_rows():
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        return list(PublishedEntry.objects.filter(publication_id=publication_id).values_list(*DIGESTED))
    if connection.vendor == "postgresql":
        return fetch_binary(sql + returning, params)  # binary rows: cheaper to read than text
    with connection.cursor() as cursor:
        cursor.execute(sql + returning, params)
        return cursor.fetchall()


def _returns_rows() -> bool:
    """Whether an INSERT gives its rows back (RETURNING): PostgreSQL does, SQLite from 3.35."""
    return connection.features.can_return_rows_from_bulk_insert


def published_names_replace(*, coach_number: int, name: str, nationality: str | None = None) -> int:
    """Show the coach under `name` in every published list (his choice of privacy, or his erasure),
    and with `nationality` if given ("" for a hidden coach), each list's digest taken again over its
    entries so renamed: the figures stay exactly as published, and verify_ratings checks them as
    before. Answers the publications renamed."""
    changes = {"coach_name": name} if nationality is None else {"coach_name": name, "nationality": nationality}
    differs = Q()
    for field, value in changes.items():
        differs |= ~Q(**{field: value})
    ids = set(PublishedEntry.objects.filter(differs, coach_number=coach_number).values_list("publication_id", flat=True))
    if not ids:
        return 0
    PublishedEntry.objects.filter(coach_number=coach_number, publication_id__in=ids).update(**changes)
    publications = list(Publication.objects.filter(pk__in=ids).order_by("pk"))
    for publication, entries in publications_entries(publications):
        publication.digest = entries_digest(publication_header(publication), entries)
    Publication.objects.bulk_update(publications, ["digest"], batch_size=500)
    return len(publications)
