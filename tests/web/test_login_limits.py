"""Login limits that hold across processes: per account from any address, per address over any accounts
(password spraying), on the site's login and the admin's, the client's address read only from trusted
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


def test_one_account_tried_from_many_addresses_is_locked_out_then_even_its_password_is_refused():
    member("mia")
    for n in range(LIMIT - 1):
        response, client = login("mia", "wrong", address=f"10.1.0.{n}")
        assert response.status_code == 200 and not logged_in(client)
    response, client = login("Mia", "wrong", address="10.1.0.250")  # the case of a name does not dodge the count
    assert_locked_out(response, client)
    assert_locked_out(*login("mia", address="10.2.0.1"))
    member("max")
    response, client = login("max", address="10.2.0.1")  # the address itself is not locked
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


def test_the_admin_login_counts_against_the_same_limits():
    staff("sam")
    for n in range(LIMIT // 2):
        response, _ = login("sam", "wrong", address=f"10.3.0.{n}", path="/admin/login/")
        assert response.status_code == 200
    for n in range(LIMIT // 2 - 1):
        login("sam", "wrong", address=f"10.4.0.{n}")
    assert_locked_out(*login("sam", "wrong", address="10.5.0.1", path="/admin/login/"))
    assert_locked_out(*login("sam", address="10.5.0.2", path="/admin/login/?next=/admin/"))


def test_a_lockout_ends_after_the_cool_off(settings):
    settings.AXES_COOLOFF_TIME = timedelta(seconds=1)
    member("mia")
    for n in range(LIMIT):
        login("mia", "wrong", address=f"10.6.0.{n}")
    assert login("mia", address="10.6.1.1")[0].status_code == 429
    time.sleep(1.2)
    response, client = login("mia", address="10.6.1.1")
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
