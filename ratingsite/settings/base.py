"""Settings read from the environment, with defaults that run a newcomer's first site.

Unset DATABASE_URL: a SQLite file in the project folder. Unset CELERY_BROKER_URL: tasks run
in-process. Production values come from ratingsite.settings.production.
"""
import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
# The default key is only for a local first run; production settings refuse it.
SECRET_KEY = os.environ.get("SECRET_KEY", "insecure-development-key-do-not-use-in-production")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_countries",
    "django_filters",
    "django_tables2",
    "django_celery_beat",
    "tournaments",
    "ratings",
    "stats",
    "audit",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "ratingsite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "ratingsite.context_processors.navigation",
            ],
        },
    },
]

WSGI_APPLICATION = "ratingsite.wsgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the page requests read while a recalculation writes.
    DATABASES["default"].setdefault("OPTIONS", {})["init_command"] = "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;"
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
    DATABASES["default"]["CONN_MAX_AGE"] = 0
# a connection kept from an earlier request is checked first: a database restart costs no 500
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# a 64-coach, 7-round event's entry form posts some 3,200 fields (Django's default refuses 1,000)
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10_000

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "ratings@localhost")

# Celery: unset broker means tasks run in-process (eagerly), so a first run needs no Redis.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

DJANGO_TABLES2_TEMPLATE = "django_tables2/site_table.html"

COUNTRIES_FIRST = ["NL", "GB", "US", "DE", "FR", "IT", "ES"]

# A recalculation task that runs longer is stopped (its transaction rolls back, the previous
# rankings stay and the run is recorded as failed), so a wedged run cannot hold its system's lock.
RECALCULATION_TIME_LIMIT = int(os.environ.get("RECALCULATION_TIME_LIMIT", "3600"))

# A worker whose process is killed hands its task back (acks late, rejected on loss), and Redis
# redelivers an unacknowledged one only after the longest a run may take, never during it.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Broker calls give up quickly: a queued run whose message could not go out is sent again by the
# dispatcher, so the person who asked never waits on a broker that is down or hung.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": RECALCULATION_TIME_LIMIT + 300, "socket_timeout": 2, "socket_connect_timeout": 2,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}

# Runs go on in forked processes and Celery workers: every line names its process.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "process": {"format": "%(asctime)s %(levelname)s %(name)s [%(processName)s %(process)d] %(message)s"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "process"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    # a run's start, end, duration and failure
    "loggers": {"ratings": {"level": os.environ.get("RATINGS_LOG_LEVEL", "INFO")}},
}
