"""Finding a coach from the header's search box, on a desktop and on a phone, without JavaScript too."""
import re

import pytest

from tests.factories import CoachFactory

# The live server needs committed data; serialized_rollback restores the migrations' races, variants
# and rating systems for the tests that follow.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)



@pytest.fixture
def coaches(transactional_db):
    return [
        CoachFactory(number=301, name="Tóth Ádám", nationality="HU"),
        CoachFactory(number=302, name="Tóth Béla", nationality="HU"),
        CoachFactory(number=303, name="Černý Jiří", nationality="CZ"),
    ]




def header_box(page):
    return page.locator("header.site-header").get_by_label("Find a coach by name or number")


def test_typing_toth_in_the_header_lists_the_toths(tab, coaches):
    tab.goto("/rankings/")
    box = header_box(tab)
    assert box.is_visible()
    box.fill("toth")
    box.press("Enter")
    tab.wait_for_url(re.compile(r"/coaches/\?q=toth$"))
    names = tab.locator("table.data tbody tr td:nth-child(2)").all_inner_texts()
    assert names == ["Tóth Ádám", "Tóth Béla"]
    tab.get_by_role("link", name="Tóth Béla").click()
    tab.wait_for_url(re.compile(r"/coaches/302/$"))
    assert "Tóth Béla" in tab.locator("h1").inner_text()


def test_a_number_in_the_header_opens_that_coach(tab, coaches):
    tab.goto("/")
    header_box(tab).fill("303")
    tab.locator("header.site-header").get_by_role("button", name="Find").click()
    tab.wait_for_url(re.compile(r"/coaches/303/$"))
    assert "Černý Jiří" in tab.locator("h1").inner_text()


def test_the_header_box_fits_the_width_without_sideways_scrolling(tab, coaches):
    for path in ("/", "/rankings/", "/coaches/?q=toth"):
        tab.goto(path)
        overflow = tab.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} is {overflow}px wider than {tab.viewport_size['width']}px"
        box = header_box(tab).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= tab.viewport_size["width"]
        assert box["height"] < 48  # one compact line, even on the phone
