"""No run queued for ever when the broker loses its message: a Redis of the test's own, restarted
without persistence (or flushed) while a sanction's runs and statistics refresh wait in it. The runs hold up
every edit from their date until the dispatchers, past the bound, send them again; a worker then
carries each out once, and the accuracy refresh after the last."""
import datetime as dt

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.utils import timezone

from assurance.verification import verify_system
from ratings.models import AccuracyRefreshRequest, AccuracyReport, RatingSystem, RecalculationRun, RunStatus
from ratings.tasks import dispatch_queued_runs
from ratingsite.celery import app as celery_app
from stats.models import SummaryRefreshRequest
from stats.tasks import dispatch_owed_refresh
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event
from tests.reliability.test_worker_lost import wait_until
from tests.roles import staff

pytestmark = [pytest.mark.broker, pytest.mark.django_db(transaction=True)]


def correct(client, event, home_touchdowns: int):
    game = event.games.order_by("pk").first()
    return client.post(f"/staff/events/{event.pk}/correct/", {
        "game": game.pk, "home_touchdowns": home_touchdowns, "away_touchdowns": game.away_touchdowns,
        "home_casualties": 0, "away_casualties": 0, "conceded_by": "", "kind": game.kind, "note": "Score sheet",
    })


@pytest.mark.parametrize("loss", ["restarted", "flushed"])
def test_runs_whose_messages_redis_lost_are_sent_again_past_the_bound_and_carried_out(client, broker, settings, loss):
    coaches = CoachFactory.create_batch(4)
    first_of_month = dt.date.today().replace(day=1)
    add_event(coaches, first_of_month - dt.timedelta(days=90), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    event = add_event(coaches, first_of_month - dt.timedelta(days=60), [[(0, 2, (1, 0)), (1, 3, (0, 2))]], status="submitted")
    client.force_login(staff())
    assert client.post(f"/staff/events/{event.pk}/sanction/", {"note": "In order"}).status_code == 302
    systems = RatingSystem.objects.filter(active=True).count()
    sent = RecalculationRun.objects.filter(status=RunStatus.QUEUED, worker="").exclude(enqueued_at=None)
    assert sent.count() == systems and broker.queued_messages() >= systems

    if loss == "restarted":
        broker.stop()
        broker.start()  # no persistence: every message is gone, and the runs still say they were sent
    else:
        redis.Redis(port=broker.port).flushdb()  # or failed over to a replica that had not them, or evicted
    assert broker.queued_messages() == 0
    refused = correct(client, event, 3)
    assert refused.status_code == 200 and "being recalculated" in refused.content.decode()
    assert dispatch_queued_runs() == 0  # within the bound: a worker may still take them

    assert dispatch_owed_refresh() is False
    long_ago = {"created_at": timezone.now() - settings.RECALCULATION_RESEND_AFTER - dt.timedelta(minutes=2),
                "enqueued_at": timezone.now() - settings.RECALCULATION_RESEND_AFTER - dt.timedelta(minutes=1)}
    RecalculationRun.objects.update(**long_ago)
    SummaryRefreshRequest.objects.update(**long_ago)  # the statistics refresh's message went with them
    assert dispatch_queued_runs() == systems
    assert dispatch_owed_refresh() is True
    assert broker.queued_messages() == systems + 1
    assert dispatch_queued_runs() == 0 and dispatch_owed_refresh() is False  # sent again once

    celery_app.conf.task_always_eager = False
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        wait_until(lambda: RecalculationRun.objects.filter(status=RunStatus.SUCCEEDED).count() == systems, 120,
                   "run of every system")
        RecalculationRun.objects.update(enqueued_at=long_ago["enqueued_at"])
        assert dispatch_queued_runs() == 0  # carried out: never sent again
        wait_until(lambda: not SummaryRefreshRequest.objects.exists(), 60, "statistics refresh")
        # the last run to end sent one accuracy refresh of every system
        wait_until(lambda: AccuracyReport.objects.filter(run__status=RunStatus.SUCCEEDED).count() == systems, 60,
                   "accuracy report of every system's run")
    assert not AccuracyRefreshRequest.objects.exists()
    assert set(RecalculationRun.objects.values_list("status", flat=True)) == {RunStatus.SUCCEEDED}
    for system in RatingSystem.objects.filter(active=True):
        assert verify_system(system).count == 0
    assert correct(client, event, 3).status_code == 302  # nothing holds the event up now
