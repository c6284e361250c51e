"""The error pages (400, 403, 404, 500 and a refused CSRF check): the site's navigation and a plain
message; the messages the site's own views give are kept, nothing internal is shown."""
import logging

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404, HttpResponseBadRequest, HttpResponseServerError
from django.shortcuts import render
from django.template import loader
from django.urls import Resolver404
from django.utils.translation import gettext

from .context_processors import navigation

logger = logging.getLogger(__name__)

# A last resort when even the 500 template cannot be rendered (a broken template or static manifest).
PLAIN_500 = ("<!doctype html><title>Server error</title><h1>Something went wrong on our side</h1>"
             "<p>The error has been reported. Please try again later.</p><p><a href=\"/\">Home</a></p>")


def _views_message(exception) -> str | None:
    """The message a view of the site gave its Http404 or PermissionDenied, if it gave one; a URL
    that matched nothing (Resolver404) carries the URL patterns, never shown."""
    if exception is None or isinstance(exception, Resolver404):
        return None
    message = exception.args[0] if exception.args else None
    return message if isinstance(message, str) and message else None


def _without_request(template: str, context: dict) -> str:
    """Renders with the navigation only: no session, user or database, which may be what failed."""
    return loader.render_to_string(template, {**navigation(None), **context})


def bad_request(request, exception=None):
    if isinstance(exception, RequestDataTooBig):
        message = gettext("What you sent is larger than the site accepts. Nothing was saved.")
    elif isinstance(exception, (TooManyFieldsSent, TooManyFilesSent)):
        message = gettext("What you sent has more fields than the site accepts. Nothing was saved.")
    else:
        message = gettext("The site could not understand this request.")
    return HttpResponseBadRequest(_without_request("400.html", {"message": message}))


def permission_denied(request, exception=None):
    return render(request, "403.html", {"message": _views_message(exception)}, status=403)


def csrf_failure(request, reason=""):
    message = gettext("The form could not be checked: its security token is missing or has expired (or cookies "
                      "are blocked). Go back, reload the page and send the form again.")
    return render(request, "403.html", {"message": message}, status=403)


def page_not_found(request, exception=None):
    message = _views_message(exception) if isinstance(exception, Http404) else None
    return render(request, "404.html", {"message": message}, status=404)


def server_error(request):
    try:
        body = _without_request("500.html", {})
    except Exception:
        logger.exception("The 500 page could not be rendered")
        body = PLAIN_500
    return HttpResponseServerError(body)
