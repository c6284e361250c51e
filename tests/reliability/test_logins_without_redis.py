"""Logins while the limits' Redis is out: the limits stay closed (nobody logs in unchecked), and the
login, the admin's login and a password reset answer "logins are paused" (503, try again in a
minute) instead of a 500; the public pages go on. A Redis of the test's own, stopped."""
import pytest
from django.test import Client

from ratingsite.settings.base import site_caches
from tests.reliability.test_broker_outage import OwnRedis
from tests.roles import PASSWORD, member

pytestmark = pytest.mark.django_db


@pytest.fixture
def stopped_redis(tmp_path, settings):
    own = OwnRedis(tmp_path)
    own.start()
    settings.CACHES = site_caches(own.cache_url)
    own.stop()
    return own


def assert_paused(response):
    assert response.status_code == 503 and response["Retry-After"] == "60"
    page = response.content.decode()
    assert "<h1>Logins are paused</h1>" in page and "Try again in a minute." in page
    assert "Traceback" not in page


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/?next=/admin/"])
def test_a_login_with_redis_down_is_paused_and_lets_nobody_in(stopped_redis, path):
    member("mia")
    client = Client(raise_request_exception=False)
    response = client.post(path, {"username": "mia", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1")
    assert_paused(response)
    assert "_auth_user_id" not in client.session


def test_a_password_reset_with_redis_down_is_paused_and_sends_nothing(stopped_redis, mailoutbox):
    member("mia")
    response = Client(raise_request_exception=False).post("/accounts/password/reset/", {"email": "mia@example.org"})
    assert_paused(response)
    assert mailoutbox == []


def test_the_login_page_and_the_rankings_still_answer_with_redis_down(stopped_redis):
    client = Client(raise_request_exception=False)
    assert client.get("/accounts/login/").status_code == 200
    assert client.get("/rankings/").status_code == 200


def test_a_sign_up_with_redis_down_is_paused_and_opens_nothing(stopped_redis, mailoutbox):
    from django.contrib.auth.models import User

    response = Client(raise_request_exception=False).post("/accounts/signup/", {
        "username": "nina", "email": "nina@example.org", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9",
    })
    assert_paused(response)
    assert mailoutbox == [] and not User.objects.filter(username="nina").exists()
