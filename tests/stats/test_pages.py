"""The pages: filters in the query string, share links that round-trip, clear messages for bad values."""
import html
import re
from urllib.parse import parse_qsl, urlsplit

import pytest

pytestmark = pytest.mark.django_db

PAGES = [
    "/stats/", "/stats/games/", "/stats/win-ratios/", "/stats/race-grid/", "/stats/rank-over-time/",
    "/stats/head-to-head/", "/stats/differentials/", "/stats/top/", "/stats/awards/", "/stats/legends/", "/stats/map/",
]


def share_link(response) -> str:
    return html.unescape(re.search(r'href="([^"]+)" class="share-anchor"', response.content.decode()).group(1))


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.mark.parametrize("url", PAGES)
def test_every_page_answers(client, league, url):
    assert client.get(url).status_code == 200


def test_statistics_appear_in_the_navigation(client, league):
    assert 'href="/stats/"' in client.get("/").content.decode()


def test_index_lists_every_page(client, league):
    body = client.get("/stats/").content.decode()
    for url in PAGES[1:]:
        assert f'href="{url}"' in body


def test_empty_parameters_are_dropped_by_a_redirect(client, league):
    response = client.get("/stats/games/?variant=&country=NL&year=&race=&coach=&sanctioned=")
    assert response.status_code == 302
    assert response.url == "/stats/games/?country=NL"


def test_share_link_is_the_filtered_address(client, league):
    response = client.get("/stats/win-ratios/?variant=blood-bowl-2020&race=wood-elf&country=NL&year=2022")
    share = share_link(response)
    assert urlsplit(share).path == "/stats/win-ratios/"
    assert dict(parse_qsl(urlsplit(share).query)) == {
        "variant": "blood-bowl-2020", "race": "wood-elf", "country": "NL", "year": "2022",
    }


def test_share_link_round_trips(client, league):
    first = client.get("/stats/games/?country=GB&sanctioned=no&race=orc")
    share = share_link(first)
    again = client.get(share.replace("http://testserver", ""))
    assert again.status_code == 200
    assert text(again) == text(first)


def test_filters_show_their_values_again(client, league):
    body = client.get("/stats/games/?race=wood-elf&country=GB&year=2023&coach=1001").content.decode()
    assert '<option value="wood-elf" selected>' in body
    assert '<option value="GB" selected>' in body
    assert 'name="year" value="2023"' in body
    assert 'name="coach" value="1001"' in body


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("race=space-marines", "Race: No race is called “space-marines”."),
        ("variant=chess", "Variant: No variant is called “chess”."),
        ("country=XX", "Event country: “XX” is not a country code (use two letters, e.g. NL)."),
        ("year=twenty", "Year: Enter a year as four digits, e.g. 2022."),
        ("year=99999", "Year: Ensure this value is less than or equal to 2100."),
        ("coach=abc", "Coach (federation number): No coach has the federation number “abc”."),
        ("coach=777", "Coach (federation number): No coach has the federation number “777”."),
        ("sanctioned=maybe", "Sanctioned: Sanctioned is “yes”, “no” or empty, not “maybe”."),
    ],
)
def test_a_tampered_filter_gets_a_clear_message(client, league, query, message):
    response = client.get(f"/stats/games/?{query}")
    assert response.status_code == 400
    assert message in text(response)


@pytest.mark.parametrize(
    "url",
    [
        "/stats/win-ratios/?min_games=-3", "/stats/race-grid/?race=x", "/stats/top/?nationality=QQ",
        "/stats/awards/?coach=x", "/stats/legends/?variant=x", "/stats/map/?year=x", "/stats/map/?region=mars",
        "/stats/differentials/?coach=0", "/stats/rank-over-time/?coach=1001&system=bogus",
        "/stats/head-to-head/?coach=1001&coach=Nobody",
    ],
)
def test_no_tampered_value_is_an_error_page(client, league, url):
    response = client.get(url)
    assert response.status_code == 400
    assert "This view cannot be shown as asked" in response.content.decode()


def test_games_explorer_filters(client, league):
    assert "4 games" in text(client.get("/stats/games/?country=GB"))
    assert "1 game." in text(client.get("/stats/games/?variant=sevens"))
    assert "5 games" in text(client.get("/stats/games/?sanctioned=yes"))
    assert "4 games" in text(client.get("/stats/games/?race=wood-elf"))
    assert "3 games" in text(client.get("/stats/games/?race=orc&year=2022"))
    assert "4 games" in text(client.get("/stats/games/?coach=1002"))
    assert "4 games" in text(client.get(f"/stats/games/?event={league.utrecht.pk}"))


def test_games_explorer_sorts_and_pages(client, league):
    body = client.get("/stats/games/?sort=date").content.decode()
    assert body.index("2022-05-07") < body.index("2023-03-04") < body.index("2023-09-02")
    body = client.get("/stats/games/").content.decode()
    assert body.index("2023-09-02") < body.index("2022-05-07")


def test_games_explorer_pages_by_fifty(client, league):
    from stats.services import summaries_refresh
    from tests.factories import RoundFactory, play

    for number in range(3, 60):
        play(RoundFactory(event=league.london, number=number), league.a, league.b)
    summaries_refresh()
    page_two = text(client.get("/stats/games/?page=2"))
    assert "Page 2 of 2" in page_two and "66 games" in page_two


def test_head_to_head_by_name_redirects_to_numbers(client, league):
    response = client.get("/stats/head-to-head/?coach=Anna+Alpha&coach=1002&coach=cora")
    assert response.status_code == 302
    assert response.url == "/stats/head-to-head/?coach=1001&coach=1002&coach=1003"


def test_head_to_head_shows_the_matrix(client, league):
    body = text(client.get("/stats/head-to-head/?coach=1001&coach=1002&coach=1003"))
    assert "Anna Alpha (1001) ■ 1–0–1 0–1–0" in body
    assert "Bert Bravo (1002) 1–0–1 ■ 0–0–1" in body
    assert "Cora Charlie (1003) 0–1–0 1–0–0 ■" in body


def test_head_to_head_more_than_eight_coaches(client, league):
    query = "&".join(f"coach={n}" for n in range(1001, 1010))
    response = client.get(f"/stats/head-to-head/?{query}")
    assert response.status_code == 400
    assert "Head-to-head compares at most 8 coaches; you chose 9. Remove 1." in text(response)


def test_head_to_head_ambiguous_name(client, league):
    response = client.get("/stats/head-to-head/?coach=a&coach=1002")
    assert "“a” matches several coaches" in text(response)


def test_race_grid_prints_every_number(client, league):
    body = client.get("/stats/race-grid/").content.decode()
    assert re.search(r'title="Human against Orc: 3 W, 0 D, 0 L">100\.0<small>3</small>', body)
    assert re.search(r'class="num mirror" title="Orc against Orc: 1 W, 0 D, 1 L">50\.0<small>2</small>', body)


def test_differentials_page(client, league):
    body = text(client.get("/stats/differentials/?coach=1001"))
    assert "Human 3 2 1 0 83.3 64.3 +19.0" in body


def test_map_draws_the_places(client, league):
    body = client.get("/stats/map/").content.decode()
    assert "/static/vendor/world-110m.svg" in body
    assert "Utrecht, Netherlands: 5 games at 2 events" in body
    assert "London, United Kingdom: 4 games at 1 events" in body
    assert "https://" not in body.split("<svg class=\"stats-map\"")[1].split("</svg>")[0]


def test_map_region(client, league):
    assert 'viewBox="-15.05 -72.00 42.13 38.00' in client.get("/stats/map/?region=europe").content.decode()


def test_pages_say_when_the_summaries_are_missing(client, db):
    assert "have not been built yet" in text(client.get("/stats/win-ratios/"))


@pytest.mark.parametrize(
    "query", ["page=abc", "page=-4", "page=99999", "sort=nonsense", "sort=-;drop", "per_page=1", "_export=pdf", "_export=csv&_table=nope"],
)
def test_tampered_paging_and_sorting_still_show_the_page(client, league, query):
    response = client.get(f"/stats/games/?{query}")
    assert response.status_code == 200
    assert "9 games" in text(response)


def test_page_size_cannot_be_raised_from_the_address(client, league):
    from stats.services import summaries_refresh
    from tests.factories import RoundFactory, play

    for number in range(3, 60):
        play(RoundFactory(event=league.london, number=number), league.a, league.b)
    summaries_refresh()
    assert "Page 1 of 2" in text(client.get("/stats/games/?per_page=1000"))


def test_coaches_sort_by_name_and_by_ratio(client, league):
    by_name = text(client.get("/stats/win-ratios/?coach-sort=-coach"))
    assert by_name.index("Dirk Delta") < by_name.index("Cora Charlie") < by_name.index("Anna Alpha")
    by_ratio = text(client.get("/stats/win-ratios/?coach-sort=-ratio"))
    assert by_ratio.index("Anna Alpha Netherlands 5 3 1 1 70.0") < by_ratio.index("Cora Charlie Netherlands 4 1 3 0 62.5")


def test_the_games_explorer_with_a_coach_matches_the_race_on_that_coachs_side(client, league):
    # Anna played human at Utrecht (twice) and at the Sevens Cup; at London she played wood elf against
    # Dirk's human, and she never played orc though her opponents did, three times
    body = text(client.get("/stats/games/?coach=1001&race=human"))
    assert "3 games" in body and "London Bash" not in body
    assert "Nothing matches these filters." in text(client.get("/stats/games/?coach=1001&race=orc"))
    assert "2 games" in text(client.get("/stats/games/?coach=1001&race=wood-elf&year=2023"))
    assert "3 games" in text(client.get("/stats/games/?coach=1004&race=orc"))  # Dirk's orcs, not Bert's
