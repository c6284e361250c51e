"""Issuing, revoking and recognising API keys (stored hashed: a leaked table gives no key)."""
from __future__ import annotations

import hashlib
import secrets

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from api.models import ApiKey

HEADER = "HTTP_X_API_KEY"
KEY_CACHE_SECONDS = 60
_MISSING = 0


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _cache_key(digest: str) -> str:
    return f"api-key:{digest}"


@transaction.atomic
def api_key_issue(*, name: str, per_minute: int) -> tuple[ApiKey, str]:
    """A new key for `name` allowing `per_minute` requests a minute: the record and the key itself
    (shown once: only its digest is kept)."""
    name = " ".join(name.split())
    if not name:
        raise ValueError("Give the name of whom the key is for.")
    if per_minute < 1:
        raise ValueError("A key allows at least one request a minute.")
    key = secrets.token_urlsafe(32)
    record = ApiKey.objects.create(name=name, prefix=key[:8], digest=key_digest(key), per_minute=per_minute)
    return record, key


@transaction.atomic
def api_key_revoke(*, prefix: str) -> list[ApiKey]:
    """Revoke the keys starting with `prefix` (refused from the next request on); answers them."""
    keys = list(ApiKey.objects.select_for_update().filter(prefix=prefix, revoked_at__isnull=True))
    now = timezone.now()
    for key in keys:
        key.revoked_at = now
        key.save(update_fields=["revoked_at"])
    digests = [_cache_key(key.digest) for key in keys]
    transaction.on_commit(lambda: cache.delete_many(digests))
    return keys


def key_limit(key: str) -> tuple[int, int] | None:
    """(key id, requests a minute) of a valid key, None for an unknown or revoked one (kept a minute
    in the cache: a request with a key costs no query)."""
    digest = key_digest(key)
    found = cache.get(_cache_key(digest))
    if found is None:
        row = ApiKey.objects.filter(digest=digest, revoked_at__isnull=True).values_list("pk", "per_minute").first()
        found = list(row) if row else _MISSING
        cache.set(_cache_key(digest), found, KEY_CACHE_SECONDS)
    return tuple(found) if found else None  # type: ignore[return-value]
