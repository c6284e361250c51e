"""CSV download benchmark on PostgreSQL under gunicorn: time to the first byte, to the first row and
to the end of the games explorer's CSV and of the rankings', alone and beside a download of the same
address that streams to a slow reader. Prints figures; asserts nothing.

    .venv/bin/python bench/csv.py                                    # the demo database in h_csv_demo
    .venv/bin/python bench/csv.py --database-url postgres://postgres@127.0.0.1:5432/ratingsite
    .venv/bin/python bench/csv.py --repeat 5 --slow-rate 50
    .venv/bin/python bench/csv.py --cache-url redis://127.0.0.1:6380/3 --port 8123

The database is measured as it is: build it as `make demo` does (import_fumbbl, seed_demo,
recalculate, refresh_stats), with DATABASE_URL naming it. gunicorn runs the base settings in sync
workers whose page cache is one Redis (`--cache-url`, bench/load.py's), as in production. Each
download asks an address of its own (a `_bench` parameter the pages ignore), so the cache never
answers it; "cached" is the same address asked again.
The downloads are read over HTTP/1.0 (no chunked encoding): "first byte" is the first byte of the
answer, "first row" the end of the CSV's first row after its header, "total" the last byte.
"Beside a slow download" starts a download of the address that reads `--slow-rate` KB/s, then
times another one of the same address, on the other worker: it should not wait for the slow one.

Targets: none set by an issue in figures; the download beside a slow one should not wait for it.
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, Python puts bench/ first on the path, where this file would shadow the standard csv module.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.federation import setup_django  # noqa: E402
from bench.load import CACHE_URL  # noqa: E402
from bench.machine import reference  # noqa: E402
from bench.pages import free_port  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/h_csv_demo"
BOM = b"\xef\xbb\xbf"


@dataclass
class Download:
    """One download as the client saw it (seconds from sending the request)."""

    status: int
    first_byte: float
    first_row: float | None
    total: float
    size: int
    lines: int
    bom: bool


def download(port: int, path: str, *, rate: float | None = None, stop: threading.Event | None = None) -> Download:
    """GET `path` and read the answer to its end (at `rate` bytes a second when given, until `stop`)."""
    began = time.perf_counter()
    with socket.socket() as sock:
        if rate is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)  # the server feels the slow reader soon
        sock.settimeout(300)
        sock.connect(("127.0.0.1", port))
        sock.sendall(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        received, first_byte, first_row, body_at = bytearray(), None, None, -1
        while data := sock.recv(8192 if rate is not None else 65536):
            now = time.perf_counter() - began
            first_byte = now if first_byte is None else first_byte
            received += data
            if body_at < 0 and (end := received.find(b"\r\n\r\n")) >= 0:
                body_at = end + 4
            if first_row is None and body_at >= 0 and received.count(b"\r\n", body_at) >= 2:
                first_row = now
            if rate is not None:
                time.sleep(len(data) / rate)
                if stop is not None and stop.is_set():
                    break
    total = time.perf_counter() - began
    head, body = bytes(received[:max(body_at, 0)]), bytes(received[max(body_at, 0):])
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return Download(status, first_byte or total, first_row, total, len(body), body.count(b"\r\n"), body.startswith(BOM))


def start_gunicorn(url: str, port: int, workers: int, cache_url: str) -> subprocess.Popen:
    """gunicorn's sync workers on the base settings, their page cache the Redis at `cache_url`."""
    env = dict(
        os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="ratingsite.settings.base", DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1", CONN_MAX_AGE="600", LOG_LEVEL="ERROR", CACHE_URL=cache_url,
    )
    env.setdefault("SECRET_KEY", "bench-only-" + os.urandom(16).hex())  # the base settings know no key
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "ratingsite.wsgi:application", "-w", str(workers),
         "-b", f"127.0.0.1:{port}", "--log-level", "warning", "--timeout", "300"],
        cwd=ROOT, env=env,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if download(port, "/about/ratings/").status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise RuntimeError("gunicorn did not answer within 30 s")


def downloads_to_measure() -> list[str]:
    """The CSV addresses measured, chosen from the data: the games (all, by event, the busiest country's), the rankings."""
    from django.db.models import Count

    from ratings.models import RatingSystem
    from tournaments.models import Game

    busiest = Game.objects.exclude(event__country="").values("event__country").annotate(n=Count("id")).order_by("-n").first()
    paths = ["/stats/games/?_export=csv", "/stats/games/?_export=csv&sort=event"]
    if busiest:
        paths.append(f"/stats/games/?_export=csv&country={busiest['event__country']}")
    paths += [f"/rankings/{slug}/?_export=csv" for slug in RatingSystem.objects.filter(active=True).values_list("slug", flat=True)]
    return paths + ["/stats/win-ratios/?_export=csv&_table=coaches", "/stats/race-grid/?_export=csv"]


def _address(path: str, tag: str) -> str:
    return f"{path}&_bench={tag}"


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.0f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--repeat", type=int, default=3, help="downloads per address (the medians are printed)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache-url", default=CACHE_URL, help="the page cache's Redis (an empty value: each worker's memory)")
    parser.add_argument("--slow-rate", type=float, default=100.0, help="KB/s read by the slow download")
    parser.add_argument("--port", type=int, default=0, help="gunicorn's port (default: a free one)")
    args = parser.parse_args(argv)

    setup_django(args.database_url)
    from ratings.models import CurrentRating
    from tournaments.models import Game

    print(f"database: {Game.objects.count():,} games, {CurrentRating.objects.count():,} current ratings; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(reference(), flush=True)  # figures from two machines compare only beside these
    paths = downloads_to_measure()
    port = args.port or free_port()
    server = start_gunicorn(args.database_url, port, args.workers, args.cache_url)
    run = os.urandom(3).hex()
    try:
        print(f"gunicorn on port {port}: {args.workers} sync workers, page cache {args.cache_url or 'in each worker'}; "
              f"medians of {args.repeat} downloads of addresses of their own\n")
        width = max(len(path) for path in paths) + 2
        print(f"{'download':<{width}}{'status':>7}{'first byte ms':>14}{'first row ms':>13}{'total s':>9}{'MB':>7}"
              f"{'lines':>9}{'BOM':>5}{'cached ms':>10}")
        for path in paths:
            download(port, _address(path, f"{run}-warm"))  # the worker's connection, the database's buffers
            seen = [download(port, _address(path, f"{run}-{n}")) for n in range(args.repeat)]
            cached = download(port, _address(path, f"{run}-0"))
            last = seen[-1]
            first_rows = [d.first_row for d in seen if d.first_row is not None]
            print(f"{path:<{width}}{last.status:>7}{_ms(statistics.median(d.first_byte for d in seen)):>14}"
                  f"{_ms(statistics.median(first_rows) if first_rows else None):>13}"
                  f"{statistics.median(d.total for d in seen):>9.2f}{last.size / 1e6:>7.2f}{last.lines:>9,}"
                  f"{'yes' if all(d.bom for d in seen) else 'NO':>5}{_ms(cached.total):>10}", flush=True)

        print(f"\nbeside a download of the same address read at {args.slow_rate:g} KB/s:")
        for path in paths[:1] + [path for path in paths if path.startswith("/rankings/")][:1]:
            address, stop = _address(path, f"{run}-slow"), threading.Event()
            slow = threading.Thread(target=download, args=(port, address), kwargs={"rate": args.slow_rate * 1000, "stop": stop})
            slow.start()
            time.sleep(0.5)
            other = download(port, address)
            stop.set()
            slow.join()
            print(f"{path:<{width}}{other.status:>7}{_ms(other.first_byte):>14}{_ms(other.first_row):>13}{other.total:>9.2f}"
                  f"{other.size / 1e6:>7.2f}{other.lines:>9,}{'yes' if other.bom else 'NO':>5}", flush=True)
        print(f"\nload average {os.getloadavg()[0]:.2f}")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
