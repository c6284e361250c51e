"""Navigation built from the pages that exist: a section appears once its URL is registered."""
from functools import lru_cache

from django.urls import NoReverseMatch, reverse

SECTIONS = [
    ("Rankings", "rankings_index"),
    ("Events", "event_list"),
    ("Rating lists", "rating_list_index"),
    ("Statistics", "stats_index"),
    ("Calculator", "calculator"),
    ("About the ratings", "about_ratings"),
]


def reverse_or_none(name: str, *args):
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


@lru_cache(maxsize=1)
def _navigation() -> tuple:
    items = tuple({"label": label, "url": url} for label, name in SECTIONS if (url := reverse_or_none(name)))
    return items, reverse_or_none("login"), reverse_or_none("logout")


def navigation(request):
    items, login_url, logout_url = _navigation()
    return {"site_nav": items, "login_url": login_url, "logout_url": logout_url}
