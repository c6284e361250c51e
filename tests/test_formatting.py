"""One number formatter: half away from zero to the digits shown, on pages, in CSVs and charts."""
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rating_engines.common import round_half_away
from ratingsite.formatting import fixed, percent, rating_places, signed


@pytest.mark.parametrize("value, places, text", [
    (2.675, 2, "2.68"), (154.465, 2, "154.47"), (1.005, 2, "1.01"), (-2.5, 0, "-3"), (0.5, 0, "1"),
    (-0.001, 2, "0.00"), (1970.0, 0, "1970"), (149.97, 2, "149.97"), (None, 2, ""), ("", 2, ""), ("x", 2, ""),
])
def test_fixed(value, places, text):
    assert fixed(value, places) == text


@pytest.mark.parametrize("value, places, text", [
    (2.675, 2, "+2.68"), (-0.125, 2, "-0.13"), (0.0, 2, "+0.00"), (-0.001, 2, "+0.00"), (112.0, 0, "+112"),
    (-0.0085, 3, "-0.009"), (None, 2, ""),
])
def test_signed(value, places, text):
    assert signed(value, places) == text


def test_percent_and_the_digits_of_each_method():
    assert (percent(0.52345), percent(0.00125, 2), percent(None)) == ("52.3", "0.13", "")
    assert [rating_places(m) for m in ("naf_elo", "glicko", "knsb")] == [2, 2, 0]


@given(st.decimals(min_value=-10_000, max_value=10_000, places=4, allow_nan=False), st.integers(0, 3))
def test_a_decimal_reads_as_its_own_half_away_rounding(value, places):
    want = value.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    assert fixed(float(value), places) == f"{abs(want) if want.is_zero() else want:f}"


@given(st.decimals(min_value=0, max_value=10_000, places=3, allow_nan=False))
def test_the_page_shows_what_the_engines_keep(value):
    # the engines keep ratings to 0.01 with round_half_away: the page prints the same figure
    assert fixed(float(value), 2) == fixed(round_half_away(float(value), 2), 2)
