"""The coach page: the coach's ratings with their notes and breakdown links, the games waiting for a
list, the head-to-head shortcuts, and the rating history's chart and caption."""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from rating_pages.columns import presentation
from rating_pages.presenters import rules
from rating_pages.tables import breakdown_url
from ratings import selectors
from ratingsite import charts
from ratingsite.formatting import fixed, rating_places

if TYPE_CHECKING:
    from ratings.models import RatingSystem
    from tournaments.models import Coach


def rating_block(coach: Coach, systems: list[RatingSystem]) -> dict:
    """The coach's ratings in every system, each with its "?" and idle notes, its breakdown link and
    the games of its key waiting for a list; and the waiting games of keys without a rating."""
    ratings = selectors.coach_ratings(coach)
    rules.coach_rating_notes(coach, ratings)
    for rating in ratings:
        rating.breakdown_url = breakdown_url(
            rating.system.slug, coach.number, rating.race.slug if rating.race_id else None, rating.variant.slug
        )
    waiting = selectors.coach_waiting(coach, systems)
    for note in waiting:
        note.breakdown_url = breakdown_url(note.system.slug, coach.number, note.race.slug if note.race else None, note.variant.slug)
    by_key = {(n.system.pk, n.race.pk if n.race else None, n.variant.pk): n for n in waiting}
    for rating in ratings:
        rating.waiting = by_key.get((rating.system_id, rating.race_id, rating.variant_id))
    return {
        "ratings": ratings,
        "provisional": [r for r in ratings if r.provisional],
        "idle": [r for r in ratings if r.idle],
        "waiting": waiting,
    }


def opponents(coach: Coach) -> list[dict]:
    """The coach's most frequent opponents, each with the link to their head-to-head page."""
    head_to_head = reverse("stats_head_to_head")
    found = selectors.coach_opponents(coach)
    for opponent in found:
        opponent["url"] = f"{head_to_head}?{urlencode([('coach', coach.number), ('coach', opponent['opponent__number'])])}"
    return found


def history_caption(system: RatingSystem | None) -> str:
    if system is None:
        return _(": rating after each period")
    return presentation(system.method).history_caption % {"system": system.name}


def history_chart(coach: Coach, system: RatingSystem, history: list[dict]) -> charts.Chart | None:
    """The step chart of the coach's rating after each event or period: one line per race (or variant)."""
    series: dict[tuple, list] = defaultdict(list)
    titles: dict[tuple, list] = defaultdict(list)
    places = rating_places(system.method)
    for item in history:
        key = (item["race__name"] or _("All races"), item["variant__name"])
        series[key].append((item["effective"], item["rn"]))
        titles[key].append(f"{item['effective']:%Y-%m-%d} · {item['title']} · {fixed(item['rn'], places)}")
    if not series:
        return None
    return charts.line_chart(
        [charts.Series(f"{race} ({variant})" if len({v for _, v in series}) > 1 else race, points, titles[(race, variant)])
         for (race, variant), points in series.items()],
        title=_("%(coach)s: %(system)s rating history") % {"coach": coach.public_name, "system": system.name},
        description=str(
            presentation(system.method).chart_description_per_race if system.per_race
            else presentation(system.method).chart_description
        ),
        x_label=_("Date"), y_label=_("Rating"), step=True, x_end=timezone.now().date(),
    )
