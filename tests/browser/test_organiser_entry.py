"""The organiser's entry page in a browser, at 1280 px with JavaScript and at 390 px without (issue 18, item 9):
a coach typed by number with the participants suggested, more game rows without saving, and one error shown in the
summary at the top with everything typed kept."""
import datetime as dt

import pytest
from playwright.sync_api import expect

from tests.browser.test_organiser_flow import log_in
from tests.factories import CoachFactory, EventFactory
from tests.roles import organiser
from tournaments.models import EventStatus, Game, Participant, Race

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

DAY = dt.date(2024, 5, 4)




@pytest.fixture
def event(transactional_db):
    owner = organiser("olga")
    event = EventFactory(name="Delft Open", start_date=DAY, end_date=DAY, status=EventStatus.DRAFT, organiser=owner)
    for number, name, race in ((901, "Wim", "human"), (902, "Xander", "orc"), (903, "Yara", "dwarf"), (904, "Zoe", "skaven")):
        Participant.objects.create(event=event, coach=CoachFactory(number=number, name=name), race=Race.objects.get(slug=race))
    return event


def cell(page, label: str):
    return page.get_by_label(label, exact=True)


def test_an_organiser_types_coaches_adds_game_rows_and_sees_his_one_error_at_the_top(tab, event):
    page = tab
    log_in(page, "olga", f"/organiser/events/{event.pk}/edit/")
    expect(page.locator("h1")).to_have_text("Edit Delft Open")
    cell(page, "Round 1: Number").fill("1")
    cell(page, "Round 1: Date").fill(DAY.isoformat())
    # the page comes in parts: the round saved, its games are entered on its own page
    page.get_by_role("button", name="Save and enter the games").click()
    assert page.url.endswith(f"/organiser/events/{event.pk}/edit/?round=1")
    expect(page.get_by_role("button", name="Event and participants")).to_be_visible()

    # the home coach by number, with the event's participants suggested
    home = cell(page, "Game 1: Home coach")
    expect(home).to_have_attribute("list", "event-coaches")
    suggestions = page.locator("datalist#event-coaches option")
    expect(suggestions).to_have_count(4)
    assert suggestions.evaluate_all("options => options.map(o => o.value)") == ["Wim (901)", "Xander (902)", "Yara (903)", "Zoe (904)"]
    cell(page, "Game 1: Round").fill("1")
    home.fill("901")
    cell(page, "Game 1: Home TD").fill("2")
    cell(page, "Game 1: Away coach").fill("Xander (902)")

    # more rows, nothing saved, the typed values kept
    expect(page.locator("#games tbody tr")).to_have_count(4)
    page.get_by_role("button", name="Add 8 more game rows").click()
    expect(page.locator("#games tbody tr")).to_have_count(12)
    expect(cell(page, "Game 1: Home coach")).to_have_value("901")
    expect(cell(page, "Game 1: Away coach")).to_have_value("Xander (902)")
    expect(cell(page, "Game 1: Round")).to_have_value("1")
    expect(page.locator("#error-summary")).to_have_count(0)
    assert Game.objects.count() == 0

    # one error, in a row that did not exist before: the summary at the top links to it, nothing typed is lost
    cell(page, "Game 12: Round").fill("1")
    cell(page, "Game 12: Home coach").fill("903")
    cell(page, "Game 12: Away coach").fill("903")
    page.get_by_role("button", name="Save the event").click()
    summary = page.locator("#error-summary")
    expect(summary).to_be_visible()
    expect(summary.locator("h2")).to_have_text("Nothing was saved: 1 problem")
    link = summary.get_by_role("link")
    expect(link).to_have_text("Game 12, Away coach: Coach 903 cannot play against themselves.")
    expect(link).to_have_attribute("href", "#id_games-11-away_coach")
    assert summary.bounding_box()["y"] < page.locator("form.stacked").bounding_box()["y"]
    assert summary.bounding_box()["width"] <= page.viewport_size["width"]
    expect(cell(page, "Game 1: Home coach")).to_have_value("901")
    expect(cell(page, "Game 1: Away coach")).to_have_value("Xander (902)")
    expect(cell(page, "Game 12: Home coach")).to_have_value("903")
    assert Game.objects.count() == 0

    # the link goes to the field; corrected, the page saves
    link.click()
    assert page.url.endswith("#id_games-11-away_coach")
    cell(page, "Game 12: Away coach").fill("904")
    page.get_by_role("button", name="Save the event").click()
    expect(page.locator(".messages")).to_contain_text("The event is saved.")
    assert sorted(Game.objects.filter(event=event).values_list("home_coach__number", "away_coach__number", "home_touchdowns")) == [
        (901, 902, 2), (903, 904, 0),
    ]
