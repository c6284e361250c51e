"""Tests: the local settings with fast password hashing, a cache of their own and plain static files;
the database still comes from DATABASE_URL."""
import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from .base import CELERY_BROKER_URL, SILENCED_SYSTEM_CHECKS, site_caches
from .local import *  # noqa: F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# each test empties the cache: never a Redis that REDIS_URL may name for the developer's own site
CACHES = site_caches("")
SILENCED_SYSTEM_CHECKS = [*SILENCED_SYSTEM_CHECKS, "axes.W001"]

# never the developer's own open-data folder: a test that writes files names a tmp_path of its own
DATA_FILES_ROOT = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"ratingsite-test-open-data-{os.getpid()}")

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # a file in WAL mode, as the site's own: the in-memory test database locks whole tables, and a page
    # read beside the after-response thread's run failed at once ("database table is locked", a 500).
    # In a memory-backed folder with room (a container's is often 64 MB): on disk its syncs made the
    # SQLite pass 12 % slower.
    def _roomy(folder: str) -> bool:
        try:
            found = os.statvfs(folder)
        except OSError:
            return False
        return found.f_bavail * found.f_frsize >= 1 << 30

    DATABASES["default"].setdefault("TEST", {})["NAME"] = os.path.join(  # noqa: F405
        "/dev/shm" if _roomy("/dev/shm") else os.environ.get("TMPDIR", "/tmp"), f"ratingsite-test-{os.getpid()}.sqlite3")

REDIS_DATABASES = 16  # Redis's own default (`databases` in redis.conf)


def worker_broker(url: str, worker: str) -> str:
    """The broker of pytest-xdist's worker `worker` (gw0, gw1, ...): gwN takes the Redis database N
    after url's, so that one worker's Celery worker never takes the tasks another worker's tests send
    (their databases differ too: pytest-django names them test_<name>_gw0, test_<name>_gw1, ...)."""
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0) + int(worker.removeprefix("gw"))
    if number >= REDIS_DATABASES:
        raise ImproperlyConfigured(
            f"pytest-xdist's worker {worker} would take Redis database {number} after {url}'s: "
            f"run fewer workers (PYTEST_WORKERS) or give CELERY_BROKER_URL a lower database number."
        )
    return parts._replace(path=f"/{number}").geturl()


# Celery reads CELERY_BROKER_URL from the environment before its settings, and the processes a test
# starts (a worker, the recalculate command) inherit the environment: the worker's broker is set
# there, once (TEST_BROKER_WORKER says it is, so that a child of the worker keeps it as it is).
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker and os.environ.get("TEST_BROKER_WORKER") != _worker and urlsplit(CELERY_BROKER_URL).scheme in {"redis", "rediss"}:
    CELERY_BROKER_URL = os.environ["CELERY_BROKER_URL"] = worker_broker(CELERY_BROKER_URL, _worker)
    os.environ["TEST_BROKER_WORKER"] = _worker
