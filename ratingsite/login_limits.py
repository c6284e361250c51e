"""Limits on guessing: the lockout page of the login limits (django-axes), the lock of an account
from every address, the page logins get while the limits' cache is out, and a throttled password reset."""
import hashlib
import logging
import math
import time

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.signals import user_login_failed
from django.core.cache import caches
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse_lazy
from django.utils import translation
from django.utils.translation import gettext, ngettext
from redis.exceptions import RedisError

from .middleware import client_address

logger = logging.getLogger(__name__)

# the views whose limits live in the "limits" cache: while it is out they pause instead of failing
# (the members' sign-up counts there too)
# (the site's reset form has no URL name of its own: the name stays the accounts pages')
LIMITED_VIEWS = {"login", "admin:login", "ratingsite.login_limits.PasswordResetView", "signup"}


def minutes_text(count: int) -> str:
    return ngettext("%(count)s minute", "%(count)s minutes", count) % {"count": count}


def attempted_username(request, credentials=None) -> str | None:
    """The account a login tried, case-folded, so "Mia" and "mia" count against one limit."""
    source = credentials if credentials else getattr(request, "POST", {})
    username = (source.get("username") or "").strip()
    return username.casefold() or None


def lockout_response(request, *_):
    """The page a login refused for too many failures gets (429): when to try again, and the way out."""
    minutes = math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    return render(request, "registration/lockout.html", {"wait": minutes_text(minutes)}, status=429)


class AccountFailures:
    """Failed logins for one account from every address. Its lock comes far later than an address's
    (LOGIN_ACCOUNT_FAILURE_LIMIT, 200 by default): a guesser spread over many addresses is stopped,
    but nobody can lock a member out with a handful of wrong passwords. Staff can lift it."""

    def __init__(self, username: str):
        self.key = f"login-account:{hashlib.sha256(username.strip().casefold().encode()).hexdigest()}"

    @property
    def count(self) -> int:
        return caches["limits"].get(self.key, 0)

    @property
    def locked(self) -> bool:
        return self.count >= settings.LOGIN_ACCOUNT_FAILURE_LIMIT

    def failed(self) -> None:
        cache = caches["limits"]
        timeout = int(settings.AXES_COOLOFF_TIME.total_seconds())
        if cache.add(self.key, 1, timeout):
            return
        try:
            cache.incr(self.key)
        except ValueError:  # expired between the two calls
            cache.set(self.key, 1, timeout)
        else:
            cache.touch(self.key, timeout)

    def clear(self) -> None:
        caches["limits"].delete(self.key)


@receiver(user_login_failed, dispatch_uid="ratingsite.login_limits.account_failed")
def _account_failed(sender, credentials, request=None, **kwargs):
    username = (credentials or {}).get("username")
    if username:
        failures = AccountFailures(username)
        if not failures.locked:  # a locked account's refusals do not push its end further away
            failures.failed()


class AccountLockBackend:
    """First of the authentication backends: an account locked from every address is refused before
    its password is checked, on every login that authenticates (the site's, the admin's). It finds
    no one (no get_user), so a session is never its to restore."""

    def authenticate(self, request, username=None, **credentials):
        if username and AccountFailures(username).locked:
            raise PermissionDenied(gettext("This account is locked after too many failed logins."))
        return None


def logins_paused(request) -> HttpResponse:
    """What a login or a password reset gets while the limits' cache is out (503): the limits stay
    closed, so nothing is checked and nobody logs in, but the reader knows it is brief."""
    response = render(request, "registration/logins_paused.html", status=503)
    response["Retry-After"] = "60"
    return response


class LoginsPausedMiddleware:
    """Turns a failure of the limits' cache (Redis out) in a login, the admin's or a password reset
    into the "logins are paused" page instead of a 500; elsewhere the error goes on as it was."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        match = getattr(request, "resolver_match", None)
        if not isinstance(exception, RedisError) or match is None or match.view_name not in LIMITED_VIEWS:
            return None
        logger.error("Logins paused: the login limits' cache is out (%s)", exception)
        return logins_paused(request)


def reset_request_counted(address: str, email: str) -> int | None:
    """Counts one password reset request from address for email. None while both stay within their
    limits for the current window (PASSWORD_RESET_WINDOW seconds), else the minutes until it ends."""
    return requests_counted(
        "password-reset", address=address, email=email,
        per_address=settings.PASSWORD_RESET_LIMIT_PER_ADDRESS, per_email=settings.PASSWORD_RESET_LIMIT_PER_EMAIL,
    )


def requests_counted(scope: str, *, address: str, email: str, per_address: int, per_email: int) -> int | None:
    """Counts one request of a kind (`scope`: a password reset, a sign-up) from address for email.
    None while both stay within their limits for the current window (PASSWORD_RESET_WINDOW seconds),
    else the minutes until it ends."""
    cache = caches["limits"]
    window = settings.PASSWORD_RESET_WINDOW
    now = time.time()
    bucket = int(now // window)
    over = False
    for kind, value, limit in (
        ("address", address, per_address),
        ("email", email.strip().casefold(), per_email),
    ):
        key = f"{scope}:{kind}:{hashlib.sha256(value.encode()).hexdigest()}:{bucket}"
        cache.add(key, 0, window)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between the two calls
            cache.set(key, 1, window)
            count = 1
        over = over or count > limit
    return math.ceil((window - now % window) / 60) if over else None


class MemberLanguageResetForm(PasswordResetForm):
    """Django's reset form, its e-mail written in the member's language (members.Preferences.language,
    read through the account's reverse relation: no import of the members app); an account without
    preferences gets it in the language of the page that asked."""

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        preferences = getattr(context.get("user"), "member_preferences", None)
        language = getattr(preferences, "language", None)
        if language not in {code for code, _name in settings.LANGUAGES}:
            language = translation.get_language()
        with translation.override(language):
            super().send_mail(subject_template_name, email_template_name, context, *args, **kwargs)


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset form, but a request past the limits (per address, per e-mail address) sends
    nothing and gets the form back (429) saying when to try again; known and unknown addresses alike.
    Its e-mail is in the member's language (MemberLanguageResetForm)."""

    form_class = MemberLanguageResetForm
    success_url = reverse_lazy("password_reset_done")
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def form_valid(self, form):
        minutes = reset_request_counted(client_address(self.request), form.cleaned_data["email"])
        if minutes is None:
            return super().form_valid(form)
        form.add_error(None, gettext(
            "Too many requests to reset a password from your address or for this e-mail address. Try again in %(wait)s.",
        ) % {"wait": minutes_text(minutes)})
        return self.render_to_response(self.get_context_data(form=form), status=429)
