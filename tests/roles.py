"""Accounts in each role, for the organiser, staff and permission tests."""
from django.contrib.auth.models import AnonymousUser, Group, User
from django.test import Client

from tournaments.permissions import MEMBERS, ORGANISERS, STAFF, groups_sync

PASSWORD = "correct-horse-battery-staple"


def account(username: str, role: str | None = MEMBERS) -> User:
    """A user in one role's group (staff accounts also reach the Django admin)."""
    if not Group.objects.filter(name=role).exists() and role is not None:
        groups_sync()  # a transactional test's flush removed the migration's groups
    user = User.objects.create_user(username, f"{username}@example.org", PASSWORD, is_staff=role == STAFF)
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    return user


def member(username: str = "mia") -> User:
    return account(username, MEMBERS)


def organiser(username: str = "olga") -> User:
    return account(username, ORGANISERS)


def staff(username: str = "sam") -> User:
    return account(username, STAFF)


def anonymous_get(rf, path: str):
    """A GET of `path` by a visitor who is not logged in, for calling a view directly (RequestFactory `rf`)."""
    request = rf.get(path)
    request.user = AnonymousUser()
    return request


# a sign-up form that passes the site's password rules
SIGN_UP = {"username": "nina", "email": "nina@example.org", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"}


def client_of(user, *, csrf: bool = False) -> Client:
    """A test client logged in as `user` (`csrf`: checking CSRF tokens, as a browser meets them)."""
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client
