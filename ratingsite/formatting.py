"""How a figure reads, on a page, in a CSV and in a chart: rounded half away from zero to the
digits shown (2.675 → "2.68", 154.465 → "154.47"), from its shortest decimal form, never "-0.00".

Plain Python, no Django: the engines keep ratings by the same rule (`round_half_away`).
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

_QUANTUM = {places: Decimal(1).scaleb(-places) for places in range(10)}


def _rounded(value, places) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        # repr gives the shortest decimal that reads back as the float: 2.675, not 2.67499999...
        rounded = Decimal(repr(float(value))).quantize(_QUANTUM[int(places)], ROUND_HALF_UP)
    except (TypeError, ValueError, KeyError, InvalidOperation):
        return None
    return rounded.copy_abs() if rounded.is_zero() else rounded


def fixed(value, places: int = 2) -> str:
    """`value` to `places` decimals ("" for None or anything not a number)."""
    rounded = _rounded(value, places)
    return "" if rounded is None else f"{rounded:f}"


def signed(value, places: int = 2) -> str:
    """A change with its sign: "+2.24", "-0.04", "+0.00" ("" for None)."""
    rounded = _rounded(value, places)
    if rounded is None:
        return ""
    return f"{rounded:f}" if rounded < 0 else f"+{rounded:f}"


def percent(ratio, places: int = 1) -> str:
    """A ratio as a percentage figure: 0.52345 → "52.3" ("" for None)."""
    return "" if ratio is None else fixed(100 * ratio, places)


def rating_places(method: str) -> int:
    """Decimals a rating of this method is shown with: KNSB ratings are whole numbers."""
    return 0 if method == "knsb" else 2


def with_decimal_separator(text: str, separator: str) -> str:
    """A figure's text as `fixed`, `signed` or `percent` give it, its decimal point written as
    `separator` (a page's language: "2,68" in Dutch); CSV and exports keep the point."""
    return text.replace(".", separator, 1) if separator != "." else text
