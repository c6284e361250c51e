"""Odd query parameters on every public list page get an answer (a page, a redirect, a 400 or 404
with a message), never a server error; page sizes cannot be raised past the cap."""
import pytest

from stats.services import summaries_refresh
from tests.roles import staff
from tests.scopes import kept_for_the_module
from tests.web.conftest import build_league, recalculate_all

ODD_VALUES = [
    "", " ", "-1", "0", "1000000", "99999999999999999999999", "1e309", "nan", "abc", "-;drop", "' OR 1=1 --",
    "\x00", "a\x00b", "\x1f", "☃", "%", "[]", "x" * 3000,
]

# every public list page, and the parameters it reads
PAGES = {
    "/rankings/elo/": ["system", "race", "variant", "country", "active", "name", "sort", "page", "per_page", "_export"],
    "/rankings/glicko/2024-07/": ["race", "variant", "country", "active", "name", "sort", "page", "per_page"],
    "/events/": ["name", "year", "country", "variant", "major", "status", "sort", "page", "per_page"],
    "/lists/elo/": ["sort", "page", "per_page"],
    "/lists/knsb/2024-07/": ["variant", "starters-page", "starters-per_page", "starters-sort", "risers-sort", "fallers-sort"],
    "/coaches/101/": ["system", "history-page", "history-per_page", "history-sort", "events-page", "events-per_page", "events-sort"],
    "/coaches/101/breakdown/elo/": ["race", "variant", "period"],
    "/stats/games/": ["variant", "country", "year", "race", "coach", "sanctioned", "event", "sort", "page", "per_page", "_export"],
    "/stats/win-ratios/": ["variant", "min_games", "race-sort", "coach-sort", "coach-page", "coach-per_page", "_export", "_table"],
    "/stats/race-grid/": ["variant", "country", "year", "race", "coach", "sanctioned", "_export"],
    "/stats/rank-over-time/": ["coach", "system", "race", "variant", "sort"],
    "/stats/head-to-head/": ["coach", "variant", "year", "sanctioned", "games-page", "games-per_page"],
    "/stats/differentials/": ["coach", "variant", "country", "year", "sanctioned"],
    "/stats/top/": ["variant", "country", "nationality", "year", "sanctioned", "_table"],
    "/stats/awards/": ["variant", "country", "year", "coach", "event-page", "coach-per_page", "category-sort"],
    "/stats/legends/": ["variant", "sanctioned"],
    "/stats/map/": ["variant", "year", "sanctioned", "region"],
}


@pytest.fixture(scope="module")
def federation(django_db_setup, django_db_blocker):
    """The public pages' small federation, rated and counted, rolled back at the module's end."""
    with kept_for_the_module(django_db_blocker):
        data = build_league()
        recalculate_all()
        summaries_refresh()
        yield data


@pytest.mark.parametrize("path", list(PAGES))
def test_odd_values_in_any_parameter_never_give_a_server_error(client, federation, db, path):
    answers = {}
    for name in PAGES[path]:
        for value in ODD_VALUES:
            # the test client raises a view's exception, so a server error fails the test with its traceback
            response = client.get(path, {name: value})
            answers[(name, value)] = response.status_code
    assert set(answers.values()) <= {200, 302, 400, 404}, {k: v for k, v in answers.items() if v not in {200, 302, 400, 404}}


@pytest.mark.parametrize("path", ["/rankings/elo/", "/events/", "/lists/elo/", "/coaches/101/?history-per_page={}"])
@pytest.mark.parametrize("per_page", ["1000000", "-5", "0", "abc"])
def test_a_page_size_out_of_range_is_a_400_naming_the_limit(client, federation, db, path, per_page):
    url = path.format(per_page) if "{}" in path else f"{path}?per_page={per_page}"
    response = client.get(url)
    assert response.status_code == 400
    assert "from 1 to 200" in response.content.decode()
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "<h1>Bad request</h1>" in response.content.decode() and 'href="/rankings/"' in response.content.decode()


def test_a_page_size_within_the_cap_is_honoured(client, federation, db):
    response = client.get("/rankings/elo/?per_page=2")
    assert response.status_code == 200
    assert len(response.context["table"].page.object_list) == 2


@pytest.mark.parametrize("url", [
    "/rankings/elo/?name=an%00na", "/events/?sort=name%00", "/stats/race-grid/?variant=%00", "/lists/elo/?page=1%01",
    "/stats/map/?region=eu%00rope", "/coaches/101/?sys%00tem=elo",
])
def test_control_characters_in_the_query_are_a_400_with_a_message(client, federation, db, url):
    response = client.get(url)
    assert response.status_code == 400
    assert "control character" in response.content.decode()
    assert "<h1>Bad request</h1>" in response.content.decode()


def test_an_export_format_not_offered_is_the_sites_400_page(client, federation, db):
    response = client.get("/rankings/elo/?_export=xlsx")
    assert response.status_code == 400
    page = response.content.decode()
    assert "Only ?_export=csv is offered." in page and "<h1>Bad request</h1>" in page


@pytest.mark.parametrize("path", ["/staff/runs/", "/staff/events/", "/staff/members/", "/staff/audit/"])
@pytest.mark.parametrize("per_page", ["-5", "0", "1000000", "abc"])
def test_a_staff_table_refuses_a_page_size_it_cannot_use_with_a_message(client, db, path, per_page):
    client.force_login(staff())
    response = client.get(f"{path}?per_page={per_page}")
    assert response.status_code == 400
    assert "is not a page size: give a number of rows from 1 to 200." in response.content.decode()
    assert client.get(f"{path}?per_page=2").status_code == 200
