"""The embeds: a leaderboard of a country or a race at a stable "latest" address, for an iframe on
another site, and a coach's badge as SVG; and the page that lists them with snippets to copy.

Only the embeds may be framed by any site (frame-ancestors *, no X-Frame-Options); every other page
keeps the site's policy. They are cached by the page cache (ratingsite.page_cache), keyed on the
language and renewed when a run commits, and each render reads the database a few times only.
"""
from __future__ import annotations

from urllib.parse import urlencode

from csp.decorators import csp_replace
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_exempt
from django_countries import countries

from ratings import selectors
from ratings.selectors import feeds as reads
from ratingsite.formatting import fixed, rating_places
from ratingsite.languages import on_page
from ratingsite.page_cache import BadParameter, cached_page
from syndication.forms import EmbedForm

ROWS = 20
MAX_ROWS = 100


def framable(view):
    """The view's answers may be framed by any site: frame-ancestors * (django-csp) and no
    X-Frame-Options (Django's clickjacking middleware); outside the page cache, as the cache keeps
    neither header."""
    return xframe_options_exempt(csp_replace({"frame-ancestors": ["*"]})(view))


def _system(slug: str):
    system = selectors.public_system_get(slug)
    if system is None:
        raise Http404(f"There is no rating system “{slug}”.")
    return system


def _rows(request) -> int:
    asked = request.GET.get("rows")
    if asked is None:
        return ROWS
    if not (asked.isascii() and asked.isdigit() and 1 <= int(asked) <= MAX_ROWS):
        raise BadParameter(_("“%(parameter)s” is not a number of rows: give one from 1 to %(most)s.") % {
            "parameter": f"rows={asked[:20]}", "most": MAX_ROWS})
    return int(asked)


def _leaderboard(request, system, *, rows: int, caption: str, ranking_query: dict, country: str = "", race=None):
    """The leaderboard page: one rank column (the overall rank, or the rank in the race chosen)."""
    entries, variant = reads.leaderboard(system, rows=rows, country=country, race=race)
    overall = system.per_race and race is None
    places = rating_places(system.method)
    ranking_url = request.build_absolute_uri(reverse("rankings", args=[system.slug]))
    query = {**ranking_query, **({"variant": variant} if variant else {})}
    return render(request, "syndication/leaderboard.html", {
        "system": system,
        "caption": caption,
        "show_race": overall,
        "rows": [{
            "rank": entry.overall_rank if overall else entry.rank,
            "coach": entry.coach.public_name,
            "coach_url": request.build_absolute_uri(reverse("coach_detail", args=[entry.coach.number])),
            "race": entry.race.name if entry.race_id else "",
            "rating": on_page(fixed(entry.value, places)),
            "games": entry.games,
        } for entry in entries],
        "ranking_url": f"{ranking_url}?{urlencode(query)}",
    })


@framable
@cached_page(reads=("rows",))
def leaderboard_country(request, system: str, code: str):
    """The best of one nationality in a system's current ranking."""
    system = _system(system)
    code = code.upper()
    if code not in countries:
        raise Http404(f"There is no country “{code}”.")
    rows = _rows(request)
    caption = _("%(system)s ranking, nationality %(country)s (first %(rows)s)") % {
        "system": system.name, "rows": rows, "country": countries.name(code)}
    return _leaderboard(request, system, rows=rows, caption=caption, ranking_query={"country": code}, country=code)


@framable
@cached_page(reads=("rows",))
def leaderboard_race(request, system: str, race: str):
    """The best coaches of one race in a system's current ranking (a system that pools races has none)."""
    system = _system(system)
    found = reads.embed_race_get(slug=race)
    if found is None or not system.per_race:
        raise Http404(f"There is no ranking of the race “{race}” in {system.name}.")
    rows = _rows(request)
    caption = _("%(system)s ranking, race %(race)s (first %(rows)s)") % {"system": system.name, "rows": rows, "race": found.name}
    return _leaderboard(request, system, rows=rows, caption=caption, ranking_query={"race": found.slug}, race=found)


@cached_page
def badge(request, system: str, number: int):
    """A coach's badge: his public name, the system, his best-placed rating and its rank, as SVG."""
    system = _system(system)
    coach = reads.syndicated_coach_get(number=number)
    rating = reads.badge_rating(coach, system) if coach is not None else None
    if rating is None:
        raise Http404("There is no public coach with a rating in this system at this number.")
    rank = rating.overall_rank if system.per_race else rating.rank
    figure = on_page(fixed(rating.value, rating_places(system.method)))
    names = {"coach": coach.public_name, "system": system.name, "rating": figure, "rank": rank}
    line = (_("%(system)s %(rating)s, rank %(rank)s") if rank is not None else _("%(system)s %(rating)s, not ranked")) % names
    title = (_("%(coach)s: %(system)s rating %(rating)s, rank %(rank)s") if rank is not None
             else _("%(coach)s: %(system)s rating %(rating)s, not ranked")) % names
    width = 24 + 7 * max(len(coach.public_name), len(line))
    return render(request, "syndication/badge.svg", {
        "name": coach.public_name, "line": line, "title": title, "width": width,
    }, content_type="image/svg+xml; charset=utf-8")


@cached_page(reads=tuple(EmbedForm.base_fields))
def embed_index(request):
    """The embeds, each with a snippet to copy, for the system, country, race and coach chosen."""
    systems = selectors.public_systems()
    form = EmbedForm(request.GET or None, systems=systems)
    chosen = form.cleaned_data if form.is_valid() else {}
    system = next((s for s in systems if s.slug == chosen.get("system")), systems[0] if systems else None)
    snippets = None
    if system is not None:
        race = chosen.get("race")
        absolute = request.build_absolute_uri
        country, number = chosen.get("country"), chosen.get("number")
        snippets = {
            "country": absolute(reverse("embed_country", args=[system.slug, country.lower()])) if country else None,
            "race": absolute(reverse("embed_race", args=[system.slug, race.slug])) if race and system.per_race else None,
            "badge": absolute(reverse("embed_badge", args=[system.slug, number])) if number else None,
        }
    return render(request, "syndication/index.html", {
        "form": form, "system": system, "snippets": snippets, "rows": ROWS, "most": MAX_ROWS,
    }, status=400 if form.is_bound and form.errors else 200)
