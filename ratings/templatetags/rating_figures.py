"""Template filters for rating figures."""
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
