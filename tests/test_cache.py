"""The site's cache carries on while its Redis is out (a Redis of the test's own, stopped or hung):
reads miss, writes are dropped, public pages still answer, and after a failure the process leaves
Redis alone for a while. The limits' cache does not: a limit never lapses with it."""
import time

import pytest
from django.core.cache import caches

from ratingsite import cache as site_cache
from ratingsite.settings.base import site_caches
from tests.reliability.test_broker_outage import OwnRedis

pytestmark = pytest.mark.broker  # where CI starts Redis (redis-server is on the machine)


@pytest.fixture
def own_redis(tmp_path, settings):
    own = OwnRedis(tmp_path)
    own.start()
    settings.CACHES = site_caches(own.cache_url)
    yield own
    if own.process.poll() is None:
        own.resume()
        own.stop()


def test_with_redis_up_the_cache_keeps_values(own_redis):
    cache = caches["default"]
    cache.set("answer", 42)
    assert cache.get("answer") == 42
    assert cache.get_or_set("built", lambda: "once") == "once" and cache.get("built") == "once"
    assert cache.add("answer", 7) is False and cache.incr("answer") == 43


@pytest.mark.parametrize("outage", ["stopped", "hung"])
def test_with_redis_out_reads_miss_writes_are_dropped_and_the_next_calls_wait_on_nothing(own_redis, outage):
    cache = caches["default"]
    cache.set("answer", 42)
    own_redis.stop() if outage == "stopped" else own_redis.hang()
    began = time.monotonic()
    assert cache.get("answer", "missed") == "missed"
    first = time.monotonic() - began
    began = time.monotonic()
    assert cache.get_or_set("built", lambda: "rendered") == "rendered"
    cache.set("answer", 43)
    assert cache.add("new", 1) is False and cache.delete("answer") is False and cache.get_many(["a", "b"]) == {}
    with pytest.raises(ValueError):
        cache.incr("answer")
    later = time.monotonic() - began
    assert first < 2.5  # one socket timeout at most
    assert later < 0.1  # the process leaves Redis alone after the failure


def test_redis_is_tried_again_once_the_pause_is_over(own_redis, monkeypatch):
    cache = caches["default"]
    own_redis.stop()
    assert cache.get("answer") is None
    own_redis.start()
    assert cache.set("answer", 42) is None and cache.get("answer") is None  # still pausing: not even tried
    clock = time.monotonic()
    monkeypatch.setattr(site_cache.time, "monotonic", lambda: clock + site_cache.RETRY_AFTER + 1)
    cache.set("answer", 42)
    assert cache.get("answer") == 42


@pytest.mark.django_db
def test_public_pages_answer_while_the_cache_is_out_and_logins_refuse_to_guess(own_redis, client):
    assert client.get("/rankings/elo/").status_code == 200
    own_redis.stop()
    assert client.get("/rankings/elo/").status_code == 200
    assert client.get("/stats/").status_code == 200
    with pytest.raises(Exception, match="Connection refused|Error 111"):  # the limits' cache is strict
        caches["limits"].get("login-attempts:x")
