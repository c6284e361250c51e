"""The coach directory (/coaches/) and the header's search box, and the same matching in every name filter."""
import datetime as dt

import pytest
from django import forms

from ratings.models import Publication
from stats.forms import coach_lookup
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.web.conftest import column, table

pytestmark = pytest.mark.django_db

CAPTION = "Coaches by name"


@pytest.fixture
def coaches():
    made = [
        CoachFactory(number=201, name="Tóth Ádám", nationality="HU"),
        CoachFactory(number=202, name="Tóth Béla", nationality="HU"),
        CoachFactory(number=203, name="Adam Smith", nationality="GB"),
        CoachFactory(number=204, name="Černý Jiří", nationality="CZ"),
        CoachFactory(number=205, name="Abel Brown", nationality="GB"),
        CoachFactory(number=206, name="Zoë Ødegård", nationality="NO"),
    ]
    return {coach.number: coach for coach in made}


def names(response) -> list[str]:
    return column(table(response, CAPTION), "Coach")


def test_the_directory_lists_every_coach_by_name_accents_filed_with_their_letter(client, coaches):
    response = client.get("/coaches/")
    assert response.status_code == 200
    assert names(response) == ["Abel Brown", "Adam Smith", "Černý Jiří", "Tóth Ádám", "Tóth Béla", "Zoë Ødegård"]
    found = table(response, CAPTION)
    assert found["header"] == ["Number", "Coach", "Country", "Games"]
    assert found["rows"][3][1] == ["201", "Tóth Ádám", "Hungary", "0"]
    assert '<a href="/coaches/201/">Tóth Ádám</a>' in response.content.decode()


@pytest.mark.parametrize(("query", "found"), [
    ("toth", ["Tóth Ádám", "Tóth Béla"]),
    ("TÓTH", ["Tóth Ádám", "Tóth Béla"]),
    ("cerny", ["Černý Jiří"]),
    ("ádám", ["Adam Smith", "Tóth Ádám"]),
    ("adam toth", ["Tóth Ádám"]),
    ("odegard", ["Zoë Ødegård"]),
    ("oedegaard", ["Zoë Ødegård"]),  # ø and å as people type them
    ("zoe", ["Zoë Ødegård"]),
    ("nobody", []),
])
def test_a_search_matches_every_word_whatever_the_case_and_accents(client, coaches, query, found):
    response = client.get("/coaches/", {"q": query})
    assert response.status_code == 200
    assert names(response) == found
    assert f"{len(found)} coach" in response.content.decode()


def test_a_federation_number_goes_straight_to_the_coach_page(client, coaches):
    response = client.get("/coaches/", {"q": " 204 "})
    assert (response.status_code, response["Location"]) == (302, "/coaches/204/")


def test_a_number_no_coach_has_lists_the_names_holding_it(client, coaches):
    CoachFactory(number=900, name="FUMBBL coach 2077")
    response = client.get("/coaches/", {"q": "2077"})
    assert response.status_code == 200
    assert names(response) == ["FUMBBL coach 2077"]


def test_the_country_filter_keeps_that_nationality(client, coaches):
    response = client.get("/coaches/", {"country": "GB"})
    assert names(response) == ["Abel Brown", "Adam Smith"]
    assert table(response, CAPTION)["caption"] == "Coaches by name: United Kingdom"
    assert names(client.get("/coaches/", {"country": "HU", "q": "bela"})) == ["Tóth Béla"]


def test_a_number_with_a_country_is_a_search_within_that_country(client, coaches):
    response = client.get("/coaches/", {"q": "201", "country": "GB"})
    assert response.status_code == 200
    assert names(response) == []


def test_an_unknown_country_is_a_clear_message_and_lists_no_one(client, coaches):
    response = client.get("/coaches/", {"country": "XX"})
    assert response.status_code == 400
    assert "No coach has the nationality “XX”: choose a country from the list." in response.content.decode()
    assert names(response) == []


def test_pages_of_the_directory_follow_the_name_order(client, coaches):
    response = client.get("/coaches/", {"per_page": 2, "page": 2})
    assert names(response) == ["Černý Jiří", "Tóth Ádám"]
    assert "Page 2 of 3 (6 rows)" in response.content.decode()


@pytest.mark.parametrize(("page", "status"), [("9", 404), ("two", 400)])
def test_a_page_that_does_not_exist_says_so_and_shows_one_that_does(client, coaches, page, status):
    response = client.get("/coaches/", {"per_page": 2, "page": page})
    assert response.status_code == status
    assert f"There is no page “{page}” of this list: showing page {3 if page == '9' else 1} of 3." in response.content.decode()
    assert names(response) == (["Tóth Béla", "Zoë Ødegård"] if page == "9" else ["Abel Brown", "Adam Smith"])


def test_games_are_counted_for_the_coaches_shown(client, coaches):
    event = EventFactory(start_date=dt.date(2024, 5, 4))
    first, second = RoundFactory(event=event, number=1), RoundFactory(event=event, number=2)
    play(first, coaches[201], coaches[202])
    play(second, coaches[201], coaches[203])
    found = table(client.get("/coaches/", {"q": "toth"}), CAPTION)
    assert column(found, "Games") == ["2", "1"]


def test_the_directory_reads_a_page_in_a_fixed_number_of_queries(client, django_assert_num_queries):
    for number in range(60):
        CoachFactory(number=3000 + number, name=f"Kovács {number:02d}", nationality="HU" if number % 2 else "SK")
    client.get("/coaches/")  # the nationalities are read once, then kept
    # the count, the page of 50 coaches, and their games
    with django_assert_num_queries(3):
        response = client.get("/coaches/", {"q": "kovacs", "country": "HU"})
    assert len(names(response)) == 30


@pytest.mark.parametrize("path", ["/", "/rankings/", "/events/", "/coaches/", "/stats/", "/no-such-page/"])
def test_every_page_has_the_header_search_box(client, coaches, path):
    html = client.get(path).content.decode()
    header = html[html.index('<header class="site-header">'):html.index("</header>")]
    assert '<form class="site-search" role="search" method="get" action="/coaches/">' in header
    assert '<label class="visually-hidden" for="site-search">Find a coach by name or number</label>' in header
    assert 'id="site-search" name="q"' in header


# --- the same matching in the other name filters --------------------------------------------------


def test_the_ranking_name_filter_ignores_accents(client, league):
    response = client.get("/rankings/elo/", {"name": "muller"})
    assert column(table(response, "ranking"), "Coach") == ["Dirk Müller"]
    response = client.get("/rankings/elo/", {"name": "DE VRIES cees"})
    assert column(table(response, "ranking"), "Coach") == ["Cees de Vries"]


def test_the_published_list_name_filter_ignores_accents(client, league):
    publication = Publication.objects.filter(system__slug="knsb").order_by("date").last()
    path = f"/rankings/knsb/{publication.date:%Y-%m}/"
    for query in ("müller", "muller", "MULLER dirk", "104"):
        assert column(table(client.get(path, {"name": query}), "ranking"), "Coach") == ["Dirk Müller"], query
    # the name of the day, as published, still matches as typed once the coach is renamed
    league["dirk"].name = "Dirk Mueller"
    league["dirk"].save()
    assert column(table(client.get(path, {"name": "Müller"}), "ranking"), "Coach") == ["Dirk Müller"]
    assert column(table(client.get(path, {"name": "mueller"}), "ranking"), "Coach") == ["Dirk Müller"]


def test_the_head_to_head_lookup_ignores_accents(league):
    assert coach_lookup("muller") == league["dirk"]
    assert coach_lookup("dirk MÜLLER") == league["dirk"]
    with pytest.raises(forms.ValidationError, match="No coach is called “Müllerová”"):
        coach_lookup("Müllerová")
