"""Queued runs are the outbox: a broker outage loses no recalculation and fails no request."""
import datetime as dt
import io
import os
import socket
import subprocess
import sys

import pytest
from django.core.management import call_command
from django.utils import timezone
from kombu.exceptions import OperationalError

from assurance.accuracy import report
from ratings import services
from ratings.models import AccuracyRefreshRequest, AccuracyReport, RatingSystem, RecalculationRun, RunStatus, Trigger
from ratings.services import requests
from ratings.tasks import dispatch_queued_runs, recalculate
from ratingsite.celery import app as celery_app

pytestmark = pytest.mark.django_db


class Broker:
    """Stands in for the broker: takes messages (their run ids) while up, refuses them while down."""

    def __init__(self, monkeypatch):
        self.up, self.sent = True, []
        broker = self

        class Sent:
            def __init__(self, tasks):
                self.tasks = list(tasks)

            def apply_async(self):
                if not broker.up:
                    raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
                broker.sent.append([task.args[0] for task in self.tasks])

        monkeypatch.setattr(requests, "group", Sent)
        monkeypatch.setattr(requests, "signature", lambda name, args: type("One", (), {
            "args": args, "apply_async": lambda self: Sent([self]).apply_async()})())


def request_all(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return services.recalculation_request_all(trigger=Trigger.SANCTIONED, reason="event 7 sanctioned")


def age(runs, seconds=60):
    RecalculationRun.objects.filter(pk__in=[run.pk for run in runs]).update(created_at=timezone.now() - dt.timedelta(seconds=seconds))


def test_with_the_broker_down_the_runs_stay_queued_and_the_request_answers(monkeypatch, django_capture_on_commit_callbacks):
    broker = Broker(monkeypatch)
    broker.up = False
    runs = request_all(django_capture_on_commit_callbacks)
    assert broker.sent == []
    stored = RecalculationRun.objects.filter(pk__in=[run.pk for run in runs])
    assert {(run.status, run.enqueued_at) for run in stored} == {(RunStatus.QUEUED, None)}


def test_the_dispatcher_sends_what_the_outage_kept_back_once_the_broker_returns(monkeypatch, django_capture_on_commit_callbacks):
    broker = Broker(monkeypatch)
    broker.up = False
    runs = request_all(django_capture_on_commit_callbacks)
    age(runs)
    assert dispatch_queued_runs() == 0  # still down: nothing sent, nothing lost
    broker.up = True
    assert dispatch_queued_runs() == len(runs)
    assert broker.sent == [[run.pk for run in runs]]
    assert not RecalculationRun.objects.filter(enqueued_at=None).exists()
    assert dispatch_queued_runs() == 0  # each message goes out once


def test_the_dispatcher_leaves_a_run_whose_transaction_may_still_be_committing(monkeypatch):
    broker = Broker(monkeypatch)
    young = RecalculationRun.objects.create(system=RatingSystem.objects.get(slug="elo"), trigger=Trigger.MANUAL)
    assert dispatch_queued_runs() == 0
    age([young])
    assert dispatch_queued_runs() == 1 and broker.sent == [[young.pk]]


def test_the_next_enqueue_that_reaches_the_broker_takes_the_runs_owed_with_it(monkeypatch, django_capture_on_commit_callbacks):
    broker = Broker(monkeypatch)
    broker.up = False
    owed = request_all(django_capture_on_commit_callbacks)
    broker.up = True
    elo = RatingSystem.objects.get(slug="elo")
    with django_capture_on_commit_callbacks(execute=True):
        fresh = services.recalculation_request(system=elo, trigger=Trigger.MANUAL)
    assert broker.sent == [[fresh.pk, *[run.pk for run in owed]]]


def test_a_run_carried_out_by_its_caller_is_owed_no_message(monkeypatch):
    broker = Broker(monkeypatch)
    run = services.recalculation_request(system=RatingSystem.objects.get(slug="elo"), trigger=Trigger.MANUAL, enqueue=False)
    age([run])
    assert run.enqueued_at is not None and dispatch_queued_runs() == 0 and broker.sent == []


def test_a_run_whose_message_the_broker_lost_is_sent_again_once_queued_past_the_bound(
    monkeypatch, settings, django_capture_on_commit_callbacks,
):
    broker = Broker(monkeypatch)
    runs = request_all(django_capture_on_commit_callbacks)
    ids = [run.pk for run in runs]
    assert broker.sent == [ids]  # went out; then the broker lost them (restarted without persistence, say)
    age(runs, seconds=3600)
    stored = RecalculationRun.objects.filter(pk__in=ids)
    stored.update(enqueued_at=timezone.now() - settings.RECALCULATION_RESEND_AFTER + dt.timedelta(seconds=30))
    assert dispatch_queued_runs() == 0 and broker.sent == [ids]  # within the bound: a worker may take it yet
    stored.update(enqueued_at=timezone.now() - settings.RECALCULATION_RESEND_AFTER - dt.timedelta(seconds=30))
    taken = runs[0]
    RecalculationRun.objects.filter(pk=taken.pk).update(worker="worker-1:4242")  # a worker named itself: taken
    assert dispatch_queued_runs() == len(ids) - 1
    assert broker.sent == [ids, ids[1:]]
    assert {run.pk: run.enqueued_at > timezone.now() - dt.timedelta(minutes=1) for run in stored} == {
        pk: pk != taken.pk for pk in ids}
    assert dispatch_queued_runs() == 0 and len(broker.sent) == 2  # sent again once, not every minute


def test_a_resent_run_the_broker_does_not_take_waits_in_the_outbox(monkeypatch, settings, django_capture_on_commit_callbacks):
    broker = Broker(monkeypatch)
    runs = request_all(django_capture_on_commit_callbacks)
    age(runs, seconds=3600)
    RecalculationRun.objects.update(enqueued_at=timezone.now() - settings.RECALCULATION_RESEND_AFTER - dt.timedelta(minutes=1))
    broker.up = False
    assert dispatch_queued_runs() == 0
    assert set(RecalculationRun.objects.values_list("enqueued_at", flat=True)) == {None}  # owed its message again
    broker.up = True
    assert dispatch_queued_runs() == len(runs)


def test_an_accuracy_refresh_the_broker_did_not_take_stays_owed_and_the_dispatcher_sends_it_once(monkeypatch):
    broker = Broker(monkeypatch)
    broker.up = False
    elo = RatingSystem.objects.get(slug="elo")
    assert services.accuracy_refresh_request(system_ids=[elo.pk]) is False
    owed = AccuracyRefreshRequest.objects.get()
    assert (owed.system_id, owed.enqueued_at) == (elo.pk, None)
    AccuracyRefreshRequest.objects.update(created_at=timezone.now() - dt.timedelta(seconds=60))
    assert dispatch_queued_runs() == 0 and broker.sent == []  # still down: nothing sent, nothing lost
    broker.up = True
    dispatch_queued_runs()
    assert broker.sent == [[[elo.pk]]]
    assert AccuracyRefreshRequest.objects.get().enqueued_at is not None
    dispatch_queued_runs()
    assert broker.sent == [[[elo.pk]]]  # sent once


def test_an_accuracy_refresh_the_broker_lost_is_sent_again_past_the_bound(monkeypatch, settings):
    broker = Broker(monkeypatch)
    elo = RatingSystem.objects.get(slug="elo")
    assert services.accuracy_refresh_request(system_ids=[elo.pk]) is True
    sent_at = timezone.now() - settings.RECALCULATION_RESEND_AFTER
    AccuracyRefreshRequest.objects.update(created_at=sent_at - dt.timedelta(hours=1), enqueued_at=sent_at + dt.timedelta(seconds=30))
    dispatch_queued_runs()
    assert broker.sent == [[[elo.pk]]]  # within the bound: a worker may still take it
    AccuracyRefreshRequest.objects.update(enqueued_at=sent_at - dt.timedelta(seconds=30))
    dispatch_queued_runs()
    assert broker.sent == [[[elo.pk]], [[elo.pk]]]
    dispatch_queued_runs()
    assert len(broker.sent) == 2  # once per bound


def test_the_dispatcher_leaves_an_accuracy_refresh_whose_sender_may_still_be_sending_it(monkeypatch):
    broker = Broker(monkeypatch)
    young = AccuracyRefreshRequest.objects.create(system=RatingSystem.objects.get(slug="elo"))
    dispatch_queued_runs()
    assert broker.sent == []
    AccuracyRefreshRequest.objects.update(created_at=timezone.now() - dt.timedelta(seconds=60))
    dispatch_queued_runs()
    assert broker.sent == [[[young.system_id]]]


def test_a_run_that_ends_while_others_of_its_batch_are_queued_leaves_the_refresh_to_the_last(monkeypatch):
    broker = Broker(monkeypatch)
    elo, glicko = RatingSystem.objects.get(slug="elo"), RatingSystem.objects.get(slug="glicko")
    first = services.recalculation_request(system=elo, trigger=Trigger.MANUAL, enqueue=False)
    last = services.recalculation_request(system=glicko, trigger=Trigger.MANUAL, enqueue=False)
    assert recalculate.apply(args=[first.pk]).get() == RunStatus.SUCCEEDED
    assert broker.sent == []  # glicko's run is still queued: its ranking first
    AccuracyRefreshRequest.objects.update(created_at=timezone.now() - dt.timedelta(seconds=60))
    dispatch_queued_runs()
    assert broker.sent == []  # nor does the dispatcher send it while a run is queued
    assert recalculate.apply(args=[last.pk]).get() == RunStatus.SUCCEEDED
    assert broker.sent == [[sorted([elo.pk, glicko.pk])]]  # one refresh, after the last


def test_the_dispatcher_sends_an_owed_refresh_older_than_a_run_may_take_even_while_runs_go_on(monkeypatch, settings):
    broker = Broker(monkeypatch)
    elo = RatingSystem.objects.get(slug="elo")
    services.recalculation_request(system=elo, trigger=Trigger.MANUAL, enqueue=False)  # queued, and stays so
    services.accuracy_refresh_request(system_ids=[elo.pk])
    AccuracyRefreshRequest.objects.update(created_at=timezone.now() - dt.timedelta(seconds=settings.RECALCULATION_TIME_LIMIT - 60))
    dispatch_queued_runs()
    assert broker.sent == []
    AccuracyRefreshRequest.objects.update(created_at=timezone.now() - dt.timedelta(seconds=settings.RECALCULATION_TIME_LIMIT + 60))
    dispatch_queued_runs()
    assert broker.sent == [[[elo.pk]]]


def test_the_next_accuracy_refresh_that_reaches_the_broker_takes_the_systems_owed_with_it(monkeypatch):
    broker = Broker(monkeypatch)
    broker.up = False
    elo, knsb = RatingSystem.objects.get(slug="elo"), RatingSystem.objects.get(slug="knsb")
    services.accuracy_refresh_request(system_ids=[knsb.pk])
    broker.up = True
    assert services.accuracy_refresh_request(system_ids=[elo.pk, elo.pk]) is True
    assert broker.sent == [[sorted([elo.pk, knsb.pk])]]
    assert not AccuracyRefreshRequest.objects.filter(enqueued_at=None).exists()


def test_a_run_of_the_task_or_the_command_with_the_broker_down_leaves_its_accuracy_refresh_owed(monkeypatch):
    broker = Broker(monkeypatch)
    broker.up = False
    elo, glicko = RatingSystem.objects.get(slug="elo"), RatingSystem.objects.get(slug="glicko")
    run = services.recalculation_request(system=elo, trigger=Trigger.MANUAL, enqueue=False)
    assert recalculate.apply(args=[run.pk]).get() == RunStatus.SUCCEEDED
    call_command("recalculate", "--system", "glicko", stdout=io.StringIO())
    owed = AccuracyRefreshRequest.objects.filter(enqueued_at=None)
    assert sorted(owed.values_list("system_id", flat=True)) == sorted([elo.pk, glicko.pk]) and broker.sent == []


def test_a_refresh_answers_the_requests_of_its_systems_owed_when_it_began_and_no_other(monkeypatch):
    elo, glicko = RatingSystem.objects.get(slug="elo"), RatingSystem.objects.get(slug="glicko")
    AccuracyRefreshRequest.objects.create(system=elo, enqueued_at=timezone.now())
    AccuracyRefreshRequest.objects.create(system=elo)  # its message never went: answered all the same
    other = AccuracyRefreshRequest.objects.create(system=glicko)
    made_meanwhile = []
    computed = report.accuracy_reports_compute

    def computing(*, systems):  # a run of elo commits while the refresh reads its games, on a machine whose clock is behind
        made_meanwhile.append(AccuracyRefreshRequest.objects.create(system=elo, created_at=timezone.now() - dt.timedelta(hours=1)))
        return computed(systems=systems)

    monkeypatch.setattr(report, "accuracy_reports_compute", computing)
    report.accuracy_reports_refresh(systems=[elo])
    assert set(AccuracyRefreshRequest.objects.values_list("pk", flat=True)) == {other.pk, made_meanwhile[0].pk}


def test_without_a_broker_a_refresh_that_fails_is_not_owed_again_and_holds_up_no_later_one(monkeypatch):
    elo, glicko = RatingSystem.objects.get(slug="elo"), RatingSystem.objects.get(slug="glicko")
    computed = report.accuracy_reports_compute

    def failing(*, systems):
        raise RuntimeError("the report could not be computed")

    monkeypatch.setattr(report, "accuracy_reports_compute", failing)
    with pytest.raises(RuntimeError):
        services.accuracy_refresh_request(system_ids=[elo.pk])
    assert not AccuracyRefreshRequest.objects.filter(enqueued_at=None).exists()
    monkeypatch.setattr(report, "accuracy_reports_compute", computed)
    assert services.accuracy_refresh_request(system_ids=[glicko.pk]) is True
    assert list(AccuracyReport.objects.values_list("system_id", flat=True)) == [glicko.pk]


def test_the_dispatcher_runs_every_minute_from_the_schedule():
    from django_celery_beat.models import PeriodicTask

    task = PeriodicTask.objects.get(task="ratings.tasks.dispatch_queued_runs")
    assert task.enabled and (task.interval.every, task.interval.period) == (1, "minutes")
    assert "ratings.tasks.dispatch_queued_runs" in celery_app.tasks


PROBE = """
import django; django.setup()
from celery import signature
from ratings.services.requests import RECALCULATE_TASK
from ratingsite.broker import BROKER_ERRORS
try:
    signature(RECALCULATE_TASK, args=(1,)).apply_async()
except BROKER_ERRORS as error:
    print("refused", type(error).__name__)
else:
    print("sent")
"""


@pytest.mark.parametrize("state", ["down", "hung"])
def test_a_broker_down_or_hung_is_given_up_on_with_an_error_the_outbox_expects(state):
    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        if state == "hung":
            hung.listen(8)  # takes connections (the kernel's backlog) and never answers
        port = hung.getsockname()[1]  # "down": bound, not listening, so refused
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ratingsite.settings.test", "CELERY_BROKER_URL": f"redis://127.0.0.1:{port}/0"}
        probe = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.startswith("refused"), probe.stdout


REGISTERED = """
import django; django.setup()
from celery import signature
from ratings.services.requests import ACCURACY_TASK, RECALCULATE_TASK
from stats.services import REFRESH_TASK
print(*(signature(name).type.name for name in (RECALCULATE_TASK, ACCURACY_TASK, REFRESH_TASK)))
"""


def test_every_task_the_outboxes_send_by_name_is_registered_in_a_fresh_process():
    """By name and without a broker, an unregistered task would go to a broker that is not there,
    and stay owed for good; a fresh process (a web worker) imports no tasks module on its own."""
    env = {k: v for k, v in os.environ.items() if k != "CELERY_BROKER_URL"} | {"DJANGO_SETTINGS_MODULE": "ratingsite.settings.test"}
    probe = subprocess.run([sys.executable, "-c", REGISTERED], env=env, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == ["ratings.tasks.recalculate", "ratings.tasks.refresh_accuracy", "stats.tasks.refresh_summaries"]
