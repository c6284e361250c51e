"""Production: every secret from the environment, no debug pages, HTTPS only, a cache every process shares."""
import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F401,F403
from .base import CACHE_URL, CELERY_BROKER_URL, env_bool, env_list, site_caches

DEBUG = False

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("insecure-"):
    raise ImproperlyConfigured("SECRET_KEY must be set to a long random value in production.")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set in production.")


def broker_cache_url(broker: str) -> str:
    """The broker's Redis, one database further on: clearing the cache empties its database, never the queues."""
    parts = urlsplit(broker)
    database = int(parts.path.strip("/") or 0)
    return parts._replace(path=f"/{(database + 1) % 16}").geturl()


# Login limits and page caches must be counted once for every worker process: a Redis, never memory.
if not CACHE_URL:
    if not CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        raise ImproperlyConfigured("Production needs a shared cache: set REDIS_URL (or CACHE_URL) to a Redis, or use a Redis broker.")
    CACHES = site_caches(broker_cache_url(CELERY_BROKER_URL))

SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
LANGUAGE_COOKIE_SECURE = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# Hashed file names (collectstatic writes the manifest), so a browser never keeps a stale stylesheet.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
