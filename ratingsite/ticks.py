"""Axis ticks for every chart of the site: round steps (1, 2, 2.5, 5 × a power of ten)."""
from __future__ import annotations

import math


def nice_ticks(low: float, high: float, count: int = 5, *, cover: bool = True, whole: bool = False) -> list[float]:
    """About `count` round tick values for [low, high].

    `cover`: the ticks run from a step at or below `low` to one at or above `high`, so an axis can
    start and end on them; otherwise only the ticks inside [low, high]. `whole`: whole numbers only
    (ranks): steps of 1, 2, 5, 10, ... and never 2.5 or a fraction.
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0]
    if high <= low:
        if not cover:
            return [low]
        high = low + 1.0
    raw = (high - low) / max(count, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    if whole:
        magnitude = max(1, magnitude)
    step = next(m * magnitude for m in ((1, 2, 5, 10) if whole else (1, 2, 2.5, 5, 10)) if m * magnitude >= raw)
    value = (math.floor(low / step) if cover else math.ceil(low / step)) * step
    ticks = []
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if cover and ticks[-1] < high:
        ticks.append(round(value, 10))
    return ticks
