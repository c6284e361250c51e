"""Following coaches and the notices of a run: recorded when a rating of the member's coach or of a
followed coach changes, or a new list is published; never for a run that changes nothing of theirs."""
import datetime as dt
import re

import pytest
from django.core import mail
from django.test import Client
from pytest import approx

from audit.models import AuditRecord
from members import services
from members.models import Follow, Notice
from ratings.models import CurrentRating, RatingSystem
from tests.members.conftest import another_game
from tests.roles import client_of, member

pytestmark = pytest.mark.django_db


def rating_notices(user) -> list[tuple[str, str, float | None, float | None]]:
    """His rating notices as (kind, title in English, before, after)."""
    notices = Notice.objects.filter(member=user).exclude(kind="list").select_related("system", "coach").order_by("id")
    return [(notice.kind, notice.title, notice.before, notice.after) for notice in notices]


def test_a_member_follows_and_unfollows_a_coach_from_its_page(pair, mia):
    assert "/members/follow/" not in Client().get("/coaches/102/").content.decode()  # a visitor's copy, now cached
    client = client_of(mia)
    page = client.get("/coaches/102/").content.decode()
    assert 'action="/members/follow/102/"' in page and "csrfmiddlewaretoken" in page and ">Follow Bert Smith</button>" in page
    assert client.get("/members/follow/102/").status_code == 405
    response = client.post("/members/follow/102/", {"next": "/coaches/102/"})
    assert (response.status_code, response["Location"]) == (302, "/coaches/102/")
    assert list(Follow.objects.values_list("member__username", "coach__number")) == [("mia", 102)]
    assert ">Unfollow Bert Smith</button>" in client.get("/coaches/102/").content.decode()
    assert "Bert Smith" in client.get("/members/me/").content.decode()
    away = client.post("/members/unfollow/102/", {"next": "https://elsewhere.example/"})
    assert away["Location"] == "/coaches/102/"  # never sent to another site
    assert Follow.objects.count() == 0
    assert list(AuditRecord.objects.filter(coach=pair["bert"]).order_by("id").values_list("action", "actor__username")) == [
        ("coach.follow", "mia"), ("coach.unfollow", "mia"),
    ]


def test_visitors_see_no_follow_button_and_cannot_follow(pair):
    assert "/members/follow/" not in Client().get("/coaches/102/").content.decode()
    response = Client().post("/members/follow/102/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert Follow.objects.count() == 0


def test_a_post_to_follow_needs_the_pages_csrf_token(pair, mia):
    client = Client(enforce_csrf_checks=True)
    client.force_login(mia)
    assert client.post("/members/follow/102/").status_code == 403
    assert Follow.objects.count() == 0
    page = client.get("/coaches/102/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    assert client.post("/members/follow/102/", {"csrfmiddlewaretoken": token}).status_code == 302
    assert Follow.objects.count() == 1


def test_a_run_that_changes_a_followed_coachs_rating_tells_the_follower_and_the_owner(pair, mia, recalculate):
    recalculate("elo")
    services.follow_add(member=mia, coach=pair["bert"])
    anna_owner = member("anna")
    pair["anna"].user = anna_owner
    pair["anna"].save(update_fields=["user"])
    services.follow_add(member=anna_owner, coach=pair["anna"])  # her own coach: told once, as hers
    before = Notice.objects.exclude(kind="list").count()
    another_game(pair["bert"], pair["anna"])  # Bert wins this time: both ratings move
    recalculate("elo")
    assert rating_notices(mia) == [
        ("followed", "Bert Smith's NAF Elo rating (Orc, Blood Bowl 2020) is now 150.03 (was 148.59)", approx(148.59), approx(150.03)),
    ]
    assert rating_notices(anna_owner) == [
        ("own", "Your NAF Elo rating (Human, Blood Bowl 2020) is now 149.97 (was 151.41)", approx(151.41), approx(149.97)),
    ]
    assert Notice.objects.exclude(kind="list").count() == before + 2
    assert Notice.objects.get(member=mia, kind="followed").path == "/coaches/102/"


def test_a_run_that_changes_nothing_of_theirs_records_no_notice(pair, mia, recalculate):
    recalculate("elo")
    services.follow_add(member=mia, coach=pair["bert"])
    recalculate("elo")  # the same games again
    cees, dirk = member("cees-owner"), member("dirk-owner")  # accounts, no coaches
    from tests.factories import CoachFactory

    other, rival = CoachFactory(number=103, name="Cees"), CoachFactory(number=104, name="Dirk")
    another_game(other, rival)  # a game of coaches nobody follows
    recalculate("elo")
    assert rating_notices(mia) == [] and rating_notices(cees) == [] and rating_notices(dirk) == []


def test_a_new_rating_of_a_followed_coach_is_a_notice(pair, mia, recalculate):
    services.follow_add(member=mia, coach=pair["bert"])  # nothing computed yet: nothing seen
    recalculate("elo")
    assert [title for _, title, _, _ in rating_notices(mia)] == ["Bert Smith's NAF Elo rating (Orc, Blood Bowl 2020) is now 148.59 (new)"]


def test_a_published_list_is_a_notice_for_members_who_want_its_system(pair, mia, recalculate):
    quiet = member("quiet")
    services.preferences_update(member=quiet, email_notices=False, system_ids=[RatingSystem.objects.get(slug="glicko").pk])
    recalculate("elo", today=dt.date(2024, 4, 15))  # publishes the lists of April 2024 and before: the newest is told
    lists = [(notice.member.username, notice.title, notice.path) for notice in Notice.objects.filter(kind="list")]
    assert lists == [("mia", "NAF Elo: the list of April 2024 is published, 2 coaches rated", "/lists/elo/2024-04/")]
    recalculate("elo", today=dt.date(2024, 4, 16))  # nothing new published
    assert Notice.objects.filter(kind="list").count() == 1


def test_notices_are_mailed_to_those_who_want_them(pair, mia, recalculate):
    recalculate("elo")
    max_ = member("max")
    for who in (mia, max_):
        services.follow_add(member=who, coach=pair["bert"])
    services.preferences_update(member=mia, email_notices=True, system_ids=[])
    another_game(pair["bert"], pair["anna"])
    recalculate("elo")
    assert [m.to for m in mail.outbox] == [["mia@example.org"]]
    assert "Bert Smith's NAF Elo rating (Orc, Blood Bowl 2020) is now 150.03 (was 148.59)" in mail.outbox[0].body
    assert "http://127.0.0.1:8000/coaches/102/" in mail.outbox[0].body
    assert len(rating_notices(max_)) == 1  # recorded all the same


def test_a_member_who_chose_other_systems_hears_nothing_of_this_one(pair, mia, recalculate):
    recalculate("elo")
    services.follow_add(member=mia, coach=pair["bert"])
    knsb = RatingSystem.objects.get(slug="knsb").pk
    assert client_of(mia).post("/members/me/preferences/", {"systems": [knsb]}).status_code == 302
    assert AuditRecord.objects.get(action="member.preferences").after == {"email_notices": False, "systems": [knsb], "language": "en-gb"}
    another_game(pair["bert"], pair["anna"])
    recalculate("elo")
    assert rating_notices(mia) == []


def test_the_members_page_shows_his_ratings_follows_and_notices(pair, mia, recalculate):
    pair["anna"].user = mia
    pair["anna"].save(update_fields=["user"])
    services.follow_add(member=mia, coach=pair["bert"])
    recalculate()
    page = client_of(mia).get("/members/me/").content.decode()
    assert "Your ratings in every system" in page
    rated = set(CurrentRating.objects.filter(coach=pair["anna"]).values_list("system__name", flat=True))
    assert rated == {"NAF Elo", "NAF Glicko", "Global Glicko"}  # two games are too few for a KNSB start rating
    for name in rated:
        assert f"<td>{name}</td>" in page
    assert "Your NAF Elo rating (Human, Blood Bowl 2020) is now 151.41 (new)" in page
    assert Client().get("/members/me/").status_code == 302


def test_a_hidden_coachs_followers_see_his_label_not_his_name(pair, mia, recalculate):
    from tournaments.privacy import coach_privacy_set

    services.follow_add(member=mia, coach=pair["bert"])
    coach = coach_privacy_set(coach=pair["bert"], visibility="hidden", actor=member("staff-member"))
    recalculate("elo")
    [(_, title, _, _)] = rating_notices(mia)
    assert title == f"{coach.public_name}'s NAF Elo rating (Orc, Blood Bowl 2020) is now 148.59 (new)"
    assert coach.public_name.startswith("Anonymous coach ")
    page = client_of(mia).get("/members/me/").content.decode()
    assert coach.public_name in page and "Bert Smith" not in page
