"""Settings come from the environment, with defaults that run a first site and production that refuses shortcuts."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def settings_in_subprocess(module: str, env: dict, expression: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"}}
    clean.update(env, DJANGO_SETTINGS_MODULE=module)
    code = f"import django; django.setup(); from django.conf import settings; print({expression})"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True)


def test_defaults_use_a_sqlite_file_in_the_project_and_in_process_tasks():
    result = settings_in_subprocess(
        "ratingsite.settings.base", {},
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
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env.update(
        DJANGO_SETTINGS_MODULE="ratingsite.settings.production",
        SECRET_KEY="k" * 20 + "-Yq7#pW2!zR9@vT4$uX6%sN8^mB3&hJ5*",
        ALLOWED_HOSTS="ratings.example",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True,
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
    assert result.stdout.strip() == "True True 1500 2"


def test_an_entry_form_of_a_large_event_fits_and_a_kept_connection_is_checked_first():
    result = settings_in_subprocess(
        "ratingsite.settings.base", {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/federation"},
        "settings.DATA_UPLOAD_MAX_NUMBER_FIELDS, settings.DATABASES['default']['CONN_HEALTH_CHECKS']",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "10000 True"
