"""The open data: every published list of every public rating system as files (CSV, JSON, and for
the KNSB list rating the KNSB's semicolon layout), the nightly dump of the game record and the
current ratings (gzip CSV and Parquet), and manifest.json listing them all.

A file once written is never rewritten (downloads.files.write_once). A list republished (a new
edition) gets files of its own and an errata entry; the earlier edition's files stay byte for byte.
A published list whose coach names changed later (a coach chose a pseudonym or to be hidden, or was
erased: ratings.services.publication.published_names_replace) gets a new revision of its files and an
errata entry, and the earlier revision is withdrawn: deleted from the folder, kept in the manifest
with its checksum. The figures never change; names are those of the day the file was written.

Licence: CC0 1.0. The NAF's own game record is published under CC0, and every figure here is derived
from it; CC BY would bind the clubs' widgets and the pairing programs to attribution the source never
asked for, and CC0 lets anyone mirror, combine and republish the files without asking.
"""
from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import json
import os
import shutil
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq
from django.conf import settings
from django.utils import timezone, translation

from downloads import files
from downloads.schema import GAME_HEADER, GAMES, KNSB_HEADER, LIST_CSV, LIST_JSON, LIST_KNSB, RATINGS, RATINGS_HEADER, schema_dictionary
from downloads.selectors import LICENCE, MANIFEST, data_root, manifest_load
from ratings import selectors
from ratings.choices import Method
from ratingsite import page_cache
from ratingsite.csv_export import checked_header, csv_file_text, spreadsheet_text
from ratingsite.formatting import fixed
from tournaments.selectors import public_game_record

PERSONAL_DATA = (
    "Coaches appear by federation number and public name only: a coach who chose a pseudonym under it, a "
    "hidden or erased coach only under his stable anonymous label (\"Anonymous coach\" and six characters), "
    "never his name. Left out everywhere: real names of hidden coaches, e-mail addresses, nationality, birth "
    "years, member accounts, and every event that is not public (drafts, submitted and rejected events)."
)
PARQUET_BATCH = 50_000
GZIP_LEVEL = 6  # level 9 takes twice the time for a few per cent less


@dataclass
class DumpResult:
    """What a dump did: the files it wrote and withdrew (paths under the folder), its errata entries."""

    busy: bool = False
    written: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)
    errata: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def open_data_dump(*, root: Path | None = None, now: dt.datetime | None = None, dumps: bool = True) -> DumpResult:
    """Write what is missing: the files of every publication not yet written (or whose names changed),
    and, with `dumps`, today's dump of the game record and the current ratings; then the manifest if
    anything changed. Safe to run twice: a second run the same day writes nothing. One at a time: a
    dump finding another under way returns `busy` at once."""
    root = root or data_root()
    now = now or timezone.now()
    started = time.perf_counter()
    result = DumpResult()
    with files.exclusive(root) as held:
        if not held:
            return DumpResult(busy=True)
        manifest = manifest_load(root, fresh=True)
        _write_lists(root, manifest, now, result)
        if dumps:
            _write_dump(root, manifest, now, result)
        result.seconds = time.perf_counter() - started
        if result.written or result.withdrawn:
            _save_manifest(root, manifest, now, result)
            page_cache.bump()
    return result


# --- the published lists --------------------------------------------------------------------------


def _list_key(entry: dict) -> tuple:
    return entry["system"], entry["list_date"], entry["edition"]


def _write_lists(root: Path, manifest: dict, now: dt.datetime, result: DumpResult) -> None:
    written: dict[tuple, dict] = {}  # key -> the latest revision's first entry not withdrawn
    for entry in manifest["files"]:
        if entry["kind"] == "list" and entry["status"] == "published":
            known = written.get(_list_key(entry))
            if known is None or entry["revision"] > known["revision"]:
                written[_list_key(entry)] = entry
    for publication in selectors.open_data_publications(selectors.public_systems()):
        key = (publication.system.slug, publication.date.isoformat(), publication.edition)
        known = written.get(key)
        if known is not None and known["publication_digest"] == publication.digest:
            continue
        revision = 1 if known is None else known["revision"] + 1
        entries = _list_files(root, publication, revision, now)
        manifest["files"].extend(entries)
        result.written.extend(entry["path"] for entry in entries)
        if known is not None:
            replaced = _withdraw(root, manifest, key, known["revision"], now)
            result.withdrawn.extend(replaced)
            _erratum(manifest, result, now, publication, "renamed", entries, replaced)
        elif publication.edition > 1:
            _erratum(manifest, result, now, publication, "edition", entries, [])


def _erratum(manifest: dict, result: DumpResult, now: dt.datetime, publication, kind: str, entries: list[dict],
             replaced: list[str]) -> None:
    system, day, edition = publication.system, publication.date.isoformat(), publication.edition
    if kind == "edition":
        text = (f"{system.name}'s list of {day} was published again as edition {edition}: {publication.reason} "
                f"The files of edition {edition - 1} stay as they were.")
    else:
        text = (f"Coach names on {system.name}'s list of {day} (edition {edition}) changed after its files were "
                "written (a coach chose a pseudonym or to be hidden, or was erased): the files were written again "
                "under the names shown now, and the earlier ones withdrawn. The figures are unchanged.")
    erratum = {
        "date": now.isoformat(), "kind": kind, "system": system.slug, "list_date": day, "edition": edition,
        "reason": publication.reason if kind == "edition" else "", "files": [entry["path"] for entry in entries],
        "replaces": replaced, "text": text,
    }
    manifest["errata"].append(erratum)
    result.errata.append(erratum)


def _withdraw(root: Path, manifest: dict, key: tuple, revision: int, now: dt.datetime) -> list[str]:
    """Delete an earlier revision's files (they name coaches as they may no longer be named); the
    manifest keeps them, withdrawn, with their checksums."""
    paths = []
    for entry in manifest["files"]:
        if entry["kind"] == "list" and _list_key(entry) == key and entry["revision"] == revision and entry["status"] == "published":
            (root / entry["path"]).unlink(missing_ok=True)
            entry["status"], entry["withdrawn_at"] = "withdrawn", now.isoformat()
            paths.append(entry["path"])
    return paths


def _list_files(root: Path, publication, revision: int, now: dt.datetime) -> list[dict]:
    system = publication.system
    rows = selectors.export_rows(system, publication=publication)
    base = f"lists/{system.slug}/{system.slug}-{publication.date:%Y-%m-%d}-e{publication.edition}-r{revision}"
    common = {
        "kind": "list", "system": system.slug, "list_date": publication.date.isoformat(), "edition": publication.edition,
        "revision": revision, "published_at": publication.published_at.isoformat(), "complete": publication.complete,
        "publication_digest": publication.digest,
    }
    entries = [
        _file(root, f"{base}.csv", lambda h: _write_text(h, csv_file_text(selectors.EXPORT_HEADER, rows)), len(rows), now,
              {**common, "format": "csv", "schema": LIST_CSV}),
        _file(root, f"{base}.json", lambda h: h.write(_list_json(publication, revision, rows)), len(rows), now,
              {**common, "format": "json", "schema": LIST_JSON}),
    ]
    if system.method == Method.KNSB:
        for (variant, race), group in groupby(selectors.knsb_layout_rows(publication), key=lambda r: (r[0], r[1])):
            lines = [(number, name, fixed(value, 0), "" if nv is None else nv, "") for _, _, number, name, value, nv in group]
            suffix = f"-{variant}" + (f"-{race}" if race else "")
            entries.append(_file(root, f"{base}{suffix}.knsb.csv", lambda h, lines=lines: h.write(_knsb_text(lines)),
                                 len(lines), now, {**common, "format": "knsb", "schema": LIST_KNSB, "variant": variant,
                                                   "race": race}))
    return entries


def _write_text(handle: BinaryIO, pieces: Iterable[str]) -> None:
    for piece in pieces:
        handle.write(piece.encode("utf-8"))


def _number(text: str, kind=float) -> Any:
    return kind(text) if text != "" else None


def _list_json(publication, revision: int, rows: list[list[str]]) -> bytes:
    """The list as JSON: what it is, then its entries with export_rows' columns and figures (numbers
    as the CSV writes them, read as numbers)."""
    system = publication.system
    entries = [
        {"coach_number": int(number), "coach": name, "race": race, "variant": variant, "rating": _number(rating),
         "mu": _number(mu), "phi": _number(phi), "sigma": _number(sigma), "rank": _number(rank, int), "games": int(games)}
        for number, name, race, variant, rating, mu, phi, sigma, rank, games in rows
    ]
    document = {
        "system": system.slug, "system_name": system.name, "method": system.method, "list_date": publication.date.isoformat(),
        "edition": publication.edition, "revision": revision, "published_at": publication.published_at.isoformat(),
        "reason": publication.reason, "complete": publication.complete, "publication_digest": publication.digest,
        "licence": LICENCE["id"], "columns": list(selectors.EXPORT_HEADER), "entries": entries,
    }
    return (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _knsb_text(lines: list[tuple]) -> bytes:
    """The KNSB list layout: semicolons, UTF-8 without a byte order mark, CRLF line ends, whole ratings
    (so no decimal separator arises), names protected from spreadsheets' formulas as every CSV of the site."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(KNSB_HEADER)
    writer.writerows((number, spreadsheet_text(name), rating, nv, born) for number, name, rating, nv, born in lines)
    return out.getvalue().encode("utf-8")


def _file(root: Path, relative: str, write, rows: int, now: dt.datetime, extra: dict) -> dict:
    """Write one file once and describe it for the manifest. A file already there that the manifest
    does not list was written by a dump that stopped before its manifest: it is kept as it is."""
    path = root / relative
    created = now
    try:
        files.write_once(path, write)
    except files.AlreadyWritten:
        created = dt.datetime.fromtimestamp(path.stat().st_mtime, tz=dt.UTC)
    return {"path": relative, **extra, "size": path.stat().st_size, "rows": rows, "sha256": files.sha256_of(path),
            "created_at": created.isoformat(), "status": "published", "licence": LICENCE["id"]}


# --- the nightly dump -----------------------------------------------------------------------------

_GAME_TYPES = [
    pa.int64(), pa.int64(), pa.string(), pa.string(), pa.string(), pa.int32(), pa.timestamp("us", tz="UTC"), pa.date32(),
    pa.string(), pa.int64(), pa.string(), pa.string(), pa.int32(), pa.int32(), pa.int64(), pa.string(), pa.string(),
    pa.int32(), pa.int32(), pa.string(),
]
GAME_SCHEMA = pa.schema(list(zip(GAME_HEADER, _GAME_TYPES, strict=True)))
RATINGS_SCHEMA = pa.schema(list(zip(RATINGS_HEADER, [
    pa.string(), pa.int64(), pa.string(), pa.string(), pa.string(), pa.float64(), pa.float64(), pa.float64(), pa.float64(),
    pa.int64(), pa.int64(),
], strict=True)))


def _write_dump(root: Path, manifest: dict, now: dt.datetime, result: DumpResult) -> None:
    day = timezone.localdate(now).isoformat()
    folder = f"dumps/{day}"
    if any(entry["kind"] == "dump" and entry["dump_date"] == day for entry in manifest["files"]):
        return  # today's dump is written: a second run the same day writes nothing
    started = time.perf_counter()
    entries = [
        *_dataset(root, folder, "games", GAMES, GAME_SCHEMA, _game_rows(), now, day),
        *_dataset(root, folder, "ratings", RATINGS, RATINGS_SCHEMA, _rating_rows(), now, day),
    ]
    manifest["files"].extend(entries)
    result.written.extend(entry["path"] for entry in entries)
    manifest["last_dump"] = {"date": day, "started_at": now.isoformat(), "seconds": round(time.perf_counter() - started, 3),
                             "games": entries[0]["rows"], "ratings": entries[2]["rows"]}
    _expire_dumps(root, manifest, result)


def _expire_dumps(root: Path, manifest: dict, result: DumpResult) -> None:
    """Keep the newest DATA_DUMPS_KEPT days of dumps (a dump names coaches as they were named that day)."""
    days = sorted({entry["dump_date"] for entry in manifest["files"] if entry["kind"] == "dump"}, reverse=True)
    old = set(days[max(1, settings.DATA_DUMPS_KEPT):])
    if not old:
        return
    for day in old:
        shutil.rmtree(root / "dumps" / day, ignore_errors=True)
    result.withdrawn.extend(e["path"] for e in manifest["files"] if e["kind"] == "dump" and e["dump_date"] in old)
    manifest["files"] = [e for e in manifest["files"] if not (e["kind"] == "dump" and e["dump_date"] in old)]


def _game_rows() -> Iterator[tuple[tuple, tuple]]:
    """Each public game as (its CSV row, its Parquet row). The CSV's text cells are protected from
    spreadsheets' formulas as every CSV of the site (ratingsite.csv_export); figures are integers."""
    for row in public_game_record():
        (game, event, name, status, variant, round_, played, reported, kind, home_number, home, home_race, home_td,
         home_cas, away_number, away, away_race, away_td, away_cas, conceded) = row
        played = played.astimezone(dt.UTC)
        text = (game, event, spreadsheet_text(name), status, variant, round_, played.strftime("%Y-%m-%dT%H:%M:%SZ"),
                reported.isoformat() if reported else "", kind, home_number, spreadsheet_text(home), home_race, home_td,
                home_cas, away_number, spreadsheet_text(away) if away else "", away_race, away_td, away_cas, conceded)
        yield text, (*row[:6], played, *row[7:])


def _rating_rows() -> Iterator[tuple[tuple, tuple]]:
    """Each current rating of every public system as (its CSV row: export_ratings' text, its Parquet row)."""
    for system in selectors.public_systems():
        for row in selectors.export_rows(system):
            number, name, race, variant, rating, mu, phi, sigma, rank, games = row
            yield (system.slug, number, spreadsheet_text(name), race, variant, rating, mu, phi, sigma, rank, games), (
                system.slug, int(number), name, race, variant, _number(rating), _number(mu), _number(phi), _number(sigma),
                _number(rank, int), int(games))


def _dataset(root: Path, folder: str, name: str, schema_name: str, schema: pa.Schema, rows: Iterable[tuple[tuple, tuple]],
             now: dt.datetime, day: str) -> list[dict]:
    """One dataset written in one pass as gzip CSV and Parquet, each file atomically and once."""
    csv_path, parquet_path = root / folder / f"{name}.csv.gz", root / folder / f"{name}.parquet"
    for orphan in (csv_path, parquet_path):
        # left by a dump that stopped before its manifest: never listed, so never published; written anew
        orphan.unlink(missing_ok=True)
    count = 0
    with files.temporary(csv_path) as (csv_temp, csv_handle), files.temporary(parquet_path) as (parquet_temp, parquet_handle):
        parquet = pq.ParquetWriter(parquet_handle, schema, compression="zstd")
        batch: list[tuple] = []

        def flush() -> None:
            if batch:
                columns = list(zip(*batch, strict=True))
                parquet.write_table(pa.Table.from_arrays([pa.array(c, type=t) for c, t in zip(columns, schema.types, strict=True)],
                                                        schema=schema))
                batch.clear()

        with gzip.GzipFile(filename="", mode="wb", fileobj=csv_handle, compresslevel=GZIP_LEVEL, mtime=0) as packed, \
                io.TextIOWrapper(packed, encoding="utf-8", newline="") as text:
            lines = csv.writer(text, lineterminator="\n")
            lines.writerow(checked_header(schema.names))
            for text_row, row in rows:
                lines.writerow(text_row)
                batch.append(row)
                count += 1
                if len(batch) >= PARQUET_BATCH:
                    flush()
        flush()
        parquet.close()
        for temp, handle, path in ((csv_temp, csv_handle, csv_path), (parquet_temp, parquet_handle, parquet_path)):
            handle.flush()
            os.fsync(handle.fileno())
            files.publish(temp, path)
    extra = {"kind": "dump", "dataset": name, "dump_date": day, "schema": schema_name}
    return [
        _described(root, f"{folder}/{name}.csv.gz", count, now, {**extra, "format": "csv.gz"}),
        _described(root, f"{folder}/{name}.parquet", count, now, {**extra, "format": "parquet"}),
    ]


def _described(root: Path, relative: str, rows: int, now: dt.datetime, extra: dict) -> dict:
    path = root / relative
    return {"path": relative, **extra, "size": path.stat().st_size, "rows": rows, "sha256": files.sha256_of(path),
            "created_at": now.isoformat(), "status": "published", "licence": LICENCE["id"]}


# --- the manifest ---------------------------------------------------------------------------------


def _save_manifest(root: Path, manifest: dict, now: dt.datetime, result: DumpResult) -> None:
    with translation.override("en"):
        schemas = schema_dictionary()
    document = {
        "title": "Open data of the federation's rating site",
        "site": settings.SITE_URL,
        "updated_at": now.isoformat(),
        "licence": LICENCE,
        "personal_data": PERSONAL_DATA,
        "immutability": "A file is never rewritten: a new edition or revision is a new file, and the errata say why.",
        "last_dump": manifest.get("last_dump"),
        "files": sorted(manifest["files"], key=lambda e: e["path"]),
        "errata": manifest["errata"],
        "schemas": schemas,
    }
    files.replace(root / MANIFEST, (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))

