"""API benchmark on PostgreSQL and Redis under gunicorn: p50/p95 of the open-data API's list
endpoints (first page, a deep cursor, filtered), a coach's rating history and a 304 answer, with
concurrent clients. Prints figures; asserts nothing.

    .venv/bin/python bench/api.py                          # 1,000,000 games, 4 clients
    .venv/bin/python bench/api.py --games 20000            # a smoke run
    .venv/bin/python bench/api.py --reuse                  # keep the database of an earlier run

Targets (issue 34): list endpoints p95 at most 50 ms with 4 clients, a coach's history 30 ms, a 304
answer 5 ms. The rate limits are counted in Redis as in production (set high enough not to refuse).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import pages  # noqa: E402
from bench.federation import setup_django  # noqa: E402
from bench.machine import reference  # noqa: E402
from bench.pages import build, free_port, hammer, percentile  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/ratingsite_bench_api"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
TARGETS = {"list": 50.0, "history": 30.0, "304": 5.0}


def _get(port: int, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers=headers or {})
    response = conn.getresponse()
    return response.status, dict(response.getheaders()), response.read()


def deep_cursor(port: int, path: str, pages: int) -> str:
    """The address `pages` pages into a list, followed cursor by cursor as a client would."""
    for _ in range(pages):
        status, _, body = _get(port, path)
        following = json.loads(body)["next"] if status == 200 else None
        if not following:
            break
        path = following.split("://", 1)[1].split("/", 1)[1]
        path = "/" + path
    return path


def requests_to_measure(port: int) -> list[tuple[str, str, dict]]:
    """(kind, path, headers) of the requests measured, chosen from the data: the busiest coach and key."""
    from django.db.models import Count

    from ratings.models import CurrentRating, Publication
    from tournaments.models import GameSide

    busiest = GameSide.objects.values("coach__number").annotate(n=Count("id")).order_by("-n").first()["coach__number"]
    key = CurrentRating.objects.filter(system__slug="elo").select_related("coach", "race", "variant").order_by("-games").first()
    filtered = urlencode({"variant": key.variant.slug, "race": key.race.slug})
    publication = Publication.objects.filter(system__slug="elo").order_by("-date", "-edition").first()
    found = [
        ("list", "/api/v1/systems/elo/ratings", {}),
        ("list", deep_cursor(port, "/api/v1/systems/elo/ratings?limit=50", 100), {}),
        ("list", f"/api/v1/systems/elo/ratings?{filtered}&active=true", {}),
        ("list", "/api/v1/systems/glicko/ratings?country=NL", {}),
        ("list", f"/api/v1/coaches?{urlencode({'q': key.coach.public_name.split()[-1]})}", {}),
        ("list", "/api/v1/coaches?q=coach", {}),
        ("list", deep_cursor(port, "/api/v1/coaches?limit=50", 100), {}),
        ("list", "/api/v1/events", {}),
        ("list", "/api/v1/runs", {}),
        ("history", f"/api/v1/coaches/{busiest}/history/elo", {}),
        ("history", f"/api/v1/coaches/{busiest}/history/glicko", {}),
        ("history", f"/api/v1/coaches/{key.coach.number}/history/knsb", {}),
    ]
    if publication is not None:
        found.insert(7, ("list", f"/api/v1/systems/elo/lists/{publication.date:%Y-%m}/entries", {}))
    _, headers, _ = _get(port, "/api/v1/systems/elo/ratings")
    found.append(("304", "/api/v1/systems/elo/ratings", {"If-None-Match": headers.get("ETag", "")}))
    return found


def start_gunicorn(url: str, redis_url: str, port: int, workers: int) -> subprocess.Popen:
    """The pages benchmark's gunicorn with the cache in `redis_url` and limits no client reaches."""
    return pages.start_gunicorn(url, port, workers, settings={"REDIS_URL": redis_url, "API_RATE_ANONYMOUS": "100000000"},
                                ready="/api/v1/systems")


def first_asking(port: int, path: str, headers: dict) -> float:
    """Milliseconds of one request with nothing kept: the data version is replaced first, as a change does."""
    from ratingsite import page_cache

    page_cache.bump()
    if headers.get("If-None-Match"):  # a 304 is asked with the ETag of the answer of the new version
        headers["If-None-Match"] = _get(port, path)[1].get("ETag", "")
    began = time.perf_counter()
    _get(port, path, headers)
    return (time.perf_counter() - began) * 1000


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS, help="the cache and rate limits' Redis (REDIS_URL)")
    parser.add_argument("--port", type=int, default=0, help="gunicorn's port (default: a free one)")
    parser.add_argument("--reuse", action="store_true", help="measure the database of an earlier run as it is")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--requests", type=int, default=50, help="requests per client and endpoint")
    args = parser.parse_args(argv)

    os.environ["REDIS_URL"] = args.redis_url  # this process replaces the data version gunicorn's workers read
    if args.reuse:
        setup_django(args.database_url)
    else:
        build(args.database_url, args.games)
    from ratings.models import CalculationRow, CurrentRating
    from tournaments.models import Game

    print(f"load average {os.getloadavg()[0]:.2f}")
    print(reference())  # figures from two machines compare only beside these
    print(f"database: {Game.objects.count():,} games, {CurrentRating.objects.count():,} current ratings, "
          f"{CalculationRow.objects.count():,} calculation rows")
    port = args.port or free_port()
    server = start_gunicorn(args.database_url, args.redis_url, port, args.workers)
    try:
        measured = requests_to_measure(port)
        print(f"gunicorn: {args.workers} workers, Redis {args.redis_url}; {args.clients} concurrent clients x "
              f"{args.requests} requests per endpoint\n")
        # "first": the first asking of an address after the data changed (nothing kept); p50 and p95: asked
        # again by every client, as popular addresses are (an answer is kept until the data changes)
        print(f"{'request':<78}{'first ms':>9}{'p50 ms':>8}{'p95 ms':>8}{'target':>8}")
        for kind, path, headers in measured:
            first = first_asking(port, path, headers)
            hammer(port, path, clients=args.clients, requests=3, headers=headers)  # warm the workers' connections and caches
            timings, statuses = hammer(port, path, clients=args.clients, requests=args.requests, headers=headers)
            p95 = percentile(timings, 0.95)
            verdict = "ok" if p95 <= TARGETS[kind] else "OVER"
            expected = {304} if kind == "304" else {200}
            status = "" if statuses == expected else f"  status {sorted(statuses)}"
            label = f"{path[:62]}{' (If-None-Match)' if headers else ''}"
            figures = f"{first:>9.1f}{statistics.median(timings):>8.1f}{p95:>8.1f}{TARGETS[kind]:>6.0f}"
            print(f"{label[:77]:<78}{figures} {kind} {verdict}{status}")
        print(f"\nload average {os.getloadavg()[0]:.2f}")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
