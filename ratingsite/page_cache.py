"""The public pages' shell: their query strings checked, and their answers cached per address until
the next change commits.

Each cached view declares the query parameters it reads (`cached_page(reads=...)`); any other is
dropped before the view sees the request, so it neither reaches the page (its links, its share
address) nor the cache key, and the rest are put in one order, page numbers written one way: an
address with `&r=<random>` is the page without it, read from the cache.

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
once on the same cores. A streamed answer (a CSV download) lasts as long as its slowest reader: the
others asking for it meanwhile stream their own while an export slot is free, and otherwise wait
for it to be kept (up to `WAIT`) and read it (eight clients downloading the whole ranking at once:
one builds it, the rest read it).

A bounded share of the workers: the anonymous requests that render (not read) a page take one of
PAGE_RENDER_SLOTS site-wide, and every CSV download one of PAGE_EXPORT_SLOTS, held through the
cache (Redis in production) until the answer is made (a download: until it has streamed). A request
that finds them all taken for SLOT_WAIT gets a 503 with Retry-After; a cache that is out bounds none.
"""
from __future__ import annotations

import hashlib
import time
import uuid
import zlib
from collections.abc import Iterable, Iterator
from functools import wraps

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.db import connection, transaction
from django.http import HttpResponse, QueryDict
from django.shortcuts import render
from django.utils import translation
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
# how long a request waits for a render or download slot before its 503 (it holds a worker meanwhile:
# short), and what the 503 says to wait
SLOT_WAIT = 0.5
RETRY_AFTER = 5
# a slot a killed process held frees itself: past gunicorn's 30 s timeout, the longest a render lives
SLOT_TIMEOUT = 60
TABLE_FIELDS = ("page", "sort", "per_page")
# what the rendering mark of an address says: a render under way, or a download streaming
RENDERING, STREAMING = "rendering", "streaming"
EXPORT_PARAMETER = "_export"


class BadParameter(Exception):
    """A query parameter a public page cannot use: answered with a 400 and this message."""


def table_parameters(*prefixes: str) -> tuple[str, ...]:
    """The parameters a django-tables2 table of each prefix reads (its page, order and page size);
    no prefix: the unprefixed table's."""
    return tuple(f"{prefix}{name}" for prefix in (prefixes or ("",)) for name in TABLE_FIELDS)


def _is_page_field(name: str) -> bool:
    return name.endswith("page") and not name.endswith("per_page")


def keep_parameters(request, reads: frozenset[str], *, page_numbers: bool = True) -> None:
    """Leave in the request's query string only the parameters in `reads`, by name in one order
    (each one's values in the order given), so that addresses asking the same have one key. With
    `page_numbers`, a page number loses its leading zeros and a page that is no number is dropped
    (a table shows its first page then anyway)."""
    kept = QueryDict(mutable=True)
    for name in sorted(set(request.GET) & reads):
        values = request.GET.getlist(name)
        if page_numbers and _is_page_field(name):
            values = [value.lstrip("0") or "0" for value in values if value.isascii() and value.isdigit()]
        if values:
            kept.setlist(name, values)
    kept._mutable = False
    request.GET = kept
    request.META["QUERY_STRING"] = kept.urlencode()


def paginate_table(request, table, per_page: int, *, max_per_page: int) -> None:
    """Page a django-tables2 table as the query string asks. A page size from 1 to `max_per_page`
    rows is honoured, any other raises BadParameter (a 400 behind `cached_page`); a page that is not
    a number is the first, one out of range the last."""
    name = table.prefixed_per_page_field
    asked = request.GET.get(name)
    if asked is not None and not (asked.isascii() and asked.isdigit() and 1 <= int(asked) <= max_per_page):
        raise BadParameter(translation.gettext("“%(parameter)s” is not a page size: give a number of rows from 1 to %(most)s.") % {
            "parameter": f"{name}={asked[:20]}", "most": max_per_page})
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
    # scheme, host, path and the whole query string: the share links a page shows hold them all; and
    # the language it is rendered in (its address says it, but a render in one is never the other's)
    address = request.build_absolute_uri()
    language = translation.get_language()
    return "page-cache:page:" + hashlib.sha256(f"{version}|{language}|{address}".encode()).hexdigest()


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


def cached_page(view=None, /, *, reads: Iterable[str] = (), page_numbers: bool = True):
    """A public view behind the query check (`checked_parameters`) and the versioned cache, seeing
    only the query parameters it `reads` (none when used bare); `page_numbers`: see keep_parameters.

    An anonymous GET is answered from the cache when this address was rendered since the last
    change; otherwise the view renders it in a render slot (a download in an export slot), and a
    storable answer is kept.
    """
    if view is None:
        return lambda view: cached_page(view, reads=reads, page_numbers=page_numbers)
    known = frozenset(reads)
    exported = in_site_language(view)

    @wraps(view)
    def cached(request, *args, **kwargs):
        keep_parameters(request, known, page_numbers=page_numbers)
        exporting = EXPORT_PARAMETER in request.GET
        if not _uses_cache(request):
            if not exporting:
                return view(request, *args, **kwargs)
            return _in_slot(exported, request, args, kwargs, "export", settings.PAGE_EXPORT_SLOTS)
        key = _key(request, _version())
        if (hit := cache.get(key)) is not None:
            return _answer(hit)
        rendering = cache.add(_rendering(key), RENDERING, WAIT)
        pool, slots = ("export", settings.PAGE_EXPORT_SLOTS) if exporting else ("render", settings.PAGE_RENDER_SLOTS)
        slot = None
        if not rendering:
            hit, slot = _awaited(key, pool, slots)
            if hit is not None:
                return _answer(hit)
        if slot is None:
            slot = _slot_take(pool, slots)
        if slot is None:
            _done(key, rendering)
            return _busy()
        try:
            response = (exported if exporting else view)(request, *args, **kwargs)
        except BaseException:
            _slot_free(slot)
            _done(key, rendering)
            raise
        if response.streaming:
            if rendering:
                # the others asking for it meanwhile stream their own while a slot is free, else
                # wait for this one to be kept (up to WAIT) and read it
                cache.set(_rendering(key), STREAMING, WAIT)
            storable = _storable(request, response)
            headers = [(header, response[header]) for header in KEPT_HEADERS if header in response]
            response.streaming_content = _streamed(
                response.streaming_content, key if storable else None, headers, lambda: (_slot_free(slot), _done(key, rendering)),
            )
            return response
        _slot_free(slot)
        if _storable(request, response):
            headers = [(header, response[header]) for header in KEPT_HEADERS if header in response]
            _keep(key, headers, zlib.compress(response.content, 1))
        _done(key, rendering)
        return response

    return checked_parameters(cached)


def in_site_language(view):
    """The view answering in the site's own language (English) whatever the address's: a download is
    the same file from /nl/ (its rows stream in English too: ratingsite.csv_export)."""

    @wraps(view)
    def english(request, *args, **kwargs):
        with translation.override(settings.LANGUAGE_CODE):
            return view(request, *args, **kwargs)

    return english


def _in_slot(view, request, args, kwargs, pool: str, slots: int):
    """The view's answer made in a slot of `pool` (a 503 when none frees within SLOT_WAIT), the slot
    held until a streamed answer ends."""
    slot = _slot_take(pool, slots)
    if slot is None:
        return _busy()
    try:
        response = view(request, *args, **kwargs)
    except BaseException:
        _slot_free(slot)
        raise
    if not response.streaming:
        _slot_free(slot)
        return response
    response.streaming_content = _streamed(response.streaming_content, None, [], lambda: _slot_free(slot))
    return response


def _slot_take(pool: str, slots: int, *, wait: float | None = None) -> str | None:
    """The key of a slot of `pool` now held by this request; "" when the cache refuses every slot
    though it holds none (it is out: the page is worth more than the bound then); None when all
    stayed taken for `wait` seconds (SLOT_WAIT by default)."""
    keys = [f"page-cache:slot:{pool}:{number}" for number in range(slots)]
    deadline = time.monotonic() + (SLOT_WAIT if wait is None else wait)
    while True:
        for key in keys:
            if cache.add(key, 1, SLOT_TIMEOUT):
                return key
        if not cache.get_many(keys):
            return ""
        if time.monotonic() >= deadline:
            return None
        time.sleep(POLL)


def _slot_free(slot: str) -> None:
    if slot:
        cache.delete(slot)


def _busy() -> HttpResponse:
    response = HttpResponse(
        f"The site is busy making other pages like this one: try again in {RETRY_AFTER} seconds.",
        status=503, content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(RETRY_AFTER)
    return response


def _answer(hit) -> HttpResponse:
    status, headers, content = hit
    response = HttpResponse(zlib.decompress(content), status=status)
    for header, value in headers:
        response[header] = value
    return response


def _awaited(key: str, pool: str, slots: int) -> tuple:
    """(the answer another request is rendering, once it is kept; None if it is not within WAIT or
    that render ended without keeping one, this request rendering then), and the slot of `pool`
    taken meanwhile: one free while the other streams a download (a slow reader holds back no one
    while there is room; the others wait for the download to be kept)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        time.sleep(POLL)
        if (hit := cache.get(key)) is not None:
            return hit, None
        marker = cache.get(_rendering(key))
        if marker is None:
            return cache.get(key), None
        if marker == STREAMING and (slot := _slot_take(pool, slots, wait=0)) is not None:
            return None, slot
    return None, None


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


def _streamed(chunks: Iterable[bytes], key: str | None, headers: list, end) -> Iterator[bytes]:
    """The chunks as they stream, then `end()` (also when the download stops half-way). With a
    `key`, compressed on the side and kept once the last has gone (not past MAX_BYTES)."""
    packer, packed, size = zlib.compressobj(1), [] if key else None, 0
    try:
        for chunk in chunks:
            if packed is not None:
                piece = packer.compress(chunk)
                size += len(piece)
                packed.append(piece)
                if size > MAX_BYTES:
                    packed = None
            yield chunk
        if key and packed is not None:
            _keep(key, headers, b"".join([*packed, packer.flush()]))
    finally:
        end()


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
            return bad_parameter_page(request, translation.gettext(
                "The query parameter “%(name)s” holds a control character: remove it from the address.") % {"name": name})
        try:
            return view(request, *args, **kwargs)
        except BadParameter as error:
            return bad_parameter_page(request, str(error))

    return wrapper
