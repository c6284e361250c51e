"""The maps' land in a real browser, with JavaScript off: the pin and the places come with the vendored outline."""
import pytest

from stats.services import summaries_refresh
from tests.factories import CoachFactory, EventFactory, RoundFactory, play

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

OUTLINE_URL = "/static/vendor/world-110m.svg"


@pytest.fixture
def amsterdam(transactional_db):
    event = EventFactory(name="Amsterdam Open", city="Amsterdam", country="NL", latitude="52.37000", longitude="4.90000")
    play(RoundFactory(event=event, number=1), CoachFactory(), CoachFactory(), (1, 0), home_race="human", away_race="orc")
    return event


@pytest.fixture
def no_script(browser, live_server):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


def outline_answers(tab, path: str) -> list[tuple[int, str]]:
    """(status, content type) of every request the page made for the world outline."""
    answers = []

    def keep(response):
        if response.url.endswith(OUTLINE_URL):
            answers.append((response.status, response.headers.get("content-type", "")))

    tab.on("response", keep)
    tab.goto(path, wait_until="load")
    return answers


def test_event_pin_stands_on_the_world_outline(no_script, amsterdam):
    assert outline_answers(no_script, f"/events/{amsterdam.pk}/") == [(200, "image/svg+xml")]
    box = no_script.locator("svg.chart.map").bounding_box()
    assert box["width"] > 300 and round(box["width"] / box["height"], 2) == 2.0
    assert "Map data: Natural Earth (public domain)" in no_script.locator(".map-figure figcaption").inner_text()


def test_stats_map_draws_on_the_world_outline(no_script, amsterdam):
    summaries_refresh()
    assert outline_answers(no_script, "/stats/map/?region=europe") == [(200, "image/svg+xml")]
    assert no_script.locator("svg.stats-map circle").count() == 1
