"""A sanction never waits for a running recalculation: its runs follow the running one."""
import datetime as dt
import threading

import pytest
from django.db import connection, connections

from ratings import services
from ratings.models import RatingSystem, RecalculationRun, RunStatus, Trigger
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event
from tournaments import services as record
from tournaments.models import Event

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]


def test_sanctioning_while_a_run_holds_its_systems_lock_answers_at_once(monkeypatch):
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    submitted = add_event(coaches, dt.date(2024, 3, 9), [[(0, 2, (1, 0)), (1, 3, (0, 2))]], status="submitted")
    elo = RatingSystem.objects.get(slug="elo")
    running = services.recalculation_request(system=elo, trigger=Trigger.MANUAL, enqueue=False)
    holding, release = threading.Event(), threading.Event()
    real = services.execution._recalculate

    def slow_run(system, **kwargs):
        holding.set()  # inside the run's transaction, its system locked
        release.wait(30)
        return real(system, **kwargs)

    monkeypatch.setattr(services.execution, "_recalculate", slow_run)
    sent = []  # the broker: the sanction's runs wait there for a worker
    monkeypatch.setattr(services.requests, "recalculation_enqueue", lambda *, run_ids: sent.extend(run_ids))

    def run():
        try:
            services.recalculation_execute(run_id=running.pk, today=dt.date(2024, 6, 1))
        finally:
            connections.close_all()

    worker = threading.Thread(target=run)
    worker.start()
    try:
        assert holding.wait(30)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")  # waiting on the run's lock fails the test
        record.event_sanction(event=Event.objects.get(pk=submitted.pk), actor=None)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
        release.set()
        worker.join(60)
    assert Event.objects.get(pk=submitted.pk).status == "sanctioned"
    assert RecalculationRun.objects.get(pk=running.pk).status == RunStatus.SUCCEEDED
    # the sanction's runs (one per system) follow the running one
    queued = RecalculationRun.objects.filter(pk__in=sent)
    assert len(sent) == RatingSystem.objects.filter(active=True).count() and {r.status for r in queued} == {RunStatus.QUEUED}
    assert [run.status for run in services.recalculation_execute_many(sent, today=dt.date(2024, 6, 1), jobs=1)] == [
        RunStatus.SUCCEEDED] * len(sent)
