"""The site's cache on Redis, carrying on without it: while Redis is down or hung, reads miss and
writes are dropped, so pages render afresh (slower, never wrong, never a 500 for it). After a
failure the process leaves Redis alone for `RETRY_AFTER` seconds, so a hung Redis costs one socket
timeout now and then, not one per call.

The login and password-reset limits use the strict alias ("limits") instead: a limit that lapsed
whenever the cache did would not hold.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import wraps

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

RETRY_AFTER = 5.0
REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, OSError)

logger = logging.getLogger(__name__)


def _no_counter(key, delta):
    raise ValueError(f"Key '{key}' not found: the cache is unavailable.")  # what incr of a missing key raises


def _fail_open(method: Callable, fallback: Callable) -> Callable:
    @wraps(method)
    def guarded(self, *args):
        if time.monotonic() < self.down_until:
            return fallback(*args)
        try:
            return method(self, *args)
        except REDIS_DOWN as error:
            logger.warning("the cache is unavailable for %.0f s, pages render without it: %s", RETRY_AFTER, error)
            self.down_until = time.monotonic() + RETRY_AFTER
            return fallback(*args)

    return guarded


class FailOpenRedisCacheClient(RedisCacheClient):
    down_until = 0.0

    add = _fail_open(RedisCacheClient.add, lambda key, value, timeout: False)
    get = _fail_open(RedisCacheClient.get, lambda key, default: default)
    set = _fail_open(RedisCacheClient.set, lambda key, value, timeout: None)
    touch = _fail_open(RedisCacheClient.touch, lambda key, timeout: False)
    delete = _fail_open(RedisCacheClient.delete, lambda key: False)
    get_many = _fail_open(RedisCacheClient.get_many, lambda keys: {})
    has_key = _fail_open(RedisCacheClient.has_key, lambda key: False)
    incr = _fail_open(RedisCacheClient.incr, _no_counter)
    set_many = _fail_open(RedisCacheClient.set_many, lambda data, timeout: [])
    delete_many = _fail_open(RedisCacheClient.delete_many, lambda keys: None)
    clear = _fail_open(RedisCacheClient.clear, lambda: False)


class FailOpenRedisCache(RedisCache):
    """Django's Redis cache that misses, rather than fails, while its Redis is out."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = FailOpenRedisCacheClient
