"""Filters of the public lists: every value lives in the query string, so any view is a shareable link."""
from collections.abc import Callable
from functools import partial

import django_filters
from django import forms
from django.core.cache import cache
from django.db import connection
from django.db.models import Q
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django_countries import countries

from ratings.choices import RunStatus, Trigger
from ratings.selectors import event_years, staff_systems
from ratingsite.widgets import FastSelect
from tournaments.models import Coach, Event, EventStatus, Race, Variant, Visibility
from tournaments.selectors import coach_search_q

CHOICES_TIMEOUT = 300  # seconds; saving a race, variant, coach or event drops them at once (in this process's cache)


def _choices_key(name: str) -> str:
    return f"filter-choices:{cache.get_or_set('filter-choices-version', 0, None)}:{get_language()}:{name}"


def cached_choices(name: str, build: Callable[[], list]) -> list:
    """Options of a filter that change rarely (races, variants, nationalities), kept in the cache:
    reading and naming them was a fifth of a ranking page."""
    return cache.get_or_set(_choices_key(name), build, CHOICES_TIMEOUT)


def forget_choices(**kwargs) -> None:
    """Signal receiver: a saved race, variant, coach or event (sanctioned, rejected) may change the options."""
    try:
        cache.incr("filter-choices-version")
    except ValueError:  # no version yet
        cache.set("filter-choices-version", 1, None)


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
    """The countries public events were held in (a distinct over every event, and each name translated:
    a fifth of the event list's page)."""
    return cached_choices(
        "event-countries", lambda: _named(Event.objects.public().order_by().values_list("country", flat=True).distinct()),
    )


def event_year_choices() -> list[int]:
    """The years with public events, newest first."""
    return cached_choices("event-years", event_years)


class RankingFilter(django_filters.FilterSet):
    """Filters of a ranking (current or a stored list): variant, race, country, active only, name."""

    variant = django_filters.ModelChoiceFilter(
        queryset=Variant.objects.order_by("name"), to_field_name="slug", empty_label=_("All variants"), label=_("Variant"),
        widget=FastSelect(cache=partial(cached_choices, "variants")), method="filter_variant",
    )
    race = django_filters.ModelChoiceFilter(
        # the ranked races: only they are rated (an unranked roster's games count for no one)
        queryset=Race.objects.filter(ranked=True).order_by("name"), to_field_name="slug", empty_label=_("All races"),
        label=_("Race"), widget=FastSelect(cache=partial(cached_choices, "ranked-races")),
    )
    country = django_filters.ChoiceFilter(
        field_name="coach__nationality", choices=coach_countries, empty_label=_("All countries"), label=_("Nationality"),
        widget=FastSelect, method="filter_country",
    )
    active = django_filters.BooleanFilter(
        method="filter_active", widget=forms.CheckboxInput, label=_("Ranked only (hide “-” entries)")
    )
    name = django_filters.CharFilter(method="filter_name", label=_("Coach name or number"), max_length=100)

    def __init__(self, *args, per_race: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        # a list, not the callable: Django would run the query again for validation and for rendering
        self.filters["country"].extra["choices"] = coach_countries()
        if not per_race:
            # a pooled system has no race in its keys
            del self.filters["race"]

    def filter_country(self, queryset, name, value):
        # a hidden coach shows no nationality, so no country finds him either
        return queryset.filter(**{name: value}).exclude(coach__visibility=Visibility.HIDDEN) if value else queryset

    def filter_variant(self, queryset, name, value):
        return queryset.of_variant(value) if value else queryset

    def filter_active(self, queryset, name, value):
        return queryset.filter(rank__isnull=False) if value else queryset

    def filter_name(self, queryset, name, value):
        return queryset.filter(self.name_q(value)) if value.strip() else queryset

    def name_q(self, value: str) -> Q:
        """The entries whose coach the search finds (coach_search_q: words in any order, any case or accents)."""
        return coach_search_q(value, path="coach__", public=True)


class PublishedRankingFilter(RankingFilter):
    """The same filters over a list as published: its coach, race and variant are the number, slug and
    name of the day (ratings.models.PublishedEntry)."""

    country = django_filters.ChoiceFilter(
        field_name="nationality", choices=coach_countries, empty_label=_("All countries"), label=_("Nationality"), widget=FastSelect,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("variant", "race"):
            if name in self.filters:
                self.filters[name].method = f"filter_{name}"

    def name_q(self, value: str) -> Q:
        """The entries of the coaches the search finds today, and those whose name of the day holds the text."""
        value = value.strip()
        today = Coach.objects.filter(coach_search_q(value, public=True)).values("number")
        found = Q(coach_number__in=today) | Q(coach_name__icontains=value)
        if value.isascii() and value.isdigit():  # a number merged away since is no coach today
            found |= Q(coach_number=int(value))
        return found

    def filter_variant(self, queryset, name, value):
        return queryset.filter(variant_slug=value.slug) if value else queryset

    def filter_race(self, queryset, name, value):
        return queryset.filter(race_slug=value.slug) if value else queryset


class CoachFilter(django_filters.FilterSet):
    """Filters of the coach directory: a search by name or number, and a nationality."""

    q = django_filters.CharFilter(method="filter_q", label=_("Name or number"), max_length=100)
    country = django_filters.ChoiceFilter(
        field_name="nationality", choices=coach_countries, empty_label=_("All countries"), label=_("Country"), widget=FastSelect,
        method="filter_country",
        error_messages={"invalid_choice": _("No coach has the nationality “%(value)s”: choose a country from the list.")},
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # a list, not the callable: Django would run the query again for validation and for rendering
        self.filters["country"].extra["choices"] = coach_countries()

    def filter_q(self, queryset, name, value):
        return queryset.filter(coach_search_q(value, public=True)) if value.strip() else queryset

    def filter_country(self, queryset, name, value):
        # a hidden coach shows no nationality, so no country finds him either
        return queryset.filter(nationality=value).exclude(visibility=Visibility.HIDDEN) if value else queryset


class EventFilter(django_filters.FilterSet):
    """Filters of the event list: year, country, variant, major, status (sanctioned by default). The
    list holds public events only: drafts, submitted and rejected events are their organiser's and the staff's."""

    STATUS_CHOICES = [
        (EventStatus.SANCTIONED, _("Sanctioned")),
        (EventStatus.OPEN_PLAY, _("Open play (unsanctioned, never rated)")),
        ("any", _("Sanctioned and open play")),
    ]

    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label=_("Name"), max_length=100)
    year = django_filters.ChoiceFilter(field_name="start_date", lookup_expr="year", empty_label=_("All years"), label=_("Year"))
    country = django_filters.ChoiceFilter(
        field_name="country", choices=event_countries, empty_label=_("All countries"), label=_("Country"),
    )
    variant = django_filters.ModelChoiceFilter(
        queryset=Variant.objects.order_by("name"), to_field_name="slug", empty_label=_("All variants"), label=_("Variant"),
    )
    major = django_filters.BooleanFilter(method="filter_major", widget=forms.CheckboxInput, label=_("Majors only"))
    status = django_filters.ChoiceFilter(
        method="filter_status", choices=STATUS_CHOICES, empty_label=None, label=_("Status")
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


class RunFilter(django_filters.FilterSet):
    system = django_filters.ModelChoiceFilter(queryset=staff_systems(), field_name="system", label=_("System"))
    status = django_filters.ChoiceFilter(choices=RunStatus.choices, label=_("Status"))
    trigger = django_filters.ChoiceFilter(choices=Trigger.choices, label=_("Trigger"))
