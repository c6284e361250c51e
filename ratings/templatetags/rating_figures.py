"""Template filters for rating figures."""
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template

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
