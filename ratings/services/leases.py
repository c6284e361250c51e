"""Who holds a run: a lease that ends with its process, so that no run stays queued or running for
ever. A run records "host:pid" of the process carrying it out; on PostgreSQL that process also holds
an advisory lock of its session for the run, which the server lets go the moment the process or
its connection dies, on whatever machine. The sweep fails every run whose holder is gone, drops
what it left behind, and so unblocks the edits its dates held up."""
from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from audit.models import Action
from audit.services import audit_record
from ratings import partitions
from ratings.models import RatingSystem, RecalculationRun, RunStatus

logger = logging.getLogger(__name__)

LEASE_LOCKS = 72_614  # the advisory locks' first key: a run's lock is (LEASE_LOCKS, run id)
LOST = "The run's process is gone (killed, out of memory, or its machine stopped): nothing it did was kept."


def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@contextmanager
def run_lease(run_id: int) -> Iterator[None]:
    """Hold the run's lease for the block: taken before the run is marked running, so a sweep never
    takes a run that is starting for a lost one."""
    RecalculationRun.objects.filter(pk=run_id).update(worker=this_process())
    locked = connection.vendor == "postgresql"
    if locked:
        with connection.cursor() as cursor:
            # waits while another delivery of the same run holds it, then finds it done
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", [LEASE_LOCKS, run_id])
    try:
        yield
    finally:
        if locked:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LEASE_LOCKS, run_id])
            except Exception:  # the connection is gone, and the lock with it
                logger.warning("run %s: its lease went with its connection", run_id)


def recalculation_sweep(*, system: RatingSystem | None = None, drop_tables: bool = True) -> list[int]:
    """Fail every queued or running run whose process is gone and, with `drop_tables`, drop its fresh
    tables (else the next run of its system does); returns their ids. Runs waiting in the broker name
    no process and are left to it."""
    runs = RecalculationRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).exclude(worker="")
    if system is not None:
        runs = runs.filter(system=system)
    lost = []
    for run in runs.only("pk", "system_id", "status", "worker"):
        if _is_lost(run) and RecalculationRun.objects.filter(pk=run.pk, status=run.status, worker=run.worker).update(
            status=RunStatus.FAILED, finished_at=timezone.now(), error=LOST,
        ):
            lost.append(run.pk)
            if drop_tables and connection.vendor == "postgresql":
                partitions.FreshPartitions(run.system_id, run.pk).discard()
            logger.warning("run %s of system %s failed: its process %s is gone", run.pk, run.system_id, run.worker)
    return lost


def _is_lost(run: RecalculationRun) -> bool:
    if run.status == RunStatus.RUNNING and connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LEASE_LOCKS, run.pk])
            free = cursor.fetchone()[0]
            if free:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LEASE_LOCKS, run.pk])
        return free
    host, _, pid = run.worker.rpartition(":")
    return host == socket.gethostname() and pid.isdigit() and not _alive(int(pid))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@transaction.atomic(durable=True)
def recalculation_cancel(*, run: RecalculationRun, actor) -> RecalculationRun:
    """Cancel a run that has not started: it will not run (a message already sent finds it cancelled)."""
    cancelled = RecalculationRun.objects.filter(pk=run.pk, status=RunStatus.QUEUED).update(
        status=RunStatus.CANCELLED, finished_at=timezone.now(), error=f"Cancelled by {actor} before it started.",
    )
    if not cancelled:
        status = RecalculationRun.objects.get(pk=run.pk).get_status_display().lower()
        raise ValidationError(f"Run {run.pk} is {status}: only a queued run can be cancelled.")
    run.refresh_from_db()
    audit_record(actor=actor, action=Action.RUN_CANCEL, obj=run, before={"status": RunStatus.QUEUED}, after={"status": run.status})
    return run
