"""The parameters of a KNSB list rating system, validated when built."""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..common import check_fields, config_error, config_slugs, plain_params
from .calculator import SIGMA

_config_error = partial(config_error, "KnsbConfig")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


_slugs = partial(config_slugs, "KnsbConfig")

# (lowest, highest) of each integer parameter, and (lowest, highest or None) of each bounded one,
# for the checks below and the staff's form; sigma must be above its lowest, the others may equal it
_INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "depot_min_games": (1, 1000), "depot_months": (1, 1200), "nv_cap": (1, 10_000), "junior_age": (0, 150),
}
PARAMETER_RANGES: dict[str, tuple[int, int | None]] = {"sigma": (0, None), "lpr_margin": (0, None), **_INTEGER_RANGES}


# an imported list's entry: (coach number, rating, games, birth year or None)
InitialEntry = tuple[int, float, int, int | None]


def _initial_list(value: object) -> tuple[InitialEntry, ...]:
    expected = "a list of (coach number, rating, games[, birth year]) with games >= 1"
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise _config_error("initial_list", value, expected)
    entries: list[InitialEntry] = []
    seen: set[int] = set()
    for entry in value:
        if isinstance(entry, (str, bytes)) or not isinstance(entry, (tuple, list)) \
                or len(entry) not in (3, 4):
            raise _config_error("initial_list", entry, expected)
        coach, rating, games = entry[:3]
        birth_year = entry[3] if len(entry) == 4 else None
        if not (_is_int(coach) and _is_number(rating) and _is_int(games) and games >= 1
                and (birth_year is None or _is_int(birth_year))):
            raise _config_error("initial_list", entry, expected)
        if coach in seen:
            raise _config_error("initial_list", entry, "each coach at most once")
        seen.add(coach)
        entries.append((coach, float(rating), games, birth_year))
    return tuple(entries)


@dataclass(frozen=True)
class KnsbConfig:
    """Parameters of a KNSB list rating system (validated on construction)."""

    per_race: bool = False
    variants: tuple[str, ...] | None = None  # None: every variant
    excluded_races: tuple[str, ...] = ()
    sigma: float = SIGMA
    we_table: bool = False  # We rounded to 3 decimals, as in the printed table
    lpr_margin: float = 0.0
    depot_min_games: int = 6
    depot_months: int = 24
    nv_cap: int = 100
    bootstrap_rating: float | None = 1500.0  # None: no bootstrap
    junior_age: int | None = 18  # juniors need a birth year (initial_list or birth_years)
    # imported list (coach, rating, games, birth year or None), in force from the first list
    initial_list: tuple[InitialEntry, ...] = ()

    def __post_init__(self) -> None:
        for name in ("per_race", "we_table"):
            if not isinstance(getattr(self, name), bool):
                raise _config_error(name, getattr(self, name), "true or false")
        if not _is_number(self.sigma) or self.sigma <= 0:
            raise _config_error("sigma", self.sigma, "a number above 0")
        if not _is_number(self.lpr_margin) or self.lpr_margin < 0:
            raise _config_error("lpr_margin", self.lpr_margin, "a number from 0 up")
        for name in ("depot_min_games", "depot_months", "nv_cap"):
            value = getattr(self, name)
            low, top = _INTEGER_RANGES[name]
            if not _is_int(value) or not low <= value <= top:
                raise _config_error(name, value, f"an integer from {low} to {top}")
        if self.bootstrap_rating is not None and not _is_number(self.bootstrap_rating):
            raise _config_error("bootstrap_rating", self.bootstrap_rating, "a number, or None")
        youngest, oldest = _INTEGER_RANGES["junior_age"]
        if self.junior_age is not None and not (_is_int(self.junior_age)
                                                and youngest <= self.junior_age <= oldest):
            raise _config_error("junior_age", self.junior_age, f"an age from {youngest} to {oldest}, or None")
        set_ = object.__setattr__
        set_(self, "sigma", float(self.sigma))
        set_(self, "lpr_margin", float(self.lpr_margin))
        if self.bootstrap_rating is not None:
            set_(self, "bootstrap_rating", float(self.bootstrap_rating))
        set_(self, "variants", _slugs("variants", self.variants, allow_none=True))
        set_(self, "excluded_races",
             _slugs("excluded_races", self.excluded_races, allow_none=False))
        set_(self, "initial_list", _initial_list(self.initial_list))

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> KnsbConfig:
        """Build from stored parameters (ValueError naming any unknown key or bad value)."""
        check_fields(cls, params)
        return cls(**params)

    def as_params(self) -> dict[str, Any]:
        """The parameters as plain data (lists for tuples), the inverse of from_params."""
        return {**plain_params(self), "initial_list": [list(entry) for entry in self.initial_list]}
