"""The coach page in a real browser, on a desktop and on a phone: head-to-head shortcuts that open the
head-to-head page, chart points that name date, event and rating, and no sideways scrolling."""
import re

import pytest

# The live server needs committed data; serialized_rollback restores the migrations' races, variants
# and rating systems for the tests that follow.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)







def test_coach_page_shows_shortcuts_and_point_titles_without_sideways_scrolling(tab, league):
    tab.goto("/coaches/101/")
    shortcuts = tab.locator("section[aria-labelledby=h2h-heading] tbody tr")
    assert shortcuts.locator("th").all_inner_texts() == ["Bert Smith", "Cees de Vries", "Eva Bakker", "Fay Brown", "Dirk Müller"]
    assert shortcuts.first.locator("td").all_inner_texts()[:2] == ["3", "3-0-0"]
    assert tab.locator("a.h2h").first.is_visible()
    titles = tab.locator("svg.chart circle title").all_text_contents()
    assert titles == [
        "2024-03-02 · Dutch Open · 149.97", "2024-04-06 · Utrecht Cup · 151.97", "2024-06-02 · Summer League · 154.20",
    ]
    assert tab.locator("svg.chart circle").first.is_visible()
    overflow = tab.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the coach page is {overflow}px wider than {tab.viewport_size['width']}px"
    tab.locator("a.h2h").first.click()
    tab.wait_for_url(re.compile(r"/stats/head-to-head/\?coach=101&coach=102$"))
    assert "Bert Smith" in tab.locator("main").inner_text()
