"""With a real Celery worker on the real Redis broker (CI's PostgreSQL + Redis pass)."""
import datetime as dt
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import connection

from assurance.verification import verify_system
from ratings import services
from ratings.models import RatingSystem, RecalculationRun, RunStatus, Trigger
from ratingsite.celery import app as celery_app
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event
from tests.ratings.test_recalculation import everything
from tournaments import services as record
from tournaments.models import Event

pytestmark = [pytest.mark.broker, pytest.mark.django_db(transaction=True)]

SLUGS = ("elo", "glicko", "global-glicko", "knsb")


@pytest.fixture
def worker():
    celery_app.conf.task_always_eager = False
    celery_app.control.purge()
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as running:
        yield running


def wait_for_runs(expected: int, timeout: float = 120) -> list:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = list(RecalculationRun.objects.filter(status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED]))
        if len(done) >= expected:
            return done
        time.sleep(0.2)
    raise AssertionError(f"only {RecalculationRun.objects.exclude(status=RunStatus.QUEUED).count()} of {expected} runs finished")


def sanction(event_id: int) -> None:
    try:
        record.event_sanction(event=Event.objects.get(pk=event_id), actor=None)
    finally:
        connection.close()


def test_two_sanctionings_at_once_give_what_one_full_recompute_gives(worker):
    coaches = CoachFactory.create_batch(8)
    today = dt.date.today()
    add_event(coaches, today.replace(day=1) - dt.timedelta(days=120), [[(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1)), (6, 7, (2, 1))]])
    first = add_event(
        coaches, today.replace(day=1) - dt.timedelta(days=60), [[(0, 2, (1, 0)), (1, 3, (0, 2)), (4, 6, (1, 1)), (5, 7, (3, 0))]],
        status="submitted",
    )
    second = add_event(
        coaches, today.replace(day=1) - dt.timedelta(days=90), [[(0, 7, (0, 1)), (1, 6, (2, 2)), (2, 5, (1, 0)), (3, 4, (0, 0))]],
        status="submitted",
    )
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(sanction, [first.pk, second.pk]))
    finished = wait_for_runs(2 * len(SLUGS))
    assert {r.status for r in finished} == {RunStatus.SUCCEEDED}
    assert {r.trigger for r in finished} <= {Trigger.SANCTIONED, Trigger.BACKDATED}
    incremental = {slug: everything(slug) for slug in SLUGS}
    for slug in SLUGS:
        system = RatingSystem.objects.get(slug=slug)
        assert verify_system(system).count == 0
        full = services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
        services.recalculation_execute(run_id=full.pk)
        assert everything(slug) == incremental[slug]


def test_a_run_that_fails_in_the_worker_is_recorded_as_failed(worker):
    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date.today().replace(day=1) - dt.timedelta(days=40), [[(0, 1, (1, 0))]])
    system = RatingSystem.objects.get(slug="elo")
    system.parameters = {"bogus": True}  # invalid, saved behind the service's back
    system.save()
    services.recalculation_request(system=system, trigger=Trigger.MANUAL)
    [failed] = wait_for_runs(1)
    assert failed.status == RunStatus.FAILED
    assert "bogus" in failed.error
