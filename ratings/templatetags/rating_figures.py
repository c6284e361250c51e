"""Template filters for rating figures."""
import datetime as dt
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template
from django.utils import timezone

register = template.Library()


@register.filter
def signed(value, places=2):
    """A change with its sign: +2.24, -0.04, 0.00; empty for None."""
    if value is None or value == "":
        return ""
    try:
        return f"{float(value):+.{int(places)}f}"
    except (TypeError, ValueError):
        return ""


_QUANTUM = {places: Decimal(1).scaleb(-places) for places in range(10)}


@register.filter(is_safe=True)
def fixed(value, places=2):
    """A figure to `places` decimals, exactly as Django's floatformat gives it (the shortest decimal
    form rounded half up, no "-0.00"), without its localisation: a breakdown shows hundreds."""
    if value is None or value == "":
        return ""
    try:
        rounded = Decimal(repr(float(value))).quantize(_QUANTUM[int(places)], ROUND_HALF_UP)
    except (TypeError, ValueError, KeyError, InvalidOperation):
        return ""
    return f"{rounded.copy_abs() if rounded.is_zero() else rounded:f}"


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
