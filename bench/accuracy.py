"""Accuracy report benchmark on PostgreSQL: computing and storing the report of every active rating
system from its stored rows, on the history bench/recalc.py loaded and rated. Prints figures;
asserts nothing.

    .venv/bin/python bench/recalc.py                 # first: load and rate the 1,000,000-game history
    .venv/bin/python bench/accuracy.py [--database-url postgres://...]

Target: the full report (every system, every counted game) within 10 s. Also printed: one system's
report alone, as the task after each of its runs computes it.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.federation import DEFAULT_URL, migrate, setup_django  # noqa: E402
from bench.machine import reference  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_URL)
    args = parser.parse_args(argv)
    migrate(args.database_url)  # a database loaded before the accuracy report has no table for it
    setup_django(args.database_url)
    from assurance.accuracy.report import accuracy_report_refresh, accuracy_reports_refresh
    from ratings.models import CalculationRow, RatingSystem

    if not CalculationRow.objects.exists():
        sys.exit("the database holds no calculation rows: run bench/recalc.py first")
    systems = list(RatingSystem.objects.filter(active=True).order_by("display_order", "name"))
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(reference(), flush=True)  # figures from two machines compare only beside these
    started = time.perf_counter()
    stored = accuracy_reports_refresh(systems=systems)
    elapsed = time.perf_counter() - started
    for report in stored:
        figures = report.figures
        method = figures.get("overall", {}).get("method", {})
        print(f"  {report.system.slug:14} {figures['games']:>9,} games  log loss {method.get('log_loss', float('nan')):.4f}")
    print(f"full report, every system: {elapsed:.1f} s (target ≤ 10 s)")
    started = time.perf_counter()
    accuracy_report_refresh(system=systems[0])
    print(f"one system's report, as after its run ({systems[0].slug}): {time.perf_counter() - started:.1f} s; "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
