"""The Celery tasks' own settings (the worker tests run them on the real broker)."""
import os
import subprocess
import sys

import pytest

from ratings import services
from ratings.models import RatingSystem, RecalculationRun, RunStatus, Trigger
from ratings.services import requests
from ratings.tasks import recalculate
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
    found = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True,
                           env={**os.environ, "DJANGO_SETTINGS_MODULE": "ratingsite.settings.test"})
    assert found.stdout.strip() == "True"
