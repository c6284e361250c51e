"""Runs in processes of their own: several systems at once, in a pool forked after the games are read once.
(Without a broker, the runs a web request queued go on in a thread of the server: ratingsite.after_response.)"""
from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from django.db import connections

from ratings.models import (
    RecalculationRun,
    RunStatus,
)


def _longest_first(runs: list[RecalculationRun]) -> list[int]:
    """Run ids, the longest expected first, so that the processes finish together instead of one
    going on alone with the last long run. Expected: the system's last run asked for the same
    date (from the start, for a full run), else its last run."""
    expected: dict[int, float] = {}
    for run in runs:
        done = RecalculationRun.objects.filter(system=run.system_id, status=RunStatus.SUCCEEDED).exclude(duration=None)
        last = done.order_by("-finished_at").values_list("duration", flat=True)
        expected[run.pk] = last.filter(from_date=run.from_date).first() or last.first() or 0.0
    return sorted(expected, key=expected.__getitem__, reverse=True)


def in_processes(items: list, jobs: int, execute: Callable[[Any], object], *, forked: Callable[[], None]) -> list:
    """`execute(item)` for each item in a pool of up to `jobs` processes forked from this one, so that
    they share what it has read; each takes the next item when it is free. `forked` runs here once
    every process is forked. Returns the items whose process ended abnormally (killed, out of
    memory): a lost process breaks the pool, so the items it held or had still to hand out are lost
    too, and the caller decides what to do with them. An error `execute` raises is raised here once
    the pool is done.
    """
    global _EXECUTE
    connections.close_all()  # a process must not share this one's sockets: each opens its own
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # or a process would print this one's pending output again
    _EXECUTE = execute
    _give_back_memory()  # what reading let go of: each process would inherit it, and count it
    lost, errors = [], []
    try:
        # fork, not spawn: the processes must inherit the games read here; a forking pool starts
        # every process at the first submit, before its management thread exists
        with ProcessPoolExecutor(
            max_workers=min(jobs, len(items)), mp_context=multiprocessing.get_context("fork"), initializer=_started,
        ) as pool:
            futures = {pool.submit(_execute, item): item for item in items}
            forked()
            _EXECUTE = None
            try:
                completed = list(as_completed(futures))
            except BaseException:  # Ctrl-C, SIGTERM (SystemExit): the runs stop with this process
                for process in list(pool._processes.values()):
                    process.kill()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            for future in completed:
                error = future.exception()
                if isinstance(error, BrokenProcessPool):
                    lost.append(futures[future])
                elif error is not None:
                    errors.append(error)
    finally:
        _EXECUTE = None
    if errors:
        raise errors[0]
    return [item for item in items if item in lost]


def can_fork() -> bool:
    """Whether this process may start a pool: it forks, and is not itself a pool's (daemon) process."""
    return hasattr(os, "fork") and not multiprocessing.current_process().daemon


_PR_SET_PDEATHSIG = 1
_EXECUTE: Callable[[Any], object] | None = None  # the pool's work, inherited by its processes when forked


def _started() -> None:
    _die_with_parent()
    gc.freeze()  # the collector leaves the parent's objects alone: no scans, no copied pages
    _DETACHED.extend(_detach_connections())


def _die_with_parent() -> None:
    """Linux: the kernel kills this process when the one that forked it dies (kill -9 included), so
    no run goes on to commit after the command that started it is gone."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _execute(item) -> None:
    assert _EXECUTE is not None, "a pool process is forked with its work set"
    try:
        _EXECUTE(item)
    finally:
        connections.close_all()  # a pool process ends with os._exit: no finaliser would close them
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        _give_back_memory()


def _give_back_memory() -> None:
    """Hand the memory this process let go of back to the system (glibc keeps freed blocks for its
    own reuse): before forking, and between two runs in one process, so that peaks do not add up."""
    gc.collect()
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # glibc's; other C libraries have none
    if trim is not None:
        trim(0)


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
