"""Page benchmark on PostgreSQL under gunicorn: p50/p95 of the ranking (first page and page 100,
filtered and not), coach and breakdown pages with concurrent clients. Prints figures; asserts nothing.

    .venv/bin/python bench/pages.py                        # 1,000,000 games, 4 clients
    .venv/bin/python bench/pages.py --games 100000         # smaller
    .venv/bin/python bench/pages.py --reuse                # keep the database of an earlier run

Targets: p95 at most 100 ms for rankings and breakdowns, 200 ms for coach pages.
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

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/ratingsite_bench_pages"
TARGETS = {"ranking": 100.0, "breakdown": 100.0, "coach": 200.0}


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
    from tournaments.models import GameSide

    busiest = (
        GameSide.objects.values("coach__number").annotate(n=Count("id")).order_by("-n").first()["coach__number"]
    )
    key = CurrentRating.objects.filter(system__slug="elo").select_related("coach", "race", "variant").order_by("-games").first()
    knsb = CurrentRating.objects.filter(system__slug="knsb").select_related("coach", "variant").order_by("-games").first()
    race = key.race.slug
    filtered = urlencode({"variant": key.variant.slug, "race": race})
    filtered_count = CurrentRating.objects.filter(system__slug="elo", variant=key.variant, race=key.race).count()
    deep = min(100, max(1, (filtered_count + 49) // 50))
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
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(url: str, port: int, workers: int, *, settings: dict | None = None, ready: str = "/about/ratings/") -> subprocess.Popen:
    """gunicorn serving the site on `port`, with `settings` added to its environment, once `ready` answers 200."""
    env = dict(
        os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="ratingsite.settings.base", DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1", CONN_MAX_AGE="600", LOG_LEVEL="ERROR", **(settings or {}),
    )
    env.setdefault("SECRET_KEY", "bench-only-" + os.urandom(16).hex())  # the base settings know no key
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "ratingsite.wsgi:application", "-w", str(workers),
         "-b", f"127.0.0.1:{port}", "--log-level", "warning"],
        cwd=ROOT, env=env,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", ready)
            if conn.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError("gunicorn did not answer within 30 s")


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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--reuse", action="store_true", help="measure the database of an earlier run as it is")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--requests", type=int, default=50, help="requests per client and page")
    args = parser.parse_args(argv)

    if args.reuse:
        setup_django(args.database_url)
    else:
        build(args.database_url, args.games)
    from ratings.models import CalculationRow, CurrentRating
    from tournaments.models import Game

    print(f"database: {Game.objects.count():,} games, {CurrentRating.objects.count():,} current ratings, "
          f"{CalculationRow.objects.count():,} calculation rows")
    pages = pages_to_measure()
    port = free_port()
    server = start_gunicorn(args.database_url, port, args.workers)
    try:
        print(f"gunicorn: {args.workers} workers; {args.clients} concurrent clients x {args.requests} requests per page\n")
        print(f"{'page':<86}{'p50 ms':>8}{'p95 ms':>8}{'target':>8}")
        for kind, path in pages:
            hammer(port, path, clients=args.clients, requests=3)  # warm the workers' connections and caches
            timings, statuses = hammer(port, path, clients=args.clients, requests=args.requests)
            p95 = percentile(timings, 0.95)
            verdict = "ok" if p95 <= TARGETS[kind] else "OVER"
            status = "" if statuses == {200} else f"  status {sorted(statuses)}"
            print(f"{path[:85]:<86}{statistics.median(timings):>8.1f}{p95:>8.1f}{TARGETS[kind]:>6.0f} {verdict}{status}")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
