"""A killed worker loses nothing: with the real broker, a Celery worker whose pool process is killed
in the middle of a run gives the message back, and the run is carried out again from a clean start;
one whose main process is killed has its run failed by the sweep and retried once, as a new run."""
import datetime as dt
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from assurance.verification import verify_system
from ratings import services
from ratings.models import RatingSystem, RecalculationRun, RunStatus, Trigger
from ratings.services import leases
from ratings.tasks import sweep_lost_runs
from ratingsite.celery import app as celery_app
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event
from tests.reliability.test_lost_runs import database_env, running

pytestmark = [pytest.mark.broker, pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]

# A worker whose pool process, the first time it is in the middle of a replay, writes its pid to
# the file named and waits there to be killed. Later deliveries run through.
WORKER = """
import os, sys, time, django
django.setup()
from ratings.services import execution
marker = sys.argv[1]
real = execution._Output.add
def add(self, chunk, rows):
    real(self, chunk, rows)
    if not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(120)
execution._Output.add = add
from ratingsite.celery import app
app.worker_main(["worker", "--pool=prefork", "--concurrency=1", "--loglevel=WARNING",
                 "--without-gossip", "--without-mingle", "--without-heartbeat"])
"""


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"no {what} within {timeout} s")


def test_a_worker_whose_pool_process_is_killed_mid_run_gives_the_run_back_and_it_is_carried_out(tmp_path: Path):
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date.today().replace(day=1) - dt.timedelta(days=60), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    elo = RatingSystem.objects.get(slug="elo")
    celery_app.control.purge()
    marker = tmp_path / "pool-process"
    worker = subprocess.Popen([sys.executable, "-c", WORKER, str(marker)], env=database_env(), text=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        run = services.recalculation_request(system=elo, trigger=Trigger.MANUAL)  # a full run, sent to the broker
        pool_pid = int(wait_until(lambda: marker.exists() and marker.read_text(), 90, "run in the pool process"))
        assert RecalculationRun.objects.get(pk=run.pk).status == RunStatus.RUNNING
        os.kill(pool_pid, signal.SIGKILL)
        # rejected, not acknowledged: the broker hands the message to the pool's next process
        done = wait_until(lambda: RecalculationRun.objects.filter(pk=run.pk, status=RunStatus.SUCCEEDED).first(), 90,
                          "second delivery carried out")
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()
    assert not running(pool_pid)
    assert done.games_processed == 2 and done.error == ""
    assert RecalculationRun.objects.count() == 1  # the same run, not a new one
    assert verify_system(elo).count == 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_class WHERE relname LIKE %s", [f"%\\_r{run.pk}"])
        assert cursor.fetchone()[0] == 0  # the killed attempt's fresh tables went before the second began


def start_worker_process(marker: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WORKER, str(marker)], env=database_env(), text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def stop(worker: subprocess.Popen) -> None:
    worker.send_signal(signal.SIGTERM)
    try:
        worker.wait(30)
    except subprocess.TimeoutExpired:
        worker.kill()


def test_a_worker_whose_main_process_is_killed_mid_run_has_its_run_failed_by_the_sweep_and_retried_once(tmp_path: Path):
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date.today().replace(day=1) - dt.timedelta(days=60), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    elo = RatingSystem.objects.get(slug="elo")
    celery_app.control.purge()
    marker = tmp_path / "pool-process"
    worker = start_worker_process(marker)
    try:
        run = services.recalculation_request(system=elo, trigger=Trigger.MANUAL)
        pool_pid = int(wait_until(lambda: marker.exists() and marker.read_text(), 90, "run in the pool process"))
        os.kill(worker.pid, signal.SIGKILL)  # the main process: its pool process dies with it, the message stays unacknowledged
        worker.wait(30)
    finally:
        worker.kill()
    wait_until(lambda: not running(pool_pid), 10, "end of the pool process")
    # the server lets go of the dead session's lease as it notices the socket close; beat's sweep then
    # fails the run and queues its retry (the lost message waits for the broker's visibility timeout, an hour)
    wait_until(lambda: sweep_lost_runs() == 1, 10, "sweep of the lost run")
    lost = RecalculationRun.objects.get(pk=run.pk)
    assert (lost.status, lost.error) == (RunStatus.FAILED, leases.LOST)
    retry = RecalculationRun.objects.get(retry_of=lost)
    assert (retry.trigger, retry.from_date, retry.status) == (Trigger.RETRY, lost.from_date, RunStatus.QUEUED)
    assert retry.enqueued_at is not None  # sent to the broker

    worker = start_worker_process(marker)  # a worker still up (here: one started again) takes the retry
    try:
        done = wait_until(lambda: RecalculationRun.objects.filter(pk=retry.pk, status=RunStatus.SUCCEEDED).first(), 90,
                          "retry carried out")
    finally:
        stop(worker)
    assert done.games_processed == 2 and verify_system(elo).count == 0
    assert sweep_lost_runs() == 0 and RecalculationRun.objects.count() == 2  # retried once: no loop
    assert RecalculationRun.objects.get(pk=run.pk).status == RunStatus.FAILED
