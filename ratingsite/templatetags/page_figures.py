"""Figures as a page in the active language writes them: `{{ value|fixed:2|on_page }}`."""
from django import template

from ratingsite import languages
from ratingsite import rating_terms as terms

register = template.Library()


@register.filter(is_safe=True)
def on_page(text):
    """The figure's decimal point as the page's language writes it (a comma in Dutch)."""
    return languages.on_page(text)


@register.inclusion_tag("_rating_terms.html")
def rating_terms(*symbols):
    """The KNSB's names of the figures a page shows, each kept as it is, with its meaning in the page's language."""
    return {"terms": terms.rating_terms(*symbols)}
