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
    # 8 participants against 64: the same page, eight times the rows
    assert (len(small_page.context["entry"].participants.forms), len(big_page.context["entry"].participants.forms)) == (12, 68)
    assert big == small
    assert (small_races, big_races) == (1, 1)
    # a round's page: 4 games against 32
    small, small_races, small_page = queries(browser, edit_url(draft) + "?round=7")
    big, big_races, big_page = queries(browser, edit_url(second_draft) + "?round=7")
    assert (len(small_page.context["entry"].games.forms), len(big_page.context["entry"].games.forms)) == (8, 36)
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


def suggested_races(html: str) -> list[str]:
    """The races the page's one race list suggests."""
    return re.findall(r'<option value="([^"]*)">', re.search(r'<datalist id="event-races">(.*?)</datalist>', html, re.S).group(1))


def race_input(html: str, name: str) -> tuple[str, str]:
    """(the list it suggests from, the value shown) of the race input named name."""
    tag = re.search(rf'<input type="text" name="{name}"[^>]*>', html).group(0)
    return re.search(r'list="([^"]*)"', tag).group(1), (re.search(r'value="([^"]*)"', tag) or [None, ""])[1]


def test_every_race_input_suggests_the_ranked_races_by_name_and_shows_the_one_saved(client, owner, draft):
    for number in (101, 102, 103, 104):
        CoachFactory(number=number, name=f"Coach {number}")
    Race.objects.create(name="Khemri", slug="khemri", ranked=False)
    client.force_login(owner)
    assert client.post(edit_url(draft), entry(draft)).status_code == 302
    html = client.get(edit_url(draft)).content.decode()
    round_page = client.get(edit_url(draft) + "?round=1").content.decode()
    ranked = sorted(RANKED_RACES)
    assert ranked[:3] == ["Amazon", "Black Orc", "Chaos Chosen"] and len(ranked) == 30
    # one list a page (thirty options on every row made a big event's page megabytes), the unranked left out
    assert suggested_races(html) == suggested_races(round_page) == ranked
    assert race_input(html, "participants-0-race") == ("event-races", "Human")
    # the first game, 101 against 102, was saved with the races they are registered with
    assert race_input(round_page, "games-0-home_race") == ("event-races", "Human")
    assert race_input(round_page, "games-0-away_race") == ("event-races", "Orc")
    assert race_input(html, "awards-0-race") == ("event-races", "")
