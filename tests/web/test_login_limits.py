"""Login limits that hold across processes: per account from one address, per address over any accounts
(password spraying), per account from every address only at a far higher count (lifted by staff), on
the site's login and the admin's, the client's address read only from trusted
proxies, and password reset requests throttled per address and per e-mail address."""
import time
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client

from ratingsite.middleware import forwarded_client
from tests.roles import PASSWORD, member, staff

pytestmark = pytest.mark.django_db

LIMIT = 20  # LOGIN_FAILURE_LIMIT's default


def login(username: str, password: str = PASSWORD, address: str = "10.0.0.1", path: str = "/accounts/login/", **headers):
    client = Client()
    response = client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address, **headers)
    return response, client


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def assert_locked_out(response, client):
    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many failed attempts to log in, to this account or from your address. Try again in 15 minutes." in page
    assert 'href="/accounts/password/reset/"' in page and 'href="/rankings/"' in page  # the way out, the site's navigation
    assert not logged_in(client)


def test_failures_for_an_account_from_other_addresses_leave_its_right_password_working_elsewhere():
    member("mia")
    for n in range(LIMIT + 5):
        response, client = login("Mia" if n % 2 else "mia", "wrong", address=f"10.1.0.{n}")
        assert response.status_code == 200 and not logged_in(client)
    response, client = login("mia", address="10.2.0.1")
    assert response.status_code == 302 and logged_in(client)


def test_an_account_is_locked_from_every_address_only_at_the_far_higher_count(settings):
    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 3 * LIMIT
    member("mia")
    for n in range(3 * LIMIT):
        response, _ = login("mia" if n % 2 else "MIA", "wrong", address=f"10.1.{n // 200}.{n % 200}")
        assert response.status_code == 200
    response, client = login("mia", address="10.2.0.1")
    assert response.status_code == 200 and not logged_in(client)
    assert ("The account mia is locked after too many failed logins from many addresses. Reset your password, "
            "or ask the federation&#x27;s staff to unlock it.") in response.content.decode()
    member("max")
    response, client = login("max", address="10.2.0.1")  # the address itself is not locked
    assert response.status_code == 302 and logged_in(client)


def test_the_lock_from_every_address_comes_ten_times_later_than_one_addresss():
    from django.conf import settings

    assert settings.LOGIN_ACCOUNT_FAILURE_LIMIT == 200 and settings.AXES_FAILURE_LIMIT == LIMIT


def test_one_address_that_keeps_failing_for_one_account_is_locked_out_there_alone():
    member("mia")
    for _ in range(5):
        login("mia", "wrong", address="10.9.0.1")
    refused, client = login("mia", address="10.9.0.1")
    assert refused.status_code == 200 and not logged_in(client)
    assert "Too many failed attempts to log in as mia from your address." in refused.content.decode()
    response, client = login("mia", address="10.9.0.2")
    assert response.status_code == 302 and logged_in(client)


def test_one_password_sprayed_over_many_accounts_from_one_address_locks_that_address_out():
    for n in range(LIMIT + 1):
        member(f"coach{n}")
    for n in range(LIMIT - 1):
        response, client = login(f"coach{n}", "Summer2024!", address="198.51.100.7")
        assert response.status_code == 200 and not logged_in(client)
    assert_locked_out(*login(f"coach{LIMIT - 1}", "Summer2024!", address="198.51.100.7"))
    assert_locked_out(*login(f"coach{LIMIT}", address="198.51.100.7"))
    response, client = login(f"coach{LIMIT}", address="198.51.100.8")
    assert response.status_code == 302 and logged_in(client)


def test_the_admin_login_refuses_an_account_from_one_address_after_as_few_failures_as_the_sites():
    staff("sam")
    for _ in range(5):
        response, _ = login("sam", "wrong", address="10.3.0.1", path="/admin/login/")
        assert response.status_code == 200
    for _ in range(7):
        login("sam", "wrong", address="10.3.0.1", path="/admin/login/")
    refused, client = login("sam", address="10.3.0.1", path="/admin/login/?next=/admin/")
    assert refused.status_code == 200 and not logged_in(client)
    assert "Too many failed attempts to log in as sam from your address." in refused.content.decode()
    response, client = login("sam", address="10.3.0.2", path="/admin/login/?next=/admin/")
    assert response.status_code == 302 and logged_in(client)


def test_the_admin_login_counts_against_the_same_limits_of_an_address():
    for n in range(LIMIT + 1):
        staff(f"staff{n}")
    for n in range(LIMIT // 2):
        login(f"staff{n}", "wrong", address="198.51.100.20", path="/admin/login/")
    for n in range(LIMIT // 2, LIMIT - 1):
        login(f"staff{n}", "wrong", address="198.51.100.20")
    assert_locked_out(*login(f"staff{LIMIT - 1}", "wrong", address="198.51.100.20", path="/admin/login/"))
    assert_locked_out(*login(f"staff{LIMIT}", address="198.51.100.20", path="/admin/login/?next=/admin/"))


def test_the_lock_from_every_address_holds_on_the_admin_login_too(settings):
    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 3
    staff("sam")
    for n in range(3):
        login("sam", "wrong", address=f"10.4.0.{n}")
    refused, client = login("sam", address="10.4.1.1", path="/admin/login/?next=/admin/")
    assert refused.status_code == 200 and not logged_in(client)
    assert "The account sam is locked after too many failed logins" in refused.content.decode()


def test_staff_unlock_an_account_locked_from_every_address_and_it_is_audited(settings):
    from audit.models import Action, AuditRecord

    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 3
    mia = member("mia")
    for n in range(4):
        login("mia", "wrong", address=f"10.8.0.{n}")
    sam = staff("sam")
    desk = Client()
    desk.force_login(sam)
    page = desk.get(f"/staff/members/{mia.pk}/coach/").content.decode()
    assert "Locked from every address after 3 failed logins" in page
    assert desk.get(f"/staff/members/{mia.pk}/unlock/").status_code == 405
    response = desk.post(f"/staff/members/{mia.pk}/unlock/")
    assert response.status_code == 302 and response["Location"] == f"/staff/members/{mia.pk}/coach/"
    record = AuditRecord.objects.get(action=Action.USER_UNLOCK)
    assert (record.actor, record.member, record.before, record.after) == (sam, mia, {"failed_logins": 3}, {"failed_logins": 0})
    assert "Not locked." in desk.get(f"/staff/members/{mia.pk}/coach/").content.decode()
    response, client = login("mia", address="10.8.1.1")
    assert response.status_code == 302 and logged_in(client)


def test_only_staff_may_unlock_an_account(settings):
    settings.LOGIN_ACCOUNT_FAILURE_LIMIT = 2
    mia = member("mia")
    for n in range(2):
        login("mia", "wrong", address=f"10.8.0.{n}")
    other = Client()
    other.force_login(member("max"))
    assert other.post(f"/staff/members/{mia.pk}/unlock/").status_code == 403
    assert login("mia", address="10.8.1.1")[0].status_code == 200


def test_a_lockout_ends_after_the_cool_off(settings):
    settings.AXES_COOLOFF_TIME = timedelta(seconds=1)
    member("mia")
    for n in range(LIMIT):
        login(f"coach{n}", "wrong", address="10.6.0.1")
    assert login("mia", address="10.6.0.1")[0].status_code == 429
    time.sleep(1.2)
    response, client = login("mia", address="10.6.0.1")
    assert response.status_code == 302 and logged_in(client)


def test_a_successful_login_does_not_clear_its_addresss_count():
    member("mia")
    for n in range(LIMIT + 1):
        member(f"coach{n}")
    for n in range(LIMIT // 2):
        login(f"coach{n}", "wrong", address="198.51.100.9")
    assert login("mia", address="198.51.100.9")[0].status_code == 302
    for n in range(LIMIT // 2, LIMIT - 1):
        login(f"coach{n}", "wrong", address="198.51.100.9")
    assert_locked_out(*login(f"coach{LIMIT}", "wrong", address="198.51.100.9"))


def test_forwarded_for_is_ignored_from_a_client_that_is_no_trusted_proxy():
    member("mia")
    for n in range(5):
        login("mia", "wrong", address="203.0.113.5", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}")
    response, client = login("mia", address="203.0.113.5", HTTP_X_FORWARDED_FOR="192.0.2.99")
    assert response.status_code == 200 and not logged_in(client)
    assert "Too many failed attempts to log in as mia from your address." in response.content.decode()


def test_behind_a_trusted_proxy_each_client_counts_on_its_own(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.1/32"]
    member("mia")
    for _ in range(5):
        login("mia", "wrong", address="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5")
    refused, client = login("mia", address="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert refused.status_code == 200 and not logged_in(client)
    # a prefix the client wrote itself does not make it someone else
    spoofed, client = login("mia", address="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.5")
    assert spoofed.status_code == 200 and not logged_in(client)
    response, client = login("mia", address="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.6")
    assert response.status_code == 302 and logged_in(client)


@pytest.mark.parametrize(("peer", "forwarded_for", "client"), [
    ("203.0.113.5", "192.0.2.1", "203.0.113.5"),                        # not a proxy: its header is ignored
    ("10.0.0.1", "192.0.2.1", "192.0.2.1"),                             # through the proxy
    ("10.0.0.1", "192.0.2.66, 192.0.2.1", "192.0.2.1"),                 # the client's own prefix is ignored
    ("10.0.0.1", "192.0.2.1, 172.16.4.4", "192.0.2.1"),                 # two trusted proxies in a row
    ("10.0.0.1", "", "10.0.0.1"),                                       # a proxy that sent no header
    ("10.0.0.1", "192.0.2.1, not-an-address", "10.0.0.1"),              # garbage stops at the last proxy trusted
    ("10.0.0.1", "2001:db8::7", "2001:db8::7"),
])
def test_the_client_is_the_nearest_hop_that_is_no_trusted_proxy(peer, forwarded_for, client):
    assert forwarded_client(peer, forwarded_for, ("10.0.0.1/32", "172.16.0.0/12")) == client


def reset(email: str, address: str = "10.0.0.1"):
    return Client().post("/accounts/password/reset/", {"email": email}, REMOTE_ADDR=address)


def test_password_resets_for_one_email_address_are_throttled_whoever_asks():
    member("mia")
    for n in range(3):
        assert reset("mia@example.org", address=f"10.7.0.{n}")["Location"] == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 3
    response = reset("MIA@example.org", address="10.7.0.9")
    assert response.status_code == 429
    assert response.context["form"].non_field_errors()[0].startswith(
        "Too many requests to reset a password from your address or for this e-mail address. Try again in "
    )
    assert len(mail.outbox) == 3


def test_password_resets_from_one_address_are_throttled_known_accounts_or_not():
    member("mia")
    for n in range(5):
        assert reset(f"nobody{n}@example.org", address="198.51.100.3").status_code == 302
    assert reset("mia@example.org", address="198.51.100.3").status_code == 429
    assert mail.outbox == []
    assert reset("mia@example.org", address="198.51.100.4").status_code == 302
    assert len(mail.outbox) == 1


def test_a_forwarded_for_without_trusted_proxies_is_warned_of_by_the_system_check(settings, caplog):
    from django.core.checks import run_checks

    def warnings():
        return [message.id for message in run_checks(include_deployment_checks=True) if message.id.startswith("ratingsite.")]

    settings.DEBUG = False
    assert warnings() == []
    member("mia")
    login("mia", address="10.0.0.1")
    assert warnings() == []
    login("mia", address="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert warnings() == ["ratingsite.W001"]
    assert "Requests arrive with X-Forwarded-For (from 10.0.0.1) but TRUSTED_PROXIES is empty" in caplog.text
    settings.TRUSTED_PROXIES = ["10.0.0.1/32"]
    assert warnings() == []
