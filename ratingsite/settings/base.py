"""Settings read from the environment, with defaults that are safe to run: no debug pages, no known key.

Unset DATABASE_URL: a SQLite file in the project folder. Unset CELERY_BROKER_URL: tasks run
in-process. Unset CACHE_URL and REDIS_URL: a cache in each process's memory. A developer's machine
uses ratingsite.settings.local (debug pages, the development key), the tests
ratingsite.settings.test, a server ratingsite.settings.production.
"""
import os
from datetime import timedelta
from email.utils import getaddresses
from ipaddress import ip_network
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_networks(name: str) -> list[str]:
    """Addresses or networks (10.0.0.0/8), comma-separated; a wrong one stops the start with its name."""
    try:
        return [str(ip_network(item, strict=False)) for item in env_list(name, "")]
    except ValueError as error:
        raise ImproperlyConfigured(f"{name}: {error}") from None


def redis_cache(url: str, *, fail_open: bool = False) -> dict:
    """A cache alias on the Redis at url (redis://, rediss:// or unix://), with short socket timeouts;
    `fail_open`: one that misses while its Redis is out (ratingsite.cache)."""
    if urlsplit(url).scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(f"The cache URL must be a Redis URL (redis://host:port/db), not {url!r}.")
    return {
        "BACKEND": "ratingsite.cache.FailOpenRedisCache" if fail_open else "django.core.cache.backends.redis.RedisCache",
        "LOCATION": url,
        # a Redis that is down or hung costs a page a second, not a worker for good
        "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
    }


def site_caches(url: str) -> dict:
    """The two cache aliases: "default" (page caches, counts, filter choices) carries on while its
    Redis is out; "limits" (login and password-reset limits) does not, so a limit never lapses. On
    one Redis when url names it (shared by every process), else in each process's memory."""
    if url:
        return {"default": redis_cache(url, fail_open=True), "limits": redis_cache(url)}
    return {alias: {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": f"ratingsite-{alias}"}
            for alias in ("default", "limits")}


DEBUG = env_bool("DEBUG", False)
# No default key: local settings bring the development one, production refuses a short one, and
# Django refuses an empty one as soon as something is signed (a session, a CSRF token).
SECRET_KEY = os.environ.get("SECRET_KEY", "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "axes",
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
    "rating_pages",
    "assurance",
    "stats",
    "audit",
    "members",
    "syndication",
    "api",
    # django-ninja: its Swagger UI from its own static files (no CDN)
    "ninja",

    "downloads",
    "ratingsite.apps.SiteConfig",
    "csp",
]

MIDDLEWARE = [
    # first: everything after it reads the client's own address, and no body is read before its size is checked
    "ratingsite.middleware.ClientAddressMiddleware",
    "ratingsite.middleware.RequestBodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # /api/v1/ only: CORS, the rate limits and 304 answers, before any session or language is read
    "api.middleware.ApiMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # after the session (which it may read), before CommonMiddleware (whose slash redirect must see
    # the /nl/ prefix resolved): the language of a page is its address's (ratingsite.languages)
    "django.middleware.locale.LocaleMiddleware",
    # the bare home page leads a visitor whose chosen or browser language is Dutch to /nl/
    "ratingsite.languages.HomeLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # a page for someone logged in is his own: no shared cache keeps it
    "ratingsite.middleware.MemberPagesPrivateMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # a login whose limits cannot be counted (Redis out) gets "logins are paused" (503), not a 500
    "ratingsite.login_limits.LoginsPausedMiddleware",
    # last: turns a login refused for too many failures into the lockout page
    "axes.middleware.AxesMiddleware",
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

SILENCED_SYSTEM_CHECKS: list[str] = []
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
    # One writer at a time: a request's write waits its turn behind background work (a run, the
    # statistics refresh) for up to the longest such write, instead of failing at once with
    # "database is locked" after SQLite's 5 s.
    DATABASES["default"]["OPTIONS"]["timeout"] = float(os.environ.get("SQLITE_BUSY_TIMEOUT", "60"))
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # the covering indexes' INCLUDE columns are PostgreSQL's; SQLite keeps the index on its keys alone
    SILENCED_SYSTEM_CHECKS = ["models.W040"]
# a connection kept from an earlier request is checked first: a database restart costs no 500
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# a 64-coach, 7-round event's entry form posts some 2,700 fields (Django's default refuses 1,000)
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10_000
# The largest body a request may have (results uploads are at most 1 MB), refused from its
# Content-Length before anything reads it; Django itself bounds only the fields, not the files.
REQUEST_BODY_MAX_SIZE = int(os.environ.get("REQUEST_BODY_MAX_SIZE", str(5 * 1024 * 1024 // 2)))
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_SIZE
# an upload within the limit is read in memory, never spooled to a temporary file
FILE_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_SIZE

# How many uncached public pages anonymous visitors may have rendering at once, site-wide (the
# page cache's slots, shared through Redis), and how many CSV downloads: past that a request waits
# a moment, then gets a 503 with Retry-After, so random query strings or a crowd of downloads
# never hold every worker (production runs four).
PAGE_RENDER_SLOTS = int(os.environ.get("PAGE_RENDER_SLOTS", "2"))
PAGE_EXPORT_SLOTS = int(os.environ.get("PAGE_EXPORT_SLOTS", "1"))

# Every page's Content-Security-Policy (django-csp): the site's own scripts, styles, images and forms
# only, nothing inline, no plugins, and no framing by other sites; a page that needs more says so
# with csp_update (the race grid's cell colours). Vendored assets only, so 'self' is all there is.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# Addresses (or networks, 10.0.0.0/8) of the reverse proxies in front of the site: only a request
# from one of them has its X-Forwarded-For read for the client's address; none by default.
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")

# The open-data API's limits: requests a minute per client address, and per API key (X-API-Key
# header) unless the key was issued with its own; counted in the "limits" cache (Redis in production).
API_RATE_ANONYMOUS = int(os.environ.get("API_RATE_ANONYMOUS", "60"))
API_RATE_KEYED = int(os.environ.get("API_RATE_KEYED", "600"))

CACHE_URL = os.environ.get("CACHE_URL") or os.environ.get("REDIS_URL") or ""
CACHES = site_caches(CACHE_URL)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    # refuse a login while its account, or its address (alone or with that account), is locked out,
    # before the password is checked
    "ratingsite.login_limits.AccountLockBackend",
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Login limits (django-axes, on both logins: /accounts/login/ and /admin/login/), counted in the
# cache: LOGIN_FAILURE_LIMIT failures from one address, for one account or over any accounts
# (password spraying), lock that account there, or that address, out for LOGIN_COOLOFF_MINUTES;
# failures from other addresses never lock a member out where he is. An account is locked from
# every address only after LOGIN_ACCOUNT_FAILURE_LIMIT failures (ratingsite.login_limits), which
# staff can lift. A success resets nothing, so an attacker's own account cannot clear his address.
# Both login forms also refuse one account from one address after 5 failures (tournaments.forms.LoginAttempts).
AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler"
AXES_CACHE = "limits"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "20"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
LOGIN_ACCOUNT_FAILURE_LIMIT = int(os.environ.get("LOGIN_ACCOUNT_FAILURE_LIMIT", "200"))
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "ratingsite.login_limits.lockout_response"
AXES_USERNAME_CALLABLE = "ratingsite.login_limits.attempted_username"
AXES_CLIENT_IP_CALLABLE = "ratingsite.middleware.client_address"
# the attempts live in the cache, not in axes' tables: nothing to show in the admin
AXES_ENABLE_ADMIN = False
# Password reset requests: per address and per e-mail address, each in a window of an hour.
PASSWORD_RESET_LIMIT_PER_ADDRESS = int(os.environ.get("PASSWORD_RESET_LIMIT_PER_ADDRESS", "5"))
PASSWORD_RESET_LIMIT_PER_EMAIL = int(os.environ.get("PASSWORD_RESET_LIMIT_PER_EMAIL", "3"))
PASSWORD_RESET_WINDOW = 60 * 60
# Sign-ups, and wrong claim codes, counted as password resets are (members): per address and per e-mail address
# (per member, for the codes) within the same hour.
SIGNUP_LIMIT_PER_ADDRESS = int(os.environ.get("SIGNUP_LIMIT_PER_ADDRESS", "5"))
SIGNUP_LIMIT_PER_EMAIL = int(os.environ.get("SIGNUP_LIMIT_PER_EMAIL", "3"))
CLAIM_CODE_FAILURE_LIMIT = int(os.environ.get("CLAIM_CODE_FAILURE_LIMIT", "10"))

# English at the bare addresses, Dutch under /nl/ (ratingsite/urls.py); the catalogue is
# locale/nl/LC_MESSAGES/django.po, compiled to the .mo beside it and committed (CONTRIBUTING.md).
LANGUAGE_CODE = "en-gb"
LANGUAGES = [("en-gb", "English"), ("nl", "Nederlands")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# the language switch remembers a choice here for the bare home page (ratingsite.languages)
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
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
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "ratings@localhost")
SERVER_EMAIL = os.environ.get("SERVER_EMAIL", DEFAULT_FROM_EMAIL)
# the site's address as members reach it: the links of the mails no request answers (the notices)
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
# Who hears of a 500: "Ann Smith <ann@example.org>, bob@example.org"
ADMINS = [(name or address, address) for name, address in getaddresses([os.environ.get("ADMINS", "")]) if address]

# The error pages: the site's navigation and a plain message, never a traceback.
CSRF_FAILURE_VIEW = "ratingsite.errors.csrf_failure"

# Celery: unset broker means tasks run in-process (eagerly), so a first run needs no Redis.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
if CELERY_TASK_ALWAYS_EAGER:
    # an eager task still takes a producer from the broker's pool: the in-memory transport, so that
    # nothing guesses a broker on localhost (kombu's "No hostname was supplied", four times a demo)
    CELERY_BROKER_URL = "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

# A copy of the erasure log (tournaments.privacy) kept outside the database, one JSON line a coach
# erased: a restored backup rolls the database's log back too, `replay_erasures` reads this one.
ERASURE_LOG_FILE = os.environ.get("ERASURE_LOG_FILE", "")
# The key of the coaches' anonymous labels (tournaments.models.coach_label): empty, SECRET_KEY. Set it
# once and keep it: another key gives every hidden or erased coach another label.
COACH_LABEL_KEY = os.environ.get("COACH_LABEL_KEY", "")

# The open data (downloads): the folder its files are written to once (a list's CSV, JSON and KNSB
# layout, the nightly dumps, manifest.json) and served from, by /data/files/ or a front server; and
# how many days of nightly dumps it keeps (a dump names coaches as they were named that day).
DATA_FILES_ROOT = os.environ.get("DATA_FILES_ROOT") or str(BASE_DIR / "var" / "open-data")
DATA_DUMPS_KEPT = int(os.environ.get("DATA_DUMPS_KEPT", "2"))

DJANGO_TABLES2_TEMPLATE = "django_tables2/site_table.html"

COUNTRIES_FIRST = ["NL", "GB", "US", "DE", "FR", "IT", "ES"]

# A run whose message went out this long ago and that no worker has taken, or a statistics or
# accuracy refresh still unanswered, is sent again: the broker lost it (Redis restarted without
# persistence, failed over, evicted the key).
RECALCULATION_RESEND_AFTER = timedelta(minutes=int(os.environ.get("RECALCULATION_RESEND_AFTER_MINUTES", "5")))

# A recalculation task that runs longer is stopped (its transaction rolls back, the previous
# rankings stay and the run is recorded as failed), so a wedged run cannot hold its system's lock.
RECALCULATION_TIME_LIMIT = int(os.environ.get("RECALCULATION_TIME_LIMIT", "3600"))

# A worker whose process is killed hands its task back (acks late, rejected on loss), and Redis
# redelivers an unacknowledged one only after the longest a run may take, never during it.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Broker calls give up quickly: a queued run whose message could not go out is sent again by the
# dispatcher, so the person who asked never waits on a broker that is down or hung.
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": RECALCULATION_TIME_LIMIT + 300, "socket_timeout": 1, "socket_connect_timeout": 1,
}
# one attempt: the outbox, not a retry, makes up for a message that did not go out
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 0}

# Runs go on in forked processes and Celery workers: every line names its process. A 500 and a
# task that fails are also mailed to ADMINS (once: the "django" logger's own handlers are replaced).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "process": {"format": "%(asctime)s %(levelname)s %(name)s [%(processName)s %(process)d] %(message)s"},
    },
    "filters": {"require_debug_false": {"()": "django.utils.log.RequireDebugFalse"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "process"},
        "mail_admins": {"class": "django.utils.log.AdminEmailHandler", "level": "ERROR", "filters": ["require_debug_false"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        # a run's start, end, duration and failure
        "ratings": {"level": os.environ.get("RATINGS_LOG_LEVEL", "INFO")},
        "django": {"handlers": ["mail_admins"], "level": "INFO"},
        "celery.app.trace": {"handlers": ["mail_admins"]},
        # a request for another site's name is noise, not news
        "django.security.DisallowedHost": {"handlers": ["console"], "propagate": False},
    },
}
