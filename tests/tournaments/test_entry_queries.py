"""The organiser's entry page reads the races once a request, not once a race dropdown: its queries do not
grow with the rows of the event (the 64-coach event of test_big_event ran 537 queries, 526 of them for the races)."""
import re
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import CoachFactory, EventFactory
from tests.tournaments import test_big_event as big_event
from tests.tournaments.test_big_event import Controls, post_as_a_browser, tournament
from tests.tournaments.test_organiser_events import END, START, entry, errors_of
from tournaments.federation import RANKED_RACES
from tournaments.models import EventStatus, Race

pytestmark = pytest.mark.django_db

owner, draft, numbers, browser = big_event.owner, big_event.draft, big_event.numbers, big_event.browser
RACES_READ = f'FROM "{Race._meta.db_table}"'


@pytest.fixture
def second_draft(owner):
    """A second draft of Olga's on the same weekend, for the bigger of two events."""
    return EventFactory(name="Leiden Open", start_date=START, end_date=END, status=EventStatus.DRAFT, organiser=owner)


def queries(client, url: str, body: str | None = None) -> tuple[int, int, object]:
    """(queries, of which reads of the races table, response) of one GET, or of one urlencoded POST of body."""
    with CaptureQueriesContext(connection) as captured:
        if body is None:
            response = client.get(url)
        else:
            response = client.post(url, body, content_type="application/x-www-form-urlencoded")
    races = sum(RACES_READ in query["sql"] for query in captured.captured_queries)
    return len(captured), races, response


def edit_url(event) -> str:
    return f"/organiser/events/{event.pk}/edit/"


def with_a_coach_against_himself(client, event, data: dict) -> tuple[str, int]:
    """The page's post with the last game's away coach made its home coach, and that game's row."""
    last = max(int(name.split("-")[1]) for name, value in data.items() if name.endswith("-round") and value != "")
    data = data | {f"games-{last}-away_coach": data[f"games-{last}-home_coach"]}
    token = Controls(client.get(edit_url(event)).content.decode()).values["csrfmiddlewaretoken"]
    return urlencode({"csrfmiddlewaretoken": token, **data}), last


def test_the_entry_page_of_an_8_or_a_64_coach_event_runs_the_same_queries_reading_the_races_once(
    browser, draft, second_draft, numbers,
):
    for event, coaches in ((draft, numbers[:8]), (second_draft, numbers)):
        saved, _ = post_as_a_browser(browser, event, tournament(event, coaches, rounds=7))
        assert saved.status_code == 302, saved.context and saved.context["problems"]
    small, small_races, small_page = queries(browser, edit_url(draft))
    big, big_races, big_page = queries(browser, edit_url(second_draft))
    # 28 games and 8 participants against 224 and 64: the same page, eight times the rows
    assert (len(small_page.context["entry"].games.forms), len(big_page.context["entry"].games.forms)) == (32, 228)
    assert (len(small_page.context["entry"].participants.forms), len(big_page.context["entry"].participants.forms)) == (12, 68)
    assert big == small
    assert (small_races, big_races) == (1, 1)


def test_a_refused_entry_of_an_8_or_a_64_coach_event_runs_the_same_queries_reading_the_races_twice(
    browser, draft, second_draft, numbers,
):
    counted = []
    for event, coaches in ((draft, numbers[:8]), (second_draft, numbers)):
        data = tournament(event, coaches, rounds=7)
        body, last = with_a_coach_against_himself(browser, event, data)
        total, races, response = queries(browser, edit_url(event), body)
        assert response.status_code == 200
        assert errors_of(response, "games")[last] == {
            "away_coach": [f"Coach {data[f'games-{last}-home_coach']} cannot play against themselves."],
        }
        counted.append((last, total, races))
    (small_last, small, small_races), (big_last, big, big_races) = counted
    assert (small_last, big_last) == (27, 223)
    assert big == small
    # once the ranked races for the dropdowns and their checks, once every race's name for the checks across rows
    assert (small_races, big_races) == (2, 2)


def options(html: str, name: str) -> list[tuple[str, str, bool]]:
    """(value, label, selected) of each option of the select named name."""
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S).group(1)
    return [(value, label, bool(selected)) for value, selected, label in re.findall(r'<option value="([^"]*)"( selected)?>([^<]*)', select)]


def test_every_race_dropdown_offers_the_ranked_races_by_name_and_shows_the_one_saved(client, owner, draft):
    for number in (101, 102, 103, 104):
        CoachFactory(number=number, name=f"Coach {number}")
    Race.objects.create(name="Khemri", slug="khemri", ranked=False)
    client.force_login(owner)
    assert client.post(edit_url(draft), entry(draft)).status_code == 302
    html = client.get(edit_url(draft)).content.decode()
    ranked = [(name.lower().replace(" ", "-"), name) for name in sorted(RANKED_RACES)]
    assert ranked[:3] == [("amazon", "Amazon"), ("black-orc", "Black Orc"), ("chaos-chosen", "Chaos Chosen")]
    assert len(ranked) == 30
    assert options(html, "participants-0-race") == [("", "---------", False)] + [
        (slug, name, slug == "human") for slug, name in ranked
    ]
    # the first game, 101 against 102, was saved with the races they are registered with
    assert options(html, "games-0-home_race") == [("", "---------", False)] + [
        (slug, name, slug == "human") for slug, name in ranked
    ]
    assert [value for value, _, selected in options(html, "games-0-away_race") if selected] == ["orc"]
    assert options(html, "awards-0-race") == [("", "---------", True)] + [(slug, name, False) for slug, name in ranked]
