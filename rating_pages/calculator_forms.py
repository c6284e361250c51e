"""The calculator's input: the player's rating(s), a set of results, and every option of each method.

Each option starts at the value of the configured rating system; a value entered overrides it for
that one calculation (a changed copy of the configuration: nothing is stored).
"""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from rating_engines.glicko import GlickoConfig, GlickoRating
from rating_engines.knsb import KnsbConfig
from rating_engines.naf_elo import EloConfig
from rating_pages.presenters.about import idle_periods_label
from ratings.choices import Method
from tournaments.models import Coach, Race, Variant
from tournaments.selectors import coach_get

SCORE_WORDS = {"w": 1.0, "win": 1.0, "d": 0.5, "draw": 0.5, "l": 0.0, "loss": 0.0, "½": 0.5, "1/2": 0.5}
SWITCH_WORDS = {"on": True, "yes": True, "true": True, "1": True, "off": False, "no": False, "false": False, "0": False}
MAX_RESULTS = 100
MAX_RACE_RATINGS = 50
RATING_LIMIT = 10_000
PHI_LIMIT = 2_000

# form field -> configuration field it overrides, per method
OPTIONS = {
    Method.NAF_ELO: {"round_k": "round_k", "non_major_max": "non_major_max", "major_coaches": "major_coaches"},
    Method.GLICKO: {
        "tau": "tau", "phi_cap": "phi_cap", "cross_race_start": "cross_race_start",
        "value_phi_multiplier": "value_phi_multiplier", "inactive_phi": "inactive_phi",
    },
    Method.KNSB: {
        "lpr_margin": "lpr_margin", "we_table": "we_table", "knsb_sigma": "sigma", "nv_cap": "nv_cap",
        "depot_min_games": "depot_min_games",
    },
}
DEFAULT_CONFIGS = {Method.NAF_ELO: EloConfig, Method.GLICKO: GlickoConfig, Method.KNSB: KnsbConfig}
FIELDSETS = (
    (None, _("You and your results"), ("rating", "results")),
    (Method.NAF_ELO, "NAF Elo", ("coaches", "major", "round_k", "non_major_max", "major_coaches")),
    (Method.GLICKO, "Glicko", (
        "mu", "phi", "sigma", "opponent_phi", "idle_periods", "new_race", "existing_races", "tau", "phi_cap",
        "cross_race_start", "value_phi_multiplier", "inactive_phi",
    )),
    (Method.KNSB, "KNSB", ("rl", "nv", "junior", "lpr_margin", "we_table", "knsb_sigma", "nv_cap", "depot_min_games")),
)


class CalculatorResult(NamedTuple):
    """One result line: opponent's rating Rc (and φ), score W and, for a KNSB game played with an
    older list's rating (a late game), that list's R0 and Nv."""

    rc: float
    phi: float | None
    w: float
    r0: float | None = None
    nv: int | None = None


def above_zero(value):
    """Validator for the options the engines want strictly positive (τ, φ limits, KNSB σ)."""
    if value <= 0:
        raise ValidationError(gettext("Ensure this value is above 0."), code="min_value")


def _score(token: str) -> float | None:
    score = SCORE_WORDS.get(token.lower())
    if score is None:
        try:
            score = float(token)
        except ValueError:
            return None
    return score if score in (0.0, 0.5, 1.0) else None


def _numbered_lines(text: str, limit: int, too_many: str) -> list[tuple[int, str]]:
    """The lines that are not blank, by number; more than `limit` refused with `too_many` (a
    sentence with %(limit)s and %(count)s)."""
    lines = [line.strip() for line in text.replace(";", "\n").splitlines()]
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line]
    if len(numbered) > limit:
        raise ValidationError(too_many % {"limit": limit, "count": len(numbered)})
    return numbered


def _quoted(number: int, line: str) -> str:
    return gettext("Line %(number)s (“%(line)s”)") % {"number": number, "line": line}


def _parse_result(number: int, line: str) -> CalculatorResult:
    """One line "Rc [φ] W [R0=…] [Nv=…]"; raises ValidationError naming the line."""
    quoted = _quoted(number, line)
    positional, late = _tokens(quoted, line)
    if len(positional) not in (2, 3):
        raise ValidationError(gettext("%(line)s: give the opponent's rating, optionally their φ, then the score.") % {"line": quoted})
    score = _score(positional[-1])
    if score is None:
        raise ValidationError(gettext("%(line)s: the score must be 1, 0.5 or 0 (or W, D, L).") % {"line": quoted})
    rating, phi = _opponent(number, quoted, positional)
    return CalculatorResult(rating, phi, score, _late_r0(quoted, late), _late_nv(quoted, late))


def _tokens(quoted: str, line: str) -> tuple[list[str], dict[str, str]]:
    """A result line's positional tokens, and its R0=… and Nv=… (by lower-case name)."""
    positional, late = [], {}
    for token in line.replace(",", " ").replace("\t", " ").split():
        name, equals, value = token.partition("=")
        if not equals:
            positional.append(token)
        elif name.lower() in ("r0", "nv"):
            late[name.lower()] = value
        else:
            raise ValidationError(
                gettext("%(line)s: “%(token)s” is not known; a late KNSB game takes R0=… and Nv=….") % {"line": quoted, "token": token}
            )
    return positional, late


def _opponent(number: int, quoted: str, positional: list[str]) -> tuple[float, float | None]:
    """The opponent's rating and φ (None if not given) of a result line, each within its limits."""
    try:
        rating = float(positional[0])
        phi = float(positional[1]) if len(positional) == 3 else None
    except ValueError:
        raise ValidationError(gettext("%(line)s: the opponent's rating (and φ) must be numbers.") % {"line": quoted}) from None
    if not -RATING_LIMIT <= rating <= RATING_LIMIT:
        raise ValidationError(gettext("Line %(number)s: the opponent's rating must lie between −10000 and 10000.") % {"number": number})
    if phi is not None and not 0 < phi <= PHI_LIMIT:
        raise ValidationError(gettext("Line %(number)s: the opponent's φ must be above 0 and at most 2000.") % {"number": number})
    return rating, phi


def _late_r0(quoted: str, late: dict[str, str]) -> float | None:
    """A late KNSB game's R0= (the older list's rating), None if not given."""
    if "r0" not in late:
        return None
    try:
        r0 = float(late["r0"])
    except ValueError:
        r0 = None
    if r0 is None or not -RATING_LIMIT <= r0 <= RATING_LIMIT:
        raise ValidationError(
            gettext("%(line)s: R0= (the older list's rating of a late KNSB game) must be a number from −10000 to 10000.")
            % {"line": quoted}
        )
    return r0


def _late_nv(quoted: str, late: dict[str, str]) -> int | None:
    """A late KNSB game's Nv= (the older list's Nv), None if not given."""
    if "nv" not in late:
        return None
    nv = int(late["nv"]) if late["nv"].isdigit() else None
    if nv is None or not 1 <= nv <= RATING_LIMIT:
        raise ValidationError(
            gettext("%(line)s: Nv= (the older list's Nv of a late KNSB game) must be a whole number from 1 to 10000.")
            % {"line": quoted}
        )
    return nv


def parse_results(text: str) -> list[CalculatorResult]:
    """Lines of "opponent rating [opponent φ] score [R0=…] [Nv=…]"; raises ValidationError listing
    every bad line by number."""
    results, errors = [], []
    for number, line in _numbered_lines(text, MAX_RESULTS, gettext("At most %(limit)s results, please (got %(count)s).")):
        try:
            results.append(_parse_result(number, line))
        except ValidationError as error:
            errors.extend(error.messages)
    if errors:
        raise ValidationError(errors)
    if not results:
        raise ValidationError(gettext("Enter at least one result."))
    return results


def parse_race_ratings(text: str) -> list[GlickoRating]:
    """Lines of "μ φ": the coach's existing race ratings; raises ValidationError listing every bad line."""
    ratings, errors = [], []
    for number, line in _numbered_lines(
        text, MAX_RACE_RATINGS, gettext("At most %(limit)s race ratings, please (got %(count)s).")
    ):
        tokens = line.replace(",", " ").replace("\t", " ").split()
        try:
            mu, phi = (float(token) for token in tokens) if len(tokens) == 2 else (None, None)
        except ValueError:
            mu = phi = None
        if mu is None:
            errors.append(gettext("%(line)s: give the race rating's μ and φ, two numbers.") % {"line": _quoted(number, line)})
        elif not -RATING_LIMIT <= mu <= RATING_LIMIT or not 0 < phi <= PHI_LIMIT:
            errors.append(
                gettext("Line %(number)s: μ must lie between −10000 and 10000, φ above 0 and at most 2000.") % {"number": number}
            )
        else:
            ratings.append(GlickoRating(mu, phi))
    if errors:
        raise ValidationError(errors)
    return ratings


class OptionSwitch(forms.Field):
    """An option that is on or off; left empty, it is as the rating system is configured."""

    widget = forms.Select
    default_error_messages = {"invalid": _("Choose on or off, or leave it as configured.")}

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)
        self.configured_as(False)

    def configured_as(self, value: bool) -> None:
        configured = _("as configured (on)") if value else _("as configured (off)")
        self.widget.choices = [("", configured), ("on", pgettext_lazy("switch", "on")), ("off", pgettext_lazy("switch", "off"))]

    def to_python(self, value):
        if value in self.empty_values:
            return None
        switch = SWITCH_WORDS.get(str(value).strip().lower())
        if switch is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return switch

    def prepare_value(self, value):
        switch = SWITCH_WORDS.get(str(value).strip().lower()) if value not in self.empty_values else None
        return value if switch is None else ("on" if switch else "off")


class CalculatorForm(forms.Form):
    """The calculator's input. `configs` (method -> engine configuration) gives each option's
    default; cleaned_data["configs"] holds the configurations with the entered options applied."""

    rating = forms.FloatField(
        label=_("Your rating (NAF Elo CR)"), initial=1500, min_value=-RATING_LIMIT, max_value=RATING_LIMIT,
        help_text=_("Also the Glicko μ and the KNSB Rl where those are left empty. The scales differ: "
        "a NAF Elo CR starts at 150, Glicko and KNSB at 1500, and the KNSB k depends on the rating itself."),
    )
    results = forms.CharField(
        label=_("Results, one per line: opponent rating, [opponent φ,] score"),
        widget=forms.Textarea(attrs={"rows": 6, "cols": 30, "placeholder": "1600 80 1\n1550 100 0\n1500 60 0.5"}),
        help_text=_("Score 1, 0.5 or 0 (or W, D, L). φ is used by Glicko only. A KNSB game played with an "
        "older list's rating (a late game) adds R0=… (and that list's Nv=…), e.g. “1750 0.5 R0=1650”."),
    )
    coaches = forms.IntegerField(
        label=_("NAF coaches at the event (Elo K)"), initial=20, min_value=1, max_value=10_000, required=False
    )
    major = forms.BooleanField(label=_("Major (Elo K as for the major's number of coaches)"), required=False)
    round_k = OptionSwitch(label=_("K rounded to an integer (round_k)"))
    non_major_max = forms.IntegerField(
        label=_("Most coaches counted at a non-major (non_major_max)"), min_value=1, max_value=10_000, required=False
    )
    major_coaches = forms.IntegerField(
        label=_("Coaches a major counts as (major_coaches)"), min_value=1, max_value=10_000, required=False
    )
    mu = forms.FloatField(
        label=_("Glicko μ (empty: your rating)"), required=False, min_value=-RATING_LIMIT, max_value=RATING_LIMIT
    )
    phi = forms.FloatField(label=_("Glicko φ"), min_value=0.001, max_value=PHI_LIMIT, required=False)
    sigma = forms.FloatField(
        label=_("Glicko σ"), min_value=0.0001, max_value=1, required=False,
        help_text=_("Your volatility; a new race starts with it."),
    )
    opponent_phi = forms.FloatField(
        label=_("Opponent φ where a line gives none"), initial=80, min_value=0.001, max_value=PHI_LIMIT, required=False
    )
    idle_periods = forms.IntegerField(
        label=_("Idle periods before this one (decay)"), initial=0, min_value=0, max_value=1_200, required=False,
        help_text=_("φ grows with every rating period without games, up to the cap below."),
    )
    new_race = forms.BooleanField(
        label=_("A new race (start from your existing race ratings)"), required=False,
        help_text=_("μ and φ above are then not used."),
    )
    existing_races = forms.CharField(
        label=_("Your existing race ratings, one per line: μ φ"), required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 20, "placeholder": "1700 70\n1600 90"}),
        help_text=_("With at least two: the new race starts at their median μ and largest φ."),
    )
    tau = forms.FloatField(label=_("Glicko τ (tau)"), max_value=5, validators=[above_zero], required=False)
    phi_cap = forms.FloatField(
        label=_("Largest φ idle decay reaches (phi_cap)"), max_value=PHI_LIMIT, validators=[above_zero], required=False
    )
    cross_race_start = OptionSwitch(label=_("New race from the other races (cross_race_start)"))
    value_phi_multiplier = forms.FloatField(
        label=_("Ranking value μ − m·φ: m (value_phi_multiplier)"), min_value=0, max_value=10, required=False
    )
    inactive_phi = forms.FloatField(
        label=_("Ranked up to φ (inactive_phi)"), max_value=PHI_LIMIT, validators=[above_zero], required=False
    )
    rl = forms.FloatField(
        label=_("KNSB Rl (empty: your rating)"), required=False, min_value=-RATING_LIMIT, max_value=RATING_LIMIT
    )
    nv = forms.IntegerField(
        label=_("KNSB Nv (games the rating rests on; 0: unrated, start rating from the depot)"), initial=100,
        min_value=0, max_value=10_000, required=False,
    )
    junior = forms.BooleanField(label=_("Junior (KNSB k for juniors)"), required=False)
    lpr_margin = forms.FloatField(
        label=_("Rn may pass the LPR by (lpr_margin)"), min_value=0, max_value=RATING_LIMIT, required=False
    )
    we_table = OptionSwitch(label=_("We rounded as in the printed table (we_table)"))
    knsb_sigma = forms.FloatField(
        label=_("KNSB σ of the We curve (sigma)"), max_value=RATING_LIMIT, validators=[above_zero], required=False
    )
    nv_cap = forms.IntegerField(label=_("Nv at most (nv_cap)"), min_value=1, max_value=10_000, required=False)
    depot_min_games = forms.IntegerField(
        label=_("Depot games for a start rating (depot_min_games)"), min_value=1, max_value=1_000, required=False
    )

    def __init__(self, *args, configs: dict | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        configs = configs or {}
        self.configured = {method: method in configs for method in DEFAULT_CONFIGS}
        self.defaults = {method: configs.get(method) or cls() for method, cls in DEFAULT_CONFIGS.items()}
        for method, options in OPTIONS.items():
            config = self.defaults[method]
            for name, attribute in options.items():
                value = config.decay_cap if name == "phi_cap" else getattr(config, attribute)
                field = self.fields[name]
                if isinstance(field, OptionSwitch):
                    field.configured_as(value)
                else:
                    field.initial = value
                    field.widget.attrs["placeholder"] = f"{value:g}"
        glicko = self.defaults[Method.GLICKO]
        self.fields["phi"].initial = glicko.phi0
        self.fields["sigma"].initial = glicko.sigma0
        self.fields["idle_periods"].label = idle_periods_label(glicko)

    def fieldsets(self) -> list[tuple[str, list]]:
        """(legend, bound fields) of the input and of each configured method."""
        return [
            (legend, [self[name] for name in names])
            for method, legend, names in FIELDSETS
            if method is None or self.configured[method]
        ]

    def clean_results(self):
        return parse_results(self.cleaned_data["results"])

    def clean_existing_races(self):
        return parse_race_ratings(self.cleaned_data["existing_races"])

    def clean(self):
        cleaned = super().clean()
        self._fill_defaults(cleaned)
        self._check_combinations(cleaned)
        if not self.errors:
            try:
                cleaned["configs"] = self._configs(cleaned)
            except ValueError as error:  # the engine's own check, should a form limit let a value through
                raise ValidationError(str(error)) from None
        return cleaned

    def _fill_defaults(self, cleaned: dict) -> None:
        """Each option left empty as configured; μ and Rl, left empty, the rating entered."""
        for name in ("coaches", "phi", "sigma", "opponent_phi", "idle_periods", "nv"):
            if cleaned.get(name) is None and name not in self.errors:
                cleaned[name] = self.fields[name].initial
        for name in ("mu", "rl"):
            if cleaned.get(name) is None and cleaned.get("rating") is not None:
                cleaned[name] = cleaned["rating"]

    def _check_combinations(self, cleaned: dict) -> None:
        """The options that contradict each other, each refused on its field."""
        if cleaned.get("existing_races") and not cleaned.get("new_race"):
            self.add_error("existing_races", gettext("These are used for a new race only: tick “A new race” or leave them empty."))
        if cleaned.get("new_race") and cleaned.get("idle_periods"):
            self.add_error("idle_periods", gettext("A new race has no idle periods: leave 0, or untick “A new race”."))
        if cleaned.get("nv") == 0 and any(r.r0 is not None or r.nv is not None for r in cleaned.get("results") or ()):
            self.add_error("results", gettext(
                "R0= and Nv= are for a rated player's late game; with KNSB Nv 0 the games go into the depot."
            ))

    def _configs(self, cleaned) -> dict:
        """Each method's configuration with the options entered (the rest as configured)."""
        out = {}
        for method, options in OPTIONS.items():
            changes = {attribute: cleaned[name] for name, attribute in options.items() if cleaned.get(name) is not None}
            out[method] = dataclasses.replace(self.defaults[method], **changes)
        return out


DEFAULT_VARIANT = "blood-bowl-2020"
PAIRING_PREFIX = "pairing"
PAIRING_SIDES = ("home", "away")
# each side's sentences whole, so a translation need not fit a side's name into them
SIDE_MISSING = {
    "home_rating": _("Give the home rating too."), "away_rating": _("Give the away rating too."),
    "home_coach": _("Give the home coach's federation number too."),
    "away_coach": _("Give the away coach's federation number too."),
}


class PairingForm(forms.Form):
    """A pairing to predict: two coaches by federation number with their races and the variant (their
    ratings read as they stand now), or two ratings. cleaned_data holds the Coach of each side when
    coaches are named."""

    home_coach = forms.IntegerField(label=_("Home coach (federation number)"), min_value=1, max_value=2**31 - 1, required=False)
    home_race = forms.ModelChoiceField(
        label=_("Home race"), queryset=Race.objects.order_by("name"), to_field_name="slug", required=False, empty_label="—",
    )
    away_coach = forms.IntegerField(label=_("Away coach (federation number)"), min_value=1, max_value=2**31 - 1, required=False)
    away_race = forms.ModelChoiceField(
        label=_("Away race"), queryset=Race.objects.order_by("name"), to_field_name="slug", required=False, empty_label="—",
    )
    variant = forms.ModelChoiceField(
        label=_("Variant"), queryset=Variant.objects.order_by("name"), to_field_name="slug", required=False,
        initial=DEFAULT_VARIANT, empty_label=None,
    )
    home_rating = forms.FloatField(
        label=_("Or: home rating"), required=False, min_value=-RATING_LIMIT, max_value=RATING_LIMIT,
        help_text=_("Used by every method (NAF Elo on its own scale, starting at 150; Glicko and KNSB at 1500)."),
    )
    home_phi = forms.FloatField(label=_("Home φ (Glicko)"), initial=80, min_value=0.001, max_value=PHI_LIMIT, required=False)
    away_rating = forms.FloatField(label=_("Away rating"), required=False, min_value=-RATING_LIMIT, max_value=RATING_LIMIT)
    away_phi = forms.FloatField(label=_("Away φ (Glicko)"), initial=80, min_value=0.001, max_value=PHI_LIMIT, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, prefix=PAIRING_PREFIX, **kwargs)

    @classmethod
    def asked(cls, data) -> bool:
        """Whether a query string holds a pairing (any of this form's fields)."""
        return any(name.startswith(f"{PAIRING_PREFIX}-") for name in data)

    @classmethod
    def calculation_asked(cls, data) -> bool:
        """Whether a query string holds anything else: the calculator's own input."""
        return any(not name.startswith(f"{PAIRING_PREFIX}-") for name in data)

    def clean(self):
        cleaned = super().clean()
        named = [side for side in PAIRING_SIDES if cleaned.get(f"{side}_coach") is not None]
        rated = [side for side in PAIRING_SIDES if cleaned.get(f"{side}_rating") is not None]
        if self.errors:
            return cleaned
        if named and rated:
            raise ValidationError(gettext("Name two coaches or give two ratings, not both."))
        if named:
            self._clean_coaches(cleaned)
        elif rated:
            for side in PAIRING_SIDES:
                if cleaned.get(f"{side}_rating") is None:
                    self.add_error(f"{side}_rating", str(SIDE_MISSING[f"{side}_rating"]))
                if cleaned.get(f"{side}_phi") is None:
                    cleaned[f"{side}_phi"] = self.fields[f"{side}_phi"].initial
        else:
            raise ValidationError(gettext("Name two coaches by federation number (with their races), or give two ratings."))
        return cleaned

    def _clean_coaches(self, cleaned) -> None:
        for side in PAIRING_SIDES:
            number = cleaned.get(f"{side}_coach")
            if number is None:
                self.add_error(f"{side}_coach", str(SIDE_MISSING[f"{side}_coach"]))
            else:
                try:
                    cleaned[f"{side}"] = coach_get(number=number)
                except Coach.DoesNotExist:
                    self.add_error(f"{side}_coach", gettext("There is no coach with federation number %(number)s.") % {"number": number})
            if cleaned.get(f"{side}_race") is None:
                self.add_error(f"{side}_race", gettext("Choose the race he plays: NAF Elo and NAF Glicko rate each race apart."))
        if cleaned.get("variant") is None:
            self.add_error("variant", gettext("Choose the variant."))
        if cleaned.get("home_coach") is not None and cleaned.get("home_coach") == cleaned.get("away_coach"):
            self.add_error("away_coach", gettext("A coach cannot play against himself: name two different coaches."))
