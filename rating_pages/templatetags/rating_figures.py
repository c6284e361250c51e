"""Template filters for rating figures, written as a page in the active language writes them (a
decimal comma in Dutch: ratingsite.languages.on_page); a `day` stays ISO in every language."""
import datetime as dt

from django import template
from django.utils import timezone

from rating_pages.columns import presentation
from rating_pages.tables import url_maker
from ratingsite import formatting
from ratingsite.languages import on_page

register = template.Library()


@register.filter
def signed(value, places=2):
    """A change with its sign: +2.24, -0.04, +0.00; empty for None."""
    return on_page(formatting.signed(value, places))


@register.filter(is_safe=True)
def fixed(value, places=2):
    """A figure to `places` decimals, rounded half away from zero; empty for None."""
    return on_page(formatting.fixed(value, places))


@register.filter(is_safe=True)
def rating(value, method):
    """A rating as its method shows it: KNSB whole numbers, the others to 0.01."""
    return on_page(formatting.fixed(value, formatting.rating_places(method)))


@register.filter
def rating_change(value, method):
    """A change of rating with its sign, to the digits of its method."""
    return on_page(formatting.signed(value, formatting.rating_places(method)))


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
    here from the method's columns (rating_pages.columns): a busy period has hundreds of rows, and a
    filter per figure in the template cost most of the page."""
    coach_url = url_maker("coach_detail")
    shown = presentation(method)
    rows = []
    for item in items:
        r = item.row
        opponent, race = r.opponent, r.opponent_race
        rows.append({
            "kind": item.kind,
            "opponent": opponent,
            "url": coach_url(opponent.number) if opponent is not None else "",
            "footnote": item.footnote,
            "race": race.name if race is not None else "",
            "played": day(r.played_at),
            "list_date": day(r.list_date) if shown.lists else "",
            "depot": day(r.depot_date) if shown.lists else "",
            "late": item.late,
            "reported": day(getattr(r, "reported_on", None)) if item.late else "",
            "figures": [on_page(column.cell(item, places)) for column in shown.games],
        })
    return {"rows": rows, "list_column": shown.lists}


@register.simple_tag
def method_presentation(method: str):
    """The method's presentation (rating_pages.columns): `{% method_presentation system.method as shown %}`."""
    return presentation(method)


@register.filter
def percent(value, places=1):
    """A share as a percentage: 0.589 → 58.9 %; "–" for None (a figure that does not exist)."""
    return "–" if value is None else f"{on_page(formatting.fixed(value * 100, places))} %"
