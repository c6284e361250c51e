"""The site in English and Dutch: every page's address says its language (English bare, Dutch under
/nl/, Django's `i18n_patterns(prefix_default_language=False)`), so a shared link shows what its
sender saw. Only the bare home page, where a visitor arrives without having chosen, leads on: to
/nl/ when the language the switch remembered, or else the browser's (Accept-Language), is Dutch.

The switch is a link, `/language/<code>/?next=<this page>`: it remembers the choice (the language
cookie, read by the home page alone) and leads to the same page, query string and all, in that language.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import Http404, HttpResponseRedirect
from django.urls import get_script_prefix
from django.utils import formats, translation
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.cache import never_cache

from .formatting import with_decimal_separator


def _prefix(code: str) -> str:
    """The path prefix of a language's pages: "" for the default, "/nl" for Dutch."""
    return "" if code == settings.LANGUAGE_CODE else f"/{code}"


def _bare(path: str) -> str:
    """The path without its language prefix (any of the site's other languages)."""
    for code, _name in settings.LANGUAGES:
        prefix = _prefix(code)
        if prefix and (path == prefix or path.startswith(prefix + "/")):
            return path[len(prefix):] or "/"
    return path


def in_language(path: str, code: str) -> str:
    """The same address (a path, with its query string if any) in the language `code`."""
    script = get_script_prefix().rstrip("/")
    inner = path[len(script):] if script and path.startswith(script) else path
    return f"{script}{_prefix(code)}{_bare(inner)}"


def language_links(request) -> list[dict]:
    """The switch's links to this page in the site's other languages, and the alternates of its head:
    each language's code, name (as it calls itself), the switch's address and the page's own address."""
    if request is None:
        return []
    here = request.get_full_path()
    current = translation.get_language()
    links = []
    for code, name in settings.LANGUAGES:
        if code == current:
            continue
        switch = f"{get_script_prefix()}language/{code}/?" + urlencode({"next": here})
        links.append({"code": code, "name": name, "switch": switch, "page": in_language(here, code)})
    return links


@never_cache
def switch_language(request, code: str):
    """Remember `code` as the visitor's language and lead to `next` (a page of this site) in it."""
    if code not in dict(settings.LANGUAGES):
        raise Http404("The site is in English and Dutch only.")
    target = request.GET.get("next", "/")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        target = "/"
    if not target.startswith("/"):  # an absolute address of this very site: its path is enough
        parts = urlsplit(target)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
    response = HttpResponseRedirect(in_language(target, code))
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME, code, max_age=settings.LANGUAGE_COOKIE_AGE, path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN, secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY, samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    return response


class HomeLanguageMiddleware:
    """The bare home page (`/`) leads a visitor whose remembered or browser language is another of
    the site's to that language's home (`/nl/`); every other address keeps its own language."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method in ("GET", "HEAD") and request.path_info == "/":
            preferred = translation.get_language_from_request(request)
            if preferred != settings.LANGUAGE_CODE and preferred in dict(settings.LANGUAGES):
                query = request.META.get("QUERY_STRING", "")
                response = HttpResponseRedirect(in_language("/", preferred) + (f"?{query}" if query else ""))
            else:
                response = self.get_response(request)
            patch_vary_headers(response, ("Accept-Language", "Cookie"))
            return response
        return self.get_response(request)


def on_page(text) -> str:
    """A figure's text (ratingsite.formatting) as a page in the active language writes it: "2.68" on
    an English page, "2,68" on a Dutch one. Never for a CSV or an export, which keep the point."""
    return with_decimal_separator(str(text), formats.get_format("DECIMAL_SEPARATOR"))
