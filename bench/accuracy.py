"""Accuracy report benchmark on PostgreSQL: computing and storing the report of every active rating
system from its stored rows, on the history bench/recalc.py loaded and rated. Prints figures;
asserts nothing.

    .venv/bin/python bench/recalc.py                 # first: load and rate the 1,000,000-game history
    .venv/bin/python bench/accuracy.py [--database-url postgres://...]

Target: the full report (every system, every counted game) within 10 s.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.federation import DEFAULT_URL, setup_django  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_URL)
    args = parser.parse_args(argv)
    setup_django(args.database_url)
    from ratings.accuracy.report import accuracy_report_refresh, played_games
    from ratings.models import CalculationRow, RatingSystem

    if not CalculationRow.objects.exists():
        sys.exit("the database holds no calculation rows: run bench/recalc.py first")
    started = time.perf_counter()
    games = played_games()
    print(f"  games read once: {len(games):,} in {time.perf_counter() - started:.2f} s", flush=True)
    for system in RatingSystem.objects.filter(active=True).order_by("display_order", "name"):
        began = time.perf_counter()
        figures = accuracy_report_refresh(system=system, games=games).figures
        method = figures.get("overall", {}).get("method", {})
        print(f"  {system.slug:14} {time.perf_counter() - began:6.2f} s  {figures['games']:>9,} games  "
              f"log loss {method.get('log_loss', float('nan')):.4f}", flush=True)
    print(f"full report, every system: {time.perf_counter() - started:.1f} s (target ≤ 10 s)")


if __name__ == "__main__":
    main()
