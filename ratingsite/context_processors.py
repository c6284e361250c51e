"""Navigation built from the pages that exist: a section appears once its URL is registered."""
from functools import lru_cache

from django.urls import NoReverseMatch, reverse
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from .languages import language_links

SECTIONS = [
    (_("Rankings"), "rankings_index"),
    (_("Events"), "event_list"),
    (_("Rating lists"), "rating_list_index"),
    (_("Statistics"), "stats_index"),
    (_("Calculator"), "calculator"),
    (_("About the ratings"), "about_ratings"),
]


def reverse_or_none(name: str, *args):
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


@lru_cache(maxsize=8)
def _navigation(language: str) -> tuple:
    # the addresses are the language's (/nl/... in Dutch), so they are kept per language
    items = tuple({"label": label, "url": url} for label, name in SECTIONS if (url := reverse_or_none(name)))
    return items, reverse_or_none("login"), reverse_or_none("logout")


def navigation(request):
    items, login_url, logout_url = _navigation(translation.get_language())
    return {"site_nav": items, "login_url": login_url, "logout_url": logout_url, "language_links": language_links(request)}
