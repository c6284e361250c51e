"""Settings come from the environment: safe defaults, local settings that run a first site, and production that refuses shortcuts."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# what a developer's shell may hold, which no test here may inherit
ENVIRONMENT = {
    "DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "REDIS_URL", "CACHE_URL", "ADMINS",
    "TRUSTED_PROXIES", "EMAIL_BACKEND", "DJANGO_SETTINGS_MODULE", "PYTEST_XDIST_WORKER", "TEST_BROKER_WORKER",
}
PRODUCTION = {
    "SECRET_KEY": "k" * 20 + "-Yq7#pW2!zR9@vT4$uX6%sN8^mB3&hJ5*", "ALLOWED_HOSTS": "ratings.example",
    "REDIS_URL": "redis://127.0.0.1:6379/3",
}


def clean_environment(env: dict) -> dict:
    return {**{k: v for k, v in os.environ.items() if k not in ENVIRONMENT}, **env}


def settings_in_subprocess(module: str, env: dict, expression: str, *, setup: bool = False) -> subprocess.CompletedProcess:
    """`expression` printed in a process of its own, the settings read from `module` in `env`; with
    `setup`, after django.setup() (the apps and logging configured: 1.7 s a process, not 0.3 s)."""
    code = f"{'import django; django.setup(); ' if setup else ''}from django.conf import settings; print({expression})"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean_environment({**env, "DJANGO_SETTINGS_MODULE": module}),
                          capture_output=True, text=True, timeout=120)


def test_local_settings_use_a_sqlite_file_in_the_project_in_process_tasks_and_debug_pages():
    result = settings_in_subprocess(
        "ratingsite.settings.local", {},
        "settings.DATABASES['default']['ENGINE'], str(settings.DATABASES['default']['NAME']), "
        "settings.CELERY_TASK_ALWAYS_EAGER, settings.DEBUG",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"django.db.backends.sqlite3 {ROOT / 'db.sqlite3'} True True"


def test_database_and_broker_come_from_the_environment():
    result = settings_in_subprocess(
        "ratingsite.settings.base",
        {
            "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/federation", "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
            "DEBUG": "false", "ALLOWED_HOSTS": "a.example,b.example",
        },
        "settings.DATABASES['default']['ENGINE'], settings.DATABASES['default']['NAME'], settings.CELERY_TASK_ALWAYS_EAGER, "
        "settings.DEBUG, settings.ALLOWED_HOSTS",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "django.db.backends.postgresql federation False False ['a.example', 'b.example']"


def test_production_refuses_the_development_secret_key():
    result = settings_in_subprocess("ratingsite.settings.production", {"ALLOWED_HOSTS": "ratings.example"}, "settings.DEBUG")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_passes_the_deployment_checks_without_warnings():
    env = {k: v for k, v in clean_environment(PRODUCTION).items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(DJANGO_SETTINGS_MODULE="ratingsite.settings.production")
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_a_lost_worker_hands_its_task_back_and_redis_redelivers_only_after_the_longest_run():
    result = settings_in_subprocess(
        "ratingsite.settings.base", {"RECALCULATION_TIME_LIMIT": "1200"},
        "settings.CELERY_TASK_ACKS_LATE, settings.CELERY_TASK_REJECT_ON_WORKER_LOST, "
        "settings.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'], settings.CELERY_BROKER_TRANSPORT_OPTIONS['socket_timeout']",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True True 1500 1"


def test_an_entry_form_of_a_large_event_fits_and_a_kept_connection_is_checked_first():
    result = settings_in_subprocess(
        "ratingsite.settings.base", {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/federation"},
        "settings.DATA_UPLOAD_MAX_NUMBER_FIELDS, settings.DATABASES['default']['CONN_HEALTH_CHECKS']",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "10000 True"


def test_the_base_settings_show_no_debug_pages_and_have_no_known_key():
    result = settings_in_subprocess("ratingsite.settings.base", {}, "settings.DEBUG, repr(settings._wrapped.SECRET_KEY)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False ''"
    signing = settings_in_subprocess("ratingsite.settings.base", {}, "settings.SECRET_KEY")
    assert signing.returncode != 0
    assert "The SECRET_KEY setting must not be empty" in signing.stderr


def test_local_settings_turn_debug_off_when_asked_and_take_a_given_key():
    result = settings_in_subprocess(
        "ratingsite.settings.local", {"DEBUG": "false", "SECRET_KEY": "mine"}, "settings.DEBUG, settings.SECRET_KEY",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False mine"


def python(env: dict, *args: str) -> subprocess.CompletedProcess:
    """Python run in the project with no DJANGO_SETTINGS_MODULE: the entry point chooses."""
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=clean_environment(env), capture_output=True, text=True, timeout=120)


def test_wsgi_and_celery_default_to_production_and_manage_py_to_the_base():
    wsgi = "from ratingsite.wsgi import application; from django.conf import settings; print(settings.SETTINGS_MODULE, settings.DEBUG)"
    result = python(PRODUCTION, "-c", wsgi)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ratingsite.settings.production False"
    refused = python({}, "-c", wsgi)
    assert "SECRET_KEY must be set to a long random value in production." in refused.stderr

    celery = ("from ratingsite.celery import app; from django.conf import settings; "
              "print(settings.SETTINGS_MODULE, app.conf.broker_url)")
    result = python({**PRODUCTION, "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"}, "-c", celery)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ratingsite.settings.production redis://127.0.0.1:6379/0"

    manage = python({}, "manage.py", "shell", "--no-imports", "-c",
                    "from django.conf import settings; print(settings.SETTINGS_MODULE, settings.DEBUG)")
    assert manage.returncode == 0, manage.stderr
    assert manage.stdout.strip() == "ratingsite.settings.base False"


FAIL_OPEN, STRICT = "ratingsite.cache.FailOpenRedisCache", "django.core.cache.backends.redis.RedisCache"


def test_production_caches_in_the_redis_it_is_given_or_the_brokers_next_database():
    expression = ("settings.CACHES['default']['BACKEND'], settings.CACHES['default']['LOCATION'], "
                  "settings.CACHES['limits']['BACKEND'], settings.CACHES['limits']['LOCATION'], settings.AXES_CACHE")
    production = "ratingsite.settings.production"
    given = settings_in_subprocess(production, {**PRODUCTION, "REDIS_URL": "redis://cache.example:6379/2"}, expression)
    assert given.returncode == 0, given.stderr
    # the pages' cache carries on while Redis is out; the limits' does not
    assert given.stdout.split() == [FAIL_OPEN, "redis://cache.example:6379/2", STRICT, "redis://cache.example:6379/2", "limits"]
    first = settings_in_subprocess(
        production,
        {**PRODUCTION, "REDIS_URL": "redis://cache.example:6379/2", "CACHE_URL": "redis://other.example:6379/5"}, expression,
    )
    assert first.stdout.split()[:2] == [FAIL_OPEN, "redis://other.example:6379/5"]
    without = {k: v for k, v in PRODUCTION.items() if k != "REDIS_URL"}
    broker = settings_in_subprocess(production, {**without, "CELERY_BROKER_URL": "redis://queue.example:6379/0"}, expression)
    assert broker.returncode == 0, broker.stderr
    assert broker.stdout.split()[:4] == [FAIL_OPEN, "redis://queue.example:6379/1", STRICT, "redis://queue.example:6379/1"]
    refused = settings_in_subprocess(production, without, expression)
    assert refused.returncode != 0
    assert "Production needs a shared cache: set REDIS_URL" in refused.stderr


def test_the_embedded_default_caches_in_memory_and_the_tests_never_in_a_developers_redis():
    expression = "settings.CACHES['default']['BACKEND']"
    local = settings_in_subprocess("ratingsite.settings.local", {}, expression)
    assert local.stdout.strip() == "django.core.cache.backends.locmem.LocMemCache", local.stderr
    redis = settings_in_subprocess("ratingsite.settings.local", {"REDIS_URL": "redis://127.0.0.1:6379/4"}, expression)
    assert redis.stdout.strip() == FAIL_OPEN, redis.stderr
    tests = settings_in_subprocess("ratingsite.settings.test", {"REDIS_URL": "redis://127.0.0.1:6379/4"}, expression)
    assert tests.stdout.strip() == "django.core.cache.backends.locmem.LocMemCache", tests.stderr


@pytest.mark.slow
def test_each_xdist_worker_of_the_tests_has_a_broker_database_of_its_own_that_its_children_keep():
    """gwN takes the Redis database N after CELERY_BROKER_URL's, and a process it starts keeps that
    one (it is in the environment it inherits) rather than taking N more."""
    expression = ("settings.CELERY_BROKER_URL, __import__('ratingsite.celery').celery.app.conf.broker_url, "
                  "__import__('subprocess').run([__import__('sys').executable, '-c', "
                  "'from django.conf import settings; print(settings.CELERY_BROKER_URL)'], capture_output=True, text=True, "
                  "timeout=120).stdout.strip()")
    broker = {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/4"}
    urls = {worker: settings_in_subprocess("ratingsite.settings.test", {**broker, "PYTEST_XDIST_WORKER": worker}, expression)
            for worker in ("gw0", "gw1", "gw3")}
    assert {worker: result.stdout.split() for worker, result in urls.items()} == {
        worker: [f"redis://127.0.0.1:6379/{number}"] * 3 for worker, number in (("gw0", 4), ("gw1", 5), ("gw3", 7))
    }, [result.stderr for result in urls.values()]
    alone = settings_in_subprocess("ratingsite.settings.test", broker, "settings.CELERY_BROKER_URL")
    assert alone.stdout.strip() == "redis://127.0.0.1:6379/4", alone.stderr  # no xdist: as given
    eager = settings_in_subprocess("ratingsite.settings.test", {"PYTEST_XDIST_WORKER": "gw1"}, "settings.CELERY_BROKER_URL")
    assert eager.stdout.strip() == "memory://localhost/", eager.stderr
    beyond = settings_in_subprocess("ratingsite.settings.test", {**broker, "PYTEST_XDIST_WORKER": "gw12"},
                                    "settings.CELERY_BROKER_URL")
    assert beyond.returncode != 0
    assert "worker gw12 would take Redis database 16 after redis://127.0.0.1:6379/4's: run fewer workers" in beyond.stderr


def test_a_cache_url_that_is_not_redis_is_refused_with_its_value():
    result = settings_in_subprocess("ratingsite.settings.local", {"CACHE_URL": "memcached://127.0.0.1:11211"}, "settings.CACHES")
    assert result.returncode != 0
    assert "The cache URL must be a Redis URL (redis://host:port/db), not 'memcached://127.0.0.1:11211'." in result.stderr


def test_production_serves_hashed_static_names_and_the_tests_plain_ones():
    expression = "settings.STORAGES['staticfiles']['BACKEND']"
    production = settings_in_subprocess("ratingsite.settings.production", PRODUCTION, expression)
    assert production.stdout.strip() == "whitenoise.storage.CompressedManifestStaticFilesStorage", production.stderr
    tests = settings_in_subprocess("ratingsite.settings.test", {}, expression)
    assert tests.stdout.strip() == "django.contrib.staticfiles.storage.StaticFilesStorage", tests.stderr


def test_a_server_error_is_mailed_once_to_every_admin_and_not_while_debugging():
    expression = (
        "__import__('logging').getLogger('django.request').error('Internal Server Error: /boom/'), "
        "[(m.subject, m.to) for m in __import__('django.core.mail', fromlist=['outbox']).__dict__.get('outbox', [])]"
    )
    env = {**PRODUCTION, "ADMINS": "Ann Smith <ann@example.org>, bob@example.org",
           "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    result = settings_in_subprocess("ratingsite.settings.production", env, expression, setup=True)  # logging
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "None [('[Django] ERROR: Internal Server Error: /boom/', ['ann@example.org', 'bob@example.org'])]"
    admins = settings_in_subprocess("ratingsite.settings.production", env, "settings.ADMINS")
    assert admins.stdout.strip() == "[('Ann Smith', 'ann@example.org'), ('bob@example.org', 'bob@example.org')]"
    debugging = settings_in_subprocess("ratingsite.settings.local", env, expression, setup=True)
    assert debugging.stdout.strip() == "None []", debugging.stderr


def test_trusted_proxies_are_read_as_networks_and_a_wrong_one_is_refused_by_name():
    result = settings_in_subprocess("ratingsite.settings.base", {"TRUSTED_PROXIES": "10.0.0.1, 172.16.0.0/12"}, "settings.TRUSTED_PROXIES")
    assert result.stdout.strip() == "['10.0.0.1/32', '172.16.0.0/12']", result.stderr
    assert settings_in_subprocess("ratingsite.settings.base", {}, "settings.TRUSTED_PROXIES").stdout.strip() == "[]"
    wrong = settings_in_subprocess("ratingsite.settings.base", {"TRUSTED_PROXIES": "10.0.0.300"}, "settings.TRUSTED_PROXIES")
    assert wrong.returncode != 0
    assert "TRUSTED_PROXIES: '10.0.0.300' does not appear to be an IPv4 or IPv6 network" in wrong.stderr


def test_a_request_body_is_capped_and_an_upload_within_it_stays_in_memory():
    expression = "settings.REQUEST_BODY_MAX_SIZE, settings.DATA_UPLOAD_MAX_MEMORY_SIZE, settings.FILE_UPLOAD_MAX_MEMORY_SIZE"
    assert settings_in_subprocess("ratingsite.settings.base", {}, expression).stdout.strip() == "2621440 2621440 2621440"
    raised = settings_in_subprocess("ratingsite.settings.base", {"REQUEST_BODY_MAX_SIZE": "4194304"}, expression)
    assert raised.stdout.strip() == "4194304 4194304 4194304", raised.stderr


def test_the_embedded_default_says_nothing_a_newcomer_reads_as_a_fault(tmp_path):
    """`migrate` on SQLite printed W040 (an index's INCLUDE columns, PostgreSQL's), and every task
    sent without a broker "No hostname was supplied. Reverting to default 'localhost'" (kombu)."""
    code = ("import django; django.setup()\n"
            "from django.core.management import call_command; call_command('check', '--database', 'default')\n"
            "from celery import signature\n"
            "from ratingsite.broker import sent\n"
            "from ratingsite.celery import app\n"
            "app.tasks['stats.tasks.refresh_summaries'].run = lambda *a, **k: print('refresh ran in-process')\n"
            "print(sent(signature('stats.tasks.refresh_summaries'), owed='a refresh'))\n")
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env=clean_environment({"DJANGO_SETTINGS_MODULE": "ratingsite.settings.local",
                               "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-2:] == ["refresh ran in-process", "True"]
    assert "W040" not in result.stdout + result.stderr
    assert "No hostname was supplied" not in result.stderr
    assert "System check identified no issues" in result.stdout
