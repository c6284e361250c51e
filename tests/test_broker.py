"""Without a broker (tasks carried out in this process), a task's retry is carried out as a
worker would: Celery, propagating eager errors, raises its Retry instead, and a run that met a locked
SQLite table stayed queued for ever, holding up every edit from its date (CI, a live-server test)."""
import datetime as dt

import pytest
from celery import current_app
from django.db import OperationalError

from ratings import services, tasks
from ratings.models import CurrentRating, RatingSystem, RecalculationRun, RunStatus, Trigger
from ratingsite import broker
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def in_process():
    conf = current_app.conf
    before = conf.task_always_eager
    conf.task_always_eager = True
    yield
    conf.task_always_eager = before


@pytest.fixture
def pauses(monkeypatch):
    taken: list[float] = []
    monkeypatch.setattr(broker, "pause", taken.append)
    return taken


def locked_the_first(times: int, monkeypatch) -> list[int]:
    """The run's service meets a locked table on its first `times` calls; returns the calls' run ids."""
    real, calls = services.recalculation_execute, []

    def execute(*, run_id):
        calls.append(run_id)
        if len(calls) <= times:
            raise OperationalError("database table is locked: ratings_recalculationrun")
        return real(run_id=run_id)

    monkeypatch.setattr(tasks.services, "recalculation_execute", execute)
    return calls


def test_a_run_that_meets_a_locked_table_is_carried_out_again_after_its_pause(in_process, pauses, monkeypatch):
    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date.today().replace(day=1) - dt.timedelta(days=40), [[(0, 1, (1, 0))]])
    calls = locked_the_first(2, monkeypatch)
    run = services.recalculation_request(system=RatingSystem.objects.get(slug="elo"), trigger=Trigger.MANUAL)
    run.refresh_from_db()
    assert calls == [run.pk] * 3
    assert run.status == RunStatus.SUCCEEDED
    assert len(pauses) == 2 and all(0 <= seconds <= broker.LONGEST_PAUSE for seconds in pauses)
    carried_out = ratings(run.system)
    monkeypatch.undo()
    again = services.recalculation_request(system=run.system, trigger=Trigger.MANUAL)
    again.refresh_from_db()
    assert again.status == RunStatus.SUCCEEDED
    assert carried_out == ratings(run.system) and carried_out[0] < 150 < carried_out[1]


def ratings(system) -> list[float]:
    return sorted(r.value for r in CurrentRating.objects.filter(system=system))


def test_a_run_that_keeps_meeting_it_gives_up_after_the_tasks_retries_and_stays_queued(in_process, pauses, monkeypatch):
    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date.today().replace(day=1) - dt.timedelta(days=40), [[(0, 1, (1, 0))]])
    calls = locked_the_first(99, monkeypatch)
    with pytest.raises(OperationalError, match="locked"):
        services.recalculation_request(system=RatingSystem.objects.get(slug="elo"), trigger=Trigger.MANUAL)
    assert len(calls) == 1 + tasks.recalculate.max_retries and len(pauses) == tasks.recalculate.max_retries
    assert RecalculationRun.objects.get().status == RunStatus.QUEUED
