"""Filters of the public lists: every value lives in the query string, so any view is a shareable link."""
from collections.abc import Callable

import django_filters
from django import forms
from django.core.cache import cache
from django.db import connection
from django.db.models import Q
from django.forms.utils import flatatt
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django_countries import countries

from tournaments.models import Coach, Event, EventStatus, Race, Variant


CHOICES_TIMEOUT = 300  # seconds; saving a race, variant or coach drops them at once (in this process's cache)


def _choices_key(name: str) -> str:
    return f"filter-choices:{cache.get_or_set('filter-choices-version', 0, None)}:{get_language()}:{name}"


def cached_choices(name: str, build: Callable[[], list]) -> list:
    """Options of a filter that change rarely (races, variants, nationalities), kept in the cache:
    reading and naming them was a fifth of a ranking page."""
    return cache.get_or_set(_choices_key(name), build, CHOICES_TIMEOUT)


def forget_choices(**kwargs) -> None:
    """Signal receiver: a saved race, variant or coach may change the options."""
    try:
        cache.incr("filter-choices-version")
    except ValueError:  # no version yet
        cache.set("filter-choices-version", 1, None)


class QuickSelect(forms.Select):
    """A select whose options are written here instead of through two templates and an option
    dictionary each: a ranking's filters carry a hundred options, and rendering them the usual way
    cost a quarter of the page. The markup is the same as Django's. With `cached`, the options are
    read through `cached_choices` under that name."""

    def __init__(self, attrs=None, choices=(), *, cached: str | None = None):
        super().__init__(attrs, choices)
        self.cached = cached

    def _options(self) -> list[tuple[str, object]]:
        def build():
            return [
                ("" if value is None else str(value), label if isinstance(label, (list, tuple)) else str(label))
                for value, label in self.choices
            ]
        return cached_choices(self.cached, build) if self.cached else build()

    def render(self, name, value, attrs=None, renderer=None):
        options = self._options()
        if any(isinstance(label, (list, tuple)) for _, label in options):
            return super().render(name, value, attrs, renderer)  # option groups: Django's own rendering
        chosen = set(self.format_value(value))
        html, found = [], False
        for option_value, label in options:
            selected = not found and option_value in chosen
            found |= selected
            html.append(format_html('<option value="{}"{}>{}</option>', option_value, " selected" if selected else "", label))
        return format_html('<select name="{}"{}>', name, flatatt(self.build_attrs(self.attrs, attrs))) + mark_safe(
            "".join(html) + "</select>"
        )


def _named(codes) -> list[tuple[str, str]]:
    return sorted(((code, countries.name(code) or code) for code in codes if code), key=lambda c: c[1])


# Each next distinct value found on the nationality index (a loose index scan): a few dozen index
# probes instead of reading every coach, as SELECT DISTINCT does on every ranking page.
_NATIONALITIES_SQL = """
WITH RECURSIVE found(code) AS (
    SELECT MIN(nationality) FROM {table} WHERE nationality > ''
    UNION ALL
    SELECT (SELECT MIN(nationality) FROM {table} WHERE nationality > found.code) FROM found WHERE found.code IS NOT NULL
)
SELECT code FROM found WHERE code IS NOT NULL
"""


def coach_countries() -> list[tuple[str, str]]:
    """The nationalities coaches have (not all 250 countries: a shorter select renders faster)."""
    def build():
        with connection.cursor() as cursor:
            cursor.execute(_NATIONALITIES_SQL.format(table=Coach._meta.db_table))
            return _named(code for (code,) in cursor.fetchall())
    return cached_choices("coach-countries", build)


def event_countries() -> list[tuple[str, str]]:
    """The countries events were held in."""
    return _named(Event.objects.order_by().values_list("country", flat=True).distinct())


class RankingFilter(django_filters.FilterSet):
    """Filters of a ranking (current or a stored list): variant, race, country, active only, name."""

    variant = django_filters.ModelChoiceFilter(
        queryset=Variant.objects.order_by("name"), to_field_name="slug", empty_label="All variants",
        widget=QuickSelect(cached="variants"),
    )
    race = django_filters.ModelChoiceFilter(
        queryset=Race.objects.order_by("name"), to_field_name="slug", empty_label="All races",
        widget=QuickSelect(cached="races"),
    )
    country = django_filters.ChoiceFilter(
        field_name="coach__nationality", choices=coach_countries, empty_label="All countries", label="Nationality",
        widget=QuickSelect,
    )
    active = django_filters.BooleanFilter(
        method="filter_active", widget=forms.CheckboxInput, label="Ranked only (hide \u201c-\u201d entries)"
    )
    name = django_filters.CharFilter(method="filter_name", label="Coach name or number", max_length=100)

    def __init__(self, *args, per_race: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        # a list, not the callable: Django would run the query again for validation and for rendering
        self.filters["country"].extra["choices"] = coach_countries()
        if not per_race:
            # a pooled system has no race in its keys
            del self.filters["race"]

    def filter_active(self, queryset, name, value):
        return queryset.filter(rank__isnull=False) if value else queryset

    def filter_name(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        if value.isdigit():
            return queryset.filter(Q(coach__number=int(value)) | Q(coach__name__icontains=value))
        return queryset.filter(coach__name__icontains=value)


class EventFilter(django_filters.FilterSet):
    """Filters of the event list: year, country, variant, major, status (sanctioned by default)."""

    STATUS_CHOICES = [
        (EventStatus.SANCTIONED, "Sanctioned"),
        (EventStatus.SUBMITTED, "Submitted, awaiting sanction"),
        (EventStatus.REJECTED, "Rejected"),
        ("any", "Any status"),
    ]

    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label="Name", max_length=100)
    year = django_filters.ChoiceFilter(field_name="start_date", lookup_expr="year", empty_label="All years", label="Year")
    country = django_filters.ChoiceFilter(field_name="country", choices=event_countries, empty_label="All countries")
    variant = django_filters.ModelChoiceFilter(
        queryset=Variant.objects.order_by("name"), to_field_name="slug", empty_label="All variants"
    )
    major = django_filters.BooleanFilter(method="filter_major", widget=forms.CheckboxInput, label="Majors only")
    status = django_filters.ChoiceFilter(
        method="filter_status", choices=STATUS_CHOICES, empty_label=None, label="Status"
    )

    def __init__(self, data=None, *args, years=(), **kwargs):
        super().__init__(data, *args, **kwargs)
        self.filters["year"].extra["choices"] = [(str(y), str(y)) for y in years]
        self.filters["country"].extra["choices"] = event_countries()

    def filter_major(self, queryset, name, value):
        return queryset.filter(is_major=True) if value else queryset

    def filter_status(self, queryset, name, value):
        return queryset if value == "any" else queryset.filter(status=value)

    def filter_queryset(self, queryset):
        queryset = super().filter_queryset(queryset)
        if not self.form.cleaned_data.get("status"):
            # only sanctioned events unless asked otherwise
            queryset = queryset.filter(status=EventStatus.SANCTIONED)
        return queryset


class BreakdownForm(forms.Form):
    """Which rating key and period a breakdown shows."""

    race = forms.ModelChoiceField(queryset=Race.objects.order_by("name"), to_field_name="slug", required=False)
    variant = forms.ModelChoiceField(queryset=Variant.objects.order_by("name"), to_field_name="slug", required=False)
    period = forms.CharField(max_length=20, required=False)


SCORE_WORDS = {"w": 1.0, "win": 1.0, "d": 0.5, "draw": 0.5, "l": 0.0, "loss": 0.0, "½": 0.5, "1/2": 0.5}
MAX_RESULTS = 100


def parse_results(text: str) -> list[tuple[float, float | None, float]]:
    """Lines of "opponent rating [opponent φ] score" as (rating, φ or None, W); raises
    ValidationError listing every bad line by number."""
    results, errors = [], []
    lines = [line.strip() for line in text.replace(";", "\n").splitlines()]
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line]
    if len(numbered) > MAX_RESULTS:
        raise forms.ValidationError(f"At most {MAX_RESULTS} results, please (got {len(numbered)}).")
    for number, line in numbered:
        tokens = line.replace(",", " ").replace("\t", " ").split()
        if len(tokens) not in (2, 3):
            errors.append(f"Line {number} (“{line}”): give the opponent's rating, optionally their φ, then the score.")
            continue
        score_token = tokens[-1].lower()
        score = SCORE_WORDS.get(score_token)
        if score is None:
            try:
                score = float(score_token)
            except ValueError:
                score = None
        if score not in (0.0, 0.5, 1.0):
            errors.append(f"Line {number} (“{line}”): the score must be 1, 0.5 or 0 (or W, D, L).")
            continue
        try:
            rating = float(tokens[0])
            phi = float(tokens[1]) if len(tokens) == 3 else None
        except ValueError:
            errors.append(f"Line {number} (“{line}”): the opponent's rating (and φ) must be numbers.")
            continue
        if not -10_000 <= rating <= 10_000:
            errors.append(f"Line {number}: the opponent's rating must lie between −10000 and 10000.")
            continue
        if phi is not None and not 0 < phi <= 2_000:
            errors.append(f"Line {number}: the opponent's φ must be above 0 and at most 2000.")
            continue
        results.append((rating, phi, score))
    if errors:
        raise forms.ValidationError(errors)
    if not results:
        raise forms.ValidationError("Enter at least one result.")
    return results


class CalculatorForm(forms.Form):
    """The calculator's input: the player's rating(s) and a set of results."""

    rating = forms.FloatField(
        label="Your rating (NAF Elo CR, and KNSB Rl)", initial=1500, min_value=-10_000, max_value=10_000,
        help_text="All three methods depend on rating differences only: use any scale, e.g. CR 150 or 1500.",
    )
    results = forms.CharField(
        label="Results, one per line: opponent rating, [opponent φ,] score",
        widget=forms.Textarea(attrs={"rows": 6, "cols": 30, "placeholder": "1600 80 1\n1550 100 0\n1500 60 0.5"}),
        help_text="Score 1, 0.5 or 0 (or W, D, L). φ is used by Glicko only.",
    )
    coaches = forms.IntegerField(
        label="NAF coaches at the event (Elo K)", initial=20, min_value=1, max_value=10_000, required=False
    )
    major = forms.BooleanField(label="Major (Elo K as for 60 coaches)", required=False)
    mu = forms.FloatField(label="Glicko μ (empty: your rating)", required=False, min_value=-10_000, max_value=10_000)
    phi = forms.FloatField(label="Glicko φ", initial=350, min_value=0.001, max_value=2_000, required=False)
    sigma = forms.FloatField(label="Glicko σ", initial=0.06, min_value=0.0001, max_value=1, required=False)
    opponent_phi = forms.FloatField(
        label="Opponent φ where a line gives none", initial=80, min_value=0.001, max_value=2_000, required=False
    )
    nv = forms.IntegerField(
        label="KNSB Nv (games the rating rests on; 0: unrated, start rating from the depot)", initial=100,
        min_value=0, max_value=10_000, required=False,
    )

    def clean_results(self):
        return parse_results(self.cleaned_data["results"])

    def clean(self):
        cleaned = super().clean()
        for name in ("coaches", "phi", "sigma", "opponent_phi", "nv"):
            if cleaned.get(name) is None and name not in self.errors:
                cleaned[name] = self.fields[name].initial
        if cleaned.get("mu") is None and cleaned.get("rating") is not None:
            cleaned["mu"] = cleaned["rating"]
        return cleaned
