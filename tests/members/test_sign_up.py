"""Sign-up with e-mail confirmation: an account opens only through the mailed link; an address
already registered is never revealed; sign-ups are limited as password resets are."""
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from audit.models import AuditRecord
from tests.roles import SIGN_UP, member
from tournaments.permissions import MEMBERS

pytestmark = pytest.mark.django_db


def sign_up(client, django_capture_on_commit_callbacks, **changes):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post("/accounts/signup/", {**SIGN_UP, **changes})


def logs_in(username: str, password: str) -> bool:
    response = Client().post("/accounts/login/", {"username": username, "password": password})
    return response.status_code == 302 and response["Location"] == "/accounts/profile/"


def mailed_link() -> str:
    return re.search(r"http://testserver(/accounts/signup/confirm/\S+/)", mail.outbox[-1].body).group(1)


def test_the_login_page_links_to_the_sign_up():
    page = Client().get("/accounts/login/").content.decode()
    assert '<a href="/accounts/signup/">Sign up</a>' in page


def test_a_sign_up_opens_the_account_only_once_its_address_is_confirmed(client, django_capture_on_commit_callbacks):
    response = sign_up(client, django_capture_on_commit_callbacks)
    assert (response.status_code, response["Location"]) == (302, "/accounts/signup/sent/")
    nina = User.objects.get(username="nina")
    assert (nina.is_active, nina.email, list(nina.groups.values_list("name", flat=True))) == (False, "nina@example.org", [MEMBERS])
    assert [m.to for m in mail.outbox] == [["nina@example.org"]]
    assert not logs_in("nina", SIGN_UP["password1"])

    link = mailed_link()
    page = client.get(link)
    assert page.status_code == 200 and "Confirm and open my account" in page.content.decode()
    assert not User.objects.get(username="nina").is_active  # a mail scanner's GET confirms nothing
    confirmed = client.post(link)
    assert (confirmed.status_code, confirmed["Location"]) == (302, "/accounts/login/")
    assert User.objects.get(username="nina").is_active
    assert logs_in("nina", SIGN_UP["password1"])
    assert list(AuditRecord.objects.filter(member=nina).order_by("id").values_list("action", flat=True)) == [
        "member.sign_up", "member.confirm",
    ]
    assert client.post(link).status_code == 400  # the link works once


def test_a_registered_address_gets_the_same_answer_and_no_second_account(client, django_capture_on_commit_callbacks):
    member("mia")  # mia@example.org, active
    response = sign_up(client, django_capture_on_commit_callbacks, email="MIA@example.org")
    assert (response.status_code, response["Location"]) == (302, "/accounts/signup/sent/")
    assert not User.objects.filter(username="nina").exists()
    assert [m.to for m in mail.outbox] == [["mia@example.org"]]
    assert "already has an account (mia)" in mail.outbox[0].body
    assert "/accounts/password/reset/" in mail.outbox[0].body


def test_sign_ups_are_limited_per_address_as_password_resets_are(client, django_capture_on_commit_callbacks, settings):
    settings.SIGNUP_LIMIT_PER_EMAIL = 2
    for n in range(2):
        assert sign_up(client, django_capture_on_commit_callbacks, username=f"n{n}").status_code == 302
    refused = sign_up(client, django_capture_on_commit_callbacks, username="n9")
    assert refused.status_code == 429
    assert "Too many sign-ups" in refused.content.decode()
    assert not User.objects.filter(username="n9").exists()
    assert len(mail.outbox) == 2  # the first account's link, then the reminder to the same address


def test_a_tampered_confirmation_link_opens_nothing(client, django_capture_on_commit_callbacks):
    sign_up(client, django_capture_on_commit_callbacks)
    link = mailed_link()
    assert client.post(link[:-3] + "xx/").status_code == 400
    assert client.post("/accounts/signup/confirm/zz/zz-zz/").status_code == 400
    assert not User.objects.get(username="nina").is_active


def test_a_taken_user_name_is_said_on_the_form(client, django_capture_on_commit_callbacks):
    member("nina")
    response = sign_up(client, django_capture_on_commit_callbacks, email="other@example.org")
    assert response.status_code == 400
    assert "A user with that username already exists." in response.content.decode()
    assert mail.outbox == []


def test_refused_sign_ups_count_too_so_user_names_cannot_be_tried_without_end(client, django_capture_on_commit_callbacks, settings):
    settings.SIGNUP_LIMIT_PER_ADDRESS = 2
    member("taken")
    for n in range(2):
        assert sign_up(client, django_capture_on_commit_callbacks, username="taken", email=f"x{n}@example.org").status_code == 400
    assert sign_up(client, django_capture_on_commit_callbacks, email="fresh@example.org").status_code == 429
    assert not User.objects.filter(username="nina").exists() and mail.outbox == []
