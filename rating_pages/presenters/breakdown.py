"""The breakdown page: the coach's rating keys in a system, the key the query chooses, its
breakdown and the links to its recent periods; or why there is none to show."""
from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext

from rating_pages.columns import presentation
from rating_pages.presenters import periods, rules
from rating_pages.tables import breakdown_url
from ratings import selectors
from ratingsite.formatting import rating_places

if TYPE_CHECKING:
    from ratings.models import RatingSystem
    from tournaments.models import Coach


def page_context(system: RatingSystem, coach: Coach, form, systems: list[RatingSystem]) -> dict:
    """What every breakdown page shows, whatever the query: the coach's keys (each with its link),
    the rank rule and the other systems."""
    keys = selectors.coach_keys(coach, system)
    for key in keys:
        key.url = breakdown_url(system.slug, coach.number, key.race.slug if key.race_id else None, key.variant.slug)
    return {
        "system": system, "coach": coach, "form": form, "keys": keys, "inactive_rule": rules.inactive_rule(system),
        "other_systems": [s for s in systems if s != system], "places": rating_places(system.method),
    }


def add_breakdown(context: dict, data: dict) -> None:
    """Add to the page's context the breakdown of the key and period the (valid) query asks for, or
    `missing`, the sentence saying why there is none."""
    system, coach = context["system"], context["coach"]
    race, variant = data["race"] if system.per_race else None, data["variant"]
    current = chosen_key(system, context["keys"], race, variant)
    if current is not None:
        race, variant = current.race, current.variant
    elif variant is None or (system.per_race and race is None):
        context["missing"] = _no_rating(coach, system, race, variant)
        return
    result = selectors.breakdown(
        system=system, coach=coach, race=race, variant=variant, current=current, period=data["period"] or None,
    )
    periods.title_periods(system, result.periods)
    result.footnotes = periods.footnote_texts(system, result.footnotes)
    context["breakdown"] = result
    context["multiplier"] = (
        selectors.stored_config(system).value_phi_multiplier if presentation(system.method).value_multiplier else None
    )
    context["period_links"] = [
        (p, breakdown_url(system.slug, coach.number, race.slug if race else None, variant.slug, period=p.label))
        for p in result.recent
    ]
    missing = _missing_period(coach, system, race, variant, result, data["period"])
    if missing is not None:
        context["missing"] = missing


def _no_rating(coach: Coach, system: RatingSystem, race, variant) -> str:
    values = {"coach": coach.public_name, "system": system.name, "race": race, "variant": variant}
    if race and variant:
        return gettext("%(coach)s has no %(system)s rating with %(race)s in %(variant)s.") % values
    if race:
        return gettext("%(coach)s has no %(system)s rating with %(race)s.") % values
    if variant:
        return gettext("%(coach)s has no %(system)s rating in %(variant)s.") % values
    return gettext("%(coach)s has no %(system)s rating.") % values


def _missing_period(coach: Coach, system: RatingSystem, race, variant, result, period: str) -> str | None:
    values = {"coach": coach.public_name, "system": system.name, "race": race, "variant": variant, "period": period}
    if not result.periods and not result.waiting:
        if race:
            return gettext("%(coach)s has no games in %(system)s with %(race)s in %(variant)s.") % values
        return gettext("%(coach)s has no games in %(system)s in %(variant)s.") % values
    if result.period is None and (period or not result.waiting):
        return gettext("There is no period “%(period)s” in this breakdown; choose one below.") % values
    return None


def chosen_key(system: RatingSystem, keys: list, race, variant):
    """The coach's rating key the breakdown's race and variant choose (the first of his keys, most
    games first, where either is left open), or None."""
    return next((
        k for k in keys
        if (variant is None or k.variant_id == variant.pk) and (not system.per_race or race is None or k.race_id == race.pk)
    ), None)
