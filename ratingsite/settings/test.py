"""Tests: the local settings with fast password hashing, a cache of their own and plain static files;
the database still comes from DATABASE_URL."""
from .base import SILENCED_SYSTEM_CHECKS, site_caches
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
