"""Every organiser and staff page checks the role on the server: URL × role → status, and CSRF on every form."""
import re

import pytest
from django.test import Client

from ratings.models import RatingSystem, RecalculationRun
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import member, organiser, staff
from tournaments.models import Event, EventStatus

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "member", "owner", "other_organiser", "staff"]


@pytest.fixture
def world():
    """The owner's draft (with a game), a submitted event for the queue, a run, a rating system, a member."""
    users = {"member": member("mia"), "owner": organiser("olga"), "other_organiser": organiser("otto"), "staff": staff("sam")}
    draft = EventFactory(name="Olga's draft", status=EventStatus.DRAFT, organiser=users["owner"])
    submitted = EventFactory(name="Queued", status=EventStatus.SUBMITTED, organiser=users["owner"])
    a, b = CoachFactory.create_batch(2)
    play(RoundFactory(event=draft, number=1), a, b)
    play(RoundFactory(event=submitted, number=1), a, b)
    run = RecalculationRun.objects.create(system=RatingSystem.objects.get(slug="elo"), trigger="manual", status="succeeded")
    ids = {"draft": draft.pk, "submitted": submitted.pk, "run": run.pk, "system": run.system_id, "member": users["member"].pk}
    return users, ids


def client_for(role: str, users) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(users[role])
    return client


# Expected status per role, in ROLES order: anonymous, member, owner, other organiser, staff.
ORGANISER_LIST = (302, 403, 200, 200, 200)
OWNERS_EVENT = (302, 403, 200, 404, 200)
STAFF_ONLY = (302, 403, 403, 403, 200)
SIGNED_IN = (302, 200, 200, 200, 200)

PAGES = [
    ("/organiser/events/", ORGANISER_LIST),
    ("/organiser/events/new/", ORGANISER_LIST),
    ("/organiser/coaches/new/", ORGANISER_LIST),
    ("/organiser/events/{draft}/", OWNERS_EVENT),
    ("/organiser/events/{draft}/edit/", OWNERS_EVENT),
    ("/organiser/events/{draft}/upload/", OWNERS_EVENT),
    ("/organiser/events/{draft}/upload/results.csv", OWNERS_EVENT),
    ("/organiser/events/{draft}/submit/", OWNERS_EVENT),
    ("/staff/", STAFF_ONLY),
    ("/staff/events/", STAFF_ONLY),
    ("/staff/events/{submitted}/", STAFF_ONLY),
    ("/staff/events/{submitted}/correct/", STAFF_ONLY),
    ("/staff/events/{submitted}/recalculation/", STAFF_ONLY),
    ("/staff/coaches/merge/", STAFF_ONLY),
    ("/staff/members/", STAFF_ONLY),
    ("/staff/members/{member}/coach/", STAFF_ONLY),
    ("/staff/claims/", STAFF_ONLY),
    ("/staff/systems/", STAFF_ONLY),
    ("/staff/systems/{system}/", STAFF_ONLY),
    ("/staff/runs/", STAFF_ONLY),
    ("/staff/runs/{run}/", STAFF_ONLY),
    ("/staff/audit/", STAFF_ONLY),
    ("/accounts/profile/", SIGNED_IN),
    ("/accounts/password/change/", SIGNED_IN),
    ("/accounts/login/", (200, 302, 302, 302, 302)),
]

ACTIONS = [
    ("/organiser/events/{draft}/submit/", {}, (302, 403, 302, 404, 302)),
    ("/organiser/events/{draft}/edit/", {}, (302, 403, 200, 404, 200)),
    ("/organiser/events/{draft}/upload/", {"action": "check"}, (302, 403, 200, 404, 200)),
    ("/organiser/coaches/new/", {"number": 777, "name": "New"}, (302, 403, 302, 302, 302)),
    ("/staff/events/{submitted}/sanction/", {}, (302, 403, 403, 403, 302)),
    ("/staff/events/{submitted}/reject/", {"reason": "no"}, (302, 403, 403, 403, 302)),
    ("/staff/events/{submitted}/correct/", {}, (302, 403, 403, 403, 200)),
    ("/staff/coaches/merge/", {}, (302, 403, 403, 403, 200)),
    ("/staff/members/{member}/coach/", {}, (302, 403, 403, 403, 302)),
    ("/staff/systems/{system}/", {"non_major_max": "32"}, (302, 403, 403, 403, 302)),
    ("/staff/runs/{run}/rerun/", {}, (302, 403, 403, 403, 302)),
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("url, expected", PAGES, ids=[url for url, _ in PAGES])
def test_who_may_open_each_page(world, role, url, expected):
    users, ids = world
    response = client_for(role, users).get(url.format(**ids))
    assert response.status_code == expected[ROLES.index(role)]
    if role == "anonymous" and response.status_code == 302:
        assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("url, data, expected", ACTIONS, ids=[url for url, _, _ in ACTIONS])
def test_who_may_post_to_each_action(world, role, url, data, expected, django_capture_on_commit_callbacks):
    users, ids = world
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(role, users).post(url.format(**ids), data)
    assert response.status_code == expected[ROLES.index(role)]


@pytest.mark.parametrize("role", ["anonymous", "member", "owner", "other_organiser"])
def test_refused_staff_actions_change_nothing(world, role):
    users, ids = world
    client = client_for(role, users)
    client.post(f"/staff/events/{ids['submitted']}/sanction/")
    client.post(f"/staff/runs/{ids['run']}/rerun/")
    client.post(f"/staff/systems/{ids['system']}/", {"parameters": '{"non_major_max": 3}'})
    assert Event.objects.get(pk=ids["submitted"]).status == EventStatus.SUBMITTED
    assert RecalculationRun.objects.count() == 1
    assert RatingSystem.objects.get(pk=ids["system"]).parameters == {}


@pytest.mark.parametrize("role", ["anonymous", "member", "other_organiser"])
def test_refused_organiser_actions_change_nothing(world, role):
    users, ids = world
    client_for(role, users).post(f"/organiser/events/{ids['draft']}/submit/")
    assert Event.objects.get(pk=ids["draft"]).status == EventStatus.DRAFT


def test_a_superuser_without_groups_may_do_everything(world):
    _, ids = world
    from django.contrib.auth.models import User

    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.org", "x"))
    for url, _ in PAGES[:-1]:
        assert client.get(url.format(**ids)).status_code == 200, url


POST_FORMS = [
    "/organiser/events/new/", "/organiser/events/{draft}/edit/", "/organiser/events/{draft}/upload/",
    "/organiser/events/{draft}/submit/", "/organiser/coaches/new/", "/staff/events/{submitted}/",
    "/staff/events/{submitted}/correct/", "/staff/coaches/merge/", "/staff/members/{member}/coach/",
    "/staff/systems/{system}/", "/staff/runs/{run}/", "/accounts/password/change/",
]


@pytest.mark.parametrize("url", POST_FORMS)
def test_every_form_carries_a_csrf_token(world, url):
    users, ids = world
    client = Client()
    client.force_login(users["staff"])
    page = client.get(url.format(**ids)).content.decode()
    forms = re.findall(r"<form[^>]*method=\"post\"[^>]*>(.*?)</form>", page, flags=re.S | re.I)
    assert forms
    assert all("csrfmiddlewaretoken" in form for form in forms)


CSRF_POSTS = [url for url, _, _ in ACTIONS] + [
    "/accounts/login/", "/accounts/logout/", "/accounts/password/change/", "/accounts/password/reset/",
    "/accounts/signup/", "/members/me/claim/", "/members/me/preferences/", "/members/me/feed/reset/",
]


@pytest.mark.parametrize("url", CSRF_POSTS)
def test_a_post_without_the_csrf_token_is_refused(world, url):
    users, ids = world
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["staff"])
    assert client.post(url.format(**ids), {}).status_code == 403
    assert Event.objects.get(pk=ids["submitted"]).status == EventStatus.SUBMITTED
    assert RecalculationRun.objects.count() == 1
