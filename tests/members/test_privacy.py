"""A member's own privacy controls: what the public sees of his coach, the copy of his data, his
erasure asked for and cancelled. Only on the coach he holds, only by POST with CSRF, each audited."""
import datetime as dt
import json

import pytest
from django.test import Client
from django.utils import timezone, translation
from django.utils.formats import date_format

from audit.models import Action, AuditRecord
from members import services
from members.models import Notice, NoticeKind
from tests.roles import client_of
from tournaments import privacy
from tournaments.models import Coach, Visibility

pytestmark = pytest.mark.django_db


@pytest.fixture
def anna(pair, mia):
    """Mia holds Anna's record (101); Bert's (102) is nobody's."""
    coach = pair["anna"]
    coach.user = mia
    coach.save(update_fields=["user"])
    return coach


def day(value) -> str:
    """A date as the English pages write it (en-gb: 5 Jan 2027)."""
    with translation.override("en-gb"):
        return date_format(value, "DATE_FORMAT")


def reload(coach) -> Coach:
    return Coach.objects.get(pk=coach.pk)


def audit_actions(coach) -> list[str]:
    return list(AuditRecord.objects.filter(coach=coach).order_by("at", "id").values_list("action", flat=True))


def test_the_members_page_offers_the_privacy_controls_of_his_coach(anna, mia):
    page = client_of(mia).get("/members/me/").content.decode()
    assert 'action="/members/me/coaches/101/privacy/"' in page
    assert '<label for="id_privacy_101_visibility_1">A pseudonym of my choice</label>' in page
    assert 'href="/members/me/coaches/101/data/"' in page
    assert 'href="/members/me/coaches/101/erasure/"' in page


def test_a_member_chooses_a_pseudonym_and_the_public_sees_it(anna, mia):
    client = client_of(mia)
    response = client.post("/members/me/coaches/101/privacy/", {"visibility": "pseudonym", "pseudonym": "  The  Orc "})
    assert (response.status_code, response["Location"]) == (302, "/members/me/")
    coach = reload(anna)
    assert (coach.visibility, coach.pseudonym, coach.public_name, coach.name) == ("pseudonym", "The Orc", "The Orc", "Anna Jansen")
    record = AuditRecord.objects.get(coach=anna)
    assert (record.action, record.actor, record.after) == (Action.COACH_PRIVACY, mia, {"visibility": "pseudonym"})
    page = client.get("/members/me/").content.decode()
    assert "The public now sees coach 101 as “The Orc”." in page


def test_a_member_hides_his_coach_and_shows_his_name_again(anna, mia):
    client_of(mia).post("/members/me/coaches/101/privacy/", {"visibility": "hidden"})
    assert reload(anna).public_name == anna.label
    client_of(mia).post("/members/me/coaches/101/privacy/", {"visibility": "public", "pseudonym": "ignored"})
    assert (reload(anna).public_name, reload(anna).pseudonym) == ("Anna Jansen", "")
    assert audit_actions(anna) == [Action.COACH_PRIVACY, Action.COACH_PRIVACY]


@pytest.mark.parametrize(("pseudonym", "message"), [
    ("   ", "Give the pseudonym to show."),
    ("Anonymous coach 123ABC", "A pseudonym cannot start with “Anonymous coach”: that is the label of hidden coaches."),
    ("bert smith", "Another coach is shown under this name: choose another pseudonym."),
])
def test_a_bad_pseudonym_gets_a_message_and_changes_nothing(anna, mia, pseudonym, message):
    response = client_of(mia).post("/members/me/coaches/101/privacy/", {"visibility": "pseudonym", "pseudonym": pseudonym})
    assert response.status_code == 400
    page = response.content.decode()
    assert message in page
    assert "Your choice is not saved: see the message beside it." in page
    assert (reload(anna).visibility, reload(anna).public_name) == (Visibility.PUBLIC, "Anna Jansen")
    assert audit_actions(anna) == []


def test_an_unknown_visibility_is_refused(anna, mia):
    response = client_of(mia).post("/members/me/coaches/101/privacy/", {"visibility": "everyone"})
    assert response.status_code == 400
    assert "Select a valid choice." in response.content.decode()
    assert reload(anna).visibility == Visibility.PUBLIC


@pytest.mark.parametrize("path", [
    "/members/me/coaches/{n}/privacy/", "/members/me/coaches/{n}/erasure/", "/members/me/coaches/{n}/erasure/cancel/",
    "/members/me/coaches/{n}/data/",
])
@pytest.mark.parametrize("number", [102, 999])
def test_a_tampered_coach_number_answers_404_and_changes_nothing(anna, mia, pair, path, number):
    bert = pair["bert"]
    client = client_of(mia)
    answer = client.post if "data" not in path else client.get
    response = answer(path.format(n=number), {"visibility": "hidden"})
    assert response.status_code == 404
    assert (reload(bert).visibility, reload(bert).erasure_requested_at, reload(bert).public_name) == ("public", None, "Bert Smith")
    assert AuditRecord.objects.filter(coach=bert).count() == 0


def test_a_visitor_is_sent_to_log_in(anna):
    for path in ("/members/me/coaches/101/privacy/", "/members/me/coaches/101/erasure/", "/members/me/coaches/101/data/"):
        response = Client().post(path, {"visibility": "hidden"}) if "data" not in path else Client().get(path)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), path
    assert reload(anna).visibility == Visibility.PUBLIC


def test_a_get_changes_nothing(anna, mia):
    client = client_of(mia)
    assert client.get("/members/me/coaches/101/privacy/?visibility=hidden").status_code == 405
    assert client.get("/members/me/coaches/101/erasure/cancel/").status_code == 405
    confirm = client.get("/members/me/coaches/101/erasure/")
    assert confirm.status_code == 200
    assert (reload(anna).visibility, reload(anna).erasure_requested_at) == (Visibility.PUBLIC, None)
    assert audit_actions(anna) == []


def test_a_post_without_the_csrf_token_is_refused(anna, mia):
    client = client_of(mia, csrf=True)
    assert client.post("/members/me/coaches/101/privacy/", {"visibility": "hidden"}).status_code == 403
    assert client.post("/members/me/coaches/101/erasure/").status_code == 403
    assert (reload(anna).visibility, reload(anna).erasure_requested_at) == (Visibility.PUBLIC, None)


def test_the_erasure_confirmation_says_what_it_does_and_when(anna, mia):
    page = client_of(mia).get("/members/me/coaches/101/erasure/").content.decode()
    due = timezone.localdate() + dt.timedelta(days=30)
    assert "Your games stay" in page
    assert f"anonymous label “{anna.label}”" in page
    assert "grace period of 30 days" in page
    assert f"falls due on {day(due)}" in page
    assert "logging in cancels it too" in page
    assert 'action="/members/me/coaches/101/erasure/"' in page


def test_a_member_asks_for_erasure_and_cancels_it(anna, mia):
    client = client_of(mia)
    response = client.post("/members/me/coaches/101/erasure/")
    assert (response.status_code, response["Location"]) == (302, "/members/me/")
    asked = reload(anna).erasure_requested_at
    assert asked is not None and timezone.now() - asked < dt.timedelta(minutes=1)
    page = client.get("/members/me/").content.decode()
    due = asked + dt.timedelta(days=30)
    assert f"it is carried out on {day(due)}" in page
    assert 'action="/members/me/coaches/101/erasure/cancel/"' in page
    client.post("/members/me/coaches/101/erasure/")  # asked twice: the first date holds
    assert reload(anna).erasure_requested_at == asked
    client.post("/members/me/coaches/101/erasure/cancel/")
    assert reload(anna).erasure_requested_at is None
    assert reload(anna).name == "Anna Jansen"
    assert audit_actions(anna) == [Action.COACH_ERASURE_REQUEST, Action.COACH_ERASURE_CANCEL]
    assert AuditRecord.objects.filter(coach=anna, action=Action.COACH_ERASURE_CANCEL).get().actor == mia


def test_a_member_downloads_everything_held_about_him(anna, mia):
    response = client_of(mia).get("/members/me/coaches/101/data/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="coach-101-data.json"'
    assert response["Content-Type"] == "application/json"
    data = json.loads(response.content)
    assert (data["coach"]["number"], data["coach"]["name"], data["account"]["username"]) == (101, "Anna Jansen", "mia")
    assert [g["opponent"] for g in data["games"]] == ["Bert Smith"]
    assert AuditRecord.objects.get(coach=anna).action == Action.COACH_EXPORT


def test_the_privacy_controls_are_in_dutch_at_nl(anna, mia):
    page = client_of(mia).get("/nl/members/me/").content.decode()
    assert 'action="/nl/members/me/coaches/101/privacy/"' in page
    assert "Een pseudoniem naar keuze" in page
    response = client_of(mia).post("/nl/members/me/coaches/101/privacy/", {"visibility": "pseudonym", "pseudonym": ""})
    assert "Geef het pseudoniem op dat getoond moet worden." in response.content.decode()


@pytest.mark.parametrize("visibility, pseudonym", [(Visibility.PSEUDONYM, "The Bull"), (Visibility.HIDDEN, "")])
def test_a_followers_feed_names_the_coach_as_the_public_sees_him_now(pair, mia, visibility, pseudonym):
    bert = pair["bert"]
    Notice.objects.create(
        member=mia, kind=NoticeKind.FOLLOWED_RATING, coach=bert, title="Bert Smith's NAF Elo rating is now 150.03",
        path="/coaches/102/", before=148.59, after=150.03,
    )
    privacy.coach_privacy_set(coach=bert, visibility=visibility, pseudonym=pseudonym, actor=None)
    shown_as = pseudonym or bert.label
    feed = Client().get(f"/members/feed/{services.preferences_get(member=mia).feed_token}/").content.decode()
    assert "Bert Smith" not in feed
    assert f"{shown_as}'s NAF Elo rating is now 150.03" in feed
    assert "Bert Smith" not in client_of(mia).get("/members/me/").content.decode()
