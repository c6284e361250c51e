"""No recalculation lost when Redis is down: a Redis of the test's own (broker and cache, as in
production), stopped or hung while staff sanction an event, then back. The sanction answers at once,
its runs and its statistics refresh wait in their outboxes, and the dispatchers send them once the
broker returns; a worker then carries them out."""
import datetime as dt
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.utils import timezone

from assurance.verification import verify_system
from audit.models import Action, AuditRecord
from ratings.models import AccuracyRefreshRequest, AccuracyReport, RatingSystem, RecalculationRun, RunStatus
from ratings.tasks import dispatch_queued_runs
from ratingsite.celery import app as celery_app
from ratingsite.settings.base import site_caches
from stats.models import SummaryRefresh, SummaryRefreshRequest
from stats.tasks import dispatch_owed_refresh
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event
from tests.reliability.test_worker_lost import wait_until
from tests.roles import staff
from tournaments.models import Event, EventStatus

# The fault tests that start servers of their own and bound how long an answer takes (here: a sanction
# within 5 s while Redis hangs; gunicorn's cached pages beside a cache-busting loop; a write beside a
# run holding SQLite's lock) run one after another on one pytest-xdist worker (`--dist loadgroup`): two
# at once on two cores make each other's load, and their bounds would measure that.
ONE_AT_A_TIME = pytest.mark.xdist_group("servers-with-time-bounds")

pytestmark = [pytest.mark.broker, pytest.mark.django_db(transaction=True), ONE_AT_A_TIME]


class OwnRedis:
    """A redis-server on a free port, keeping nothing on disk, that the test can stop, hang and start."""

    def __init__(self, tmp_path):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.dir, self.process = tmp_path, None
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.cache_url = f"redis://127.0.0.1:{self.port}/1"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [shutil.which("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.dir)], stdout=subprocess.DEVNULL,
        )
        wait_until(lambda: self._answers(), 10, "answer from the test's redis")

    def _answers(self) -> bool:
        """Whether the redis-server started answers: itself, not another process that has taken its port
        since it was probed free (tests in other xdist workers start their own on free ports too)."""
        if self.process.poll() is not None:
            raise AssertionError(f"the test's redis-server on port {self.port} ended as it started (the port taken?)")
        try:
            return redis.Redis(port=self.port, socket_timeout=0.5).info("server")["process_id"] == self.process.pid
        except redis.ConnectionError:
            return False

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)

    def hang(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)  # its socket still takes connections, and never answers

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)

    def queued_messages(self) -> int:
        return redis.Redis(port=self.port).llen("celery")


def fresh_connections() -> None:
    """Celery's connections and producers are made again from the broker URL it has now (its app
    keeps both pools for its lifetime: close() leaves the producers' pool)."""
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def broker(tmp_path, monkeypatch, settings):
    """Celery's broker and the site's caches are the test's own Redis for the test (connections made
    afresh both ways; Celery reads CELERY_BROKER_URL from the environment before its settings)."""
    own = OwnRedis(tmp_path)
    own.start()
    settings.CACHES = site_caches(own.cache_url)
    monkeypatch.setenv("CELERY_BROKER_URL", own.url)
    monkeypatch.setattr(celery_app.conf, "broker_url", own.url)
    fresh_connections()
    try:
        yield own
    finally:
        if own.process.poll() is None:
            own.resume()
            own.stop()
        monkeypatch.undo()
        fresh_connections()


@pytest.mark.parametrize("outage", ["stopped", "hung"])
def test_a_sanction_during_a_redis_outage_answers_at_once_and_its_runs_go_out_when_redis_returns(client, broker, outage):
    coaches = CoachFactory.create_batch(4)
    first_of_month = dt.date.today().replace(day=1)
    add_event(coaches, first_of_month - dt.timedelta(days=90), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    event = add_event(coaches, first_of_month - dt.timedelta(days=60), [[(0, 2, (1, 0)), (1, 3, (0, 2))]], status="submitted")
    client.force_login(staff())
    broker.stop() if outage == "stopped" else broker.hang()

    began = time.monotonic()
    response = client.post(f"/staff/events/{event.pk}/sanction/", {"note": "In order"}, follow=True)
    answered_in = time.monotonic() - began

    # refused at once when stopped; hung, one second for each of the runs' message, the refresh's
    # message and the cache (which then leaves Redis alone for a while)
    assert response.status_code == 200 and answered_in < 5, answered_in
    assert "Its recalculation is queued" in response.content.decode()
    assert Event.objects.get(pk=event.pk).status == EventStatus.SANCTIONED
    assert AuditRecord.objects.filter(action=Action.EVENT_SANCTION, event=event).count() == 1
    owed = RecalculationRun.objects.filter(status=RunStatus.QUEUED, enqueued_at=None)
    systems = RatingSystem.objects.filter(active=True).count()
    assert owed.count() == systems
    assert SummaryRefreshRequest.objects.filter(enqueued_at=None).count() == 1
    refreshes = SummaryRefresh.objects.count()

    broker.start() if outage == "stopped" else broker.resume()
    assert broker.queued_messages() == 0  # nothing reached it while it was out
    # the dispatcher leaves runs younger than half a minute (their transaction may be committing)
    owed.update(created_at=timezone.now() - dt.timedelta(minutes=1))
    SummaryRefreshRequest.objects.update(created_at=timezone.now() - dt.timedelta(minutes=1))
    assert dispatch_queued_runs() == systems
    assert dispatch_owed_refresh() is True
    assert broker.queued_messages() == systems + 1
    assert not RecalculationRun.objects.filter(enqueued_at=None).exists()
    assert dispatch_owed_refresh() is False  # sent once: the next minute's dispatch finds nothing owed

    celery_app.conf.task_always_eager = False
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        wait_until(lambda: RecalculationRun.objects.filter(status=RunStatus.SUCCEEDED).count() == systems, 120,
                   "run of every system")
        wait_until(lambda: not SummaryRefreshRequest.objects.exists(), 60, "statistics refresh")
        # each run, once committed, sends its system's accuracy refresh: they follow the statistics'
        wait_until(lambda: AccuracyReport.objects.filter(run__status=RunStatus.SUCCEEDED).count() == systems, 60,
                   "accuracy report of every system's run")
    assert broker.queued_messages() == 0
    assert not AccuracyRefreshRequest.objects.exists()  # each refresh answered the requests it was sent for
    assert SummaryRefresh.objects.count() == refreshes + 1
    for system in RatingSystem.objects.filter(active=True):
        assert verify_system(system).count == 0
