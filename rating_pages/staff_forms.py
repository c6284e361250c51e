"""Forms of the staff's rating pages: they parse input; the services decide and write.

A rating system's parameters are one field each, named as the engine names them; each value is
checked by the engine's own configuration (the rules live there), its message shown on its field.
"""
import dataclasses
import datetime as dt
import typing

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from rating_engines.glicko import config as glicko_config
from rating_engines.knsb import config as knsb_config
from rating_engines.naf_elo import config as elo_config
from ratings.choices import Method
from ratings.configuration import engine
from tournaments.forms import DATE, NUMBER
from tournaments.models import Race, Variant

if typing.TYPE_CHECKING:
    from ratings.models import RatingSystem

CONFIG_MODULES = {Method.NAF_ELO: elo_config, Method.GLICKO: glicko_config, Method.KNSB: knsb_config}
# set on the rating system itself, not among its parameters
RESERVED = {"per_race", "variants", "excluded_races"}
# the form's own names and Django's token: anything else posted is not a field of this form
OWN_FIELDS = {"inactive_after_months", "variants", "excluded_races", "csrfmiddlewaretoken"}

# (label, help) of each parameter, in the words of the spec (the default is added from the engine)
WORDING = {
    Method.NAF_ELO: {
        "start_rating": (_("Start rating"), _("Where a ranking starts the first time a coach plays that race at a sanctioned event.")),
        "non_major_max": (_("Non-major MAX"), _("K = 2·√min(N, MAX), N the NAF coaches in the tournament: MAX of a non-major "
                          "(the old code used 30).")),
        "major_coaches": (
            _("Coaches of a major"), _("Majors (and Nationals) are always treated as this many coaches, however many attend."),
        ),
        "round_k": (_("Round K"), _("Round K to an integer, as the federation's old site code did (K = 11 for any non-major with "
                    "28+ coaches, 15 for majors).")),
        "conceder_loses": (_("Conceder loses"), _("Treat a conceded game as a loss whatever the score.")),
        "k_scale": (_("K scale"), _("A multiplier on K (1: the spec's K); the parameter search on the accuracy page tries others.")),
    },
    Method.GLICKO: {
        "mu0": ("μ0", _("The rating a new rating starts at.")),
        "phi0": ("φ0", _("The deviation a new rating starts at; idle decay stops here unless φ cap is set.")),
        "sigma0": ("σ0", _("The volatility a new rating starts at.")),
        "tau": ("τ", _("The system constant: how fast the volatility may change.")),
        "period": (_("Rating period"), _("Calendar months by game date, two-week periods (Monday to Sunday), or each event.")),
        "period_anchor": (_("First two-week period"), _("The Monday two-week periods are counted from.")),
        "value_phi_multiplier": (_("φ multiplier of the value"), _("Displayed ranking value: μ − multiplier·φ.")),
        "inactive_phi": (_("Inactive above φ"), _("A rating with φ above this is inactive: it keeps its value but gets no rank.")),
        "phi_cap": (_("φ cap"), _("Idle decay φ = √(φ² + σ²) stops here; empty: at φ0.")),
        "cross_race_start": (_("New race from the coach's others"), _("A coach with at least 2 existing race ratings starts a new race at "
                             "the median of their μ and the largest of their φ (otherwise μ0, φ0).")),
    },
    Method.KNSB: {
        "sigma": ("σ", _("We = Φ((R0 − Rc)/σ); the spec's σ is 2000/7 ≈ 285.714.")),
        "we_table": (_("We from the table"), _("Use We rounded to 3 decimals, as in the printed table.")),
        "lpr_margin": (_("LPR margin"), _("Allow LPR ± this margin before LPR-limitering.")),
        "depot_min_games": (
            _("Depot games for a start rating"), _("An unrated player gets a start rating once the depot holds this many games."),
        ),
        "depot_months": (_("Depot months"), _("Depot games older than this many months expire.")),
        "nv_cap": (_("Nv cap"), _("Nv, the number of games a rating rests on, is capped here.")),
        "bootstrap_rating": (_("Bootstrap rating"), _("While a player is unrated, a game against another unrated player goes into "
                             "the depot with Rc = this rating; empty: no bootstrap.")),
        "junior_age": (
            _("Junior age"), _("Juniors (this age or under in the list year): threshold 30 games, floor 40; empty: no junior rule."),
        ),
        "initial_list": (_("Imported list"), _("An existing list, one coach a line: number; rating; games; birth year (the birth year "
                         "may be left out). In force from the first list.")),
    },
}


def _engine_message(error: ValueError, owner: str, name: str) -> str:
    """The engine's message without the "Config.name: " it starts with (the field names it already)."""
    return str(error).removeprefix(f"{owner}.{name}: ")


def _plain_number(value):
    return int(value) if isinstance(value, float) and value.is_integer() else value


# what is wrong with each part of an imported list's line that is not a number, whole
ENTRY_PROBLEMS = (
    _("the number “%(part)s” is not a whole number."), _("the rating “%(part)s” is not a number."),
    _("the games “%(part)s” is not a whole number."), _("the birth year “%(part)s” is not a whole number."),
)


class ImportedListField(forms.CharField):
    """The KNSB imported list: one "number; rating; games; birth year" line per coach, each bad line named."""

    widget = forms.Textarea(attrs={"rows": 6, "class": "code"})

    def to_python(self, value) -> list:
        entries, problems, lines_of = [], [], {}
        for number, line in enumerate((value or "").splitlines(), start=1):
            if not line.strip():
                continue
            parts = [part.strip() for part in line.split(";")]
            entry = self._entry(parts)
            if isinstance(entry, str):
                problems.append(
                    gettext("Line %(number)s (%(line)s): %(problem)s") % {"number": number, "line": line.strip(), "problem": entry}
                )
                continue
            try:  # the engine's own rule for an entry (games at least 1, say)
                knsb_config.KnsbConfig.from_params({"initial_list": [entry]})
            except ValueError as error:
                problems.append(gettext("Line %(number)s (%(line)s): %(problem)s") % {
                    "number": number, "line": line.strip(), "problem": _engine_message(error, "KnsbConfig", "initial_list"),
                })
                continue
            if entry[0] in lines_of:
                problems.append(gettext("Line %(number)s (%(line)s): coach %(coach)s is on line %(other)s already.") % {
                    "number": number, "line": line.strip(), "coach": entry[0], "other": lines_of[entry[0]],
                })
                continue
            lines_of[entry[0]] = number
            entries.append(entry)
        if problems:
            raise ValidationError(problems)
        return entries

    @staticmethod
    def _entry(parts: list[str]) -> list | str:
        """[number, rating, games(, birth year)], or what is wrong with the line."""
        if len(parts) == 4 and not parts[3]:
            parts = parts[:3]  # "12; 1500; 30;": no birth year
        if len(parts) not in (3, 4):
            return gettext("give number; rating; games; birth year (the birth year may be left out).")
        entry = []
        for part, problem, kind in zip(parts, ENTRY_PROBLEMS, (int, float, int, int), strict=False):
            try:
                entry.append(kind(part))
            except ValueError:
                return str(problem) % {"part": part}
        return entry


def _with_default(help_text: str, default) -> str:
    """A parameter's help text, then its default (a tuple's default, a list, is not shown)."""
    shown = gettext("none") if default is None else default.isoformat() if isinstance(default, dt.date) else _plain_number(default)
    default_text = gettext("Default: %(value)s.") % {"value": shown} if not isinstance(default, tuple) else ""
    return " ".join(part for part in (str(help_text), default_text) if part)


def _typed_field(kind, attrs: dict, common: dict) -> forms.Field | None:
    """The field of a number or date parameter (None: of another type)."""
    if kind is int:
        return forms.IntegerField(widget=forms.NumberInput(attrs={**attrs, "inputmode": "numeric"}), **common)
    if kind is float:
        return forms.FloatField(widget=forms.NumberInput(attrs={**attrs, "step": "any", "inputmode": "decimal"}), **common)
    if kind is dt.date:
        return forms.DateField(widget=DATE, **common)
    return None


class RatingSystemForm(forms.Form):
    inactive_after_months = forms.IntegerField(required=False, min_value=1, max_value=240, widget=NUMBER,
                                               label=_("Inactive after months"))
    variants = forms.ModelMultipleChoiceField(queryset=Variant.objects.all(), required=False,
                                              widget=forms.CheckboxSelectMultiple, help_text=_("None ticked: every variant."),
                                              label=_("Variants"))
    excluded_races = forms.ModelMultipleChoiceField(queryset=Race.objects.order_by("name"), required=False,
                                                    widget=forms.CheckboxSelectMultiple, label=_("Excluded races"))

    def __init__(self, *args, system: "RatingSystem", **kwargs):
        super().__init__(*args, **kwargs)
        self.system = system
        _, self.config_class = engine(system.method)
        module, wording = CONFIG_MODULES[system.method], WORDING[system.method]
        self.hints = hints = typing.get_type_hints(self.config_class)
        self.parameter_fields = {}
        for spec in dataclasses.fields(self.config_class):
            if spec.name in RESERVED:
                continue
            label, help_text = wording.get(spec.name, (spec.name, ""))
            field = self._field(spec, hints[spec.name], module, label, help_text)
            self.parameter_fields[spec.name] = spec
            self.fields[spec.name] = field
        # the parameters first, in the engine's order, then the system's own settings
        self.order_fields([*self.parameter_fields, "inactive_after_months", "variants", "excluded_races"])

    @staticmethod
    def _field(spec, hint, module, label: str, help_text: str) -> forms.Field:
        optional = type(None) in typing.get_args(hint)
        kind = next((arg for arg in typing.get_args(hint) if arg is not type(None)), hint) if optional else hint
        low, high = getattr(module, "PARAMETER_RANGES", {}).get(spec.name, (None, None))
        choices = getattr(module, "PARAMETER_CHOICES", {}).get(spec.name)
        common = {"label": label, "help_text": _with_default(help_text, spec.default), "required": False}
        attrs = {"class": "narrow", **({"min": low} if low is not None else {}), **({"max": high} if high is not None else {})}
        if kind is bool:
            return forms.BooleanField(**common)
        if choices:
            return forms.ChoiceField(choices=[(choice, choice.replace("_", " ")) for choice in choices], **{**common, "required": True})
        field = _typed_field(kind, attrs, common)
        if field is not None:
            return field
        if spec.name == "initial_list":
            return ImportedListField(**common)
        raise TypeError(f"{spec.name}: the staff's form has no field for {hint}")

    @classmethod
    def for_system(cls, system: "RatingSystem", data=None):
        """The form of this system, its current values filled in (the engine's default where none is stored)."""
        _, config_class = engine(system.method)
        stored = {name: value for name, value in (system.parameters or {}).items() if name not in RESERVED}
        try:
            current = config_class.from_params(stored).as_params()
        except (TypeError, ValueError):  # stored before the engine checked them: show the defaults, and what is stored
            current = config_class().as_params()
        initial = {name: current[name] for name in current if name not in RESERVED}
        if "initial_list" in initial:
            initial["initial_list"] = "\n".join("; ".join(str(_plain_number(part)) for part in entry if part is not None)
                                                for entry in initial["initial_list"])
        initial.update(inactive_after_months=system.inactive_after_months, variants=list(system.variants.all()),
                       excluded_races=list(system.excluded_races.all()))
        return cls(data, system=system, initial=initial)

    def clean(self):
        cleaned = super().clean()
        unknown = sorted(set(self.data) - set(self.fields) - OWN_FIELDS) if self.is_bound else []
        if unknown:
            raise ValidationError(gettext("This form has no field %(fields)s: nothing is saved. Reload the page and try again.")
                                  % {"fields": ", ".join(unknown)})
        owner = self.config_class.__name__
        for name, spec in self.parameter_fields.items():
            if name not in cleaned:
                continue  # its field has its message already
            value = cleaned[name]
            if value is None and spec.default is not None and not self._optional(name):
                value = spec.default  # left empty: the engine's default
            if name == "initial_list":
                value = value or []
            cleaned[name] = value = value.isoformat() if isinstance(value, dt.date) else value
            try:  # the engine's own rule for this one value, as it will be stored
                self.config_class.from_params({name: value})
            except (TypeError, ValueError) as error:
                self.add_error(name, _engine_message(error, owner, name))
        return cleaned

    def _optional(self, name: str) -> bool:
        return type(None) in typing.get_args(self.hints[name])

    def changes(self) -> dict:
        """What rating_system_update takes: the parameters (each value stored if it is not the engine's
        default, or was stored before), and the system's own settings."""
        defaults = self.config_class().as_params()
        stored = self.system.parameters or {}
        parameters = {
            name: self.cleaned_data[name] for name in self.parameter_fields
            if self.cleaned_data[name] != defaults[name] or name in stored
        }
        return {
            "parameters": parameters, "inactive_after_months": self.cleaned_data["inactive_after_months"],
            "variants": self.cleaned_data["variants"], "excluded_races": self.cleaned_data["excluded_races"],
        }
