"""Carrying out a recalculation run: from the stored checkpoint at or before the earliest affected
date, replace every stored figure from there on. One run per system at a time (a row lock on the
system), and the whole run commits or nothing does."""
from __future__ import annotations

import datetime as dt
import logging
import pickle
import time
import traceback
from collections.abc import Callable, Sequence
from functools import partial

import lz4.frame
import numpy as np
from django.db import connection, models, transaction
from django.utils import timezone

from rating_engines import methods
from rating_engines.common import GameRecord, RecordColumns, paused_gc
from rating_engines.protocol import LateResults
from ratings import partitions, selectors, signals
from ratings.bulk import bulk_insert
from ratings.configuration import engine_for, list_rules
from ratings.models import (
    CalculationRow,
    CurrentRating,
    CurrentSnapshot,
    EngineCheckpoint,
    RatingList,
    RatingSystem,
    RecalculationRun,
    ReplayTail,
    RunStatus,
)
from ratings.replay import Ledger, Resumed, Tail, UnratableGame, months_between, replay, replayable
from ratings.services.leases import recalculation_sweep, run_lease
from ratings.services.publication import lists_publish_due, newest_game
from ratings.services.storage import ROW_FIELDS, _delete_from, _kept, _Keys, _Output
from ratings.services.workers import _longest_first, can_fork, in_processes
from ratingsite import page_cache
from tournaments import selectors as record_selectors

logger = logging.getLogger(__name__)  # "ratings.services.execution": the runs, under the "ratings" logger


RECENT_MONTHS = 13


CHECKPOINT_MONTHS = 3


CHECKPOINT_YEARS = 2


def recalculation_execute(
    *, run_id: int, today: dt.date | None = None, progress: Callable[[int, int], None] | None = None,
    history: selectors.GameHistory | None = None, vacuum_shared: bool = True,
) -> RecalculationRun:
    """Carry out a queued run. A run that already succeeded is left as it is (safe to run twice).

    `history`: games already read for several runs (selectors.game_history). It is used only if
    no other run of the system finished after it was read; otherwise the run reads them again.
    `vacuum_shared` False: the caller vacuums the tables all systems share once, after all its
    runs (`recalculation_execute_many`), instead of after each.

    On failure nothing of the run's work is kept: the previous rankings stay exactly as they were,
    and the run records the error.
    """
    run = RecalculationRun.objects.select_related("system").get(pk=run_id)
    if run.status in (RunStatus.SUCCEEDED, RunStatus.CANCELLED):
        return run
    if run.status == RunStatus.FAILED and run.retries.exists():
        return run  # its lost message redelivered at last: its retry carries it out
    recalculation_sweep(system=run.system)  # a lost run of the system fails first, and its tables go
    with run_lease(run.pk):
        return _carry_out(
            run, today=today or timezone.now().date(), progress=progress, history=history, vacuum_shared=vacuum_shared,
        )


def _carry_out(
    run: RecalculationRun, *, today: dt.date, progress: Callable[[int, int], None] | None, history: selectors.GameHistory | None,
    vacuum_shared: bool,
) -> RecalculationRun:
    claimed = RecalculationRun.objects.filter(pk=run.pk).exclude(status__in=[RunStatus.SUCCEEDED, RunStatus.CANCELLED]).update(
        status=RunStatus.RUNNING, started_at=timezone.now(), error=""
    )
    if not claimed:
        return run
    started = time.perf_counter()
    logger.info("run %s of %s started, from %s (%s)", run.pk, run.system.slug, run.from_date or "the first game", run.trigger)
    log: list[str] = []
    fresh = None
    try:
        if partitions.partitioned() and selectors.resume_date(run.system, run.from_date) is None:
            fresh = partitions.FreshPartitions(run.system_id, run.pk)
            fresh.create()  # before the transaction: see FreshPartitions
        with transaction.atomic():
            # One run per system at a time: the row lock is held until this transaction ends. No key
            # update: a new run of the system (a sanction's) references the row, which a plain FOR
            # UPDATE would make it wait on for the rest of this run.
            system = RatingSystem.objects.select_for_update(no_key=True).get(pk=run.system_id)
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
            page_cache.bump_on_commit()  # the public pages show the new figures once they commit
            transaction.on_commit(partial(_announce, run.pk, system.pk, outcome["published"]))
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
    full = outcome["start"] is None  # a run given fresh partitions writes into them only if it found no checkpoint
    _maintain_after_run(run.system_id, full=full, swapped=fresh is not None and full, shared=vacuum_shared)
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

    On PostgreSQL up to `jobs` run at once, in a pool of processes forked from this one, each with
    its own connection, taking the next run when it is free (a run is bound by Python, so threads
    would take turns on one core). The games are read here, once, before forking: each process copies the
    pages it touches (reading an object writes its reference count), and this one lets go of its
    own as soon as they are forked, so the history is held as many times as when each process read
    it itself, without reading it twice. One at a time on SQLite (a single writer), inside a caller's
    transaction (whose uncommitted records other connections would not see), or where processes
    cannot fork (a Celery worker's pool process, say).

    The tables that every system's runs write (current ratings, their snapshots, checkpoints) are
    vacuumed once, after the last run, not after each: each vacuum reads every index of the current
    ratings of all systems, and the runs that followed it in the same process waited for it.
    """
    runs = list(RecalculationRun.objects.filter(pk__in=run_ids).select_related("system"))
    dates = [run.from_date for run in runs]
    since = min((day for day in dates if day is not None), default=None) if None not in dates else None
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
                vacuum_shared=False,
            )
        except Exception as error:  # recorded on the run by recalculation_execute
            return error

    if jobs <= 1 or len(run_ids) <= 1 or connection.vendor != "postgresql" or connection.in_atomic_block or not can_fork():
        return _vacuumed_after([execute(run_id) for run_id in run_ids])
    try:
        lost = in_processes(_longest_first(runs), jobs, execute, forked=read.clear)
    except BaseException:  # stopped (Ctrl-C, SIGTERM): its processes are gone, and so is their work
        RecalculationRun.objects.filter(pk__in=run_ids, status=RunStatus.QUEUED).update(
            status=RunStatus.FAILED, finished_at=timezone.now(), error="Stopped with the command before it started.",
        )
        recalculation_sweep()
        raise
    # A lost process takes the pool's other runs down with it: each goes again on its own, reading
    # the games itself (this process let go of them), so that only a run that loses its process twice fails.
    for run_id in lost:
        if in_processes([run_id], 1, execute, forked=lambda: None):
            RecalculationRun.objects.filter(pk=run_id, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).update(
                status=RunStatus.FAILED, finished_at=timezone.now(),
                error="the run's process ended abnormally, twice (killed, or out of memory)",
            )
    outcomes: list[RecalculationRun | Exception] = []
    for run_id in run_ids:
        run = RecalculationRun.objects.select_related("system").get(pk=run_id)
        failed = run.status != RunStatus.SUCCEEDED
        outcomes.append(RecalculationFailed(run.error.strip().splitlines()[-1] if run.error else run.status) if failed else run)
    return _vacuumed_after(outcomes)


def _vacuumed_after(outcomes: list[RecalculationRun | Exception]) -> list[RecalculationRun | Exception]:
    """`outcomes`, once the shared tables are vacuumed (and analysed, if a run started from scratch)."""
    _vacuum_shared(analyse=any(isinstance(run, RecalculationRun) and run.recomputed_from is None for run in outcomes))
    return outcomes


def _maintain_after_run(system_id: int, *, full: bool, swapped: bool, shared: bool) -> None:
    """After a full run the planner's statistics describe the tables before it (a ranking would be
    read by a plan made for an empty table): analyse the derived tables then. Autovacuum would, but
    minutes later. A partial run leaves dead rows in the system's large partitions: vacuum those
    past autovacuum's threshold. `shared`: vacuum the tables all systems share too (_vacuum_shared).
    Outside a transaction only (PostgreSQL refuses VACUUM inside one)."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    if shared:
        _vacuum_shared(analyse=full)
    # `swapped`: the run analysed its fresh partitions before swapping them in
    analyse: list[type[models.Model]] = [RatingList] if swapped else [RatingList, *partitions.PARTITIONED]
    with connection.cursor() as cursor:
        for model in analyse if full else ():
            cursor.execute(f"ANALYZE {model._meta.db_table}")
    if not swapped:  # a partial run's dead rows in the large partitions, where no autovacuum clears them
        partitions.vacuum_grown(system_id)


def _vacuum_shared(*, analyse: bool) -> None:
    """Every run replaces current ratings (those that changed): vacuum them, so ranking pages count
    and page through them on the index alone instead of past the rows the run replaced (`analyse`:
    and analyse them, after a full run). Every run also replaces its snapshot of them, its replay
    tail and some checkpoints, megabytes of dead rows each: vacuum those tables too, or they grow
    without end wherever autovacuum is slow or off."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    # TRUNCATE false: giving back the empty pages at a table's end needs its exclusive lock, which
    # another system's run holds up for the whole of it; VACUUM would wait five seconds, then give up.
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM (TRUNCATE false{', ANALYZE' if analyse else ''}) {CurrentRating._meta.db_table}")
        cursor.execute(
            f"VACUUM (TRUNCATE false) {CurrentSnapshot._meta.db_table}, {EngineCheckpoint._meta.db_table}, {ReplayTail._meta.db_table}"
        )


def complete_list(today: dt.date) -> Callable[[dt.date], bool]:
    """Lists holding every ranked key: each 1 January and each month start of the last 13 months.
    Other months keep their movements (every key that played, and those whose rank lapsed), which
    is what their pages show."""
    def complete(day: dt.date) -> bool:
        return (day.month == 1 and day.day == 1) or months_between(day, today) <= RECENT_MONTHS
    return complete


def checkpoint_dates(today: dt.date) -> Callable[[dt.date], bool]:
    """Checkpoints: each month start of the last three months, each quarter start from the one at
    or before the start of the 13 months of complete lists on, and 1 January of the last two years
    (an older correction replays from the oldest one kept, or from the first game). Corrections are
    mostly recent: a late result or a fix to last month's event replays a month or two; one from
    anywhere in those 13 months at most two more (a quarter start 13 to 15 months back, not
    1 January up to two years back). Each checkpoint is megabytes that a full run pickles and
    writes, so not every month keeps one."""
    def keep(day: dt.date) -> bool:
        if day.day != 1:
            return False
        months = months_between(day, today)
        return (
            months <= CHECKPOINT_MONTHS
            or (day.month % 3 == 1 and months <= RECENT_MONTHS + 2)
            or (day.month == 1 and months <= 12 * CHECKPOINT_YEARS)
        )
    return keep


def _writes_changes(start: dt.date | None, today: dt.date, *, swapped: bool) -> bool:
    """Whether a run from `start` writes only what changed (storage.ChangedRows) instead of deleting
    everything from there on and writing it again: one from a checkpoint of the last
    CHECKPOINT_MONTHS, on PostgreSQL. An event at the end replays its month; its rows, summaries
    and lists are mostly what is stored already. A longer replay changes most of what it makes (the
    ratings of every game after the event move), and holding its rows to compare would cost memory."""
    return (
        start is not None and not swapped and connection.vendor == "postgresql"
        and months_between(start, today) <= CHECKPOINT_MONTHS
    )


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
    reported = selectors.reads_reported(module)  # KNSB: from a checkpoint, the games reported since go forward too
    newest = newest_game()  # before the read: a game entered after it is in none of this run's lists
    tail = _tail_to_go_on_from(system, since, module, config, history=history, log=log)
    if tail is not None:
        ledger, resumed, start, read, games = tail
    else:
        resumed = None
        ledger, start = selectors.resume_point(system, since)
        if start is not None and getattr(ledger.engine_state, "config", config) != config:
            # a state made under other parameters (a coach of an imported KNSB list added since, say)
            log.append(f"{system.slug}: the stored state at {start} was made with other parameters")
            ledger, start = Ledger(), None
        log.append(f"{system.slug}: from {start or 'the first game'} (asked: {since or 'everything'})")
    if start is not None:
        fresh = None  # a checkpoint after all: the run writes into the partitions in place
    changes = _writes_changes(start, today, swapped=fresh is not None)
    _delete_from(system, start, swapped=fresh is not None, changes=changes)
    ReplayTail.objects.filter(system=system).delete()  # this run's own replaces it, if its replay leaves one
    keys = _Keys()
    if tail is None:
        shared = history.since(start, reported=reported) if history is not None else None
        if shared is not None:
            log.append("games read once for several systems")
        games = read = shared if shared is not None else selectors.columns_from(start, reported=reported)
    log.append(f"{len(games)} games to replay")
    keep_checkpoint = checkpoint_dates(today)
    clock = _Laps(log)
    tables = fresh.tables if fresh else {}
    if fresh:
        fresh.begin()
    output = _Output(system, keys, tables, start=start, changes=changes)
    try:  # before the COPY holds the connection: a game no run can rate fails the run here, its event named
        replayable(games, config, start=start, until=today, lists_from=ledger.first)
    except UnratableGame as error:
        raise error.naming(record_selectors.event_name(pk=error.game.event_id)) from None
    engine = methods.for_replay(module, len(games))
    if engine is not module:
        log.append("the games rated by the engine's compiled history")
    tails: list[Tail] = []
    with output.writer(CalculationRow, ROW_FIELDS, "system_id = %s AND chunk >= %s", [system.pk, start]) as rows:
        for chunk in replay(
            engine, config, games, ledger, start=start, until=today, rules=rules, per_race=system.per_race,
            complete=complete_list(today), progress=progress, resumed=resumed, keep_tail=tails.append,
        ):
            output.add(chunk, rows)
            if chunk.is_list and keep_checkpoint(chunk.end):
                output.checkpoints.append((
                    system.pk, chunk.end, ledger.games,
                    lz4.frame.compress(pickle.dumps(ledger, protocol=pickle.HIGHEST_PROTOCOL)),
                ))
    clock.lap(f"replayed, {rows.count} calculation rows written" + _kept(rows))
    stale = [c.pk for c in EngineCheckpoint.objects.filter(system=system).only("as_of") if not keep_checkpoint(c.as_of)]
    EngineCheckpoint.objects.filter(pk__in=stale).delete()  # the run's own are all kept
    written = rows.count + output.save(clock.lap)
    for kept in tails:
        record, _ = selectors.month_record(read, kept.start, kept.last)
        bulk_insert(ReplayTail, ["system", "start", "last_played", "last_game", "record", "state"], [
            (system.pk, kept.start, kept.last[0], kept.last[1], record, lz4.frame.compress(kept.state)),
        ])
    if fresh:
        fresh.swap()  # last: it locks the tables that pages read until the run commits
        clock.lap("fresh partitions indexed and swapped in")
    published = lists_publish_due(system=system, today=today, newest=newest)
    if published:
        clock.lap(f"{len(published)} list{'s' if len(published) > 1 else ''} published, from {published[0].date}")
    log.append(f"{written} rows written")
    return {"games": len(games), "rows": written, "start": start, "published": [p.pk for p in published]}


def _tail_to_go_on_from(
    system: RatingSystem, since: dt.date | None, module, config, *, history: selectors.GameHistory | None,
    log: list[str],
) -> tuple[Ledger, Resumed, dt.date, Sequence[GameRecord], Sequence[GameRecord]] | None:
    """(ledger, resumed, start, the games read from its month's start, the games after its last
    one) to go on from the system's ReplayTail, when the run is for games that all come after its
    last one: an event at the end continues from the state at the last rated game instead of
    replaying the month. None when it may not: no tail; a state made under other parameters; the
    record of its month no longer the one its run read (a change that asked for no run, an import
    say, or whose run failed or was cancelled); (KNSB) a result among the games that came late (it
    goes into a later list than its month's) or was corrected; or a checkpoint after the tail's
    month start (a list drawn between): the run replays less from there."""
    start = selectors.tail_start(system)
    if start is None or (selectors.resume_date(system, since) or dt.date.min) > start:
        return None
    tail = selectors.replay_tail(system, since)
    if tail is None:
        return None
    try:
        ledger, resumed = tail.resumed()
    except Exception:  # left by an older version of the site: the month is replayed instead
        logger.warning("the replay tail of %s could not be read; the run replays from a checkpoint", system.slug, exc_info=True)
        return None
    if getattr(ledger.engine_state, "config", config) != config:
        return None
    read = history.since(tail.start, reported=False) if history is not None else None
    if read is None:
        read = selectors.columns_from(tail.start, reported=False)
    record, after = selectors.month_record(read, tail.start, tail.last)
    if record != tail.record:
        log.append(f"{system.slug}: the games of its last rated month changed since its last run")
        return None
    games = read[after:]
    if isinstance(module, LateResults):  # only a result reported after its event's end may be late
        looked_at = games.take(np.flatnonzero(games.reported_after_event())) if isinstance(games, RecordColumns) else games
        if any(g.corrections or module.late_month(g) is not None for g in looked_at):
            return None
    played, game_id = tail.last
    log.append(
        f"{system.slug}: from the stored state at its last rated game (game {game_id}, {played:%Y-%m-%d %H:%M}),"
        f" its month from {tail.start} (asked: {since})"
    )
    return ledger, resumed, tail.start, read, games


def _announce(run_id: int, system_id: int, published: list[int]) -> None:
    """Say that a run committed (signals.run_committed); a receiver that fails is logged, never the run's failure."""
    for receiver, outcome in signals.run_committed.send_robust(
        sender=RecalculationRun, run_id=run_id, system_id=system_id, published=published,
    ):
        if isinstance(outcome, Exception):
            logger.error("run %s: %r failed after the commit", run_id, receiver, exc_info=outcome)
