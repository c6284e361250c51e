"""Reads of the open data: the manifest the dump keeps beside its files, a served file's entry, and
the figures of the /data/ page (through the ratings' and the record's selectors)."""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from ratings import selectors as ratings
from tournaments.selectors import federation_counts

MANIFEST = "manifest.json"
LICENCE = {
    "id": "CC0-1.0",
    "name": "CC0 1.0 Universal (public domain dedication)",
    "url": "https://creativecommons.org/publicdomain/zero/1.0/",
}
LATEST_LISTS_SHOWN = 3  # lists per system on the page; manifest.json lists every file


def data_root() -> Path:
    return Path(settings.DATA_FILES_ROOT)


_read: dict[Path, tuple[tuple[int, int, int], dict]] = {}  # the manifest last read, by path: (its inode, mtime and size; it)


def manifest_load(root: Path | None = None, *, fresh: bool = False) -> dict:
    """The manifest as the last dump wrote it (files, errata, last dump); empty before the first.
    Shared and read again only when it changed (a dump replaces it whole), so that a file's request
    parses no megabyte: not to be changed, but `fresh` (a copy of its own, for the dump to change)."""
    path = (root or data_root()) / MANIFEST
    try:
        stat = path.stat()
    except FileNotFoundError:
        return {"files": [], "errata": []}
    if fresh:
        return json.loads(path.read_text(encoding="utf-8"))
    stamp = (stat.st_ino, stat.st_mtime_ns, stat.st_size)  # a dump replaces it: another inode
    known = _read.get(path)
    if known is None or known[0] != stamp:
        if len(_read) > 8:
            _read.clear()
        known = _read[path] = (stamp, json.loads(path.read_text(encoding="utf-8")))
    return known[1]


def served_file(relative: str, root: Path | None = None) -> tuple[Path, dict] | None:
    """The file at `relative` and its manifest entry, if the manifest lists it as published (never a
    withdrawn file, a temporary one or anything else in the folder)."""
    root = root or data_root()
    entry = next((e for e in manifest_load(root).get("files", []) if e["path"] == relative and e["status"] == "published"), None)
    if entry is None or not (root / relative).is_file():
        return None
    return root / relative, entry


@dataclass
class SystemFiles:
    status: ratings.SystemStatus
    files: list[dict]  # the files of its latest lists (LATEST_LISTS_SHOWN), newest first
    total: int  # every published list file of the system


@dataclass
class DataPage:
    systems: list[SystemFiles]
    dumps: list[dict]  # the newest dump's files
    last_dump: dict | None
    errata: list[dict]  # newest first
    games: int
    events: int
    waiting: int  # events waiting for the staff (submitted): a count only
    updated_at: dt.datetime | None


def data_page() -> DataPage:
    manifest = manifest_load()
    published = [e for e in manifest.get("files", []) if e["status"] == "published"]
    systems = ratings.public_systems()
    lists: dict[str, list[dict]] = {}
    for entry in published:
        if entry["kind"] == "list":
            lists.setdefault(entry["system"], []).append(entry)
    blocks = []
    for status in ratings.systems_status(systems):
        entries = sorted(lists.get(status.system.slug, []), key=lambda e: (e["list_date"], e["edition"], e["revision"]), reverse=True)
        shown = {(e["list_date"], e["edition"]) for e in entries}
        latest = sorted(shown, reverse=True)[:LATEST_LISTS_SHOWN]
        blocks.append(SystemFiles(status, [e for e in entries if (e["list_date"], e["edition"]) in latest], len(entries)))
    dumps = [e for e in published if e["kind"] == "dump"]
    newest = max((e["dump_date"] for e in dumps), default=None)
    counts = federation_counts()
    updated = manifest.get("updated_at")
    return DataPage(
        systems=blocks,
        dumps=sorted((e for e in dumps if e["dump_date"] == newest), key=lambda e: e["path"]),
        last_dump=manifest.get("last_dump"),
        errata=list(reversed(manifest.get("errata", []))),
        games=counts["games"],
        events=counts["events"],
        waiting=ratings.submitted_event_count(),
        updated_at=dt.datetime.fromisoformat(updated) if updated else None,
    )
