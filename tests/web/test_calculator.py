"""The calculator: anyone's results under every method as configured, with the breakdown tables."""
from urllib.parse import urlencode

import pytest

from ratings.engines import glicko
from ratings.models import RatingSystem
from tests.web.conftest import table

pytestmark = pytest.mark.django_db


def calculate(client, **params):
    return client.get("/calculator/?" + urlencode(params))


def header_of(response, section_id: str) -> str:
    html = response.content.decode()
    marker = f'id="{section_id}">'
    start = html.index(marker) + len(marker)
    return " ".join(html[start:html.index("</h2>", start)].replace("<output>", "").replace("</output>", "").split())


def test_the_empty_form_asks_for_input_and_reads_nothing(client, db, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/calculator/")
    assert response.status_code == 200
    assert 'name="results"' in response.content.decode() and not response.context["results"]


def test_elo_from_the_spec_twenty_coaches(client, db):
    response = calculate(client, rating=150, results="150 1", coaches=20)
    assert header_of(response, "calc-elo").endswith("NAF Elo: 150.00 → 154.47")
    rows = table(response, "NAF Elo: game by game")["rows"]
    assert rows[1][1] == ["1", "150.00", "150.00", "1.0", "0.500", "+0.500", "8.94", "+4.47", "154.47"]


def test_elo_major_and_games_applied_one_after_another(client, db):
    response = calculate(client, rating=180, results="150 1\n150 1", major="on")
    rows = table(response, "NAF Elo: game by game")["rows"]
    assert rows[1][1][-1] == "185.99"  # the spec's major check: 180 beats 150
    assert rows[2][1][1] == "185.99"  # the second game starts from it


def test_glicko_new_coach_from_the_spec(client, db):
    response = calculate(
        client, rating=1500, phi=350, sigma=0.06, results="1600 80 1\n1550 100 0\n1500 60 0.5\n1450 120 1\n1400 90 1",
    )
    assert header_of(response, "calc-glicko") == "NAF Glicko: μ 1500.00 → 1623.02, φ 350.00 → 149.15"
    assert "μ − 2.5φ: 625.00 → <strong>1250.14</strong>" in response.content.decode()
    rows = table(response, "NAF Glicko: the period")["rows"]
    assert rows[1][1][:6] == ["1", "1500.00", "1600.00", "80.00", f"{glicko.g_factor(80):.4f}", "1.0"]


def test_knsb_period_from_the_spec(client, db):
    response = calculate(client, rating=1800, nv=40, results="1700 1\n1850 ½\n1900 0\n1750 W\n2000 D\n1600 1")
    assert header_of(response, "calc-knsb") == "KNSB list rating: 1800 → 1834"
    block = table(response, "KNSB list rating: new rating")
    row = dict(zip(block["header"], block["rows"][0][1]))
    assert (row["Rtt"], row["LPR"], row["Rn"], row["Nv"], row["Wet"], row["Limitation"]) == (
        "+34.15", "1936", "1834", "46", "3.000", "none"
    )
    games = table(response, "KNSB list rating: game by game")["rows"]
    assert games[1][1][:8] == ["1", "1800", "1700", "1.0", "0.637", "+0.363", "34.15", "+12.40"]


def test_knsb_start_rating_from_the_depot(client, db):
    response = calculate(client, rating=0, nv=0, results="1500 1\n1600 0.5\n1700 0\n1400 1\n1550 0.5\n1650 0.5")
    assert header_of(response, "calc-knsb") == "KNSB list rating: start rating 1631"
    assert "Nv 6" in response.content.decode()


def test_knsb_waits_for_six_depot_games(client, db):
    response = calculate(client, rating=0, nv=0, results="1500 1\n1600 0.5")
    assert header_of(response, "calc-knsb") == "KNSB list rating: no rating yet"


def test_the_configured_parameters_are_used(client, db):
    RatingSystem.objects.filter(slug="elo").update(parameters={"round_k": True})
    response = calculate(client, rating=150, results="150 1", coaches=20)
    assert header_of(response, "calc-elo").endswith("150.00 → 154.50")  # K = 9 with round_k


@pytest.mark.parametrize("params, message", [
    ({"rating": 1500, "results": "1600 80 2"}, "Line 1 (“1600 80 2”): the score must be 1, 0.5 or 0"),
    ({"rating": 1500, "results": "1600 1\nabc 1"}, "Line 2 (“abc 1”): the opponent&#x27;s rating (and φ) must be numbers"),
    ({"rating": 1500, "results": "1600"}, "Line 1 (“1600”): give the opponent&#x27;s rating"),
    ({"rating": 1500, "results": "1600 -5 1"}, "Line 1: the opponent&#x27;s φ must be above 0"),
    ({"rating": 1500, "results": ""}, "This field is required"),
    ({"rating": "lots", "results": "1600 1"}, "Enter a number"),
    ({"rating": 1500, "results": "1600 1", "phi": "0"}, "greater than or equal to 0.001"),
    ({"rating": 1500, "results": "1600 1", "nv": "-3"}, "greater than or equal to 0"),
    ({"rating": 1500, "results": "1600 1\n" * 101}, "At most 100 results"),
])
def test_invalid_input_gets_clear_messages(client, db, params, message):
    response = calculate(client, **params)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Please correct the input" in html and message in html
    assert not response.context["results"]
