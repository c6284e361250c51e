"""Open-data dump benchmark on PostgreSQL: how long the nightly dump (the game record and the current
ratings as gzip CSV and Parquet, downloads.services.open_data_dump) takes, and the first run that
also writes every published list's files. Prints figures; asserts nothing.

    .venv/bin/python bench/dump.py                        # 1,000,000 games
    .venv/bin/python bench/dump.py --games 20000          # smaller
    .venv/bin/python bench/dump.py --reuse                # the database of an earlier run (bench/pages.py's too)

Target: the nightly dump at most 60 s at 1,000,000 games.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# run as a script, its own folder comes first on the path, and bench/csv.py would stand for the csv module
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from bench.federation import migrate, setup_django  # noqa: E402
from bench.machine import reference  # noqa: E402
from bench.pages import build  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/ratingsite_bench_pages"
TARGET_SECONDS = 60.0


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--reuse", action="store_true", help="measure the database of an earlier run as it is")
    args = parser.parse_args(argv)

    if args.reuse:
        migrate(args.database_url)
        setup_django(args.database_url)
    else:
        build(args.database_url, args.games)
    from django.utils import timezone

    from downloads.services import open_data_dump
    from ratings.models import CurrentRating, Publication
    from tournaments.models import Game

    print(f"database: {Game.objects.count():,} games, {CurrentRating.objects.count():,} current ratings, "
          f"{Publication.objects.count():,} published lists; load average {os.getloadavg()[0]:.2f}")
    print(reference(), flush=True)  # figures from two machines compare only beside these
    with tempfile.TemporaryDirectory(prefix="bench-open-data-") as folder:
        root = Path(folder)
        now = timezone.now()
        began = time.perf_counter()
        first = open_data_dump(root=root, now=now)
        print(f"first run (every list's files, then the dump): {len(first.written):,} files in "
              f"{time.perf_counter() - began:.1f} s")
        began = time.perf_counter()
        nightly = open_data_dump(root=root, now=now + dt.timedelta(days=1))
        seconds = time.perf_counter() - began
        sizes = {path: (root / path).stat().st_size for path in nightly.written}
        for path, size in sorted(sizes.items()):
            print(f"  {path:<40}{size / 1024 / 1024:>10.1f} MiB")
        games = Game.objects.count()
        dumped = json.loads((root / "manifest.json").read_text())["last_dump"]["seconds"]
        # the verdict only at full size: below it, the fixed costs (the lists checked, the manifest) weigh more
        verdict = ("ok" if seconds <= TARGET_SECONDS else "OVER") if games >= 1_000_000 else "not judged below 1,000,000 games"
        print(f"nightly dump: {len(nightly.written)} files in {seconds:.1f} s, of which the game record and ratings "
              f"{dumped:.1f} s ({dumped / max(games, 1) * 1e6:.0f} µs a game); target ≤ {TARGET_SECONDS:.0f} s at "
              f"1,000,000 games: {verdict}; load average {os.getloadavg()[0]:.2f}")
        began = time.perf_counter()
        again = open_data_dump(root=root, now=now + dt.timedelta(days=1))
        print(f"the same day again: {len(again.written)} files written in {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
