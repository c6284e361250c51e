"""Shared fixtures; model factories live in tests/factories.py."""
import os

import pytest

from ratingsite.celery import app as celery_app


def pytest_collection_modifyitems(config, items):
    """Tests that need the real broker run where one is configured (CI's PostgreSQL + Redis pass)."""
    if os.environ.get("CELERY_BROKER_URL"):
        return
    selected, deselected = [], []
    for item in items:
        (deselected if item.get_closest_marker("broker") else selected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


@pytest.fixture(autouse=True)
def tasks_in_process(request):
    """Every test but the broker ones runs tasks in-process, so results are there when the test looks."""
    if request.node.get_closest_marker("broker"):
        yield
        return
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = eager
