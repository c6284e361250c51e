"""Writes for the ratings: recalculation runs and rating-system changes.

Recalculation recomputes forward from the earliest affected date, starting from the stored
checkpoint at or before it, and replaces every stored figure from there on. One run per system at
a time (a row lock on the system), and the whole run commits or nothing does.
"""
from __future__ import annotations

import datetime as dt
import gc
import logging
import os
import pickle
import struct
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from itertools import repeat

import lz4.frame
import numpy as np
from django.db import connection, connections, transaction
from django.utils import timezone

from audit.models import Action
from audit.services import audit_record
from ratings import partitions, selectors
from ratings.bulk import BulkWriter, bulk_insert, fetch_binary
from ratings.configuration import build_config, engine_for, list_rules
from ratings.engines.common import paused_gc
from ratings.models import (
    CalculationRow,
    CurrentRating,
    CurrentSnapshot,
    EngineCheckpoint,
    PeriodSummary,
    RatingList,
    RatingListEntry,
    RatingSystem,
    RecalculationRun,
    RunStatus,
    Trigger,
)
from ratings.replay import Chunk, Entries, Ledger, months_between, replay
from tournaments.models import Race, Variant

logger = logging.getLogger(__name__)  # "ratings.services": the runs, under the "ratings" logger

RECENT_MONTHS = 13
CHECKPOINT_MONTHS = 3
CHECKPOINT_YEARS = 2

ROW_FIELDS = [
    "system", "game", "side", "coach", "race", "variant", "opponent", "opponent_race", "played_at", "period", "chunk",
    "w", "counted", "reason", "r0", "rc", "we", "k", "rt", "wx", "list_date", "depot_date", "opponent_phi", "g",
]
SUMMARY_FIELDS = [
    "system", "coach", "race", "variant", "period", "effective", "chunk", "rl", "rn", "nt", "games_played", "wt",
    "wet", "rtt", "rct", "wxt", "lpr", "limitation", "nv", "mu", "phi", "sigma", "mu_before", "phi_before",
    "sigma_before", "is_start",
]
ENTRY_FIELDS = [
    "rating_list", "system", "coach", "race", "variant", "value", "mu", "phi", "sigma", "nv", "games", "rank",
    "overall_rank", "change", "games_counted", "games_played",
]
CHECKPOINT_FIELDS = ["system", "as_of", "games", "state"]
CURRENT_FIELDS = [
    "system", "coach", "race", "variant", "value", "mu", "phi", "sigma", "nv", "games", "rank", "overall_rank",
    "wins", "draws", "losses", "last_played", "value_change", "rank_change",
]


def recalculation_request(
    *, system: RatingSystem, trigger: str, since: dt.date | None = None, reason: str = "", requested_by=None,
    enqueue: bool = True,
) -> RecalculationRun:
    """Record a queued run and, with `enqueue`, hand it to the worker once the transaction commits."""
    from ratings.tasks import recalculate

    run = RecalculationRun.objects.create(
        system=system, trigger=trigger, from_date=since, reason=reason[:300],
        requested_by=requested_by if requested_by is not None and requested_by.is_authenticated else None,
    )
    if enqueue:
        transaction.on_commit(lambda: recalculate.delay(run.pk))
    return run


def recalculation_request_all(
    *, trigger: str, since: dt.date | None = None, reason: str = "", requested_by=None
) -> list[RecalculationRun]:
    """One queued run for every active system: a change to the record affects them all."""
    return [
        recalculation_request(system=system, trigger=trigger, since=since, reason=reason, requested_by=requested_by)
        for system in RatingSystem.objects.filter(active=True)
    ]


@transaction.atomic
def recalculation_rerun(*, run: RecalculationRun, actor) -> RecalculationRun:
    """Queue a new run of a recorded run's system from the same date (trigger "rerun")."""
    rerun = recalculation_request(
        system=run.system, trigger=Trigger.RERUN, since=run.from_date, reason=f"rerun of run {run.pk}", requested_by=actor
    )
    audit_record(
        actor=actor, action=Action.RUN_RERUN, obj=run, after={"run": rerun.pk, "system": run.system.slug,
                                                         "from_date": run.from_date.isoformat() if run.from_date else None},
    )
    return rerun


def rating_system_update(*, system: RatingSystem, actor, **changes) -> RatingSystem:
    """Change a system's settings after validating them against its engine; recompute it from scratch."""
    before = {"parameters": system.parameters, "per_race": system.per_race, "inactive_after_months": system.inactive_after_months}
    variants = changes.pop("variants", None)
    excluded = changes.pop("excluded_races", None)
    for name, value in changes.items():
        setattr(system, name, value)
    build_config(
        method=system.method, per_race=system.per_race, parameters=system.parameters,
        variants=[v.slug for v in variants] if variants is not None else list(system.variants.values_list("slug", flat=True)),
        excluded_races=[r.slug for r in excluded] if excluded is not None else list(system.excluded_races.values_list("slug", flat=True)),
    )
    with transaction.atomic():
        system.full_clean()
        system.save()
        if variants is not None:
            system.variants.set(variants)
        if excluded is not None:
            system.excluded_races.set(excluded)
        after = {"parameters": system.parameters, "per_race": system.per_race, "inactive_after_months": system.inactive_after_months}
        audit_record(actor=actor, action=Action.RATING_SYSTEM_UPDATE, obj=system, before=before, after=after)
        recalculation_request(system=system, trigger=Trigger.PARAMETERS, reason="parameters changed", requested_by=actor)
    return system


def recalculation_execute(
    *, run_id: int, today: dt.date | None = None, progress: Callable[[int, int], None] | None = None,
    history: selectors.GameHistory | None = None,
) -> RecalculationRun:
    """Carry out a queued run. A run that already succeeded is left as it is (safe to run twice).

    `history`: games already read for several runs (selectors.game_history). It is used only if
    no other run of the system finished after it was read; otherwise the run reads them again.

    On failure nothing of the run's work is kept: the previous rankings stay exactly as they were,
    and the run records the error.
    """
    run = RecalculationRun.objects.select_related("system").get(pk=run_id)
    today = today or timezone.now().date()
    claimed = RecalculationRun.objects.filter(pk=run.pk).exclude(status=RunStatus.SUCCEEDED).update(
        status=RunStatus.RUNNING, started_at=timezone.now(), error=""
    )
    if not claimed:
        return run
    started = time.perf_counter()
    logger.info("run %s of %s started, from %s (%s)", run.pk, run.system.slug, run.from_date or "the first game", run.trigger)
    log: list[str] = []
    fresh = None
    if partitions.partitioned() and selectors.resume_date(run.system, run.from_date) is None:
        fresh = partitions.FreshPartitions(run.system_id, run.pk)
        fresh.create()  # before the transaction: see FreshPartitions
    try:
        with transaction.atomic():
            # One run per system at a time: the row lock is held until this transaction ends.
            system = RatingSystem.objects.select_for_update().get(pk=run.system_id)
            if connection.vendor == "postgresql":
                # Derived data, recomputable from the record: no need to wait for the WAL flush.
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL synchronous_commit TO OFF")
            if RecalculationRun.objects.filter(pk=run.pk, status=RunStatus.SUCCEEDED).exists():
                return run  # a second delivery of the same task finished it while this one waited
            if history is not None and RecalculationRun.objects.filter(
                system=system, finished_at__gte=history.read_at
            ).exclude(pk=run.pk).exists():
                history = None
            with paused_gc():  # the checkpoint and the replay build hundreds of thousands of acyclic objects
                outcome = _recalculate(
                    system, since=run.from_date, today=today, log=log, progress=progress, history=history, fresh=fresh,
                )
            RatingSystem.objects.filter(pk=system.pk).update(recalculated_at=timezone.now())
            RecalculationRun.objects.filter(pk=run.pk).update(
                status=RunStatus.SUCCEEDED, finished_at=timezone.now(), duration=time.perf_counter() - started,
                games_processed=outcome["games"], rows_written=outcome["rows"],
                recomputed_from=outcome["start"], log="\n".join(log),
            )
    except Exception:
        RecalculationRun.objects.filter(pk=run.pk).update(
            status=RunStatus.FAILED, finished_at=timezone.now(), duration=time.perf_counter() - started,
            log="\n".join(log), error=traceback.format_exc()[-5000:],
        )
        logger.exception("run %s of %s failed after %.1f s", run.pk, run.system.slug, time.perf_counter() - started)
        raise
    finally:
        if fresh is not None:
            fresh.discard()
    _maintain_after_run(full=outcome["start"] is None, swapped=fresh is not None)
    run.refresh_from_db()
    logger.info(
        "run %s of %s succeeded in %.1f s: %s games, %s rows", run.pk, run.system.slug, run.duration,
        run.games_processed, run.rows_written,
    )
    return run


class RecalculationFailed(Exception):
    """A run carried out in another process failed; its error is recorded on the run."""


def recalculation_execute_many(
    run_ids: list[int], *, today: dt.date | None = None, jobs: int = 2,
    progress: Callable[[int], Callable[[int, int], None] | None] = lambda run_id: None,
) -> list[RecalculationRun | Exception]:
    """Carry out several queued runs (of different systems), each on its own as `recalculation_execute`
    does; returns each run, or the error it failed with, in the order given. They replay the same
    games: these are read once, here, for all of them.

    On PostgreSQL up to `jobs` run at once: as many processes forked from this one, each with its
    own connection, taking the next run when it is free (a run is bound by Python, so threads would
    take turns on one core). The games are read here, once, before forking: each process copies the
    pages it touches (reading an object writes its reference count), and this one lets go of its
    own as soon as they are forked, so the history is held as many times as when each process read
    it itself, without reading it twice. One at a time on SQLite (a single writer), inside a caller's
    transaction (whose uncommitted records other connections would not see), or where processes
    cannot fork.
    """
    runs = list(RecalculationRun.objects.filter(pk__in=run_ids).select_related("system"))
    since = None if any(run.from_date is None for run in runs) else min((run.from_date for run in runs), default=None)
    read: list[selectors.GameHistory] = []
    if len(runs) > 1:
        try:
            read.append(selectors.game_history([run.system for run in runs], since))
        except Exception:  # no run started: each records why
            RecalculationRun.objects.filter(pk__in=run_ids, status=RunStatus.QUEUED).update(
                status=RunStatus.FAILED, finished_at=timezone.now(), error=traceback.format_exc()[-5000:],
            )
            raise

    def execute(run_id: int) -> RecalculationRun | Exception:
        try:
            return recalculation_execute(
                run_id=run_id, today=today, progress=progress(run_id), history=read[0] if read else None,
            )
        except Exception as error:  # recorded on the run by recalculation_execute
            return error

    if (
        jobs <= 1 or len(run_ids) <= 1 or connection.vendor != "postgresql" or connection.in_atomic_block
        or not hasattr(os, "fork")
    ):
        return [execute(run_id) for run_id in run_ids]
    exits = _forked(_longest_first(runs), jobs, execute, forked=read.clear)
    if any(exits):  # a process died without recording its run's end (killed, out of memory)
        RecalculationRun.objects.filter(pk__in=run_ids, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).update(
            status=RunStatus.FAILED, finished_at=timezone.now(),
            error=f"the run's process ended abnormally (wait statuses {exits})",
        )
    outcomes: list[RecalculationRun | Exception] = []
    for run_id in run_ids:
        run = RecalculationRun.objects.select_related("system").get(pk=run_id)
        failed = run.status != RunStatus.SUCCEEDED
        outcomes.append(RecalculationFailed(run.error.strip().splitlines()[-1] if run.error else run.status) if failed else run)
    return outcomes


def _longest_first(runs: list[RecalculationRun]) -> list[int]:
    """Run ids, the longest expected first, so that the processes finish together instead of one
    going on alone with the last long run. Expected: the system's last run asked for the same
    date (from the start, for a full run), else its last run."""
    expected = {}
    for run in runs:
        done = RecalculationRun.objects.filter(system=run.system_id, status=RunStatus.SUCCEEDED).exclude(duration=None)
        last = done.order_by("-finished_at").values_list("duration", flat=True)
        expected[run.pk] = last.filter(from_date=run.from_date).first() or last.first() or 0.0
    return sorted(expected, key=expected.get, reverse=True)


def _forked(run_ids: list[int], jobs: int, execute: Callable[[int], object], *, forked: Callable[[], None]) -> list[int]:
    """`execute` the runs in `jobs` child processes, each taking the next run when it is free;
    returns each child's wait status. `forked` runs here once every child is forked."""
    connections.close_all()  # a child must not share this process's sockets: each opens its own
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # or a child would print this process's pending output again
    queue, feed = os.pipe()
    os.write(feed, b"".join(struct.pack("q", run_id) for run_id in run_ids))
    os.close(feed)
    children = []
    for _ in range(min(jobs, len(run_ids))):
        pid = os.fork()
        if pid == 0:
            gc.freeze()  # the collector leaves the parent's objects alone: no scans, no copied pages
            _DETACHED.extend(_detach_connections())
            code = 1
            try:
                while record := os.read(queue, 8):  # one whole id: the queue holds far less than a pipe buffer
                    execute(struct.unpack("q", record)[0])  # records its outcome on the run, failure included
                code = 0
            except BaseException:
                traceback.print_exc()  # os._exit below skips Python's own report
            finally:
                connections.close_all()
                for stream in (sys.stdout, sys.stderr):
                    stream.flush()
                os._exit(code)  # no exit handlers: they belong to the parent (test runner, worker)
        children.append(pid)
    forked()
    os.close(queue)
    return [os.waitpid(pid, 0)[1] for pid in children]


_DETACHED: list = []  # in a forked process: the parent's connections, referenced until exit so never finalised


def _detach_connections() -> list:
    """In a forked process: take the parent's open connections away from Django without closing
    them (closing would end the parent's session on the socket they share), so that Django opens
    new ones. Returns them, to be kept referenced until the process exits."""
    inherited = []
    for conn in connections.all():
        if conn.connection is not None:
            inherited.append(conn.connection)
            conn.connection = None
    return inherited


def _maintain_after_run(*, full: bool, swapped: bool) -> None:
    """Every run replaces current ratings (those that changed): vacuum them, so ranking pages count
    and page through them on the index alone instead of past the rows the run replaced. Every run
    also replaces its snapshot of them and some checkpoints, megabytes of dead rows each: vacuum
    those tables too, or they grow without end wherever autovacuum is slow or off. After a full run
    the planner's statistics describe the tables before it (a ranking would be read by a plan made
    for an empty table): analyse the derived tables then. Autovacuum would, but minutes later.
    Outside a transaction only (PostgreSQL refuses VACUUM inside one)."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    # `swapped`: the run analysed its fresh partitions before swapping them in
    analyse = [RatingList] if swapped else [RatingList, *partitions.PARTITIONED]
    # TRUNCATE false: giving back the empty pages at a table's end needs its exclusive lock, which
    # another system's run holds up for the whole of it; VACUUM would wait five seconds, then give up.
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM (TRUNCATE false{', ANALYZE' if full else ''}) {CurrentRating._meta.db_table}")
        cursor.execute(f"VACUUM (TRUNCATE false) {CurrentSnapshot._meta.db_table}, {EngineCheckpoint._meta.db_table}")
        for model in analyse if full else ():
            cursor.execute(f"ANALYZE {model._meta.db_table}")


def complete_list(today: dt.date) -> Callable[[dt.date], bool]:
    """Lists holding every ranked key: each 1 January and each month start of the last 13 months.
    Other months keep their movements (every key that played, and those whose rank lapsed), which
    is what their pages show."""
    def complete(day: dt.date) -> bool:
        return (day.month == 1 and day.day == 1) or months_between(day, today) <= RECENT_MONTHS
    return complete


def checkpoint_dates(today: dt.date) -> Callable[[dt.date], bool]:
    """Checkpoints: each month start of the last three months, each quarter start of the last 13
    months, and 1 January of the last two years (an older correction replays from the oldest one
    kept, or from the first game). Corrections are mostly recent: a late result or a fix to last
    month's event replays a month or two; one from earlier in the year at most three more. Each
    checkpoint is megabytes that a full run pickles and writes, so not every month keeps one."""
    def keep(day: dt.date) -> bool:
        if day.day != 1:
            return False
        months = months_between(day, today)
        return (
            months <= CHECKPOINT_MONTHS
            or (day.month % 3 == 1 and months <= RECENT_MONTHS)
            or (day.month == 1 and months <= 12 * CHECKPOINT_YEARS)
        )
    return keep


def _delete_from(system: RatingSystem, start: dt.date | None, *, swapped: bool) -> None:
    """Delete what the run will write again. `swapped`: entries, rows and summaries are replaced
    whole by fresh partitions instead. Tables in the order of partitions.PARTITIONED (lock order)."""
    rows = CalculationRow.objects.filter(system=system)
    summaries = PeriodSummary.objects.filter(system=system)
    lists = RatingList.objects.filter(system=system)
    checkpoints = EngineCheckpoint.objects.filter(system=system)
    if start is not None:
        rows = rows.filter(chunk__gte=start)
        summaries = summaries.filter(chunk__gte=start)
        lists = lists.filter(date__gt=start)
        checkpoints = checkpoints.filter(as_of__gt=start)
    entries = RatingListEntry.objects.filter(system=system, rating_list__in=lists)
    for queryset in (lists, checkpoints) if swapped else (entries, rows, summaries, lists, checkpoints):
        queryset._raw_delete(queryset.db)


def _replace_current(system: RatingSystem, entries: Entries | None, keys: _Keys, *, full: bool) -> int:
    """Make the system's stored current ratings exactly `entries` (None: none); returns the rows written.

    On PostgreSQL only the rows that differ are deleted and inserted: an event changes a few
    thousand ratings and ranks, and rewriting tens of thousands of rows with their six ranking
    indexes would be most of a small run. A partial run finds what differs by comparing columns
    with the snapshot of what the previous run wrote; a `full` run (or one without a valid
    snapshot) compares with every stored row read back, so it also repairs rows changed by hand.
    """
    stored = CurrentRating.objects.filter(system=system)
    if connection.vendor != "postgresql" or entries is None:
        stored._raw_delete(stored.db)
        CurrentSnapshot.objects.filter(system=system).delete()
        return bulk_insert(CurrentRating, CURRENT_FIELDS, current_rows(system.pk, entries, keys)) if entries else 0
    packed, figures = _current_figures(entries, keys)
    snapshot = None if full or packed is None else _current_snapshot(system)
    if snapshot is None:
        written = _replace_current_by_rows(system, entries, keys)
    else:
        written = _replace_current_by_snapshot(system, entries, keys, packed, figures, *snapshot)
    CurrentSnapshot.objects.filter(system=system).delete()
    if packed is not None:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT coalesce(max(id), 0) FROM {CurrentRating._meta.db_table} WHERE system_id = %s", [system.pk])
            last_id = cursor.fetchone()[0]
        order = np.argsort(packed)  # stored by key, ready for the next run's searchsorted
        blob = lz4.frame.compress(pickle.dumps((packed[order], figures[order]), protocol=pickle.HIGHEST_PROTOCOL))
        bulk_insert(CurrentSnapshot, ["system", "rows", "last_id", "columns"], [(system.pk, len(entries), last_id, blob)])
    return written


_KEY_BITS = 12  # race and variant ids packed beside the coach into one int64 key


def _current_figures(entries: Entries, keys: _Keys) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Each entry's key packed into an int64, and its stored columns (CURRENT_FIELDS after the key)
    as a float64 matrix with one NaN for none; (None, None) if an id is too large to pack."""
    coaches, races, variants = _key_arrays(entries, keys)
    if len(entries) and max(races.max(), variants.max()) >= 1 << _KEY_BITS:
        return None, None
    packed = (coaches << 2 * _KEY_BITS) | (races << _KEY_BITS) | variants
    arrays = entries.arrays()
    figures = np.column_stack([arrays[name].astype(np.float64) for name in CURRENT_FIELDS[4:]]) if len(entries) else (
        np.empty((0, len(CURRENT_FIELDS) - 4)))
    figures[np.isnan(figures)] = np.nan  # one NaN, so that rows compare by their bits
    return packed, figures


def _current_snapshot(system: RatingSystem) -> tuple[np.ndarray, np.ndarray] | None:
    """(packed keys, figures) the last run wrote, sorted by key, if the stored rows are still exactly those."""
    found = fetch_binary(
        f"SELECT s.rows, s.last_id, s.columns, (SELECT count(*) FROM {CurrentRating._meta.db_table} WHERE system_id = %s),"
        f" (SELECT coalesce(max(id), 0) FROM {CurrentRating._meta.db_table} WHERE system_id = %s)"
        f" FROM {CurrentSnapshot._meta.db_table} s WHERE s.system_id = %s",
        [system.pk, system.pk, system.pk],
    )
    if not found or found[0][0] != found[0][3] or found[0][1] != found[0][4]:
        return None
    return pickle.loads(lz4.frame.decompress(found[0][2]))


def _replace_current_by_snapshot(
    system: RatingSystem, entries: Entries, keys: _Keys, packed: np.ndarray, figures: np.ndarray,
    old_packed: np.ndarray, old_figures: np.ndarray,
) -> int:
    same = np.zeros(len(packed), dtype=bool)
    kept = np.zeros(len(old_packed), dtype=bool)
    if len(old_packed) and len(packed):
        match = np.minimum(np.searchsorted(old_packed, packed), len(old_packed) - 1)  # stored sorted by key
        same = (old_packed[match] == packed) & np.all(old_figures[match].view(np.int64) == figures.view(np.int64), axis=1)
        kept[match[same]] = True
    gone = old_packed[~kept]
    if len(gone):
        mask = (1 << _KEY_BITS) - 1
        races = ((gone >> _KEY_BITS) & mask).tolist()
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {CurrentRating._meta.db_table} c USING unnest(%s::bigint[], %s::int[], %s::int[]) k(coach, race, variant)"
                " WHERE c.system_id = %s AND c.coach_id = k.coach AND c.race_id IS NOT DISTINCT FROM k.race AND c.variant_id = k.variant",
                [(gone >> 2 * _KEY_BITS).tolist(), [race or None for race in races], (gone & mask).tolist(), system.pk],
            )
    return bulk_insert(CurrentRating, CURRENT_FIELDS, current_rows(system.pk, entries.take(np.flatnonzero(~same)), keys))


def _replace_current_by_rows(system: RatingSystem, entries: Entries, keys: _Keys) -> int:
    table = CurrentRating._meta.db_table
    columns = ", ".join(CurrentRating._meta.get_field(name).column for name in CURRENT_FIELDS)
    old = {tuple(values): pk for pk, *values in fetch_binary(f"SELECT id, {columns} FROM {table} WHERE system_id = %s", [system.pk])}
    new = [values for values in current_rows(system.pk, entries, keys) if old.pop(values, None) is None]
    if old:  # what is left of the stored rows differs from every new one
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {table} WHERE id = ANY(%s)", [list(old.values())])
    return bulk_insert(CurrentRating, CURRENT_FIELDS, new)


class _Keys:
    """Slug-to-id lookups for writing engine output."""

    def __init__(self):
        self.race = {None: None, **dict(Race.objects.values_list("slug", "id"))}  # pooled: no race
        self.variant = dict(Variant.objects.values_list("slug", "id"))


def row_tuples(sid: int, rows: list, chunk_date: dt.date, keys: _Keys) -> Iterator[tuple]:
    """Calculation rows as stored, in ROW_FIELDS order (a generator: two million a run)."""
    race, variant = keys.race, keys.variant
    for r in rows:
        yield (
            sid, r.game_id, r.side, r.coach, race[r.race], variant[r.variant], r.opponent, race[r.opponent_race],
            r.played_at, r.period, chunk_date, r.w, r.counted, r.reason or "", r.r0, r.rc, r.we, r.k, r.rt, r.wx,
            r.list_date, r.depot_date, r.opponent_phi, r.g,
        )


def summary_values(sid: int, s, chunk_date: dt.date, keys: _Keys) -> tuple:
    """A period summary as stored, in SUMMARY_FIELDS order."""
    return (
        sid, s.coach, keys.race[s.race], keys.variant[s.variant], s.period, s.effective, chunk_date, s.rl, s.rn,
        s.nt, s.games_played, s.wt, s.wet, s.rtt, s.rct, s.wxt, s.lpr, s.limitation, s.nv, s.mu, s.phi, s.sigma,
        s.mu_before, s.phi_before, s.sigma_before, s.is_start,
    )


def _key_arrays(entries: Entries, keys: _Keys) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each entry's coach, race id (0: pooled) and variant id."""
    if not entries.groups:
        return np.zeros((3, 0), dtype=np.int64)
    ids = np.zeros((max(entries.groups) + 1, 2), dtype=np.int64)
    for group, (variant, race) in entries.groups.items():
        ids[group] = keys.race[race] or 0, keys.variant[variant]
    return entries.coach, ids[entries.group, 0], ids[entries.group, 1]


def _key_columns(entries: Entries, keys: _Keys) -> tuple[list, list, list]:
    coaches, races, variants = _key_arrays(entries, keys)
    return coaches.tolist(), [race or None for race in races.tolist()], variants.tolist()


def _entry_columns(sid: int, entries: Entries, keys: _Keys, fields: list[str]) -> Iterator[tuple]:
    """`entries` as stored: system, coach, race, variant, then `fields` (named as Entries.columns names them)."""
    columns = entries.columns()
    return zip(repeat(sid, len(entries)), *_key_columns(entries, keys), *(columns[name] for name in fields))


def entry_rows(sid: int, entries: Entries, keys: _Keys) -> Iterator[tuple]:
    """A list's entries as stored, in ENTRY_FIELDS order without the list."""
    return _entry_columns(sid, entries, keys, ENTRY_FIELDS[5:])


def current_rows(sid: int, entries: Entries, keys: _Keys) -> Iterator[tuple]:
    """The current ratings as stored, in CURRENT_FIELDS order."""
    return _entry_columns(sid, entries, keys, CURRENT_FIELDS[4:])


class _Output:
    """What one run writes. Calculation rows (most of it) stream to the database while the replay
    runs; summaries, lists, current ratings and checkpoints are kept until it ends and the
    connection is free again."""

    def __init__(self, system: RatingSystem, keys: _Keys, tables: dict):
        self.system, self.sid, self.keys = system, system.pk, keys
        self.tables = tables  # model -> the fresh table it is written to, when not its own
        self.summaries: dict[str, list[tuple]] = {}  # period label -> its latest summaries
        self.lists: list[tuple[RatingList, Entries]] = []
        self.current: Entries | None = None
        self.checkpoints: list[tuple] = []  # CHECKPOINT_FIELDS

    def add(self, chunk: Chunk, rows: BulkWriter) -> None:
        sid, keys, chunk_date = self.sid, self.keys, chunk.start
        rows.write(row_tuples(sid, chunk.rows, chunk_date, keys))
        # An event still open at a chunk's end is summarised again, cumulatively, by the next chunk.
        by_label: dict[str, list[tuple]] = {}
        for s in chunk.summaries:
            by_label.setdefault(s.period, []).append(summary_values(sid, s, chunk_date, keys))
        self.summaries.update(by_label)
        if chunk.is_list:
            rating_list = RatingList(
                system=self.system, date=chunk.end, rated=chunk.rated, ranked=chunk.ranked, starters=chunk.starters,
                complete=chunk.complete,
            )
            self.lists.append((rating_list, chunk.entries))
        else:
            self.current = chunk.entries

    def save(self, start: dt.date | None) -> int:
        system = self.system
        if start is not None:  # summaries of events that were open at the checkpoint, now summarised again
            PeriodSummary.objects.filter(system=system, period__in=list(self.summaries), chunk__lt=start).delete()
        tables = self.tables
        written = bulk_insert(
            PeriodSummary, SUMMARY_FIELDS, (v for values in self.summaries.values() for v in values),
            table=tables.get(PeriodSummary),
        )
        saved = RatingList.objects.bulk_create([rating_list for rating_list, _ in self.lists])
        written += bulk_insert(RatingListEntry, ENTRY_FIELDS, (
            (rating_list.pk, *values)
            for rating_list, (_, entries) in zip(saved, self.lists) for values in entry_rows(self.sid, entries, self.keys)
        ), table=tables.get(RatingListEntry))
        written += _replace_current(system, self.current, self.keys, full=start is None)
        # COPY: megabytes of state each, which an INSERT would send and parse as hex text
        bulk_insert(EngineCheckpoint, CHECKPOINT_FIELDS, self.checkpoints)
        return written


class _Laps:
    """Where a run's time goes, in its log: "12.3 s replayed, ..."."""

    def __init__(self, log: list[str]):
        self.log, self.last = log, time.perf_counter()

    def lap(self, what: str) -> None:
        now = time.perf_counter()
        self.log.append(f"{now - self.last:.1f} s {what}")
        self.last = now


def _recalculate(
    system: RatingSystem, *, since: dt.date | None, today: dt.date, log: list[str], progress,
    history: selectors.GameHistory | None = None, fresh: partitions.FreshPartitions | None = None,
) -> dict:
    module, config = engine_for(system)
    rules = list_rules(system, config)
    ledger, start = selectors.resume_point(system, since)
    if start is not None and getattr(ledger.engine_state, "config", config) != config:
        # a state made under other parameters (a coach of an imported KNSB list added since, say)
        log.append(f"{system.slug}: the stored state at {start} was made with other parameters")
        ledger, start = Ledger(), None
    log.append(f"{system.slug}: from {start or 'the first game'} (asked: {since or 'everything'})")
    if start is not None:
        fresh = None  # a checkpoint after all: the run writes into the partitions in place
    _delete_from(system, start, swapped=fresh is not None)
    keys = _Keys()
    games = history.since(start) if history is not None else None
    if games is None:
        games = selectors.game_records(since=dt.datetime.combine(start, dt.time()) if start else None)
    else:
        log.append("games read once for several systems")
    log.append(f"{len(games)} games to replay")
    keep_checkpoint = checkpoint_dates(today)
    clock = _Laps(log)
    tables = fresh.tables if fresh else {}
    output = _Output(system, keys, tables)
    with BulkWriter(CalculationRow, ROW_FIELDS, table=tables.get(CalculationRow)) as rows:
        for chunk in replay(
            module, config, games, ledger, start=start, until=today, rules=rules, per_race=system.per_race,
            complete=complete_list(today), progress=progress,
        ):
            output.add(chunk, rows)
            if chunk.is_list and keep_checkpoint(chunk.end):
                output.checkpoints.append((
                    system.pk, chunk.end, ledger.games,
                    lz4.frame.compress(pickle.dumps(ledger, protocol=pickle.HIGHEST_PROTOCOL)),
                ))
    clock.lap(f"replayed, {rows.count} calculation rows written")
    written = rows.count + output.save(start)
    stale = [c.pk for c in EngineCheckpoint.objects.filter(system=system).only("as_of") if not keep_checkpoint(c.as_of)]
    EngineCheckpoint.objects.filter(pk__in=stale).delete()
    clock.lap(f"summaries, lists, current ratings and {len(output.checkpoints)} checkpoints written")
    if fresh:
        fresh.swap()  # last: it locks the tables that pages read until the run commits
        clock.lap("fresh partitions indexed and swapped in")
    log.append(f"{written} rows written")
    return {"games": len(games), "rows": written, "start": start}
