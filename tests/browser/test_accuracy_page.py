"""The accuracy page in a browser: on a phone (390 px, no JavaScript) the page does not scroll
sideways and each system's main table fits; at 1280 px no table is cut off."""
import io

import pytest
from django.core.management import call_command

from tests.browser.test_phones import cut_off_tables, page_width

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture
def reported(league):
    call_command("evaluate_methods", stdout=io.StringIO())
    return league


def test_the_accuracy_page_fits_a_phone_and_a_wide_screen(tab, reported):
    tab.goto("/about/accuracy/")
    scroll_width, inner_width = page_width(tab)
    assert scroll_width <= inner_width
    main = [t for t in cut_off_tables(tab) if t[0].endswith("every counted game")]
    assert main == []
    assert tab.locator("figure.chart-figure").count() == 3  # one calibration chart per system with counted games
    if inner_width > 1000:
        assert cut_off_tables(tab) == []
