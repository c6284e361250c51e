"""The parameters of a Glicko rating system, validated, and the calendar of its rating periods."""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any, NamedTuple

from ..common import check_fields, config_error, config_slugs, plain_params
from .calculator import GlickoRating

PERIODS = ("month", "two_weeks", "event")
GLOBAL_DEFAULTS = {
    "per_race": False,
    "period": "two_weeks",
    "excluded_races": ("goblin", "halfling", "ogre"),
}
_ONE_DAY = timedelta(days=1)

_config_error = partial(config_error, "GlickoConfig")
_slugs = partial(config_slugs, "GlickoConfig")


def _number(name: str, value: object, low: float, high: float, *, low_open: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _config_error(name, value, "a finite number")
    if value > high or value < low or (low_open and value == low):
        bound = f"{'above' if low_open else 'at least'} {low} and at most {high}"
        raise _config_error(name, value, bound)
    return float(value)


def _monday(name: str, value: object) -> date:
    """A Monday, given as a date or as YYYY-MM-DD."""
    day = value
    if isinstance(day, str):
        try:
            day = date.fromisoformat(day)
        except ValueError:
            raise _config_error(name, value, "a date YYYY-MM-DD") from None
    if not isinstance(day, date) or isinstance(day, datetime) or day.weekday() != 0:
        raise _config_error(name, value, "a Monday")
    return day


# (name, lowest, highest, lowest excluded) of each numeric parameter
_NUMBERS = (
    ("mu0", -10_000.0, 10_000.0, False),
    ("phi0", 0.0, 2_000.0, True),
    ("sigma0", 0.0, 1.0, True),
    ("tau", 0.0, 5.0, True),
    ("value_phi_multiplier", 0.0, 10.0, False),
    ("inactive_phi", 0.0, 2_000.0, True),
)
_PHI_CAP = (0.0, 2_000.0)  # lowest excluded
# for the staff's form: (lowest, highest) of each number, and the choices of each choice
PARAMETER_RANGES = {**{name: (low, high) for name, low, high, _ in _NUMBERS}, "phi_cap": _PHI_CAP}
PARAMETER_CHOICES = {"period": PERIODS}


@dataclass(frozen=True)
class GlickoConfig:
    """Parameters of a Glicko rating system (validated on construction). Defaults: NAF Glicko."""

    mu0: float = 1500.0
    phi0: float = 350.0
    sigma0: float = 0.06
    tau: float = 0.2
    per_race: bool = True
    period: str = "month"  # month | two_weeks | event
    period_anchor: date = date(2000, 1, 3)  # two_weeks: the Monday periods are counted from
    value_phi_multiplier: float = 2.5  # ranking value mu − multiplier·phi
    inactive_phi: float = 100.0  # above this phi a rating keeps its value but gets no rank
    phi_cap: float | None = None  # idle decay cap; None: phi0
    cross_race_start: bool = True
    excluded_races: tuple[str, ...] = ()
    variants: tuple[str, ...] | None = None  # None: every variant

    def __post_init__(self) -> None:
        def put(name: str, value: object) -> None:
            object.__setattr__(self, name, value)

        for name, low, high, low_open in _NUMBERS:
            put(name, _number(name, getattr(self, name), low, high, low_open=low_open))
        if self.phi_cap is not None:
            put("phi_cap", _number("phi_cap", self.phi_cap, *_PHI_CAP, low_open=True))
        for name in ("per_race", "cross_race_start"):
            if not isinstance(getattr(self, name), bool):
                raise _config_error(name, getattr(self, name), "true or false")
        if self.period not in PERIODS:
            raise _config_error("period", self.period, "one of " + ", ".join(PERIODS))
        put("period_anchor", _monday("period_anchor", self.period_anchor))
        put("excluded_races", _slugs("excluded_races", self.excluded_races, allow_none=False))
        put("variants", _slugs("variants", self.variants, allow_none=True))

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> GlickoConfig:
        """Build from stored parameters; unknown keys and bad values raise ValueError naming
        them."""
        check_fields(cls, params)
        return cls(**params)

    @classmethod
    def global_defaults(cls, **overrides: Any) -> GlickoConfig:
        """Global Glicko: pooled races, two-week periods, Goblin, Halfling, Ogre games excluded."""
        params = {**GLOBAL_DEFAULTS, **overrides}
        check_fields(cls, params)
        return cls(**params)

    def as_params(self) -> dict[str, Any]:
        """The parameters as plain data (lists for tuples, ISO date), the inverse of from_params."""
        return {**plain_params(self), "period_anchor": self.period_anchor.isoformat()}

    @property
    def decay_cap(self) -> float:
        return self.phi0 if self.phi_cap is None else self.phi_cap

    def value(self, rating: GlickoRating) -> float:
        """The ranking value of a rating, mu − value_phi_multiplier·phi."""
        return rating.mu - self.value_phi_multiplier * rating.phi

    def is_active(self, rating: GlickoRating) -> bool:
        """Whether the rating is ranked (phi at most inactive_phi)."""
        return rating.phi <= self.inactive_phi


class CalendarPeriod(NamedTuple):
    """A month or two-week rating period."""

    number: int  # the period's index: months counted from year 0, two weeks from the anchor
    label: str  # "2022-03", or the first day "2022-03-07"
    last_day: date


def calendar_period(day: date, config: GlickoConfig) -> CalendarPeriod:
    """The month or two-week period holding `day`."""
    if config.period == "month":
        index = day.year * 12 + day.month - 1
        following = date(day.year + day.month // 12, day.month % 12 + 1, 1)
        return CalendarPeriod(index, f"{day.year:04d}-{day.month:02d}", following - _ONE_DAY)
    if config.period == "two_weeks":
        index = (day - config.period_anchor).days // 14
        start = config.period_anchor + timedelta(days=14 * index)
        return CalendarPeriod(index, start.isoformat(), start + timedelta(days=13))
    raise ValueError("event periods are not calendar periods")
