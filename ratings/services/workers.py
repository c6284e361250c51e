"""Runs in processes of their own: several systems at once, forked after the games are read once."""
from __future__ import annotations

import gc
import os
import struct
import sys
import traceback
from collections.abc import Callable

from django.db import connections

from ratings.models import (
    RecalculationRun,
    RunStatus,
)


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
