"""Recalculation benchmark on PostgreSQL: full run of all four systems over the synthetic history,
then one 60-coach event added at the end, then one backdated a year, then `verify_ratings` of the
whole history. Prints figures; asserts nothing.

    .venv/bin/python bench/recalc.py [--games 1000000] [--database-url postgres://...]
    .venv/bin/python bench/recalc.py --reuse     # the loaded history of an earlier run, its bench events removed
    .venv/bin/python bench/recalc.py --jobs 1    # one run at a time (default 2, as `recalculate`)
    .venv/bin/python bench/recalc.py --reuse --repeat 3   # each event case three times, and their spread
    .venv/bin/python bench/recalc.py --no-verify  # without the verification at the end

Targets (issue 35, on a 2-core machine, at --games 2000000): the full recalculation of all four
systems at most 60 s wall, peak memory at most 2 GB; one 60-coach event at the end at most 0.3 s
for all four systems together; one backdated a year at most 3 s; `verify_ratings` at most twice
the full recalculation.

The first full run on a freshly loaded history also publishes every monthly list due since its
first game (at 2,000,000 games 240 a system, more than half of that run's time), which the site does
once; each run's line says how long its publishing took, and a run with --reuse has none to do.

Each case is timed from queuing the runs until the command would return: the games read (once,
before the runs' processes are forked), the runs, and the vacuum after the last. The runs' own
durations leave the reading out, and overlap when they run two at a time. Each case starts after a
CHECKPOINT (`settle`), so that it is not charged for writing out what the case before it wrote.
Beside the wall time each case prints its CPU time, in the runs' processes and in the PostgreSQL
server (when it runs on this machine), and the WAL it wrote: a case cannot take less than its CPU
time divided by the cores. Before the cases it prints the machine's speed in three fixed workloads
(bench.machine): figures from two machines compare only beside those.

The runs' "today" follows the loaded history, not the calendar: the event "at the end" is played the
day after the last game, and every run (all three cases) is given as today the first day on which
each system rates that event (its Glicko month and two-week period over, its KNSB list out). So the
full run ends where the history does, as on the live site (checkpoints, complete lists, ranks
lapsing), the event at the end writes rows in every system, the backdated one replays from the
checkpoint the site would use a year back, and --reuse measures the same on any later day. The
verification is given the same day (`verify_ratings --today`): checked as of the calendar's today,
a history its runs rated as of another day differs (Glicko deviations decayed to another day, other
lists, other ranks lapsed).
"""
from __future__ import annotations

import argparse
import datetime as dt
import io
import multiprocessing
import os
import re
import resource
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.federation import DEFAULT_URL, fresh_database, load_history, migrate, setup_django  # noqa: E402
from bench.machine import reference  # noqa: E402

SYSTEMS = ("elo", "glicko", "global-glicko", "knsb")


def load(games: int, url: str) -> None:
    """Make the synthetic history and load it."""
    from bench.engines import synthetic_history

    started = time.perf_counter()
    history = synthetic_history(games)
    print(f"synthetic history: {len(history):,} games in {time.perf_counter() - started:.1f} s", flush=True)
    setup_django(url)
    started = time.perf_counter()
    counts = load_history(history)
    print(f"loaded {counts} in {time.perf_counter() - started:.1f} s", flush=True)


def forget_bench_events() -> int:
    """Delete the events an earlier run added (their games with them); returns how many."""
    from tournaments.models import Event

    return Event.objects.filter(name__startswith="Bench event").delete()[1].get("tournaments.Event", 0)


def history_span() -> tuple[int, dt.date, dt.date]:
    """Games, first and last day of the loaded history."""
    from django.db.models import Count, Max, Min

    from tournaments.models import Game

    span = Game.objects.aggregate(games=Count("id"), first=Min("played_at"), last=Max("played_at"))
    if not span["games"]:
        sys.exit("the database holds no games: run without --reuse to load a history")
    return span["games"], span["first"].date(), span["last"].date()


def rated_by(day: dt.date) -> dt.date:
    """The first day on which every benchmarked system rates a game played on `day`: Elo at once,
    Glicko once the game's period (month, two weeks) is over, KNSB in the list dated the 1st of the
    next month."""
    from rating_engines import glicko
    from ratings.configuration import engine_for
    from ratings.models import RatingSystem
    from ratings.replay import next_month

    first = [day + dt.timedelta(days=1), next_month(day)]
    for system in RatingSystem.objects.filter(slug__in=SYSTEMS):
        module, config = engine_for(system)
        if module is glicko and config.period != "event":
            first.append(glicko.calendar_period(day, config)[2] + dt.timedelta(days=1))
    return max(first)


def games_from(day: dt.date) -> int:
    """Games in the record played on or after `day`."""
    from tournaments.models import Game

    return Game.objects.filter(played_at__gte=dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)).count()


def take_back(event_id: int, day: dt.date, today: dt.date, jobs: int) -> None:
    """Between two repetitions of a case (untimed): delete its event, recalculate from its day so
    that the stored figures are those before it again, and vacuum what that left behind, as
    autovacuum would before the next sanction on a live site (a repetition that found the dead rows
    of the ones before would also pay for vacuuming them, which the first never does)."""
    from django.db import connection

    from ratings.models import CurrentRating, CurrentSnapshot, EngineCheckpoint, ReplayTail
    from ratings.partitions import PARTITIONED
    from tournaments.models import Event

    Event.objects.filter(pk=event_id).delete()
    recalculate_all(day, today, jobs)
    tables = [model._meta.db_table for model in (*PARTITIONED, CurrentRating, CurrentSnapshot, EngineCheckpoint, ReplayTail)]
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM (TRUNCATE false) {', '.join(tables)}")


def spread(walls: list[float]) -> str:
    """The repetitions' wall times, fastest, median and slowest."""
    ordered = sorted(walls)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return f"{len(ordered)} repetitions: {ordered[0]:.1f} s fastest, {median:.1f} s median, {ordered[-1]:.1f} s slowest"


def event_rows(event_id: int) -> dict[str, int]:
    """Calculation rows of the event's games, per system slug."""
    from django.db.models import Count

    from ratings.models import CalculationRow

    found = CalculationRow.objects.filter(game__event_id=event_id).values_list("system__slug").annotate(n=Count("game"))
    return dict(found)


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


class Work:
    """What a case cost beside its wall time: the CPU time of this process and its runs' processes
    (user and system), that of the PostgreSQL server where it runs on this machine (its processes,
    and the backends that ended meanwhile, which their postmaster reaped), and the WAL written. On
    this machine's cores a case takes at least its CPU time divided by their number, however its
    runs are spread over processes; other work on the server in the meantime is counted too."""

    def __init__(self) -> None:
        self.client, self.server, self.wal = self._client(), self._server(), self._wal()

    @staticmethod
    def _client() -> float:
        return sum(
            usage.ru_utime + usage.ru_stime
            for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
        )

    @staticmethod
    def _server() -> float | None:
        """CPU seconds of every process named postgres (None: none here, the server runs elsewhere)."""
        ticks, total, found = os.sysconf("SC_CLK_TCK"), 0, False
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat") as stat:
                    line = stat.read()
            except OSError:  # ended meanwhile
                continue
            if line[line.index("(") + 1:line.rindex(")")] != "postgres":
                continue
            found = True
            total += sum(int(field) for field in line[line.rindex(")") + 2:].split()[11:15])  # utime stime cutime cstime
        return total / ticks if found else None

    @staticmethod
    def _wal() -> int:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")
            return int(cursor.fetchone()[0])

    def since(self) -> str:
        """One line: the case's CPU time and WAL since this was made."""
        client, server, wal = self._client() - self.client, self._server(), self._wal() - self.wal
        if server is None or self.server is None:
            return f"CPU {client:.1f} s in this process and its runs' processes (the server's is not on this machine); " \
                   f"WAL written {wal / 1e6:,.0f} MB"
        server -= self.server
        return (f"CPU {client + server:.1f} s on {os.cpu_count()} cores: {client:.1f} s in this process and its runs' "
                f"processes, {server:.1f} s in the PostgreSQL server; WAL written {wal / 1e6:,.0f} MB")


def settle() -> str:
    """Have the server write out the pages the case before left dirty (CHECKPOINT), so that a case is
    not charged for the writeback of the gigabytes a full run (or the load) wrote seconds before it:
    on a live site an event is sanctioned long after the last full run. A role that may not checkpoint
    (PostgreSQL 15: superusers only) measures without; the line printed says which."""
    from django.db import DatabaseError, connection, transaction

    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout TO 0")
            cursor.execute("CHECKPOINT")
    except DatabaseError as error:
        return f"(no CHECKPOINT before it: {str(error).strip().splitlines()[0]})"
    return "(after a CHECKPOINT)"


def recalculate_all(since: dt.date | None, today: dt.date, jobs: int) -> tuple[float, list[tuple], str, float]:
    """As `manage.py recalculate [--since] [--jobs]` does: the games read once, then one run per
    system, `jobs` at a time. Returns the wall time, each run's figures, the work it cost, and the
    seconds until the last run finished (its figures on every page from its commit on; vacuums and
    the other runs' work after it are not in it)."""
    from django.utils import timezone

    from ratings import services
    from ratings.models import RatingSystem, Trigger

    work = Work()
    begun = timezone.now()
    started = time.perf_counter()
    runs = [
        services.recalculation_request(system=RatingSystem.objects.get(slug=slug), trigger=Trigger.MANUAL, since=since, enqueue=False)
        for slug in SYSTEMS
    ]
    figures = []
    finished: list[dt.datetime] = []
    for run in services.recalculation_execute_many([run.pk for run in runs], today=today, jobs=jobs):
        if isinstance(run, Exception):
            raise run
        figures.append((run.system.slug, run.duration, run.games_processed, run.rows_written, run.recomputed_from,
                        published(run.log), "from the stored state at its last rated game" in run.log))
        if run.finished_at is not None:
            finished.append(run.finished_at)
    wall = time.perf_counter() - started
    return wall, figures, work.since(), (max(finished) - begun).total_seconds()


def published(log: str) -> str:
    """What the run's log says it spent publishing lists ("50.4 s 240 lists published, from ..."):
    the first full run on a loaded history publishes every list due since its first game, once."""
    found = re.search(r"^([\d.]+) s (\d+) lists? published", log, re.MULTILINE)
    return f"; {found[1]} s of it publishing {found[2]} list{'s' if found[2] != '1' else ''}" if found else ""


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
        at = dt.datetime.combine(day, round_.start_time, tzinfo=dt.UTC)
        shift = number * 7 % len(players)
        order = players[shift:] + players[:shift]
        for table in range(len(order) // 2):
            game_record(game=Game(
                round=round_, event=event, home_coach=order[2 * table], home_race=human,
                away_coach=order[2 * table + 1], away_race=orc, home_touchdowns=(table + number) % 3,
                away_touchdowns=(table * number) % 2, played_at=at,
            ))
    return event.pk


def verify_all(today: dt.date, jobs: int) -> tuple[float, str, str]:
    """`manage.py verify_ratings --today <today> --jobs <jobs>`, every active system: its wall time,
    what it wrote, and its error ('' when every stored figure matches)."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    out, error = io.StringIO(), ""
    started = time.perf_counter()
    try:
        call_command("verify_ratings", "--today", today.isoformat(), "--jobs", str(jobs), stdout=out)
    except CommandError as failed:
        error = str(failed)
    return time.perf_counter() - started, out.getvalue(), error


def report(
    title: str, measured: tuple[float, list[tuple], str, float], target: str, memory: MemoryPeak, *, event: int | None = None,
    asked: dt.date | None = None,
) -> None:
    """The case's figures; with `event`, the calculation rows of its games in each system afterwards
    (each game gets a row per side in every system that rated it; KNSB adds depot rows)."""
    wall, figures, work, visible = measured
    print(f"\n{title}: {wall:.1f} s in all (target {target}); peak memory {memory.take():.0f} MiB "
          f"(this process and its runs' processes, PSS; target ≤ 2 GB); load average {os.getloadavg()[0]:.2f}")
    print(f"  the last run finished after {visible:.1f} s (every ranking shows the figures from its commit on; "
          f"the rest is the vacuum after the runs)")
    print(f"  {work}")
    if asked is not None:
        print(f"  asked from {asked}: the record holds {games_from(asked):,} games from then on; each run replays "
              f"from the checkpoint at or before it, or goes on from its system's last rated game (\"tail\")")
    rated = event_rows(event) if event is not None else {}
    for slug, seconds, games, rows, start, publishing, tail in figures:
        line = (f"  {slug:14} {seconds:7.2f} s  {games:>9,} games replayed  {rows:>10,} rows written  from {start or 'the start'}"
                f"{' (tail)' if tail else ''}{publishing}")
        if event is not None:
            line += f"  ({rated.get(slug, 0):,} rows for the event's games)"
        print(line)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--reuse", action="store_true", help="keep the history an earlier run loaded")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once, as `recalculate --jobs` (default 2)")
    parser.add_argument("--repeat", type=int, default=1, help="times to measure each event case (default 1): the "
                        "wall times of one machine vary by a fifth from one run to the next")
    parser.add_argument("--no-verify", action="store_true", help="leave out `verify_ratings` at the end")
    args = parser.parse_args(argv)

    if args.reuse:
        migrate(args.database_url)
        setup_django(args.database_url)
        removed = forget_bench_events()
        if removed:
            print(f"removed {removed} bench event(s) of an earlier run")
    else:
        fresh_database(args.database_url)
        # The history is made and loaded in a child process, so the peak memory printed is the recalculation's.
        with multiprocessing.get_context("fork").Pool(1) as pool:
            pool.apply(load, (args.games, args.database_url))
        setup_django(args.database_url)
    games, first_day, last_day = history_span()
    end_day = last_day + dt.timedelta(days=1)
    today = rated_by(end_day)
    backdated = end_day - dt.timedelta(days=365)
    print(f"history: {games:,} games from {first_day} to {last_day}; every run is given today = {today}, the first "
          f"day on which every system rates the event at the end ({end_day}, the day after the last game)", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(reference(), flush=True)  # figures from two machines compare only beside these
    memory = MemoryPeak()

    settled = settle()
    full = recalculate_all(None, today, args.jobs)
    report(f"Full recalculation, four systems {settled}", full, "≤ 60 s at 2,000,000 games", memory)

    from tournaments.models import Coach

    numbers = list(Coach.objects.order_by("number").values_list("number", flat=True)[:60])
    for title, day, target in (("at the end", end_day, "≤ 0.3 s"), ("backdated a year", backdated, "≤ 3 s")):
        walls: list[float] = []
        event: int | None = None
        for repetition in range(1, args.repeat + 1):
            if event is not None:  # the next repetition starts from the figures before the event again
                take_back(event, day, today, args.jobs)
            event = add_event(day, numbers, name=f"Bench event {title}")
            settled = settle()
            measured = recalculate_all(day, today, args.jobs)
            walls.append(measured[0])
            heading = f"One 60-coach event {title} ({day})" + (f", repetition {repetition}" if args.repeat > 1 else "")
            report(f"{heading} {settled}", measured, target, memory, event=event, asked=day)
        if args.repeat > 1:
            print(f"  event {title}: {spread(walls)}")

    if not args.no_verify:
        settled = settle()
        wall, out, error = verify_all(today, args.jobs)
        print(f"\nverify_ratings --today {today} --jobs {args.jobs} {settled}: {wall:.1f} s, {wall / full[0]:.1f}x the full "
              f"recalculation (target ≤ 2x); peak memory {memory.take():.0f} MiB; load average {os.getloadavg()[0]:.2f}")
        for line in out.splitlines():
            print(f"  {line}")
        if error:
            print(f"  FAILED: {error}")


if __name__ == "__main__":
    main()
