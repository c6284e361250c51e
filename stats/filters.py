"""The filters of the statistics pages: query parameters with the rankings' names and slugs.

`StatsFilter` validates them (a tampered value becomes a message, never an error page), filters the
games explorer's games itself, and hands the other pages a plain `Filters` value for the selectors.
"""
import functools
from dataclasses import dataclass, fields

import django_filters
from django import forms
from django.db.models import Max, Min, Q
from django.utils.translation import gettext_lazy as _
from django_countries import countries

from ratingsite.widgets import FastSelect
from tournaments.models import Coach, Event, EventStatus, Game, Race, Variant, Visibility, public_q

from .models import ROLL_UPS, SLICE
from .ordering import game_order

RACES_ALL = "all"
RACES_CHOICES = [(RACES_ALL, _("Every race and roster (ranked or not)"))]
SANCTIONED_CHOICES = [("yes", _("Sanctioned events only")), ("no", _("Open play only (unsanctioned, never rated)"))]
FIRST_YEAR, LAST_YEAR = 1980, 2100


@dataclass(frozen=True)
class Filters:
    """What a statistics page is restricted to; None or '' means no restriction."""

    variant: Variant | None = None
    country: str = ""
    year: int | None = None
    race: Race | None = None
    coach: Coach | None = None
    sanctioned: bool | None = None
    nationality: str = ""
    event: Event | None = None
    min_games: int | None = None
    races: str = ""  # "all": every race and roster; otherwise the ranked races only

    def slice_q(self, *, race: bool = True, coach: bool = True, rolled_up: bool = True) -> Q:
        """The restriction on a summary table (columns variant, country, year, sanctioned, race, coach).

        With `rolled_up`, the rows of the roll-up level stored for the filters set (their other slice
        columns NULL), or the base rows (no NULL) when none is stored: the caller adds them up per
        coach or race either way. Without it (EventSummary), an unset filter sets no condition.
        """
        chosen = {column for column in SLICE if getattr(self, column) not in (None, "")}
        stored = frozenset(chosen) in ROLL_UPS
        q = Q()
        for column in SLICE:
            if column in chosen:
                q &= Q(**{column: getattr(self, column)})
            elif rolled_up:
                q &= Q(**{f"{column}__isnull": stored})
        if race and self.race is not None:
            q &= Q(race=self.race)
        if coach and self.coach is not None:
            q &= Q(coach=self.coach)
        if self.nationality:
            q &= of_nationality(self.nationality)
        return q

    def event_q(self, prefix: str = "event__") -> Q:
        """The restriction on the events of games, sides or awards (`prefix` is the path to the event):
        public events only, whatever the filters."""
        q = public_q(prefix)
        if self.variant is not None:
            q &= Q(**{f"{prefix}variant": self.variant})
        if self.country:
            q &= Q(**{f"{prefix}country": self.country})
        if self.year is not None:
            q &= Q(**{f"{prefix}start_date__year": self.year})
        if self.sanctioned is True:
            q &= Q(**{f"{prefix}status": EventStatus.SANCTIONED})
        elif self.sanctioned is False:
            q &= ~Q(**{f"{prefix}status": EventStatus.SANCTIONED})
        if self.event is not None:
            q &= Q(**{prefix.removesuffix("__") or "pk": self.event})
        return q

    @property
    def ranked_only(self) -> bool:
        """Whether race views show the ranked races only: the default (hundreds of online roster names
        otherwise), unless every race is asked for or the race chosen is not ranked."""
        return self.races != RACES_ALL and (self.race is None or self.race.ranked)

    def race_scope_q(self, *paths: str) -> Q:
        """The ranked races only, unless every race was asked for: a condition on each race path given."""
        q = Q()
        if self.ranked_only:
            for path in paths or ("race",):
                q &= Q(**{f"{path}__ranked": True})
        return q

    @property
    def is_empty(self) -> bool:
        return all(getattr(self, f.name) in (None, "") for f in fields(self))


class YearField(forms.IntegerField):
    default_error_messages = {"invalid": _("Enter a year as four digits, e.g. 2022.")}


class YearFilter(django_filters.Filter):
    field_class = YearField


class CountFilter(django_filters.Filter):
    field_class = forms.IntegerField


class CoachNumberField(forms.ModelChoiceField):
    """A coach by federation number, typed rather than chosen from thousands."""

    default_error_messages = {"invalid_choice": _("No coach has the federation number “%(value)s”.")}

    def __init__(self, **kwargs):
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "numeric", "size": 8}))
        kwargs.setdefault("queryset", Coach.objects.all())
        kwargs.setdefault("to_field_name", "number")
        kwargs.pop("empty_label", None)
        super().__init__(**kwargs)

    def to_python(self, value):
        if value not in self.empty_values and not str(value).strip().isdigit():
            raise forms.ValidationError(self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value})
        return super().to_python(value)


class CoachNumberFilter(django_filters.ModelChoiceFilter):
    field_class = CoachNumberField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("queryset", Coach.objects.all())
        kwargs.setdefault("to_field_name", "number")
        super().__init__(*args, **kwargs)


def _slug_choice(model, label: str, empty: str, unknown: str) -> django_filters.ModelChoiceFilter:
    return django_filters.ModelChoiceFilter(
        queryset=model.objects.all(), to_field_name="slug", label=label, empty_label=empty, method="filter_games", widget=FastSelect,
        error_messages={"invalid_choice": unknown},
    )


def _countries():
    return list(countries)


def _country_choice(label: str, empty: str) -> django_filters.ChoiceFilter:
    return django_filters.ChoiceFilter(
        choices=_countries, label=label, empty_label=empty, method="filter_games", widget=FastSelect,
        error_messages={"invalid_choice": _("“%(value)s” is not a country code (use two letters, e.g. NL).")},
    )


class StatsFilter(django_filters.FilterSet):
    """Every filter a statistics page may offer; a page keeps only the ones it names."""

    variant = _slug_choice(Variant, _("Variant"), _("All variants"), _("No variant is called “%(value)s”."))
    country = _country_choice(_("Event country"), _("All countries"))
    year = YearFilter(
        label=_("Year"), method="filter_games",
        min_value=FIRST_YEAR, max_value=LAST_YEAR, widget=forms.NumberInput(attrs={"size": 5}),
    )
    race = _slug_choice(Race, _("Race"), _("All races"), _("No race is called “%(value)s”."))
    coach = CoachNumberFilter(label=_("Coach (federation number)"), method="filter_games")
    sanctioned = django_filters.ChoiceFilter(
        choices=SANCTIONED_CHOICES, label=_("Sanctioned"), empty_label=_("All recorded games"), method="filter_games", widget=FastSelect,
        error_messages={"invalid_choice": _("Sanctioned is “yes”, “no” or empty, not “%(value)s”.")},
    )
    nationality = _country_choice(_("Coach nationality"), _("All nationalities"))
    min_games = CountFilter(
        label=_("Minimum games"), method="filter_games", min_value=0,
        widget=forms.NumberInput(attrs={"size": 5}),
    )
    races = django_filters.ChoiceFilter(
        choices=RACES_CHOICES, label=_("Races"), empty_label=_("Ranked races"), method="filter_races", widget=FastSelect,
        error_messages={"invalid_choice": _("Races is “all” or empty (the ranked races), not “%(value)s”.")},
    )
    event = django_filters.ModelChoiceFilter(
        queryset=Event.objects.public(), label=_("Event (number)"), method="filter_games",
        widget=forms.TextInput(attrs={"inputmode": "numeric", "size": 8}),
        error_messages={"invalid_choice": _("No event has the number “%(value)s”.")},
    )

    class Meta:
        model = Game  # the games explorer's rows; the other pages only read value()
        fields = []

    def __new__(cls, *args, names: tuple[str, ...] | None = None, **kwargs):
        return super().__new__(cls._keeping(names) if names is not None else cls)

    def __init__(self, data=None, *args, names: tuple[str, ...] | None = None, **kwargs):
        super().__init__(data, *args, **kwargs)
        race = self.form.fields.get("race")
        if race is not None and (data or {}).get("races") != RACES_ALL:
            # the ranked races to choose from, and an unranked one only when it is asked for by its slug
            asked = (data or {}).get("race") or ""
            race.widget.choices = [
                (str(value), label) for value, label in race.choices if not value or str(value) == asked or value.instance.ranked
            ]

    @classmethod
    @functools.cache
    def _keeping(cls, names: tuple[str, ...]):
        """A subclass with only the named filters, made once: each request copies only those."""
        keeping = type(cls.__name__, (cls,), {"__module__": cls.__module__})
        keeping.base_filters = {name: cls.base_filters[name] for name in names}
        return keeping

    def value(self) -> Filters:
        """The valid filters as a plain value (call after is_valid())."""
        data = {name: value for name, value in self.form.cleaned_data.items() if value not in (None, "")}
        if "sanctioned" in data:
            data["sanctioned"] = data["sanctioned"] == "yes"
        return Filters(**data)

    def messages(self) -> list[str]:
        """The errors of a tampered or mistyped query string, one sentence each."""
        return [
            f"{self.form.fields[name].label}: {error}" if name in self.form.fields else str(error)
            for name, errors in self.form.errors.items()
            for error in errors
        ]

    def filter_races(self, queryset, name, value):
        """Which races the race views list: the games explorer lists every game whatever it is."""
        return queryset

    def filter_games(self, queryset, name, value):
        """Applied to games (the explorer): each filter on the game's event, coaches or races."""
        if name == "race":
            coach = self.form.cleaned_data.get("coach")
            if coach is not None:  # the chosen coach's race, not his opponent's
                return queryset.filter(Q(home_coach=coach, home_race=value) | Q(away_coach=coach, away_race=value))
            return queryset.filter(Q(home_race=value) | Q(away_race=value))
        if name == "coach":
            # Sorted as a few games (see game_order): the database reads them through the coach indexes.
            return queryset.filter(Q(home_coach=value) | Q(away_coach=value)).order_by(*game_order(descending=True, few=True))
        if name == "year":
            # The same games, but bounded by time too, so the newest-first order need not scan other years.
            bounds = Game.objects.filter(event__start_date__year=value).aggregate(first=Min("played_at"), last=Max("played_at"))
            if bounds["first"] is None:
                return queryset.none()
            return queryset.filter(Filters(year=value).event_q(), played_at__range=(bounds["first"], bounds["last"]))
        if name == "nationality":
            return queryset.filter(of_nationality(value, "home_coach__") | of_nationality(value, "away_coach__"))
        return queryset.filter(Filters(**{name: _plain(name, value)}).event_q())


def of_nationality(code: str, prefix: str = "coach__") -> Q:
    """The coaches of this nationality the public may know of: a hidden coach shows none, so no country finds him."""
    return Q(**{f"{prefix}nationality": code}) & ~Q(**{f"{prefix}visibility": Visibility.HIDDEN})


def _plain(name: str, value):
    return value == "yes" if name == "sanctioned" else value
