"""Accounts: the three role groups, login with a limit on failures, logout, password change and reset, the member's page."""
import re

import pytest
from django.contrib.auth.models import Group, Permission
from django.core import mail
from django.core.cache import caches
from django.test import Client

from tests.factories import CoachFactory
from tests.roles import PASSWORD, member, organiser, staff
from tournaments.permissions import ROLE_PERMISSIONS

pytestmark = pytest.mark.django_db


def codenames(group: str) -> set[str]:
    return {f"{p.content_type.app_label}.{p.codename}" for p in Group.objects.get(name=group).permissions.select_related("content_type")}


def test_the_migration_creates_the_three_groups_with_their_permissions():
    assert set(Group.objects.values_list("name", flat=True)) >= {"members", "organisers", "staff"}
    members, organisers, staff_ = codenames("members"), codenames("organisers"), codenames("staff")
    assert members == {"tournaments.view_coach", "tournaments.view_event"}
    assert members < organisers < staff_
    assert {"tournaments.add_event", "tournaments.add_coach"} <= organisers
    assert not organisers & {"tournaments.change_event", "tournaments.change_game", "tournaments.sanction_event"}
    assert {"tournaments.sanction_event", "tournaments.merge_coach", "tournaments.change_game", "audit.view_auditrecord",
            "ratings.change_ratingsystem", "ratings.view_recalculationrun", "ratings.add_recalculationrun"} <= staff_
    for group, names in ROLE_PERMISSIONS.items():
        assert codenames(group) == set(names)
    assert Permission.objects.get(codename="sanction_event").name == "Can sanction or reject events"


def login(client: Client, username: str, password: str = PASSWORD, address: str = "10.0.0.1", **extra):
    return client.post("/accounts/login/", {"username": username, "password": password, **extra}, REMOTE_ADDR=address)


def test_logging_in_leads_to_the_members_own_page_and_logging_out_back_home(client):
    member("mia")
    response = login(client, "mia")
    assert response["Location"] == "/accounts/profile/"
    page = client.get("/accounts/profile/").content.decode()
    assert "mia" in page and "Log out" in page
    response = client.post("/accounts/logout/")
    assert response["Location"] == "/"
    assert client.get("/accounts/profile/").status_code == 302


def test_login_follows_a_safe_next_and_ignores_another_site(client):
    organiser("olga")
    assert login(client, "olga", next="/organiser/events/")["Location"] == "/organiser/events/"
    client.post("/accounts/logout/")
    assert login(client, "olga", next="https://evil.example/")["Location"] == "/accounts/profile/"


def test_the_header_offers_login_to_visitors(client):
    page = client.get("/").content.decode()
    assert 'href="/accounts/login/?next=/"' in page


def test_a_wrong_password_is_refused_with_djangos_message(client):
    member("mia")
    response = login(client, "mia", "wrong")
    assert response.status_code == 200
    assert "Please enter a correct username and password." in response.content.decode()


def test_repeated_failures_lock_that_username_from_that_address_for_a_while(client):
    member("mia")
    for _ in range(5):
        assert login(client, "mia", "wrong").status_code == 200
    response = login(client, "mia")
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [
        "Too many failed attempts to log in as mia from your address. Wait 15 minutes and try again, or reset your password."
    ]
    assert "_auth_user_id" not in client.session
    assert login(Client(), "mia", address="10.0.0.2").status_code == 302
    caches["limits"].clear()
    assert login(client, "mia").status_code == 302


def test_a_successful_login_clears_the_count_of_failures(client):
    member("mia")
    for _ in range(4):
        login(client, "mia", "wrong")
    assert login(client, "mia").status_code == 302
    client.post("/accounts/logout/")
    for _ in range(4):
        login(client, "mia", "wrong")
    assert login(client, "mia").status_code == 302


def test_a_member_changes_his_password(client):
    mia = member("mia")
    client.force_login(mia)
    response = client.post("/accounts/password/change/", {
        "old_password": PASSWORD, "new_password1": "a-much-better-secret-42", "new_password2": "a-much-better-secret-42",
    })
    assert response["Location"] == "/accounts/password/change/done/"
    mia.refresh_from_db()
    assert mia.check_password("a-much-better-secret-42")


def test_a_forgotten_password_is_reset_through_an_emailed_link(client):
    mia = member("mia")
    response = client.post("/accounts/password/reset/", {"email": "mia@example.org"})
    assert response["Location"] == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["mia@example.org"]
    assert "mia" in mail.outbox[0].body
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.context["validlink"]
    response = client.post(form_page.redirect_chain[-1][0], {
        "new_password1": "fresh-secret-phrase-7", "new_password2": "fresh-secret-phrase-7",
    })
    assert response["Location"] == "/accounts/reset/done/"
    mia.refresh_from_db()
    assert mia.check_password("fresh-secret-phrase-7")


def test_a_reset_for_an_unknown_address_sends_nothing_and_says_the_same(client):
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert response["Location"] == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_the_members_page_shows_roles_and_the_linked_coach(client):
    olga = organiser("olga")
    CoachFactory(number=31337, name="Olga <Orcs> Petrova", user=olga)
    client.force_login(olga)
    page = client.get("/accounts/profile/").content.decode()
    assert "organisers" in page and "Olga &lt;Orcs&gt; Petrova" in page and "31337" in page
    assert 'href="/organiser/events/"' in page and 'href="/staff/"' not in page


def test_the_staff_members_page_links_to_the_staff_pages(client):
    client.force_login(staff("sam"))
    page = client.get("/accounts/profile/").content.decode()
    assert 'href="/staff/"' in page
    assert "ask the federation staff to link your account" in page
