"""The page and load benchmarks' --redis-url and --port reach the gunicorn they start and the Redis
they empty (nothing is measured here: gunicorn, the clients and Redis are stand-ins)."""
import io
from contextlib import redirect_stdout

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bench import load, pages
from ratingsite import page_cache

REDIS = "redis://cache.example:6390/4"


class Server:
    def terminate(self):
        pass

    def wait(self, timeout=None):
        pass


def test_the_page_benchmark_defaults_to_the_local_redis_and_a_free_port():
    args = pages.arguments([])
    assert (args.redis_url, args.port, args.clients, args.cached) == ("redis://127.0.0.1:6379/0", 0, 8, False)


@pytest.mark.django_db
def test_the_page_benchmark_starts_gunicorn_uncached_on_its_port_and_redis(monkeypatch):
    started = {}

    def start_gunicorn(url, port, workers, *, settings=None, application=pages.SITE_APPLICATION):
        started.update(url=url, port=port, settings=settings, application=application)
        return Server()

    monkeypatch.setattr(pages, "setup_django", lambda url: None)
    monkeypatch.setattr(pages, "reference", lambda: "machine reference")
    monkeypatch.setattr(pages, "pages_to_measure", lambda: [("event", "/events/")])
    monkeypatch.setattr(pages, "start_gunicorn", start_gunicorn)
    asked = []
    monkeypatch.setattr(pages, "hammer", lambda port, path, **kw: (asked.append((port, path)), ([12.0], {200}))[1])
    out = io.StringIO()
    with redirect_stdout(out):
        pages.main(["--reuse", "--database-url", "postgres://db.example/bench", "--redis-url", REDIS, "--port", "8123"])
    assert started == {
        "url": "postgres://db.example/bench", "port": 8123,
        "settings": {"CACHE_URL": REDIS, "REDIS_URL": REDIS}, "application": "bench.pages:uncached_application()",
    }
    assert set(asked) == {(8123, "/events/")}
    assert f"gunicorn on port 8123: 4 workers, cache {REDIS}, page cache passed by" in out.getvalue()


def test_the_benchmark_gunicorn_environment_carries_the_settings_given():
    env = pages.gunicorn_env("postgres://db.example/bench", {"CACHE_URL": REDIS, "REDIS_URL": REDIS})
    assert (env["DATABASE_URL"], env["CACHE_URL"], env["REDIS_URL"]) == ("postgres://db.example/bench", REDIS, REDIS)


@pytest.mark.django_db(transaction=True)  # the page cache keeps nothing inside a transaction
def test_the_uncached_application_renders_every_request(client, monkeypatch):
    monkeypatch.setattr(page_cache, "_uses_cache", page_cache._uses_cache)  # put back after the test
    client.get("/events/")
    with CaptureQueriesContext(connection) as cached:
        assert client.get("/events/").status_code == 200
    assert len(cached) == 0  # read from the page cache
    pages.uncached_application()
    with CaptureQueriesContext(connection) as rendered:
        assert client.get("/events/").status_code == 200
    assert len(rendered) > 0


def test_the_load_benchmark_defaults_to_redis_database_3_and_a_free_port():
    args = load.arguments([])
    assert (args.redis_url, args.port) == ("redis://127.0.0.1:6379/3", 0)


def test_the_load_benchmark_puts_cache_and_broker_in_the_redis_given():
    env = load.production_env("postgres://db.example/bench", "/tmp/static", REDIS)
    assert (env["REDIS_URL"], env["CACHE_URL"], env["CELERY_BROKER_URL"]) == (REDIS, REDIS, "redis://cache.example:6390/0")


@pytest.mark.django_db
def test_the_load_benchmark_serves_on_its_port_and_empties_its_redis(monkeypatch):
    started, emptied, asked = {}, [], []

    def start_gunicorn(env, port, workers, log):
        started.update(port=port, redis=env["REDIS_URL"])
        return Server()

    monkeypatch.setattr(load, "setup_django", lambda url: None)
    monkeypatch.setattr(load, "reference", lambda: "machine reference")
    monkeypatch.setattr(load, "main_pages", lambda: [(load.PAGE, "/events/")])
    monkeypatch.setattr(load.subprocess, "run", lambda *a, **kw: None)  # collectstatic
    monkeypatch.setattr(load.signal, "signal", lambda *a: None)
    monkeypatch.setattr(load, "start_gunicorn", start_gunicorn)
    monkeypatch.setattr(load, "empty_page_cache", emptied.append)
    monkeypatch.setattr(load, "hammer_for", lambda port, path, **kw: (asked.append(port), load.Sample([5.0], [5.0], seconds=1.0))[1])
    with redirect_stdout(io.StringIO()):
        load.main(["--reuse", "--redis-url", REDIS, "--port", "8124", "--clients", "1", "--seconds", "0.1"])
    assert started == {"port": 8124, "redis": REDIS}
    assert emptied == [REDIS]
    assert set(asked) == {8124}
