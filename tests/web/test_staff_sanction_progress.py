"""A sanction without a broker answers at once and sends staff to its runs, which go on after the response."""
import datetime as dt
import re

import pytest

from ratings.models import AccuracyRefreshRequest, AccuracyReport, CurrentRating, RatingSystem, RecalculationRun, RunStatus, Trigger
from ratingsite import after_response as workers  # the thread the runs go on in, after the answer
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import organiser, staff
from tournaments.models import EventStatus

DAY = dt.date(2024, 3, 2)


@pytest.fixture
def submitted():
    """The spec's four-coach event, submitted: round 1 W–X 2-1, Y–Z 1-1; round 2 W–Y 0-1, X–Z 2-0."""
    event = EventFactory(name="Four", start_date=DAY, status=EventStatus.SUBMITTED, organiser=organiser("olga"))
    w, x, y, z = (CoachFactory(name=n) for n in "WXYZ")
    r1, r2 = RoundFactory(event=event, number=1), RoundFactory(event=event, number=2)
    play(r1, w, x, (2, 1)), play(r1, y, z, (1, 1)), play(r2, w, y, (0, 1), away_race="human"), play(r2, x, z, (2, 0), home_race="orc")
    return event, (w, x, y, z)


def elo(coach):
    return round(CurrentRating.objects.get(system__slug="elo", coach=coach).value, 2)


def statuses():
    return sorted(RecalculationRun.objects.values_list("status", flat=True))


@pytest.mark.django_db(transaction=True)
def test_a_sanction_answers_at_once_with_its_runs_queued_then_the_page_follows_them_to_the_end(client, submitted, held_thread):
    event, (w, x, y, z) = submitted
    client.force_login(staff("sam"))
    systems = RatingSystem.objects.filter(active=True).count()

    response = client.post(f"/staff/events/{event.pk}/sanction/", {"note": "All in order"})

    assert (response.status_code, response["Location"]) == (302, f"/staff/events/{event.pk}/recalculation/")
    assert statuses() == [RunStatus.QUEUED] * systems
    # one job per run and the statistics refresh, handed over once the response had gone
    assert len(held_thread.jobs) == systems + 1
    assert sum("refresh_summaries" in repr(job) for _, job, _ in held_thread.jobs) == 1
    page = client.get(response["Location"])
    text = page.content.decode()
    assert "Four is sanctioned. Its recalculation is queued" in text
    assert f"{systems} of {systems} runs still to finish" in text
    assert '<meta http-equiv="refresh" content="3">' in text
    assert [run.status for run in page.context["runs"]] == [RunStatus.QUEUED] * systems
    assert not CurrentRating.objects.exists()

    held_thread.carry_out()

    page = client.get(f"/staff/events/{event.pk}/recalculation/")
    text = page.content.decode()
    assert [run.status for run in page.context["runs"]] == [RunStatus.SUCCEEDED] * systems
    assert "Every run has finished: the rankings show the event." in text
    assert "http-equiv" not in text
    assert text.count("Succeeded") == systems
    # The spec's four-coach example: W 149.97, X 150.03, Y 152.03, Z 147.97.
    assert (elo(w), elo(x), elo(y), elo(z)) == (149.97, 150.03, 152.03, 147.97)


@pytest.mark.django_db(transaction=True)
def test_the_runs_go_on_in_a_thread_of_the_server_after_the_response(client, submitted):
    event, (w, _, _, _) = submitted
    client.force_login(staff("sam"))
    response = client.post(f"/staff/events/{event.pk}/sanction/", {})
    assert response.status_code == 302
    assert workers.after_response_wait(timeout=60)
    assert statuses() == [RunStatus.SUCCEEDED] * RatingSystem.objects.filter(active=True).count()
    assert elo(w) == 149.97
    assert "Every run has finished" in client.get(response["Location"]).content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_failed_run_shows_as_failed_with_its_error_and_the_others_still_run(client, submitted, monkeypatch, held_thread):
    from ratings.services import execution

    real = execution._recalculate

    def broken_for_knsb(system, **kwargs):
        if system.slug == "knsb":
            raise RuntimeError("the KNSB engine broke")
        return real(system, **kwargs)

    monkeypatch.setattr(execution, "_recalculate", broken_for_knsb)
    event, (w, _, _, _) = submitted
    client.force_login(staff("sam"))
    client.post(f"/staff/events/{event.pk}/sanction/", {})
    held_thread.carry_out()

    knsb = RecalculationRun.objects.get(system__slug="knsb")
    assert knsb.status == RunStatus.FAILED and "the KNSB engine broke" in knsb.error
    assert set(RecalculationRun.objects.exclude(pk=knsb.pk).values_list("status", flat=True)) == {RunStatus.SUCCEEDED}
    assert not CurrentRating.objects.filter(system__slug="knsb").exists()  # nothing of the failed run is kept
    text = client.get(f"/staff/events/{event.pk}/recalculation/").content.decode()
    assert f"Run {knsb.pk} (KNSB list rating) failed: the previous KNSB list rating rankings stand" in text


def test_outside_a_request_the_runs_go_in_process_as_before(db, submitted, django_capture_on_commit_callbacks):
    from tournaments.services import event_sanction

    event, (w, _, _, _) = submitted
    with django_capture_on_commit_callbacks(execute=True):
        event_sanction(event=event, actor=staff("sam"))
    assert set(statuses()) == {RunStatus.SUCCEEDED}
    assert elo(w) == 149.97


def test_the_progress_page_of_an_event_never_sanctioned_says_so(db, client, submitted):
    event, _ = submitted
    client.force_login(staff("sam"))
    page = client.get(f"/staff/events/{event.pk}/recalculation/")
    assert page.status_code == 200
    assert "No recalculation is recorded for a sanction of this event." in page.content.decode()
    assert client.get("/staff/events/99999/recalculation/").status_code == 404


def test_a_running_run_shows_how_long_it_has_run_against_its_systems_last_run(db, client, submitted, django_capture_on_commit_callbacks):
    from django.utils import timezone

    from tournaments.services import event_sanction

    event, _ = submitted
    sam = staff("sam")
    elo = RatingSystem.objects.get(slug="elo")
    RecalculationRun.objects.create(system=elo, trigger="manual", status=RunStatus.SUCCEEDED, duration=12.0, finished_at=timezone.now())
    with django_capture_on_commit_callbacks(execute=False):
        event_sanction(event=event, actor=sam)
    run = RecalculationRun.objects.get(system=elo, trigger="sanctioned")
    RecalculationRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, started_at=timezone.now() - dt.timedelta(seconds=5))
    client.force_login(sam)
    text = client.get(f"/staff/events/{event.pk}/recalculation/").content.decode()
    assert "running for 5 s; the last run took 12 s" in text
    assert re.search(r'<progress value="5\.\d" max="12\.0"></progress>', text)  # a second at most passed meanwhile


@pytest.fixture
def refreshes(monkeypatch):
    """Each accuracy refresh carried out: its systems, and the runs' statuses when it began."""
    from assurance import tasks

    calls = []
    real = tasks.accuracy_reports_refresh

    def refresh(*, systems):
        calls.append(([system.slug for system in systems], statuses()))
        return real(systems=systems)

    monkeypatch.setattr(tasks, "accuracy_reports_refresh", refresh)
    return calls


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_accuracy_refresh_runs_once_after_the_last_run_of_a_sanction(client, submitted, refreshes, held_thread):
    event, _ = submitted
    client.force_login(staff("sam"))
    client.post(f"/staff/events/{event.pk}/sanction/", {})
    held_thread.carry_out()
    systems = sorted(RatingSystem.objects.filter(active=True).values_list("slug", flat=True))
    # rankings first: no run waited for a refresh; the one refresh covers every system
    assert [(sorted(slugs), seen) for slugs, seen in refreshes] == [(systems, [RunStatus.SUCCEEDED] * len(systems))]
    assert AccuracyReport.objects.filter(run__status=RunStatus.SUCCEEDED).count() == len(systems)
    assert not AccuracyRefreshRequest.objects.filter(enqueued_at=None).exists()


@pytest.mark.django_db(transaction=True)
def test_a_failed_last_run_still_lets_the_others_accuracy_refresh_go(client, submitted, monkeypatch, refreshes, held_thread):
    from ratings.services import execution

    real = execution._recalculate
    event, _ = submitted
    client.force_login(staff("sam"))
    client.post(f"/staff/events/{event.pk}/sanction/", {})
    last = RecalculationRun.objects.order_by("pk").last().system  # its run is the thread's last job

    def broken_for_the_last(system, **kwargs):
        if system.pk == last.pk:
            raise RuntimeError("the last engine broke")
        return real(system, **kwargs)

    monkeypatch.setattr(execution, "_recalculate", broken_for_the_last)
    held_thread.carry_out()
    assert RecalculationRun.objects.get(system=last).status == RunStatus.FAILED
    others = sorted(RatingSystem.objects.filter(active=True).exclude(pk=last.pk).values_list("slug", flat=True))
    assert [sorted(slugs) for slugs, _ in refreshes] == [others]
    assert not AccuracyRefreshRequest.objects.filter(enqueued_at=None).exists()


@pytest.mark.django_db(transaction=True)
def test_the_progress_page_follows_a_lost_run_to_its_retry(client, submitted, held_thread):
    event, _ = submitted
    client.force_login(staff("sam"))
    response = client.post(f"/staff/events/{event.pk}/sanction/", {})
    lost = RecalculationRun.objects.order_by("pk").first()
    RecalculationRun.objects.filter(pk=lost.pk).update(status=RunStatus.FAILED, error="lost")
    retry = RecalculationRun.objects.create(system=lost.system, trigger=Trigger.RETRY, from_date=lost.from_date, retry_of=lost)
    page = client.get(response["Location"])
    runs = page.context["runs"]
    assert retry.pk in [run.pk for run in runs] and lost.pk not in [run.pk for run in runs]
    assert len(runs) == RatingSystem.objects.filter(active=True).count()
