"""The NAF Elo calculator (ratings.md section 1): one game, step by step, as the spec writes it.

P = 1 / (10^((Ropp − R)/150) + 1); Rt = K·(S − P); the new CR is R + Rt kept to 0.01, half away
from zero; K = 2·√min(N, non_major_max), a major always 2·√60. This is the reference: the history
runner does the same arithmetic inline and is tested equal to it.
"""
from __future__ import annotations

import math

from ..common import HOME, round_half_away

ELO_SCALE = 150.0


def win_probability(rating: float, opponent: float) -> float:
    """P that a coach rated `rating` beats one rated `opponent`: 1 / (10^((opp − r)/150) + 1)."""
    p: float = 1.0 / (10.0 ** ((opponent - rating) / ELO_SCALE) + 1.0)
    return p


def k_value(
    naf_coaches: int,
    *,
    major: bool,
    non_major_max: int = 32,
    round_k: bool = False,
    major_coaches: int = 60,
    k_scale: float = 1.0,
) -> float:
    """K = k_scale·2·√min(N, non_major_max); a major counts as `major_coaches` whatever its size.

    With `round_k` K is rounded half away from zero to an integer, as the federation's old code did
    (after scaling). At k_scale 1 K is the spec's to the bit.
    """
    if naf_coaches < 0:
        raise ValueError(f"naf_coaches must not be negative, got {naf_coaches!r}")
    coaches = major_coaches if major else min(naf_coaches, non_major_max)
    k = 2.0 * math.sqrt(coaches) * k_scale
    return round_half_away(k) if round_k else k


def home_score(score: float, conceded_by: str | None, *, conceder_loses: bool) -> float:
    """S of the home side: `score` (1, 0.5 or 0 from touchdowns), or with `conceder_loses` a loss
    for the side that conceded, whatever the score. The away side's S is 1 − S."""
    if conceder_loses and conceded_by is not None:
        return 0.0 if conceded_by == HOME else 1.0
    return score


def rating_change(rating: float, opponent: float, score: float, k: float) -> float:
    """Rt of one game: k·(S − P), unrounded (calculation rows keep it so)."""
    return k * (score - win_probability(rating, opponent))


def rating_after(r0: float, rt: float) -> float:
    """The CR after a game from its calculation row: R0 + Rt kept to 0.01, half away from zero."""
    return round_half_away(r0 + rt, 2)


def update(rating: float, opponent: float, score: float, k: float) -> float:
    """The new CR after one game: rating + k·(score − P), rounded to 0.01 half away from zero."""
    return rating_after(rating, rating_change(rating, opponent, score, k))


def game_change(r0: float, rt: float) -> float:
    """A game's change of CR: the difference of the ratings kept to 0.01 (Rt is unrounded)."""
    return rating_after(r0, rt) - r0
