"""By keyboard alone (issue 33, point 4): Tab, Enter, Space and typing, never the mouse.
The ranking's filters give the filtered ranking, at a desktop's width and on a phone (where they are
folded behind a summary), and an organiser fills part of the entry form and saves it. Focus stays
visible on the way: every control the Tab key reaches has the site's :focus-visible outline."""
import datetime as dt

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import WIDTHS
from tests.browser.test_accessibility import logged_in
from tests.browser.test_organiser_entry import event  # noqa: F401  a fixture: the four coaches' draft
from tournaments.models import Game, Round

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

DAY = dt.date(2024, 5, 4)


@pytest.fixture(params=WIDTHS, ids=lambda width: f"{width}px")
def keyboard_tab(request, browser, live_server):
    """A tab at each of test_phones.py's widths; JavaScript off on the phone (the site needs none)."""
    width = request.param
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, java_script_enabled=width > 1000, locale="en-US",
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def focused(page, selector: str) -> bool:
    return page.locator(selector).evaluate("element => element === document.activeElement")


def outline(page) -> tuple[str, str]:
    """The focused element's outline style and width (the site's :focus-visible rule's). A date or time box's
    calendar button, a part of the browser's own control that the host element's :focus does not
    follow, draws the browser's own focus ring: it counts as shown."""
    return page.evaluate("""() => {
        const element = document.activeElement;
        if (element.matches(':is(input[type=date], input[type=time]):not(:focus)')) return ['browser', 'own'];
        const style = getComputedStyle(element);
        return [style.outlineStyle, style.outlineWidth];
    }""")


def tab_to(page, selector: str, *, limit: int = 80) -> None:
    """Press Tab until the focus is on `selector`; each element passed on the way shows its focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        style, width = outline(page)
        assert style != "none" and width != "0px", page.evaluate("() => document.activeElement.outerHTML.slice(0, 120)")
        if focused(page, selector):
            return
    raise AssertionError(f"{limit} presses of Tab never reached {selector}")


def test_the_ranking_filters_work_by_keyboard_alone(keyboard_tab, league):
    page = keyboard_tab
    page.goto("/rankings/elo/")
    summary = page.locator("details.filters-fold > summary")
    if summary.is_visible():  # a phone: the filters are folded behind the summary, opened with Space
        tab_to(page, "details.filters-fold > summary")
        page.keyboard.press("Space")
        expect(page.locator("#id_race")).to_be_visible()
    tab_to(page, "#id_race")
    page.keyboard.type("Orc")  # a select's type-ahead: the first option starting so
    expect(page.locator("#id_race")).to_have_value("orc")
    tab_to(page, "#id_country")
    page.keyboard.type("United K")
    expect(page.locator("#id_country")).to_have_value("GB")
    tab_to(page, "#id_active")
    page.keyboard.press("Space")
    expect(page.locator("#id_active")).to_be_checked()
    tab_to(page, "form.filters button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_url("**race=orc**")
    assert "country=GB" in page.url and "active=on" in page.url
    assert page.locator(".ranking-table tbody td.col-coach").all_inner_texts() == ["Bert Smith"]


@pytest.fixture
def draft(event):  # noqa: F811  test_organiser_entry's fixture, imported above
    """test_organiser_entry's draft: four coaches, no round yet."""
    return event


def field(page, label: str) -> str:
    """The id of the control with this accessible name, as a selector for tab_to."""
    return "#" + page.get_by_label(label, exact=True).get_attribute("id")


def test_an_organiser_fills_part_of_the_entry_form_by_keyboard_alone_and_saves_it(keyboard_tab, draft, live_server):
    page = keyboard_tab
    logged_in(page.context, draft.organiser, live_server.url)
    page.goto(f"/organiser/events/{draft.pk}/edit/")
    expect(page.locator("h1")).to_have_text("Edit Delft Open")

    tab_to(page, field(page, "Round 1: Number"), limit=200)
    page.keyboard.type("1")
    tab_to(page, field(page, "Round 1: Date"))
    page.keyboard.type("05042024")  # month, day, year: the date box's parts in an en-US browser
    expect(page.get_by_label("Round 1: Date", exact=True)).to_have_value(DAY.isoformat())
    tab_to(page, "button >> text='Save and enter the games'", limit=200)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/organiser/events/{draft.pk}/edit/?round=1")
    assert Round.objects.filter(event=draft, number=1, date=DAY).exists()

    tab_to(page, field(page, "Game 1: Round"), limit=200)
    page.keyboard.type("1")
    tab_to(page, field(page, "Game 1: Home coach"))
    page.keyboard.type("901")
    tab_to(page, field(page, "Game 1: Home TD"))
    page.keyboard.type("2")
    tab_to(page, field(page, "Game 1: Away TD"))
    page.keyboard.type("1")
    tab_to(page, field(page, "Game 1: Away coach"))
    page.keyboard.type("902")
    tab_to(page, "button.primary >> text='Save the event'", limit=300)
    page.keyboard.press("Space")
    expect(page.locator(".messages")).to_contain_text("The event is saved.")
    games = Game.objects.filter(event=draft).values_list("home_coach__number", "away_coach__number", "home_touchdowns", "away_touchdowns")
    assert list(games) == [(901, 902, 2, 1)]
