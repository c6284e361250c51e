"""The Celery tasks' own settings (the worker tests run them on the real broker)."""
import datetime as dt
import os
import socket
import subprocess
import sys

import pytest
from django.utils import timezone

from ratings import services
from ratings.models import RatingSystem, RecalculationRun, RunStatus, Trigger
from ratings.services import leases, requests
from ratings.tasks import recalculate, sweep_lost_runs
from ratingsite.celery import app as celery_app


def test_a_recalculation_task_has_a_time_limit(settings):
    # soft: the run fails and rolls back, releasing its system's lock; hard, a minute later: the
    # worker's pool process is replaced
    assert recalculate.soft_time_limit == settings.RECALCULATION_TIME_LIMIT == 3600
    assert recalculate.time_limit == settings.RECALCULATION_TIME_LIMIT + 60


def test_the_services_enqueue_the_recalculation_task_by_its_registered_name():
    assert celery_app.tasks[services.RECALCULATE_TASK].name == recalculate.name == "ratings.tasks.recalculate"


@pytest.mark.django_db
def test_runs_for_every_system_go_to_the_workers_as_one_group_once_committed(monkeypatch, django_capture_on_commit_callbacks):
    sent = []

    class Group:
        def __init__(self, tasks):
            self.tasks = list(tasks)

        def apply_async(self):
            sent.append([(task.task, task.args) for task in self.tasks])

    monkeypatch.setattr(requests, "group", Group)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        runs = services.recalculation_request_all(trigger=Trigger.SANCTIONED, reason="event 1 sanctioned")
        assert sent == []  # nothing leaves before the transaction commits
    for callback in callbacks:
        callback()
    assert len(runs) == RatingSystem.objects.filter(active=True).count() > 1
    assert sent == [[(services.RECALCULATE_TASK, (run.pk,)) for run in runs]]


@pytest.mark.django_db
def test_without_a_broker_the_group_runs_in_process(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        runs = services.recalculation_request_all(trigger=Trigger.MANUAL, reason="all of them")
    assert {RecalculationRun.objects.get(pk=run.pk).status for run in runs} == {RunStatus.SUCCEEDED}


def test_the_task_is_registered_once_django_is_set_up_without_importing_the_tasks_module():
    program = (
        "import django; django.setup(); from ratingsite.celery import app; "
        f"print({services.RECALCULATE_TASK!r} in app.tasks)"
    )
    found = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=120,
                           env={**os.environ, "DJANGO_SETTINGS_MODULE": "ratingsite.settings.test"})
    assert found.stdout.strip() == "True"


def lost_run(system, *, status=RunStatus.RUNNING, retry_of=None) -> RecalculationRun:
    """A run whose process is gone: it names a process of this machine that has ended."""
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, timeout=60)
    run = RecalculationRun.objects.create(
        system=system, trigger=Trigger.CORRECTED, from_date=dt.date(2024, 2, 1), status=status, retry_of=retry_of,
        enqueued_at=timezone.now(), worker=f"{socket.gethostname()}:{ended.stdout.strip()}",
    )
    return run


@pytest.mark.django_db
def test_the_sweep_fails_a_lost_run_and_retries_it_once_as_a_run_linked_to_it(django_capture_on_commit_callbacks):
    elo = RatingSystem.objects.get(slug="elo")
    lost = lost_run(elo)
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_lost_runs() == 1
    lost.refresh_from_db()
    assert (lost.status, lost.error) == (RunStatus.FAILED, leases.LOST)
    retry = RecalculationRun.objects.get(retry_of=lost)
    # carried out in process (no broker), from the lost run's date
    assert (retry.system, retry.trigger, retry.from_date, retry.status) == (elo, Trigger.RETRY, lost.from_date, RunStatus.SUCCEEDED)
    assert retry.reason == f"retry of run {lost.pk}, whose process was lost"
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_lost_runs() == 0
    assert RecalculationRun.objects.count() == 2


@pytest.mark.django_db
def test_a_retry_whose_process_is_lost_again_is_failed_and_not_retried():
    elo = RatingSystem.objects.get(slug="elo")
    first = lost_run(elo, status=RunStatus.FAILED)
    retry = lost_run(elo, retry_of=first)
    assert sweep_lost_runs() == 1
    assert RecalculationRun.objects.get(pk=retry.pk).status == RunStatus.FAILED
    assert not RecalculationRun.objects.filter(retry_of=retry).exists() and RecalculationRun.objects.count() == 2


@pytest.mark.django_db
def test_a_lost_run_whose_dates_a_queued_run_of_its_system_covers_is_not_retried():
    elo, glicko = RatingSystem.objects.get(slug="elo"), RatingSystem.objects.get(slug="glicko")
    lost, other = lost_run(elo), lost_run(glicko)
    covering = services.recalculation_request(system=elo, trigger=Trigger.MANUAL, since=dt.date(2024, 1, 1), enqueue=False)
    assert services.recalculation_retry(run_ids=services.recalculation_sweep()) == [RecalculationRun.objects.get(retry_of=other)]
    assert RecalculationRun.objects.get(pk=lost.pk).status == RunStatus.FAILED
    assert not RecalculationRun.objects.filter(retry_of=lost).exists()
    assert RecalculationRun.objects.get(pk=covering.pk).status == RunStatus.QUEUED


@pytest.mark.django_db
def test_the_lost_runs_message_delivered_at_last_leaves_it_to_its_retry():
    elo = RatingSystem.objects.get(slug="elo")
    lost = lost_run(elo, status=RunStatus.FAILED)
    RecalculationRun.objects.create(system=elo, trigger=Trigger.RETRY, from_date=lost.from_date, retry_of=lost)
    assert recalculate.apply(args=[lost.pk]).get() == RunStatus.FAILED
    lost.refresh_from_db()
    assert lost.started_at is None and lost.worker.startswith(socket.gethostname())  # not carried out again
