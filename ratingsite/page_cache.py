"""The public pages' shell: their query strings checked, and their answers cached per address until
the next change commits.

Every write that changes what public pages show (a sanction, a correction, a merge, a run's commit,
a statistics refresh) calls `bump_on_commit()`: it replaces the version that every cached page's key
carries, so the next request renders afresh and the old entries age out. Only anonymous GET requests
outside a transaction (no ATOMIC_REQUESTS) are served from the cache or stored in it, and only
complete 200 answers that set no cookie and hold no CSRF token; a streamed one (a CSV download) is
kept as it streams, once it has streamed to the end. The cache is Django's default one: shared by
every process only where it is a shared cache (Redis in production); with a local-memory cache
another process's change shows once `TIMEOUT` has passed.

One render at a time per address: after a change, the first request of a page renders it and the
others asking for it meanwhile wait for that answer (up to `WAIT`), instead of all rendering it at
once on the same cores. A streamed answer is no such render: it lasts as long as its slowest reader,
so the others stop waiting as soon as it starts streaming and stream their own.
"""
from __future__ import annotations

import hashlib
import time
import uuid
import zlib
from collections.abc import Iterable, Iterator
from functools import wraps

from django.contrib.messages import get_messages
from django.core.cache import cache
from django.db import connection, transaction
from django.http import HttpResponse
from django.shortcuts import render
from django_tables2 import RequestConfig

VERSION_KEY = "page-cache:version"
# a safety net for changes made past the services (the admin, a shell): never stale for longer
TIMEOUT = 300
# stored compressed (HTML shrinks tenfold or more): the race grid's 15 MB page fits
MAX_BYTES = 4 * 1024 * 1024
KEPT_HEADERS = ("Content-Type", "Content-Disposition", "Content-Language")
# how long a request waits for another's render of the same page before rendering it itself
WAIT = 10.0
POLL = 0.05


class BadParameter(Exception):
    """A query parameter a public page cannot use: answered with a 400 and this message."""


def paginate_table(request, table, per_page: int, *, max_per_page: int) -> None:
    """Page a django-tables2 table as the query string asks. A page size from 1 to `max_per_page`
    rows is honoured, any other raises BadParameter (a 400 behind `cached_page`); a page that is not
    a number is the first, one out of range the last."""
    name = table.prefixed_per_page_field
    asked = request.GET.get(name)
    if asked is not None and not (asked.isascii() and asked.isdigit() and 1 <= int(asked) <= max_per_page):
        raise BadParameter(f"“{name}={asked[:20]}” is not a page size: give a number of rows from 1 to {max_per_page}.")
    RequestConfig(request, paginate={"per_page": per_page}).configure(table)


def bump() -> None:
    """Every page cached so far is out of date: the next request of each renders it again."""
    cache.set(VERSION_KEY, uuid.uuid4().hex, None)


def bump_on_commit() -> None:
    """Out of date once the current transaction commits (at once outside one). A page rendered while
    it commits was stored under the version read before: it is never served after the bump."""
    transaction.on_commit(bump)


def _version() -> str:
    version = cache.get(VERSION_KEY)
    if version is None:
        # an evicted or flushed version starts a new one: nothing cached before it is served
        cache.add(VERSION_KEY, uuid.uuid4().hex, None)
        version = cache.get(VERSION_KEY)
    return version


def _key(request, version: str) -> str:
    # scheme, host, path and the whole query string: the share links a page shows hold them all
    address = request.build_absolute_uri()
    return "page-cache:page:" + hashlib.sha256(f"{version}|{address}".encode()).hexdigest()


def control_character(request) -> str | None:
    """The first query parameter (name or value) holding a control character, or None."""
    for name, values in request.GET.lists():
        for text in (name, *values):
            if any(ord(char) < 32 or ord(char) == 127 for char in text):
                return name
    return None


def _uses_cache(request) -> bool:
    # inside a transaction a page may show what is not committed yet (or miss what is): never cached
    return (
        request.method == "GET" and not connection.in_atomic_block and not request.user.is_authenticated
        and not len(get_messages(request))
    )


def _storable(request, response) -> bool:
    return (
        response.status_code == 200
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")  # a form with a token: that visitor's own
        and not getattr(getattr(request, "session", None), "modified", False)
        and not len(get_messages(request))
        and not {"private", "no-store", "no-cache"} & {part.strip() for part in response.get("Cache-Control", "").split(",")}
    )


def cached_page(view):
    """A public view behind the query check (`checked_parameters`) and the versioned cache.

    An anonymous GET is answered from the cache when this address was rendered since the last
    change; otherwise the view renders it, and a storable answer is kept.
    """

    @wraps(view)
    def cached(request, *args, **kwargs):
        if not _uses_cache(request):
            return view(request, *args, **kwargs)
        key = _key(request, _version())
        if (hit := cache.get(key)) is not None:
            return _answer(hit)
        rendering = cache.add(_rendering(key), 1, WAIT)
        if not rendering and (hit := _awaited(key)) is not None:
            return _answer(hit)
        try:
            response = view(request, *args, **kwargs)
        except BaseException:
            _done(key, rendering)
            raise
        if not _storable(request, response):
            _done(key, rendering)
            return response
        headers = [(header, response[header]) for header in KEPT_HEADERS if header in response]
        if response.streaming:
            # waiting for a stream to end would hold back the others' first byte until then (up to WAIT)
            _done(key, rendering)
            response.streaming_content = _kept_as_streamed(response.streaming_content, key, headers)
            return response
        _keep(key, headers, zlib.compress(response.content, 1))
        _done(key, rendering)
        return response

    return checked_parameters(cached)


def _answer(hit) -> HttpResponse:
    status, headers, content = hit
    response = HttpResponse(zlib.decompress(content), status=status)
    for header, value in headers:
        response[header] = value
    return response


def _awaited(key: str):
    """The answer another request is rendering, once it is kept; None if it is not within WAIT (or
    that render ended without keeping one: this request renders then)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        time.sleep(POLL)
        if (hit := cache.get(key)) is not None:
            return hit
        if cache.get(_rendering(key)) is None:
            return cache.get(key)
    return None


def _keep(key: str, headers: list, content: bytes) -> None:
    """Keep a page's complete 200 answer (compressed `content`) if it fits."""
    if len(content) <= MAX_BYTES:
        cache.set(key, (200, headers, content), TIMEOUT)


def _rendering(key: str) -> str:
    """The key that says a request is rendering the page of `key`."""
    return f"{key}:rendering"


def _done(key: str, rendering: bool) -> None:
    if rendering:
        cache.delete(_rendering(key))


def _kept_as_streamed(chunks: Iterable[bytes], key: str, headers: list) -> Iterator[bytes]:
    """The chunks as they stream, compressed on the side and kept once the last has gone (not if
    the download stopped half-way, nor past MAX_BYTES)."""
    packer, packed, size = zlib.compressobj(1), [], 0
    for chunk in chunks:
        if packed is not None:
            piece = packer.compress(chunk)
            size += len(piece)
            packed.append(piece)
            if size > MAX_BYTES:
                packed = None
        yield chunk
    if packed is not None:
        _keep(key, headers, b"".join([*packed, packer.flush()]))


def bad_parameter_page(request, message: str) -> HttpResponse:
    """The site's 400 page, with its navigation, saying which parameter to mend."""
    return render(request, "400.html", {"message": message}, status=400)


def checked_parameters(view):
    """A view behind the query check: a query string with a control character (a NUL byte, say) and
    a `BadParameter` the view raises get a 400 with a message (never cached)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        name = control_character(request)
        if name is not None:
            return bad_parameter_page(request, f"The query parameter “{name}” holds a control character: remove it from the address.")
        try:
            return view(request, *args, **kwargs)
        except BadParameter as error:
            return bad_parameter_page(request, str(error))

    return wrapper
