"""Recalculation benchmark on PostgreSQL: full run of all four systems over the synthetic history,
then one 60-coach event added at the end, then one backdated a year. Prints figures; asserts nothing.

    .venv/bin/python bench/recalc.py [--games 1000000] [--database-url postgres://...]
    .venv/bin/python bench/recalc.py --reuse     # the loaded history of an earlier run, its bench events removed
    .venv/bin/python bench/recalc.py --jobs 1    # one run at a time (default 2, as `recalculate`)

Each case is timed from queuing the runs to the last run's commit, reading the games included
(once, before the runs' processes are forked). The runs' own durations leave the reading out, and
overlap when they run two at a time.
"""
from __future__ import annotations

import argparse
import multiprocessing
import datetime as dt
import os
import threading
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.federation import DEFAULT_URL, fresh_database, load_history, setup_django  # noqa: E402

SYSTEMS = ("elo", "glicko", "global-glicko", "knsb")


def load(games: int, url: str) -> dt.date:
    """Make the synthetic history and load it; returns the last day played."""
    from bench.engines import synthetic_history

    started = time.perf_counter()
    history = synthetic_history(games)
    print(f"synthetic history: {len(history):,} games in {time.perf_counter() - started:.1f} s", flush=True)
    setup_django(url)
    started = time.perf_counter()
    counts = load_history(history)
    print(f"loaded {counts} in {time.perf_counter() - started:.1f} s", flush=True)
    return history[-1].played_at.date()


def forget_bench_events() -> dt.date:
    """Delete the events an earlier run added; returns the last day of the loaded history."""
    from tournaments.models import Event, Game

    Event.objects.filter(name__startswith="Bench event").delete()
    return Game.objects.latest("played_at").played_at.date()


class MemoryPeak:
    """The highest memory in use by this process and its children (the runs' processes), sampled:
    the sum of their proportional set sizes, so pages a fork still shares count once. Every half
    second: reading a process's PSS walks its page tables (some 4 ms a gigabyte, holding up its page
    faults), which sampled ten times a second took a tenth of a core from the runs it measures;
    a run holds its memory for seconds at a time."""

    def __init__(self, every: float = 0.5):
        self.every, self.peak_kib, self._round = every, 0, 0
        threading.Thread(target=self._sample, daemon=True).start()

    @staticmethod
    def _pss_kib(pid: int) -> int:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                return next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
        except (OSError, StopIteration):  # ended meanwhile
            return 0

    @staticmethod
    def _family() -> list[int]:
        me = os.getpid()
        with open(f"/proc/{me}/task/{me}/children") as children:  # forked by the main thread
            return [me, *map(int, children.read().split())]

    def _sample(self) -> None:
        while True:
            round_ = self._round
            kib = sum(self._pss_kib(pid) for pid in self._family())
            if round_ == self._round:  # not a sample of the case before the last take
                self.peak_kib = max(self.peak_kib, kib)
            time.sleep(self.every)

    def take(self) -> float:
        """The peak since the last take, in MiB."""
        peak, self.peak_kib = self.peak_kib, 0
        self._round += 1
        return peak / 1024


def recalculate_all(since: dt.date | None, today: dt.date, jobs: int) -> tuple[float, list[tuple]]:
    """As `manage.py recalculate [--since] [--jobs]` does: the games read once, then one run per
    system, `jobs` at a time. Returns the wall time and each run's figures."""
    from ratings import services
    from ratings.models import RatingSystem, Trigger

    started = time.perf_counter()
    runs = [
        services.recalculation_request(system=RatingSystem.objects.get(slug=slug), trigger=Trigger.MANUAL, since=since, enqueue=False)
        for slug in SYSTEMS
    ]
    figures = []
    for run in services.recalculation_execute_many([run.pk for run in runs], today=today, jobs=jobs):
        if isinstance(run, Exception):
            raise run
        figures.append((run.system.slug, run.duration, run.games_processed, run.rows_written, run.recomputed_from))
    return time.perf_counter() - started, figures


def add_event(day: dt.date, coaches: list, *, name: str) -> int:
    """A sanctioned 60-coach, 5-round event on `day` through the game service (sides included)."""
    from tournaments.models import Coach, Event, Game, Race, Round, Variant
    from tournaments.services import game_record

    event = Event.objects.create(
        name=name, variant=Variant.objects.get(slug="blood-bowl-2020"), start_date=day, end_date=day,
        country="NL", city="Utrecht", status="sanctioned",
    )
    human, orc = Race.objects.get(slug="human"), Race.objects.get(slug="orc")
    players = list(Coach.objects.filter(number__in=coaches))
    for number in range(1, 6):
        round_ = Round.objects.create(event=event, number=number, date=day, start_time=dt.time(8 + 2 * number))
        at = dt.datetime.combine(day, round_.start_time, tzinfo=dt.timezone.utc)
        shift = number * 7 % len(players)
        order = players[shift:] + players[:shift]
        for table in range(len(order) // 2):
            game_record(game=Game(
                round=round_, event=event, home_coach=order[2 * table], home_race=human,
                away_coach=order[2 * table + 1], away_race=orc, home_touchdowns=(table + number) % 3,
                away_touchdowns=(table * number) % 2, played_at=at,
            ))
    return event.pk


def report(title: str, measured: tuple[float, list[tuple]], target: str, memory: MemoryPeak) -> None:
    wall, figures = measured
    print(f"\n{title}: {wall:.1f} s in all (target {target}); peak memory {memory.take():.0f} MiB "
          f"(this process and its runs' processes, PSS; target ≤ 2 GB)")
    for slug, seconds, games, rows, start in figures:
        print(f"  {slug:14} {seconds:7.2f} s  {games:>9,} games replayed  {rows:>10,} rows written  from {start or 'the start'}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--reuse", action="store_true", help="keep the history an earlier run loaded")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once, as `recalculate --jobs` (default 2)")
    args = parser.parse_args(argv)

    if args.reuse:
        setup_django(args.database_url)
        last_day = forget_bench_events()
    else:
        fresh_database(args.database_url)
        # The history is made and loaded in a child process, so the peak memory printed is the recalculation's.
        with multiprocessing.get_context("fork").Pool(1) as pool:
            last_day = pool.apply(load, (args.games, args.database_url))
        setup_django(args.database_url)
    today = max(dt.date.today(), last_day + dt.timedelta(days=3))
    memory = MemoryPeak()

    report("Full recalculation, four systems", recalculate_all(None, today, args.jobs), "≤ 60 s", memory)

    from tournaments.models import Coach

    numbers = list(Coach.objects.order_by("number").values_list("number", flat=True)[:60])
    end_day = today - dt.timedelta(days=1) if today.day > 1 else today
    add_event(end_day, numbers, name="Bench event at the end")
    report(f"One 60-coach event at the end ({end_day})", recalculate_all(end_day, today, args.jobs), "≤ 1 s", memory)

    backdated = end_day - dt.timedelta(days=365)
    add_event(backdated, numbers, name="Bench event backdated a year")
    report(f"One 60-coach event backdated a year ({backdated})", recalculate_all(backdated, today, args.jobs), "≤ 20 s", memory)


if __name__ == "__main__":
    main()
