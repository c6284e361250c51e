"""A developer's machine and `make demo`: the base settings with debug pages and the development key."""
import os

from .base import *  # noqa: F401,F403
from .base import CACHES, SILENCED_SYSTEM_CHECKS, env_bool

DEBUG = env_bool("DEBUG", True)
# Only ever on a developer's machine: production refuses it.
SECRET_KEY = os.environ.get("SECRET_KEY") or "insecure-development-key-do-not-use-in-production"

if CACHES["default"]["BACKEND"].endswith("LocMemCache"):
    # axes warns of a per-process cache; runserver is one process
    SILENCED_SYSTEM_CHECKS = [*SILENCED_SYSTEM_CHECKS, "axes.W001"]
