"""The open data's page (/data/) and its files.

The files are served as files, never rendered per request: a thin view looks the path up in the
manifest (only what it lists as published is served: no withdrawn file, temporary file or path
outside the folder) and answers with a FileResponse carrying the file's SHA-256 as its ETag and
its writing time as Last-Modified, so a client polling for a new list gets a 304. Not whitenoise:
it indexes its folders when the process starts (files written by the nightly dump would stay
unseen until a restart) and its ETag is the size and time, not the checksum the manifest states.
A front server may serve DATA_FILES_ROOT itself at the same addresses.
"""
from __future__ import annotations

import datetime as dt
import hashlib

from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import render
from django.utils.cache import get_conditional_response
from django.utils.http import http_date
from django.views.decorators.http import require_safe

from downloads import schema, selectors
from ratingsite.page_cache import cached_page

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "knsb": "text/csv; charset=utf-8",
    "json": "application/json",
    "csv.gz": "application/gzip",
    "parquet": "application/vnd.apache.parquet",
}
FILE_MAX_AGE = 24 * 3600  # a published file never changes; a revision is another address
MANIFEST_MAX_AGE = 300


@cached_page
def data_index(request):
    """The downloads with sizes, dates and checksums, the licence, the column dictionary, the errata
    and the status of the data: each system's last run and list, the record's counts."""
    return render(request, "downloads/data.html", {
        "page": selectors.data_page(),
        "licence": selectors.LICENCE,
        "schemas": [(kind, schema.SCHEMA_TITLES[kind], columns) for kind, columns in schema.SCHEMAS.items()],
    })


def _conditional(request, etag: str, modified: dt.datetime | None, answer, *, max_age: int):
    """`answer()` with ETag, Last-Modified and caching headers, or the 304 they allow; readable from any site."""
    timestamp = int(modified.timestamp()) if modified else None
    response = get_conditional_response(request, etag=etag, last_modified=timestamp) or answer()
    response["ETag"] = etag
    if timestamp is not None:
        response["Last-Modified"] = http_date(timestamp)
    response["Cache-Control"] = f"public, max-age={max_age}"
    response["Access-Control-Allow-Origin"] = "*"
    return response


@require_safe
def data_file(request, path: str):
    """A file the manifest lists as published, as it was written."""
    found = selectors.served_file(path)
    if found is None:
        raise Http404("No published open-data file has this address.")
    file, entry = found
    return _conditional(
        request, f'"{entry["sha256"]}"', dt.datetime.fromisoformat(entry["created_at"]),
        lambda: FileResponse(file.open("rb"), filename=file.name, content_type=CONTENT_TYPES.get(entry["format"])),
        max_age=FILE_MAX_AGE,
    )


@require_safe
def data_manifest(request):
    """manifest.json: every file with its size, rows, SHA-256 and time, the errata and the schemas."""
    path = selectors.data_root() / selectors.MANIFEST
    if not path.is_file():
        raise Http404("No open data has been written yet.")
    data = path.read_bytes()
    modified = dt.datetime.fromtimestamp(path.stat().st_mtime, tz=dt.UTC)
    return _conditional(
        request, f'"{hashlib.sha256(data).hexdigest()}"', modified,
        lambda: HttpResponse(data, content_type="application/json"), max_age=MANIFEST_MAX_AGE,
    )
