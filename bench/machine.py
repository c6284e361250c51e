"""How fast this machine is, in three fixed workloads, so that a benchmark's figures can be compared
between machines: the same code on two machines of one kind has differed twofold (bench/recalc.py's
full case: 53.6 s on one, 109 s on the next).

    .venv/bin/python -m bench.machine [--database-url postgres://...]
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

REPEATS = 3


def _best(work: Callable[[], object]) -> float:
    """The best of REPEATS timings of `work`, in seconds: the least disturbed by other work."""
    timings = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        work()
        timings.append(time.perf_counter() - started)
    return min(timings)


def _python() -> float:
    """Interpreted Python as the engines run it: a loop of float arithmetic and dict reads and writes."""
    ratings: dict[int, float] = {}
    for i in range(1_000_000):
        key = i % 4099
        ratings[key] = ratings.get(key, 150.0) * 0.999 + 0.1
    return sum(ratings.values())


def _memory() -> float:
    """Fresh memory: 256 MiB allocated and written, page faults included (what forking and building
    the games cost beside their computing)."""
    return float(np.ones(32 * 1024 * 1024)[-1])


def _postgresql() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT sum(hashint4(i)) FROM generate_series(1, 2000000) i")
        cursor.fetchone()


def reference(*, database: bool = True) -> str:
    """One line: the best of three timings of each workload (`database`: the PostgreSQL one too,
    on the connection Django is set up with)."""
    line = f"machine reference (best of {REPEATS}): Python {_best(_python):.2f} s, 256 MiB of fresh memory {_best(_memory):.2f} s"
    if database:
        line += f", PostgreSQL {_best(_postgresql):.2f} s"
    return line


def main(argv=None) -> None:
    from bench.federation import DEFAULT_URL, setup_django

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_URL.rsplit("/", 1)[0] + "/postgres")
    args = parser.parse_args(argv)
    setup_django(args.database_url)
    print(reference())


if __name__ == "__main__":
    main()
