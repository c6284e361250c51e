"""A page read while another connection holds a write transaction (the after-response thread's run)
answers from what was committed, in the tests as on the site: on SQLite the test database is a file in
WAL mode like the site's own. SQLite's in-memory test database locks whole tables instead, so that a
page reading a table the run is writing failed at once ("database table is locked", a 500)."""
import threading

import pytest
from django.db import connections, transaction
from django.db.models import F

from ratings.models import RatingSystem, RecalculationRun, RunStatus
from tests.factories import EventFactory
from tests.roles import organiser, staff
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_test_database_is_the_sites_kind_of_database():
    with connections["default"].cursor() as cursor:
        if connections["default"].vendor == "sqlite":
            assert cursor.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            assert connections["default"].settings_dict["TEST"]["NAME"] not in (None, "", ":memory:")


def test_a_staff_page_answers_while_a_run_holds_its_write_transaction(client, held_thread):
    event = EventFactory(name="Held", status=EventStatus.SUBMITTED, organiser=organiser("olga"))
    client.force_login(staff("sam"))
    assert client.post(f"/staff/events/{event.pk}/sanction/", {"note": "In order"}).status_code == 302
    queued = list(RecalculationRun.objects.filter(status=RunStatus.QUEUED).values_list("pk", flat=True))
    assert queued
    holding, release = threading.Event(), threading.Event()

    def run():
        try:
            with transaction.atomic():  # as a run does: its status and its system's rows, one transaction
                RecalculationRun.objects.filter(pk__in=queued).update(status=RunStatus.RUNNING)
                RatingSystem.objects.update(name=F("name"))
                holding.set()
                release.wait(30)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        assert holding.wait(30)
        response = client.get(f"/staff/events/{event.pk}/recalculation/")
    finally:
        release.set()
        thread.join()

    assert response.status_code == 200
    # what was committed before the run's transaction: the run still queued
    assert [run.status for run in response.context["runs"]] == [RunStatus.QUEUED] * len(queued)
