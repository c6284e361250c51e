"""Limits on guessing: the lockout page of the login limits (django-axes) and a throttled password reset."""
import hashlib
import math
import time

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.cache import caches
from django.shortcuts import render
from django.urls import reverse_lazy

from .middleware import client_address


def _minutes(count: int) -> str:
    return f"{count} minute{'' if count == 1 else 's'}"


def attempted_username(request, credentials=None) -> str | None:
    """The account a login tried, case-folded, so "Mia" and "mia" count against one limit."""
    source = credentials if credentials else getattr(request, "POST", {})
    username = (source.get("username") or "").strip()
    return username.casefold() or None


def lockout_response(request, *_):
    """The page a login refused for too many failures gets (429): when to try again, and the way out."""
    minutes = math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    return render(request, "registration/lockout.html", {"wait": _minutes(minutes)}, status=429)


def reset_request_counted(address: str, email: str) -> int | None:
    """Counts one password reset request from address for email. None while both stay within their
    limits for the current window (PASSWORD_RESET_WINDOW seconds), else the minutes until it ends."""
    cache = caches["limits"]
    window = settings.PASSWORD_RESET_WINDOW
    now = time.time()
    bucket = int(now // window)
    over = False
    for kind, value, limit in (
        ("address", address, settings.PASSWORD_RESET_LIMIT_PER_ADDRESS),
        ("email", email.strip().casefold(), settings.PASSWORD_RESET_LIMIT_PER_EMAIL),
    ):
        key = f"password-reset:{kind}:{hashlib.sha256(value.encode()).hexdigest()}:{bucket}"
        cache.add(key, 0, window)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between the two calls
            cache.set(key, 1, window)
            count = 1
        over = over or count > limit
    return math.ceil((window - now % window) / 60) if over else None


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset form, but a request past the limits (per address, per e-mail address) sends
    nothing and gets the form back (429) saying when to try again; known and unknown addresses alike."""

    success_url = reverse_lazy("password_reset_done")
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def form_valid(self, form):
        minutes = reset_request_counted(client_address(self.request), form.cleaned_data["email"])
        if minutes is None:
            return super().form_valid(form)
        form.add_error(None, "Too many requests to reset a password from your address or for this e-mail "
                             f"address. Try again in {_minutes(minutes)}.")
        return self.render_to_response(self.get_context_data(form=form), status=429)
