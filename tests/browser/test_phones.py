"""Phones and wide screens (issue 18, item 4): at 390 px a ranking shows rank, coach and rating without
sideways scrolling, its filters folded behind a summary (no JavaScript); at 1280 px no table is cut off."""
import datetime as dt

import pytest

from stats.services import summaries_refresh
from tests.browser.test_organiser_flow import log_in
from tests.factories import EventFactory, RoundFactory, play
from tests.roles import organiser
from tournaments.models import EventStatus, Participant, Race

# the markup, whatever database served it: CI's SQLite pass leaves the module to the PostgreSQL one
pytestmark = [pytest.mark.django_db(transaction=True, serialized_rollback=True), pytest.mark.backend_neutral]

RANKINGS = ["/rankings/elo/", "/rankings/glicko/", "/rankings/knsb/", "/rankings/elo/2024-07/"]
LIST = "/lists/elo/2024-07/"
DAY = dt.date(2024, 5, 4)


@pytest.fixture
def league(league):
    """The browser conftest's league, with its statistics counted."""
    summaries_refresh()
    return league


def draft_with_a_round(owner, league, day: dt.date = DAY):
    """An organiser's draft event of four of the league's coaches, with a first round of two games."""
    event = EventFactory(name="Delft Open", start_date=day, end_date=day, status=EventStatus.DRAFT, organiser=owner)
    coaches = [league[name] for name in ("anna", "bert", "cees", "dirk")]
    for coach in coaches:
        Participant.objects.create(event=event, coach=coach, race=Race.objects.get(slug="human"))
    round_ = RoundFactory(event=event, number=1, date=day)
    play(round_, coaches[0], coaches[1], (2, 1))
    play(round_, coaches[2], coaches[3], (1, 1))
    return event


@pytest.fixture
def games_form(league):
    """The page of the first round of an organiser's event, with two games entered."""
    event = draft_with_a_round(organiser("olga"), league)
    return f"/organiser/events/{event.pk}/edit/?round=1"


def _tab(browser, live_server, width, height):
    context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": height}, java_script_enabled=width > 1000)
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


@pytest.fixture
def phone390(browser, live_server):
    """A 390 × 844 tab without JavaScript: nothing on these pages needs it."""
    context, page = _tab(browser, live_server, 390, 844)
    yield page
    context.close()


@pytest.fixture
def wide(browser, live_server):
    context, page = _tab(browser, live_server, 1280, 800)
    yield page
    context.close()


def page_width(page) -> tuple[int, int]:
    return page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")


def inside_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    return locator.is_visible() and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]


def cut_off_tables(page) -> list[tuple[str, int, int]]:
    """The tables wider than their container: (caption or class, scrollWidth, container's clientWidth)."""
    return page.evaluate("""() => [...document.querySelectorAll('main table')]
        .map(t => [t.caption ? t.caption.innerText : t.className, t.scrollWidth, t.parentElement.clientWidth])
        .filter(([, table, container]) => table > container)""")


# Several pages a test, each a subtest: a live server's test builds its league anew, and each build
# costs seconds.
def test_a_ranking_on_a_phone_shows_rank_coach_and_rating_without_sideways_scrolling(phone390, league, subtests):
    for url in RANKINGS:
        with subtests.test(url=url):
            phone390.goto(url)
            scroll_width, inner_width = page_width(phone390)
            assert scroll_width <= inner_width == 390
            first = phone390.locator(".ranking-table table tbody tr:has(td.col-coach)").first
            for column in ("rank", "coach", "value"):
                assert inside_viewport(phone390, first.locator(f"td.col-{column}")), column
            assert first.locator("td.col-coach").inner_text() != ""
            assert not first.locator("td.col-number").is_visible()
            assert phone390.locator(".ranking-table th.col-value").inner_text() == "Rating"


def test_every_variant_in_one_ranking_keeps_its_variant_column_on_a_phone(phone390, league):
    phone390.goto("/rankings/elo/?variant=")
    first = phone390.locator(".ranking-table table tbody tr:has(td.col-coach)").first
    assert first.locator("td.col-variant").is_visible()
    assert inside_viewport(phone390, first.locator("td.col-variant"))
    assert not first.locator("td.col-number").is_visible()
    phone390.goto("/rankings/elo/")  # one variant, named in the caption and the switch: no column
    assert phone390.locator(".ranking-table td.col-variant").count() == 0


def test_a_list_on_a_phone_shows_coach_rating_and_change_without_sideways_scrolling(phone390, league):
    phone390.goto(LIST)
    scroll_width, inner_width = page_width(phone390)
    assert scroll_width <= inner_width
    first = phone390.locator(".list-entries table tbody tr:has(td.col-coach)").first
    for column in ("coach", "value"):
        assert inside_viewport(phone390, first.locator(f"td.col-{column}")), column
    assert not first.locator("td.col-number").is_visible()


def test_on_a_phone_the_filters_are_folded_until_the_summary_is_clicked(phone390, league, subtests):
    for url, field in [(RANKINGS[0], "#id_race"), (LIST, "#id_variant"), ("/stats/top/", "#id_variant")]:
        with subtests.test(url=url):
            phone390.goto(url)
            summary = phone390.locator("details.filters-fold > summary")
            assert summary.locator(".filter-name").count() == 0
            assert summary.locator(".filters-set").evaluate("set => getComputedStyle(set, '::before').content") == '"(none set"'
            assert not phone390.locator(field).is_visible()
            summary.click()
            assert phone390.locator(field).is_visible()
            scroll_width, inner_width = page_width(phone390)
            assert scroll_width <= inner_width


def test_the_folded_filters_name_those_set(phone390, league):
    phone390.goto("/rankings/elo/?race=orc&country=GB")
    names = phone390.locator("details.filters-fold > summary .filter-name")
    assert names.all_inner_texts() == ["Race", "Nationality"]
    assert names.last.evaluate("name => getComputedStyle(name, '::before').content") == '", "'
    assert not phone390.locator("#id_race").is_visible()


def test_on_a_wide_screen_the_filters_are_open_without_a_summary(wide, league):
    wide.goto("/rankings/elo/?race=orc")
    assert wide.locator("#id_race").is_visible()
    assert wide.locator("#id_race").input_value() == "orc"
    assert not wide.locator("details.filters-fold > summary").is_visible()


def test_on_a_wide_screen_no_table_is_cut_off(wide, league, subtests):
    for url in [*RANKINGS, LIST, "/stats/top/", "/stats/games/"]:
        with subtests.test(url=url):
            wide.goto(url)
            assert wide.locator("main table").count() >= 1
            assert cut_off_tables(wide) == []
            scroll_width, inner_width = page_width(wide)
            assert scroll_width <= inner_width == 1280


def test_on_a_wide_screen_the_organisers_games_form_is_not_cut_off(wide, games_form):
    log_in(wide, "olga", games_form)
    wide.wait_for_url(f"**{games_form}")
    assert wide.locator("#games tbody tr").count() >= 2
    assert cut_off_tables(wide) == []
    last = wide.locator("#games thead th").last
    assert inside_viewport(wide, last)


def test_on_a_wide_screen_the_glicko_last_played_header_is_visible(wide, league):
    wide.goto("/rankings/glicko/")
    header = wide.locator(".ranking-table th.col-last_played")
    assert " ".join(header.inner_text().split()) == "Last played"
    assert inside_viewport(wide, header)
