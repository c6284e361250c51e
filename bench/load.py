"""Load benchmark of the main public pages on PostgreSQL under gunicorn, set up as in production:
requests per second, p50, p95, p99, max and errors at 1, 8 and 32 concurrent clients. Prints
figures and which targets hold; asserts nothing.

    .venv/bin/python bench/load.py --reuse                 # the database bench/pages.py built (1,000,000 games)
    .venv/bin/python bench/load.py --reuse --seconds 5     # shorter: 5 s per page and client count
    .venv/bin/python bench/load.py --games 100000          # build a smaller database first (drops the old one)
    .venv/bin/python bench/load.py --reuse --redis-url redis://127.0.0.1:6380/3 --port 8123

The site runs with `ratingsite.settings.production` behind gunicorn (4 workers, on `--port`, by
default a free one), the page cache in the Redis of `--redis-url` (database 3 of the local one by
default; shared by the workers, emptied by the benchmark; the broker is database 0 of the same
server), `CONN_MAX_AGE=600`; every request says it came through an
HTTPS proxy (`X-Forwarded-Proto: https`, the header the production settings trust). The static files
are collected into a temporary directory for the run (the production settings need their manifest).
Each client is a thread with its own keep-alive connection; for every client count and page, a short
warm-up, then the page cache is emptied (as a run's commit makes every cached page out of date) and
the clients request the page for a fixed time: the first requests render it, the others read it.
"cold ms" is the slowest of the first round of requests (one per client), the render included.
Latencies are of answered requests; errors are answers other than 200 and requests that failed
(counted, not timed).

Targets (issue 16, on a 2-core machine): rankings and breakdowns p95 <= 100 ms at 8 clients; the
first page of each ranking >= 200 requests per second at 32 clients; no errors; no page over 2 s
at 32 clients.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime as dt
import http.client
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.federation import setup_django  # noqa: E402
from bench.machine import reference  # noqa: E402
from bench.pages import DEFAULT_URL, build, free_port, pages_to_measure, percentile  # noqa: E402

HEADERS = {"X-Forwarded-Proto": "https"}  # SECURE_PROXY_SSL_HEADER: no redirect to https://
REQUEST_TIMEOUT = 60  # seconds; past gunicorn's 30 s worker timeout, so that one shows as itself
CACHE_URL = "redis://127.0.0.1:6379/3"
P95_CLIENTS, P95_MS = 8, 100.0
RATE_CLIENTS, RATE_PER_S = 32, 200.0
MAX_CLIENTS, MAX_MS = 32, 2000.0
FIRST, RANKING, BREAKDOWN, PAGE = "first page", "ranking", "breakdown", "page"
LOG_WORTH_SHOWING = re.compile(r"ERROR|CRITICAL|WORKER TIMEOUT|^[A-Za-z_][\w.]*(Error|Exception|Timeout)\b")


@dataclass
class Sample:
    """What the clients saw of one page in one measurement."""

    timings: list[float] = field(default_factory=list)  # milliseconds, answered requests
    firsts: list[float] = field(default_factory=list)  # milliseconds, each client's first request
    statuses: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)  # exception names
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.timings) / self.seconds if self.seconds else 0.0

    @property
    def errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status != 200) + sum(self.failures.values())

    def error_text(self) -> str:
        parts = [f"{status}x{n}" for status, n in sorted(self.statuses.items()) if status != 200]
        return " ".join(parts + [f"{name}x{n}" for name, n in sorted(self.failures.items())])


def main_pages() -> list[tuple[str, str]]:
    """(kind, path) of the main pages, chosen from the data; coach, filtered ranking and breakdowns as
    bench/pages.py picks them."""
    from django.db.models import Count

    from ratings.models import CurrentRating, RatingList, RatingSystem
    from tournaments.models import GameSide

    picked = pages_to_measure()
    coach = next(path for kind, path in picked if kind == "coach")
    filtered = next(path for kind, path in picked if kind == "ranking" and "race=" in path and "page=" not in path)
    breakdowns = [path for kind, path in picked if kind == "breakdown"]
    busiest = list(
        GameSide.objects.values("coach__number").annotate(n=Count("id")).order_by("-n").values_list("coach__number", flat=True)[:8]
    )
    key = CurrentRating.objects.filter(system__slug="elo").select_related("coach", "race", "variant").order_by("-games").first()
    knsb_list = RatingList.objects.filter(system__slug="knsb").latest("date")
    rank_over_time = urlencode({"coach": key.coach.number, "system": "elo", "race": key.race.slug, "variant": key.variant.slug})
    systems = RatingSystem.objects.filter(active=True).order_by("pk").values_list("slug", flat=True)
    return [
        *[(FIRST, f"/rankings/{slug}/") for slug in systems],
        (RANKING, "/rankings/elo/?page=100"),
        (RANKING, filtered),
        (PAGE, "/"),
        (PAGE, coach),
        *[(BREAKDOWN, path) for path in breakdowns],
        (PAGE, f"/lists/knsb/{knsb_list.date:%Y-%m}/"),
        (PAGE, "/events/"),
        (PAGE, "/stats/"),
        (PAGE, "/stats/games/"),
        (PAGE, "/stats/win-ratios/"),
        (PAGE, "/stats/race-grid/"),
        (PAGE, f"/stats/rank-over-time/?{rank_over_time}"),
        (PAGE, "/stats/head-to-head/?" + "&".join(f"coach={n}" for n in busiest)),
        (PAGE, f"/stats/differentials/?coach={busiest[0]}"),
        (PAGE, "/stats/top/"),
        (PAGE, "/stats/awards/"),
        (PAGE, "/stats/legends/"),
        (PAGE, "/stats/map/"),
        (PAGE, "/rankings/elo/?_export=csv"),
    ]


def production_settings() -> None:
    """Django's settings are the production ones, their static root the run's collected files
    (BENCH_STATIC_ROOT): base.py fixes STATIC_ROOT, so no variable can move it."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "ratingsite.settings.production"
    from django.conf import settings

    settings.STATIC_ROOT = os.environ["BENCH_STATIC_ROOT"]


def production_application():
    """The WSGI application gunicorn serves (`bench.load:production_application()`)."""
    production_settings()
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()


def collect_static() -> None:
    """`collectstatic` into BENCH_STATIC_ROOT with the production storage (run in a subprocess)."""
    production_settings()
    import django
    from django.core.management import call_command

    django.setup()
    call_command("collectstatic", interactive=False, verbosity=0)


def production_env(url: str, static_root: str, redis_url: str = CACHE_URL) -> dict:
    """gunicorn's environment: the production settings on `url`, the cache in `redis_url`, the broker
    in database 0 of the same Redis."""
    return dict(
        os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="ratingsite.settings.production",
        SECRET_KEY=secrets.token_urlsafe(48), ALLOWED_HOSTS="127.0.0.1", CONN_MAX_AGE="600",
        CELERY_BROKER_URL=urlsplit(redis_url)._replace(path="/0").geturl(), REDIS_URL=redis_url, CACHE_URL=redis_url,
        BENCH_STATIC_ROOT=static_root, LOG_LEVEL="WARNING",
    )


def _stop_with_parent() -> None:
    # gunicorn gets SIGTERM if this script dies without reaching its `finally` (killed, say)
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG


def start_gunicorn(env: dict, port: int, workers: int, log: list[str]) -> subprocess.Popen:
    """gunicorn with the production settings; its log (stderr) is appended, line by line, to `log`.
    bench.pages.start_gunicorn takes neither settings nor environment, and asks without the HTTPS header."""
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "bench.load:production_application()", "-w", str(workers),
         "-b", f"127.0.0.1:{port}", "--log-level", "warning"],
        cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True, errors="replace", preexec_fn=_stop_with_parent,
    )
    def read_log():
        for line in server.stderr:
            log.append(line)

    threading.Thread(target=read_log, daemon=True).start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/about/ratings/", headers=HEADERS)
            if conn.getresponse().status == 200:
                return server
        except OSError:
            pass
        time.sleep(0.2)
    stop(server)
    raise RuntimeError("gunicorn did not answer 200 within 60 s:\n" + "".join(log[-30:]))


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=40)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def hammer_for(port: int, path: str, *, clients: int, seconds: float) -> Sample:
    """`clients` threads, each with its own keep-alive connection, GET `path` until `seconds` have passed."""
    sample = Sample()
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT)
        timings: list[float] = []
        statuses: Counter = Counter()
        failures: Counter = Counter()
        while time.perf_counter() < deadline:
            began = time.perf_counter()
            try:
                conn.request("GET", path, headers=HEADERS)
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as error:
                failures[type(error).__name__] += 1
                conn.close()
                continue
            timings.append((time.perf_counter() - began) * 1000)
            statuses[response.status] += 1
        conn.close()
        with lock:
            sample.firsts.extend(timings[:1])
            sample.timings.extend(timings)
            sample.statuses.update(statuses)
            sample.failures.update(failures)

    began = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sample.seconds = time.perf_counter() - began
    return sample


def empty_page_cache(redis_url: str) -> None:
    """Every cached page out of date, as after a run's commit: the next request of each renders it."""
    import redis

    redis.Redis.from_url(redis_url).flushdb()


def verdicts(kind: str, clients: int, sample: Sample) -> list[tuple[str, bool]]:
    """(target, holds) of every target the issue sets for this page at this client count."""
    found = [("errors", sample.errors == 0)]
    if not sample.timings:
        return found
    if kind in (FIRST, RANKING, BREAKDOWN) and clients == P95_CLIENTS:
        found.append(("p95", percentile(sample.timings, 0.95) <= P95_MS))
    if kind == FIRST and clients == RATE_CLIENTS:
        found.append(("req/s", sample.rate >= RATE_PER_S))
    if clients == MAX_CLIENTS:
        found.append(("max", max(sample.timings) <= MAX_MS))
    return found


def summary(results: list[tuple[str, str, int, Sample]], client_counts: list[int]) -> None:
    """Each target of the issue: whether it holds, over how many measurements, and the ones that miss it."""
    def p95(s: Sample) -> float | None:
        return percentile(s.timings, 0.95) if s.timings else None

    def slowest(s: Sample) -> float | None:
        return max(s.timings) if s.timings else None

    targets = [
        (f"rankings and breakdowns p95 <= {P95_MS:.0f} ms at {P95_CLIENTS} clients", P95_CLIENTS, (FIRST, RANKING, BREAKDOWN),
         lambda s: p95(s) is not None and p95(s) <= P95_MS, lambda s: f"p95 {p95(s) or 0:.0f} ms"),
        (f"first page of each ranking >= {RATE_PER_S:.0f} req/s at {RATE_CLIENTS} clients", RATE_CLIENTS, (FIRST,),
         lambda s: s.rate >= RATE_PER_S, lambda s: f"{s.rate:.0f} req/s"),
        ("no errors", None, None, lambda s: s.errors == 0, lambda s: f"{s.errors} errors: {s.error_text()}"),
        (f"no page over {MAX_MS / 1000:.0f} s at {MAX_CLIENTS} clients", MAX_CLIENTS, None,
         lambda s: slowest(s) is not None and slowest(s) <= MAX_MS, lambda s: f"max {slowest(s) or 0:.0f} ms"),
    ]
    print("\ntargets")
    for title, at, kinds, holds, figure in targets:
        if at is not None and at not in client_counts:
            print(f"  {title}: not measured ({at} clients not asked for)")
            continue
        rows = [(path, clients, s) for kind, path, clients, s in results
                if (at is None or clients == at) and (kinds is None or kind in kinds)]
        missing = [(path, clients, s) for path, clients, s in rows if not holds(s)]
        print(f"  {title}: {'FAILS' if missing else 'HOLDS'} ({len(rows) - len(missing)} of {len(rows)} hold)")
        for path, clients, s in missing:
            print(f"      {path} at {clients} clients: {figure(s)}")


def log_lines_worth_showing(lines: list[str], limit: int = 5) -> list[str]:
    shown = list(dict.fromkeys(line.rstrip() for line in lines if LOG_WORTH_SHOWING.search(line)))
    return shown[:limit]


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=CACHE_URL, help="the page cache's Redis database (emptied by the benchmark)")
    parser.add_argument("--port", type=int, default=0, help="gunicorn's port (default: a free one)")
    parser.add_argument("--reuse", action="store_true", help="measure the database of an earlier run as it is")
    parser.add_argument("--games", type=int, default=1_000_000, help="games of the history built without --reuse")
    parser.add_argument("--clients", default="1,8,32", help="client counts, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per page and client count")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up before each measurement")
    parser.add_argument("--workers", type=int, default=4)
    return parser.parse_args(argv)


def main(argv=None) -> None:
    args = arguments(argv)
    client_counts = [int(c) for c in args.clients.split(",") if c.strip()]

    started = time.perf_counter()
    if args.reuse:
        setup_django(args.database_url)
    else:
        build(args.database_url, args.games)
    from ratings.models import CalculationRow, CurrentRating
    from stats.models import SummaryRefresh
    from tournaments.models import Game

    print(f"database: {Game.objects.count():,} games, {CurrentRating.objects.count():,} current ratings, "
          f"{CalculationRow.objects.count():,} calculation rows")
    refresh = SummaryRefresh.objects.order_by("-finished_at").first()
    print("statistics summaries: " + (f"refreshed {refresh.finished_at:%Y-%m-%d %H:%M} over {refresh.games:,} games" if refresh
                                      else "never refreshed (the statistics pages read empty summaries)"))
    pages = main_pages()
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(reference(), flush=True)  # figures from two machines compare only beside these

    # a clean exit (and gunicorn's stop in `finally`) on the signals a terminal or a job runner sends
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda signum, frame: sys.exit(128 + signum))
    static_root = tempfile.mkdtemp(prefix="ratingsite-bench-static-")
    log: list[str] = []
    server = None
    try:
        env = production_env(args.database_url, static_root, args.redis_url)
        subprocess.run([sys.executable, "-c", "from bench.load import collect_static; collect_static()"],
                       cwd=ROOT, env=env, check=True)
        port = args.port or free_port()
        server = start_gunicorn(env, port, args.workers, log)
        print(f"gunicorn on port {port}: {args.workers} workers, production settings, cache {args.redis_url}; "
              f"{args.warmup:g} s warm-up, then the cache emptied and {args.seconds:g} s per page and client count")
        width = max(len(path) for _, path in pages) + 2
        results = []
        for clients in client_counts:
            print(f"\n{'page':<{width}}{'clients':>8}{'req/s':>8}{'p50':>8}{'p95':>8}{'p99':>8}{'max ms':>8}{'cold ms':>8}"
                  f"{'errors':>8}  verdict")
            for kind, path in pages:
                seen = len(log)
                hammer_for(port, path, clients=clients, seconds=args.warmup)
                empty_page_cache(args.redis_url)
                sample = hammer_for(port, path, clients=clients, seconds=args.seconds)
                results.append((kind, path, clients, sample))
                verdict = " ".join(f"{target} {'ok' if holds else 'FAIL'}" for target, holds in verdicts(kind, clients, sample))
                if sample.timings:
                    figures = "".join(f"{percentile(sample.timings, share):>8.1f}" for share in (0.5, 0.95, 0.99))
                    figures += f"{max(sample.timings):>8.0f}{max(sample.firsts):>8.0f}"
                else:
                    figures = f"{'-':>8}" * 5
                print(f"{path:<{width}}{clients:>8}{sample.rate:>8.1f}{figures}{sample.errors:>8}  {verdict}", flush=True)
                if sample.errors:
                    print(f"{'':<{width}}  {sample.error_text()}")
                for line in log_lines_worth_showing(log[seen:]):
                    print(f"{'':<{width}}  log: {line[:160]}")
        summary(results, client_counts)
    finally:
        if server is not None:
            stop(server)
        shutil.rmtree(static_root, ignore_errors=True)
    print(f"\ngunicorn log: {len(log)} lines; ran {dt.timedelta(seconds=round(time.perf_counter() - started))}; "
          f"load average {os.getloadavg()[0]:.2f}")
    for line in log_lines_worth_showing(log, limit=20):
        print(f"  {line[:200]}")


if __name__ == "__main__":
    main()
