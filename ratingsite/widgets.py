"""The select of every filter on the site: one template for the whole <select>, not one per option.

Django's Select renders two templates and builds an option dictionary for each option; a country
select carries 250 of them, and that cost more than the query behind the page. The markup is the
same as Django's (without its line breaks).
"""
from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.template.loader import get_template

Options = list[tuple[str, str]]


class FastSelect(forms.Select):
    """A single select of plain (value, label) options, drawn by templates/widgets/select.html.

    `cache`, if given, is called with the function that lists the options and returns them (from a
    cache); option groups fall back to Django's own rendering.
    """

    template = "widgets/select.html"

    def __init__(self, attrs=None, choices=(), *, cache: Callable[[Callable[[], Options]], Options] | None = None):
        super().__init__(attrs, choices)
        self.cache = cache

    def choice_pairs(self) -> Options:
        """The (value, label) pairs, as text; None as a value is the empty choice."""
        def build():
            return [
                ("" if value is None else str(value), label if isinstance(label, (list, tuple)) else str(label))
                for value, label in self.choices
            ]
        return self.cache(build) if self.cache else build()

    def render(self, name, value, attrs=None, renderer=None):
        options = self.choice_pairs()
        if any(isinstance(label, (list, tuple)) for _, label in options):
            return super().render(name, value, attrs, renderer)
        chosen = set(self.format_value(value))
        marked, found = [], False
        for option_value, label in options:
            selected = not found and option_value in chosen  # a single select: only the first match
            found |= selected
            marked.append((option_value, label, selected))
        return get_template(self.template).render({"name": name, "attrs": self.build_attrs(self.attrs, attrs), "options": marked})
