"""Template filters for rating figures."""
import datetime as dt

from django import template
from django.utils import timezone

from rating_pages.tables import url_maker
from ratingsite import formatting

register = template.Library()


@register.filter
def signed(value, places=2):
    """A change with its sign: +2.24, -0.04, +0.00; empty for None."""
    return formatting.signed(value, places)


@register.filter(is_safe=True)
def fixed(value, places=2):
    """A figure to `places` decimals, rounded half away from zero; empty for None."""
    return formatting.fixed(value, places)


@register.filter(is_safe=True)
def rating(value, method):
    """A rating as its method shows it: KNSB whole numbers, the others to 0.01."""
    return formatting.fixed(value, formatting.rating_places(method))


@register.filter
def rating_change(value, method):
    """A change of rating with its sign, to the digits of its method."""
    return formatting.signed(value, formatting.rating_places(method))


@register.filter
def day(value):
    """A date as YYYY-MM-DD: what date:"Y-m-d" prints (an aware datetime in the current time zone),
    without its formatting machinery, which a breakdown's hundreds of dates add up in."""
    if value is None or value == "":
        return ""
    if isinstance(value, dt.datetime):
        value = (timezone.localtime(value) if timezone.is_aware(value) else value).date()
    try:
        return value.isoformat()
    except AttributeError:
        return ""


@register.inclusion_tag("rating_pages/_breakdown_rows.html")
def breakdown_rows(items, method: str, places: int):
    """The game rows of a breakdown period (`item.row` a calculation row), their figures written out
    here: a busy period has hundreds of rows, and a filter per figure in the template cost most of the page."""
    coach_url = url_maker("coach_detail")
    rows = []
    for item in items:
        r = item.row
        if method == "glicko":
            figures = [
                fixed(r.r0, 2), fixed(r.rc, 2), fixed(r.opponent_phi, 2), fixed(r.g, 4), fixed(r.w, 1), fixed(r.we, 3),
                signed(item.w_minus_we, 3), signed(r.rt, 2),
            ]
        else:
            figures = [
                fixed(r.r0, places), fixed(r.rc, places), fixed(r.w, 1), fixed(r.we, 3), signed(item.w_minus_we, 3),
                fixed(r.k, 2), signed(r.rt, 2),
            ]
            if method == "knsb":
                figures.append(fixed(r.wx, 3))
            elif method == "naf_elo":
                figures.append(fixed(item.rating_after, places))
        opponent, race = r.opponent, r.opponent_race
        rows.append({
            "kind": item.kind,
            "opponent": opponent,
            "url": coach_url(opponent.number) if opponent is not None else "",
            "footnote": item.footnote,
            "race": race.name if race is not None else "",
            "played": day(r.played_at),
            "list_date": day(r.list_date) if method == "knsb" else "",
            "depot": day(r.depot_date) if method == "knsb" else "",
            "late": item.late,
            "reported": day(getattr(r, "reported_on", None)) if item.late else "",
            "figures": figures,
        })
    return {"rows": rows, "knsb": method == "knsb"}


@register.filter
def percent(value, places=1):
    """A share as a percentage: 0.589 → 58.9 %; "–" for None (a figure that does not exist)."""
    return "–" if value is None else f"{formatting.fixed(value * 100, places)} %"
