"""The API's shell, before any view: CORS open for reads, the per-client rate limit (429 with
Retry-After), conditional requests (304) answered from the data version alone, and a data answer
kept for its ETag until the data changes.

The limits are counted in the "limits" cache (Redis when REDIS_URL is set, shared by every
process): one counter a client a minute. A client is its address, or the key it sends in the
X-API-Key header (never read from the query string). ETags are a digest of the page cache's version
(replaced by every change the public pages show: a run's commit, a sanction, a privacy choice) and
the address asked; Last-Modified is when the data last changed (a run, a list, a public event).
"""
from __future__ import annotations

import hashlib
import logging
import math
import time
import uuid

from django.conf import settings
from django.core.cache import cache, caches
from django.http import HttpResponse, JsonResponse
from django.utils.http import http_date, parse_http_date_safe

from api.keys import HEADER, key_limit
from ratings import selectors
from ratingsite.page_cache import VERSION_KEY

logger = logging.getLogger(__name__)

PREFIX = "/api/v1/"
# the data resources: answers that change only when the data does (the runs change as they run)
CONDITIONAL = tuple(f"{PREFIX}{name}" for name in ("systems", "coaches", "events"))
# part of every ETag: a release that changes what the answers hold changes it too
FORMAT = "1"
WINDOW = 60
CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
    "Access-Control-Allow-Headers": "X-API-Key, If-None-Match, If-Modified-Since",
    "Access-Control-Expose-Headers": "ETag, Last-Modified, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining",
    "Access-Control-Max-Age": "86400",
}


def _version() -> str:
    version = cache.get(VERSION_KEY)
    if version is None:  # as the page cache does: an evicted version starts a new one
        cache.add(VERSION_KEY, uuid.uuid4().hex, None)
        version = cache.get(VERSION_KEY) or ""
    return version


def _last_modified(version: str) -> float | None:
    """When the data last changed (seconds since the epoch), read once per data version."""
    key = f"api-last-modified:{version}"
    found = cache.get(key)
    if found is None:
        moment = selectors.data_last_changed()
        found = math.floor(moment.timestamp()) if moment is not None else 0
        cache.set(key, found, 24 * 3600)
    return found or None


def _etag(version: str, request) -> str:
    digest = hashlib.sha256(f"{FORMAT}|{version}|{request.get_full_path()}".encode()).hexdigest()
    return f'"{digest[:32]}"'


def _matches(header: str, etag: str) -> bool:
    tags = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return "*" in tags or etag in tags


def _json(status: int, detail: str, **headers) -> JsonResponse:
    response = JsonResponse({"detail": detail}, status=status)
    for name, value in headers.items():
        response[name] = value
    return response


# A data resource's answer is kept for its ETag (the data version and the address): the same question
# asked again before the data changes is answered without a query. Large answers are not kept.
ANSWER_KEPT_FOR = 600  # seconds
ANSWER_KEPT_UP_TO = 1_000_000  # bytes


def _kept(etag: str) -> HttpResponse | None:
    found = cache.get(f"api-answer:{etag}")
    if found is None:
        return None
    content, content_type = found
    return HttpResponse(content, content_type=content_type)


def _keep(etag: str, response) -> None:
    if response.status_code == 200 and not response.streaming and len(response.content) <= ANSWER_KEPT_UP_TO:
        cache.set(f"api-answer:{etag}", (response.content, response["Content-Type"]), ANSWER_KEPT_FOR)


class ApiMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(PREFIX):
            return self.get_response(request)
        response = self._answer(request)
        for name, value in CORS_HEADERS.items():
            response[name] = value
        return response

    def _answer(self, request):
        if request.method == "OPTIONS":  # a browser's preflight: no count, no body
            return HttpResponse(status=204)
        if request.method not in ("GET", "HEAD"):
            return _json(405, "The API is read-only: GET, HEAD and OPTIONS only.", Allow="GET, HEAD, OPTIONS")
        if request.method == "HEAD":  # the operations are declared for GET: answer as GET, without the body
            request.method = "GET"
            response = self._read(request)
            if not response.streaming:
                length = len(response.content)
                response.content = b""
                response["Content-Length"] = str(length)
            return response
        return self._read(request)

    def _read(self, request):
        limited = self._limit(request)
        if isinstance(limited, HttpResponse):
            return limited
        limit, remaining = limited
        conditional = request.path.startswith(CONDITIONAL)
        if conditional:
            version = _version()
            etag, modified = _etag(version, request), _last_modified(version)
            none_match = request.META.get("HTTP_IF_NONE_MATCH")
            since = parse_http_date_safe(request.META.get("HTTP_IF_MODIFIED_SINCE", ""))
            if (none_match and _matches(none_match, etag)) or (
                not none_match and since is not None and modified is not None and modified <= since
            ):
                response = HttpResponse(status=304)
                response["ETag"] = etag
                if modified is not None:
                    response["Last-Modified"] = http_date(modified)
                return self._limited(response, limit, remaining)
        response = _kept(etag) if conditional else None
        if response is None:
            response = self.get_response(request)
            if conditional:
                _keep(etag, response)
        if conditional and response.status_code == 200:
            response["ETag"] = etag
            if modified is not None:
                response["Last-Modified"] = http_date(modified)
            response["Cache-Control"] = "public, max-age=0, must-revalidate"
        elif response.status_code == 200:
            response["Cache-Control"] = "no-cache"
        return self._limited(response, limit, remaining)

    @staticmethod
    def _limited(response, limit: int, remaining: int):
        response["X-RateLimit-Limit"] = str(limit)
        response["X-RateLimit-Remaining"] = str(max(0, remaining))
        return response

    def _limit(self, request) -> tuple[int, int] | HttpResponse:
        """(limit, requests left this minute), or the 401 of an unknown key, or the 429 past the limit."""
        key = request.META.get(HEADER, "").strip()
        found = key_limit(key) if key else None
        if found is not None:
            client, limit = f"key:{found[0]}", found[1]
        else:  # an unknown key counts against its address too: guessing keys is no way past the limit
            client, limit = f"addr:{request.META.get('REMOTE_ADDR', '')}", settings.API_RATE_ANONYMOUS
        now = time.time()
        window = int(now // WINDOW)
        counter = f"api-rate:{client}:{window}"
        try:
            limits = caches["limits"]
            try:  # one round trip but for a client's first request of the minute
                used = limits.incr(counter)
            except ValueError:
                used = 1 if limits.add(counter, 1, WINDOW + 5) else limits.incr(counter)
        except Exception:  # a cache that is out limits no one: the reads are cheap, and the site stays up
            logger.warning("The API's rate limits could not be counted: request let through.", exc_info=True)
            used = 0
        if key and found is None and used <= limit:
            response = _json(401, "This API key is unknown or revoked: send none to be counted by address.")
            return self._limited(response, limit, limit - used)
        if used > limit:
            wait = max(1, math.ceil((window + 1) * WINDOW - now))
            response = _json(
                429, f"Too many requests: {limit} a minute allowed. Try again in {wait} seconds.", **{"Retry-After": str(wait)},
            )
            return self._limited(response, limit, 0)
        return limit, limit - used

