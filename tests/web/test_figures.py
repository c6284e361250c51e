"""Template filters for figures: `fixed` prints what floatformat prints, faster."""
import math

from django.template.defaultfilters import floatformat
from hypothesis import given
from hypothesis import strategies as st

from rating_pages.templatetags.rating_figures import fixed, signed

# rating figures: nothing below 1e-9 but zero (where floatformat gives up and prints the float as it is)
FIGURES = st.floats(allow_nan=False, min_value=-1e9, max_value=1e9).filter(lambda x: x == 0 or abs(x) >= 1e-9)


@given(FIGURES, st.integers(0, 5))
def test_fixed_prints_exactly_what_floatformat_prints(value, places):
    assert fixed(value, places) == floatformat(value, places)


def test_fixed_rounds_the_decimal_form_half_up_and_never_prints_minus_zero():
    assert [fixed(2.675, 2), fixed(-2.675, 2), fixed(0.0005, 3), fixed(-0.0001, 2), fixed(1599.5, 0)] == [
        "2.68", "-2.68", "0.001", "0.00", "1600",
    ]
    assert [fixed(None), fixed(""), fixed("x"), fixed(math.inf)] == ["", "", "", ""]


def test_signed_shows_the_sign_of_a_change():
    assert [signed(2.236), signed(-0.04), signed(0.0, 3), signed(None)] == ["+2.24", "-0.04", "+0.000", ""]


def test_fast_select_writes_the_markup_of_djangos_select():
    import re

    from django import forms

    from ratingsite.widgets import FastSelect

    choices = [("", "All countries"), ("NL", "Netherlands & <Antilles>"), ("DE", "Germany")]
    for value in ("", "NL", None, "XX"):
        django_markup = forms.Select(choices=choices, attrs={"id": "id_country"}).render("country", value)
        assert FastSelect(choices=choices, attrs={"id": "id_country"}).render("country", value) == re.sub(r"\n\s*", "", django_markup)


def test_day_prints_what_the_date_filter_prints():
    import datetime as dt

    from django.template import Context, Template
    from django.utils import timezone

    from rating_pages.templatetags.rating_figures import day

    values = [
        dt.date(2024, 3, 9), dt.datetime(2024, 3, 9, 23, 59, tzinfo=dt.UTC),
        dt.datetime(2024, 3, 9, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5))), dt.datetime(2024, 3, 9, 1, 0),
    ]
    ours = Template("{% load rating_figures %}{{ v|day }}")
    djangos = Template('{{ v|date:"Y-m-d" }}')  # the template converts aware datetimes before the filter
    for zone in ("UTC", "Europe/Amsterdam", "America/New_York"):
        with timezone.override(zone):
            assert [ours.render(Context({"v": v})) for v in values] == [djangos.render(Context({"v": v})) for v in values]
    assert [day(None), day(""), day("x")] == ["", "", ""]
