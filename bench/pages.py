"""Page benchmark on PostgreSQL under gunicorn: p50/p95 of the ranking (first page and page 100,
filtered and not), coach, breakdown and event pages with concurrent clients, uncached. Prints
figures; asserts nothing.

    .venv/bin/python bench/pages.py                        # 1,000,000 games, 8 clients
    .venv/bin/python bench/pages.py --games 2000000        # the size of the targets
    .venv/bin/python bench/pages.py --games 100000         # smaller
    .venv/bin/python bench/pages.py --reuse                # keep the database of an earlier run
    .venv/bin/python bench/pages.py --redis-url redis://127.0.0.1:6380/0 --port 8123

Uncached: gunicorn's workers pass the page cache by (`uncached_application`), so every request
renders its page, as the first request after a change does; the site's other caches (counts, filter
choices) stay, in the Redis of `--redis-url` as in production. `--cached` measures with the page
cache on (most requests then read it).

Targets (issue 35, on a 2-core machine, at 2,000,000 games): ranking, coach, breakdown and event
pages p95 at most 100 ms at 8 clients, uncached.
"""
from __future__ import annotations

import argparse
import datetime as dt
import http.client
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.federation import fresh_database, load_history, setup_django  # noqa: E402
from bench.machine import reference  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/ratingsite_bench_pages"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
SITE_APPLICATION = "ratingsite.wsgi:application"
UNCACHED_APPLICATION = "bench.pages:uncached_application()"
TARGETS = {"ranking": 100.0, "breakdown": 100.0, "coach": 100.0, "event": 100.0}


def build(url: str, games: int) -> None:
    """A fresh database with the synthetic history and every rating system computed."""
    from bench.engines import synthetic_history

    fresh_database(url)
    setup_django(url)
    from ratings import services
    from ratings.models import RatingSystem, Trigger

    began = time.perf_counter()
    history = synthetic_history(n_games=games)
    counts = load_history(history)
    print(f"loaded {counts['games']:,} games, {counts['coaches']:,} coaches, {counts['events']:,} events "
          f"in {time.perf_counter() - began:.0f} s")
    today = history[-1].played_at.date() + dt.timedelta(days=20)
    for system in RatingSystem.objects.filter(active=True):
        started = time.perf_counter()
        run = services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
        run = services.recalculation_execute(run_id=run.pk, today=today)
        print(f"  {system.slug:<14} {run.rows_written:>11,} rows in {time.perf_counter() - started:6.0f} s")
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def pages_to_measure() -> list[tuple[str, str]]:
    """(kind, path) of the pages measured, chosen from the data: the busiest coach and rating key."""
    from django.db.models import Count

    from ratings.models import CurrentRating
    from tournaments.models import Event, GameSide

    busiest = (
        GameSide.objects.values("coach__number").annotate(n=Count("id")).order_by("-n").first()["coach__number"]
    )
    key = CurrentRating.objects.filter(system__slug="elo").select_related("coach", "race", "variant").order_by("-games").first()
    knsb = CurrentRating.objects.filter(system__slug="knsb").select_related("coach", "variant").order_by("-games").first()
    race = key.race.slug
    filtered = urlencode({"variant": key.variant.slug, "race": race})
    filtered_count = CurrentRating.objects.filter(system__slug="elo", variant=key.variant, race=key.race).count()
    deep = min(100, max(1, (filtered_count + 49) // 50))
    biggest = Event.objects.annotate(n=Count("games")).order_by("-n", "pk").values_list("pk", flat=True).first()
    return [
        ("ranking", "/rankings/elo/"),
        ("ranking", "/rankings/elo/?page=100"),
        ("ranking", f"/rankings/elo/?{filtered}"),
        ("ranking", f"/rankings/elo/?{filtered}&page={deep}"),
        ("ranking", "/rankings/elo/?country=NL&active=on&page=100"),
        ("ranking", "/rankings/glicko/?page=100"),
        ("coach", f"/coaches/{busiest}/"),
        ("coach", f"/coaches/{key.coach.number}/?system=glicko"),
        ("breakdown", f"/coaches/{key.coach.number}/breakdown/elo/?{urlencode({'race': race, 'variant': key.variant.slug})}"),
        ("breakdown", f"/coaches/{knsb.coach.number}/breakdown/knsb/?{urlencode({'variant': knsb.variant.slug})}"),
        ("breakdown", f"/coaches/{key.coach.number}/breakdown/glicko/?{urlencode({'race': race, 'variant': key.variant.slug})}"),
        ("event", "/events/"),
        ("event", f"/events/{biggest}/"),
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def uncached_application():
    """The site's WSGI application with the page cache passed by (`bench.pages:uncached_application()`):
    every request renders its page, in no render slot, as with no cache at all."""
    from django.core.wsgi import get_wsgi_application

    from ratingsite import page_cache

    page_cache._uses_cache = lambda request: False
    return get_wsgi_application()


def gunicorn_env(url: str, settings: dict | None = None) -> dict:
    """The environment of the benchmark's gunicorn: the base settings on `url`, with `settings` added."""
    env = dict(
        os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="ratingsite.settings.base", DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1", CONN_MAX_AGE="600", LOG_LEVEL="ERROR", **(settings or {}),
    )
    env.setdefault("SECRET_KEY", "bench-only-" + os.urandom(16).hex())  # the base settings know no key
    return env


def start_gunicorn(url: str, port: int, workers: int, *, settings: dict | None = None, ready: str = "/about/ratings/",
                   application: str = SITE_APPLICATION) -> subprocess.Popen:
    """gunicorn serving `application` on `port`, with `settings` added to its environment, once `ready` answers 200."""
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), application, "-w", str(workers),
         "-b", f"127.0.0.1:{port}", "--log-level", "warning"],
        cwd=ROOT, env=gunicorn_env(url, settings),
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and server.poll() is None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", ready)
            if conn.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError("gunicorn did not answer 200 within 30 s (or ended)")


def hammer(port: int, path: str, *, clients: int, requests: int, headers: dict | None = None) -> tuple[list[float], set]:
    """`clients` threads, each with its own keep-alive connection, `requests` GETs each (with `headers`);
    milliseconds."""
    timings: list[float] = []
    statuses: set = set()
    lock = threading.Lock()

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        for _ in range(requests):
            began = time.perf_counter()
            conn.request("GET", path, headers=headers or {})
            response = conn.getresponse()
            response.read()
            mine.append((time.perf_counter() - began) * 1000)
            with lock:
                statuses.add(response.status)
        with lock:
            timings.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return timings, statuses


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS,
                        help="the site's cache (REDIS_URL; an empty value: each worker's memory)")
    parser.add_argument("--port", type=int, default=0, help="gunicorn's port (default: a free one)")
    parser.add_argument("--reuse", action="store_true", help="measure the database of an earlier run as it is")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--requests", type=int, default=50, help="requests per client and page")
    parser.add_argument("--cached", action="store_true", help="with the page cache on (default: every request renders)")
    return parser.parse_args(argv)


def main(argv=None) -> None:
    args = arguments(argv)

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
    pages = pages_to_measure()
    port = args.port or free_port()
    server = start_gunicorn(args.database_url, port, args.workers, settings={"CACHE_URL": args.redis_url, "REDIS_URL": args.redis_url},
                            application=SITE_APPLICATION if args.cached else UNCACHED_APPLICATION)
    try:
        print(f"gunicorn on port {port}: {args.workers} workers, cache {args.redis_url or 'in each worker'}, "
              f"page cache {'on' if args.cached else 'passed by (every request renders)'}; "
              f"{args.clients} concurrent clients x {args.requests} requests per page\n")
        print(f"{'page':<86}{'p50 ms':>8}{'p95 ms':>8}{'target':>8}")
        for kind, path in pages:
            hammer(port, path, clients=args.clients, requests=3)  # warm the workers' connections and caches
            timings, statuses = hammer(port, path, clients=args.clients, requests=args.requests)
            p95 = percentile(timings, 0.95)
            verdict = "ok" if p95 <= TARGETS[kind] else "OVER"
            status = "" if statuses == {200} else f"  status {sorted(statuses)}"
            print(f"{path[:85]:<86}{statistics.median(timings):>8.1f}{p95:>8.1f}{TARGETS[kind]:>6.0f} {verdict}{status}")
        print(f"\nload average {os.getloadavg()[0]:.2f}; targets (issue 35, 2 cores, 2,000,000 games): ranking, coach, "
              f"breakdown and event pages p95 <= 100 ms at 8 clients, uncached"
              + (" (this run had the page cache on)" if args.cached else ""))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
