"""Figures as a page in the active language writes them: `{{ value|fixed:2|on_page }}`."""
from django import template

from ratingsite import languages

register = template.Library()


@register.filter(is_safe=True)
def on_page(text):
    """The figure's decimal point as the page's language writes it (a comma in Dutch)."""
    return languages.on_page(text)
