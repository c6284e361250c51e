"""The demo's staff and organiser logins, on a developer's site only."""
from __future__ import annotations

from tournaments.models import (
    Event,
    EventStatus,
)
from tournaments.permissions import ORGANISERS, STAFF

from .world import (
    SOURCE_PREFIX,
)

# The demo's logins: a published password, so only on a developer's site (DEBUG on).
DEMO_PASSWORD = "blood-bowl-demo"
DEMO_LOGINS = (("demo-staff", STAFF), ("demo-organiser", ORGANISERS))


def demo_logins_create() -> list[tuple[str, str, str]]:
    """Create (or reset) a staff and an organiser login, the organiser owning the demo's events
    that wait for the staff (draft, submitted): returns (username, password, role) for each."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from ..permissions import groups_sync

    if not settings.DEBUG:
        raise ValueError("The demo logins have a published password: they are made only on a developer's site (DEBUG on).")
    groups_sync()
    User = get_user_model()
    made = []
    for username, role in DEMO_LOGINS:
        user, _ = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
        user.set_password(DEMO_PASSWORD)
        user.is_staff = role == STAFF
        user.save()
        user.groups.set([Group.objects.get(name=role)])
        made.append((username, DEMO_PASSWORD, role))
    organiser = User.objects.get(username=DEMO_LOGINS[1][0])
    waiting = [EventStatus.DRAFT, EventStatus.SUBMITTED, EventStatus.REJECTED]
    Event.objects.filter(source__startswith=SOURCE_PREFIX, status__in=waiting, organiser=None).update(organiser=organiser)
    return made
