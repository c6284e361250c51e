"""The parameters of a NAF Elo rating system, validated on construction."""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..common import check_fields, config_error, config_slugs, plain_params
from .calculator import k_value

_config_error = partial(config_error, "EloConfig")
_slugs = partial(config_slugs, "EloConfig")

# (lowest, highest) of each bounded integer parameter, for the checks below
_INTEGER_RANGES = {"non_major_max": (1, 10_000), "major_coaches": (1, 10_000)}
# K's multiplier: above 0 (a K of 0 rates nothing), at most 10
K_SCALE_RANGE = (0.0, 10.0)
# for the staff's form
PARAMETER_RANGES = {**_INTEGER_RANGES, "k_scale": K_SCALE_RANGE}


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class EloConfig:
    """Parameters of a NAF Elo rating system (validated on construction)."""

    start_rating: float = 150.0
    non_major_max: int = 32
    major_coaches: int = 60
    round_k: bool = False
    conceder_loses: bool = False
    k_scale: float = 1.0  # a multiplier on K (1: the spec's K), for the parameter search
    per_race: bool = True
    variants: tuple[str, ...] | None = None  # None: every variant
    excluded_races: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        value = self.start_rating
        if not (_is_number(value) and math.isfinite(value)):
            raise _config_error("start_rating", value, "a finite number")
        for name, (low, high) in _INTEGER_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise _config_error(name, value, f"an integer from {low} to {high}")
        scale_low, scale_high = K_SCALE_RANGE
        if not (_is_number(self.k_scale) and scale_low < self.k_scale <= scale_high):
            raise _config_error("k_scale", self.k_scale, f"a number above {scale_low:g} and at most {scale_high:g}")
        for name in ("round_k", "conceder_loses", "per_race"):
            if not isinstance(getattr(self, name), bool):
                raise _config_error(name, getattr(self, name), "true or false")
        object.__setattr__(self, "start_rating", float(self.start_rating))
        object.__setattr__(self, "k_scale", float(self.k_scale))
        object.__setattr__(self, "variants", _slugs("variants", self.variants, allow_none=True))
        object.__setattr__(
            self, "excluded_races", _slugs("excluded_races", self.excluded_races, allow_none=False)
        )

    def k(self, naf_coaches: int, *, major: bool) -> float:
        """K of an event of `naf_coaches` coaches (a major counts as major_coaches) under these parameters."""
        return k_value(naf_coaches, major=major, non_major_max=self.non_major_max, round_k=self.round_k,
                       major_coaches=self.major_coaches, k_scale=self.k_scale)

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> EloConfig:
        """Build from stored parameters; unknown keys and bad values raise ValueError naming
        them."""
        check_fields(cls, params)
        return cls(**params)

    def as_params(self) -> dict[str, Any]:
        """The parameters as plain data (lists for tuples), the inverse of from_params."""
        return plain_params(self)
