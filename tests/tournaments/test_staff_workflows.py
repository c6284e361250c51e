"""Staff pages: sanction or reject, correct results, merge coaches, configure systems, rerun runs, read the audit log."""
import datetime as dt

import pytest

from audit.models import AuditRecord
from ratings.models import CalculationRow, CurrentRating, RatingSystem, RecalculationRun, RunStatus, Trigger
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import member, organiser, staff
from tournaments.models import Coach, Event, EventStatus, Game, GameSide

pytestmark = pytest.mark.django_db

DAY = dt.date(2024, 3, 2)


@pytest.fixture
def sam(client):
    user = staff("sam")
    client.force_login(user)
    return user


@pytest.fixture
def submitted():
    """A submitted four-coach event: round 1 W–X 2-1, Y–Z 1-1; round 2 W–Y 0-1, X–Z 2-0."""
    event = EventFactory(name="Four", start_date=DAY, status=EventStatus.SUBMITTED, organiser=organiser("olga"))
    w, x, y, z = (CoachFactory(name=n) for n in "WXYZ")
    r1, r2 = RoundFactory(event=event, number=1), RoundFactory(event=event, number=2)
    games = [play(r1, w, x, (2, 1)), play(r1, y, z, (1, 1)), play(r2, w, y, (0, 1), away_race="human"),
             play(r2, x, z, (2, 0), home_race="orc")]
    return event, (w, x, y, z), games


def elo(coach):
    return round(CurrentRating.objects.get(system__slug="elo", coach=coach).value, 2)


def test_the_queue_lists_submitted_events_and_filters_by_status(client, sam, submitted):
    EventFactory(name="Old sanctioned", status=EventStatus.SANCTIONED)
    EventFactory(name="A draft", status=EventStatus.DRAFT)
    page = client.get("/staff/events/")
    assert [row.record.name for row in page.context["table"].rows] == ["Four"]
    page = client.get("/staff/events/?status=sanctioned")
    assert [row.record.name for row in page.context["table"].rows] == ["Old sanctioned"]
    page = client.get("/staff/events/?status=")
    assert len(page.context["table"].rows) == 3


def test_sanctioning_an_event_records_it_and_recalculates_the_rankings(client, sam, submitted, django_capture_on_commit_callbacks):
    event, (w, x, y, z), _ = submitted
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/staff/events/{event.pk}/sanction/", {"note": "All in order"})
    assert response.status_code == 302
    event.refresh_from_db()
    assert event.status == EventStatus.SANCTIONED
    record = AuditRecord.objects.get(action="event.sanction")
    assert (record.actor, record.before, record.after, record.note) == (
        sam, {"status": "submitted"}, {"status": "sanctioned"}, "All in order",
    )
    runs = RecalculationRun.objects.all()
    assert {(r.trigger, r.status, r.from_date, r.requested_by) for r in runs} == {("sanctioned", RunStatus.SUCCEEDED, DAY, sam)}
    assert runs.count() == RatingSystem.objects.filter(active=True).count()
    # The spec's four-coach example: W 149.97, X 150.03, Y 152.03, Z 147.97.
    assert (elo(w), elo(x), elo(y), elo(z)) == (149.97, 150.03, 152.03, 147.97)


def test_a_sanction_with_the_broker_down_answers_normally_saying_the_recalculation_is_queued(
    client, sam, submitted, monkeypatch, django_capture_on_commit_callbacks,
):
    from kombu.exceptions import OperationalError

    from ratings.services import requests

    def down(tasks):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(requests, "group", lambda tasks: type("Down", (), {"apply_async": lambda self: down(tasks)})())
    event, _, _ = submitted
    with django_capture_on_commit_callbacks(execute=True) as sent:
        response = client.post(f"/staff/events/{event.pk}/sanction/", {"note": "All in order"}, follow=True)
    assert response.status_code == 200 and len(sent) >= 1  # the enqueue ran, and met the broker down
    assert "is sanctioned. Its recalculation is queued: the rankings show it once that run finishes." in response.content.decode()
    event.refresh_from_db()
    assert event.status == EventStatus.SANCTIONED
    assert {(r.status, r.enqueued_at) for r in RecalculationRun.objects.all()} == {(RunStatus.QUEUED, None)}  # the outbox


def test_a_rejection_needs_a_reason_that_the_organiser_then_reads(client, sam, submitted):
    event, _, _ = submitted
    response = client.post(f"/staff/events/{event.pk}/reject/", {"reason": "  "})
    assert response.context["reject_form"].errors == {"reason": ["Give the organiser a reason for the rejection."]}
    event.refresh_from_db()
    assert event.status == EventStatus.SUBMITTED
    client.post(f"/staff/events/{event.pk}/reject/", {"reason": "Round 2 results are swapped."})
    event.refresh_from_db()
    assert event.status == EventStatus.REJECTED
    assert AuditRecord.objects.get(action="event.reject").note == "Round 2 results are swapped."
    client.force_login(event.organiser)
    assert "Round 2 results are swapped." in client.get(f"/organiser/events/{event.pk}/").content.decode()
    assert not RecalculationRun.objects.exists()


def test_a_corrected_score_is_stored_audited_and_recalculated(client, sam, submitted, django_capture_on_commit_callbacks):
    event, (w, x, y, z), games = submitted
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/staff/events/{event.pk}/sanction/", {})
    first = games[0]
    assert set(CalculationRow.objects.filter(system__slug="elo", game=first).values_list("coach_id", "w")) == {(w.pk, 1.0), (x.pk, 0.0)}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/staff/events/{event.pk}/correct/", {
            "game": first.pk, "home_touchdowns": 1, "away_touchdowns": 2, "home_casualties": 0, "away_casualties": 3,
            "conceded_by": "", "kind": "played", "note": "Scores were swapped on the sheet",
        })
    assert response.status_code == 302
    first.refresh_from_db()
    assert (first.home_touchdowns, first.away_touchdowns, first.away_casualties) == (1, 2, 3)
    assert set(GameSide.objects.filter(game=first).values_list("coach_id", "touchdowns_for", "score")) == {(w.pk, 1, 0), (x.pk, 2, 1)}
    record = AuditRecord.objects.get(action="game.correct")
    assert (record.actor, record.note) == (sam, "Scores were swapped on the sheet")
    assert (record.before["home_touchdowns"], record.after["home_touchdowns"]) == (2, 1)
    corrected = RecalculationRun.objects.filter(trigger=Trigger.CORRECTED)
    assert {(r.status, r.from_date) for r in corrected} == {(RunStatus.SUCCEEDED, DAY)}
    assert set(CalculationRow.objects.filter(system__slug="elo", game=first).values_list("coach_id", "w")) == {(w.pk, 0.0), (x.pk, 1.0)}


@pytest.mark.parametrize("changes, errors", [
    ({"home_touchdowns": -2}, {"home_touchdowns": ["The number of touchdowns cannot be negative."]}),
    ({"away_touchdowns": 77}, {"away_touchdowns": ["That is not a believable number of touchdowns: at most 20."]}),
    ({"note": ""}, {"note": ["Say why the result is corrected (it goes in the audit log)."]}),
])
def test_a_bad_correction_changes_nothing(client, sam, submitted, changes, errors):
    event, _, games = submitted
    data = {"game": games[0].pk, "home_touchdowns": 2, "away_touchdowns": 1, "home_casualties": 0, "away_casualties": 0,
            "conceded_by": "", "kind": "played", "note": "typo", **changes}
    response = client.post(f"/staff/events/{event.pk}/correct/", data)
    bound = [form for game, form in response.context["rows"] if game.pk == games[0].pk][0]
    assert bound.errors == errors
    games[0].refresh_from_db()
    assert (games[0].home_touchdowns, games[0].away_touchdowns) == (2, 1)
    assert not AuditRecord.objects.filter(action="game.correct").exists()


def test_a_correction_to_a_bye_with_an_opponent_is_refused_by_the_record(client, sam, submitted):
    event, _, games = submitted
    response = client.post(f"/staff/events/{event.pk}/correct/", {
        "game": games[0].pk, "home_touchdowns": 2, "away_touchdowns": 1, "home_casualties": 0, "away_casualties": 0,
        "conceded_by": "", "kind": "bye", "note": "mistake",
    })
    assert response.context["problems"]
    games[0].refresh_from_db()
    assert games[0].kind == "played"


def test_a_correction_waits_for_a_running_recalculation_of_its_dates(client, sam, submitted):
    event, _, games = submitted
    RecalculationRun.objects.create(
        system=RatingSystem.objects.get(slug="glicko"), trigger="manual", from_date=DAY, status=RunStatus.QUEUED
    )
    response = client.post(f"/staff/events/{event.pk}/correct/", {
        "game": games[0].pk, "home_touchdowns": 0, "away_touchdowns": 0, "home_casualties": 0, "away_casualties": 0,
        "conceded_by": "", "kind": "played", "note": "draw really",
    })
    assert response.context["problems"][0].startswith("The NAF Glicko ratings are being recalculated from 2024-03-02")
    games[0].refresh_from_db()
    assert games[0].home_touchdowns == 2


def test_a_game_of_another_event_cannot_be_corrected_through_this_one(client, sam, submitted):
    event, _, games = submitted
    other = EventFactory(name="Other")
    response = client.post(f"/staff/events/{other.pk}/correct/", {
        "game": games[0].pk, "home_touchdowns": 0, "away_touchdowns": 0, "home_casualties": 0, "away_casualties": 0,
        "conceded_by": "", "kind": "played", "note": "x",
    })
    assert response.status_code == 404


def test_merging_two_coaches_previews_then_folds_the_duplicate_in(client, sam, submitted, django_capture_on_commit_callbacks):
    event, (w, x, y, z), _ = submitted
    Event.objects.filter(pk=event.pk).update(status=EventStatus.SANCTIONED)
    duplicate = CoachFactory(name="W again")
    other = EventFactory(name="Later", start_date=dt.date(2024, 4, 6))
    play(RoundFactory(event=other, number=1), duplicate, x, (1, 0))
    preview = client.post("/staff/coaches/merge/", {"keep": w.number, "duplicate": duplicate.number})
    assert [(label, coach.pk, games) for label, coach, games, _, _ in preview.context["preview"]] == [
        ("Keep", w.pk, 2), ("Fold in and delete", duplicate.pk, 1),
    ]
    assert Coach.objects.filter(pk=duplicate.pk).exists()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/staff/coaches/merge/", {"keep": w.number, "duplicate": duplicate.number, "confirm": "yes"})
    assert response.status_code == 302
    assert not Coach.objects.filter(pk=duplicate.pk).exists()
    assert GameSide.objects.filter(coach=w).count() == 3
    record = AuditRecord.objects.get(action="coach.merge")
    assert (record.actor, record.before["duplicate"]["number"]) == (sam, duplicate.number)
    assert {(r.trigger, r.from_date, r.status) for r in RecalculationRun.objects.all()} == {
        ("merge", dt.date(2024, 4, 6), RunStatus.SUCCEEDED),
    }


def test_coaches_who_played_each_other_cannot_be_merged(client, sam, submitted):
    _, (w, x, _, _), _ = submitted
    response = client.post("/staff/coaches/merge/", {"keep": w.number, "duplicate": x.number, "confirm": "yes"})
    assert response.context["form"].non_field_errors() == ["These coaches played in the same round; they cannot be one person."]
    assert Coach.objects.filter(pk=x.pk).exists()


def test_a_merge_needs_two_existing_different_coaches(client, sam, submitted):
    _, (w, _, _, _), _ = submitted
    response = client.post("/staff/coaches/merge/", {"keep": w.number, "duplicate": w.number})
    assert response.context["form"].errors == {"duplicate": ["Choose two different coaches to merge."]}
    response = client.post("/staff/coaches/merge/", {"keep": w.number, "duplicate": 99999})
    assert response.context["form"].errors == {"duplicate": ["No coach has federation number 99999."]}


def test_rating_system_parameters_are_saved_audited_and_recalculated(client, sam, django_capture_on_commit_callbacks):
    system = RatingSystem.objects.get(slug="elo")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/staff/systems/{system.pk}/", {"non_major_max": 24, "inactive_after_months": 18})
    assert response.status_code == 302
    system.refresh_from_db()
    assert (system.parameters, system.inactive_after_months) == ({"non_major_max": 24}, 18)
    record = AuditRecord.objects.get(action="rating_system.update")
    assert (record.actor, record.before["parameters"], record.after["parameters"]) == (sam, {}, {"non_major_max": 24})
    run = RecalculationRun.objects.get()
    assert (run.system, run.trigger, run.from_date, run.status) == (system, Trigger.PARAMETERS, None, RunStatus.SUCCEEDED)


@pytest.mark.parametrize("parameters, errors", [
    ({"non_major_max": 0}, {"non_major_max": ["0 is not valid (an integer from 1 to 10000)"]}),
    ({"non_major_max": "many"}, {"non_major_max": ["Enter a whole number."]}),
    ({"bogus": 1}, {"__all__": ["This form has no field bogus: nothing is saved. Reload the page and try again."]}),
    ({"per_race": "on"}, {"__all__": ["This form has no field per_race: nothing is saved. Reload the page and try again."]}),
])
def test_bad_parameters_show_the_engines_message_and_change_nothing(client, sam, parameters, errors):
    system = RatingSystem.objects.get(slug="elo")
    response = client.post(f"/staff/systems/{system.pk}/", {**parameters, "inactive_after_months": 24})
    assert response.status_code == 200
    assert response.context["form"].errors == errors
    system.refresh_from_db()
    assert system.parameters == {}
    assert not RecalculationRun.objects.exists() and not AuditRecord.objects.exists()


def test_the_runs_list_and_a_runs_log_and_error(client, sam):
    system = RatingSystem.objects.get(slug="knsb")
    failed = RecalculationRun.objects.create(system=system, trigger="manual", status=RunStatus.FAILED, from_date=DAY,
                                             log="knsb: from 2024-03-01\n12 games to replay", error="Traceback: <boom>")
    RecalculationRun.objects.create(system=RatingSystem.objects.get(slug="elo"), trigger="sanctioned", status=RunStatus.SUCCEEDED)
    page = client.get("/staff/runs/")
    assert [row.record.pk for row in page.context["table"].rows][-1] == failed.pk
    page = client.get(f"/staff/runs/?system={system.pk}&status=failed")
    assert [row.record.pk for row in page.context["table"].rows] == [failed.pk]
    detail = client.get(f"/staff/runs/{failed.pk}/").content.decode()
    assert "12 games to replay" in detail and "Traceback: &lt;boom&gt;" in detail


def test_a_lost_run_and_its_retry_link_to_each_other(client, sam):
    system = RatingSystem.objects.get(slug="knsb")
    lost = RecalculationRun.objects.create(system=system, trigger="manual", status=RunStatus.FAILED, from_date=DAY)
    retry = RecalculationRun.objects.create(system=system, trigger=Trigger.RETRY, from_date=DAY, retry_of=lost,
                                            reason=f"retry of run {lost.pk}, whose process was lost")
    detail = client.get(f"/staff/runs/{lost.pk}/").content.decode()
    assert f'Retried as</dt><dd><a href="/staff/runs/{retry.pk}/">run {retry.pk}</a> (queued)' in detail
    detail = client.get(f"/staff/runs/{retry.pk}/").content.decode()
    assert f'Retry of</dt><dd><a href="/staff/runs/{lost.pk}/">run {lost.pk}</a>, whose process was lost' in detail
    assert "Retry of a run whose process was lost: retry of run" in detail


def test_a_rerun_is_a_new_run_of_the_same_system_from_the_same_date(client, sam, django_capture_on_commit_callbacks):
    system = RatingSystem.objects.get(slug="knsb")
    failed = RecalculationRun.objects.create(system=system, trigger="manual", status=RunStatus.FAILED, from_date=DAY)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/staff/runs/{failed.pk}/rerun/")
    rerun = RecalculationRun.objects.exclude(pk=failed.pk).get()
    assert response["Location"] == f"/staff/runs/{rerun.pk}/"
    assert (rerun.system, rerun.trigger, rerun.from_date, rerun.requested_by, rerun.status) == (
        system, "rerun", DAY, sam, RunStatus.SUCCEEDED,
    )
    record = AuditRecord.objects.get(action="run.rerun")
    assert (record.object_id, record.after["run"]) == (str(failed.pk), rerun.pk)


def test_a_rerun_is_only_a_post(client, sam):
    run = RecalculationRun.objects.create(system=RatingSystem.objects.get(slug="knsb"), trigger="manual")
    assert client.get(f"/staff/runs/{run.pk}/rerun/").status_code == 405
    assert RecalculationRun.objects.count() == 1


@pytest.fixture
def audit_trail(sam):
    """Three records by two people on two days."""
    olga = organiser("olga")
    event = EventFactory(name="Delft Open", status=EventStatus.DRAFT, organiser=olga)
    coach = CoachFactory(name="Anna")
    records = [
        AuditRecord.objects.create(
            actor=olga, action="event.create", object_type="event", object_id=str(event.pk), object_repr=str(event),
            after={"name": "Delft Open"},
        ),
        AuditRecord.objects.create(
            actor=sam, action="event.sanction", object_type="event", object_id=str(event.pk), object_repr=str(event),
            before={"status": "submitted"}, after={"status": "sanctioned"},
        ),
        AuditRecord.objects.create(
            actor=sam, action="coach.create", object_type="coach", object_id=str(coach.pk), object_repr="<b>Anna</b>",
            after={"name": "<b>Anna</b>"},
        ),
    ]
    AuditRecord.objects.filter(pk=records[0].pk).update(at=dt.datetime(2024, 5, 1, 12, tzinfo=dt.UTC))
    return records


def shown(client, query=""):
    return [row.record.action for row in client.get(f"/staff/audit/{query}").context["table"].rows]


def test_the_audit_log_shows_who_when_what_and_before_after(client, audit_trail):
    page = client.get("/staff/audit/").content.decode()
    assert "status: submitted → sanctioned" in page and "name: Delft Open" in page
    assert "&lt;b&gt;Anna&lt;/b&gt;" in page and "<b>Anna</b>" not in page
    assert shown(client) == ["coach.create", "event.sanction", "event.create"]


def test_the_audit_log_filters_by_person_object_and_date(client, audit_trail):
    assert shown(client, "?person=olga") == ["event.create"]
    assert shown(client, "?object_type=coach") == ["coach.create"]
    assert shown(client, "?object=Delft") == ["event.sanction", "event.create"]
    assert shown(client, f"?object={audit_trail[2].object_id}&object_type=coach") == ["coach.create"]
    assert shown(client, "?date_before=2024-05-01") == ["event.create"]
    today = dt.date.today().isoformat()
    assert shown(client, f"?date_after={today}&person=sam") == ["coach.create", "event.sanction"]


def test_staff_link_a_member_account_to_its_coach_shown_on_the_members_page(client, sam):
    mia = member("mia")
    coach = CoachFactory(number=4242, name="Mia Bakker")
    response = client.post(f"/staff/members/{mia.pk}/coach/", {"coach": 4242})
    assert response.status_code == 302
    coach.refresh_from_db()
    assert coach.user == mia
    record = AuditRecord.objects.get(action="user.link_coach")
    assert (record.actor, record.object_id, record.before, record.after) == (sam, str(mia.pk), {"coach": None}, {"coach": 4242})
    client.force_login(mia)
    page = client.get("/accounts/profile/").content.decode()
    assert "Mia Bakker" in page and "4242" in page


def test_a_coach_has_one_account(client, sam):
    mia, max_ = member("mia"), member("max")
    coach = CoachFactory(number=4242, user=max_)
    response = client.post(f"/staff/members/{mia.pk}/coach/", {"coach": 4242})
    assert response.context["form"].errors == {"coach": [f"{coach} is already linked to the account max."]}
    coach.refresh_from_db()
    assert coach.user == max_


def test_an_account_can_be_unlinked(client, sam):
    mia = member("mia")
    coach = CoachFactory(number=4242, user=mia)
    client.post(f"/staff/members/{mia.pk}/coach/", {"coach": ""})
    coach.refresh_from_db()
    assert coach.user is None


def test_the_members_list_searches_accounts_and_coaches(client, sam):
    mia = member("mia")
    CoachFactory(name="Mia Bakker", user=mia)
    member("max")
    page = client.get("/staff/members/?q=bakker")
    assert [row.record.username for row in page.context["table"].rows] == ["mia"]


def test_staff_pages_escape_names(client, sam):
    event = EventFactory(name="<script>x()</script>", status=EventStatus.SUBMITTED)
    a, b = CoachFactory(name="<i>A</i>"), CoachFactory(name="B")
    play(RoundFactory(event=event, number=1), a, b)
    for url in ("/staff/events/", f"/staff/events/{event.pk}/", f"/staff/events/{event.pk}/correct/"):
        page = client.get(url).content.decode()
        assert "<script>x()" not in page and "<i>A</i>" not in page, url
    assert Game.objects.count() == 1
