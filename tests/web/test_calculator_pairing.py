"""The calculator's pairing: two ratings under each method, or two named coaches (tested with
their ratings in tests/ratings/test_predictions.py); bad input is a form error; the calculator's
own fields and address work as before.

1600 (φ 80) against 1500 (φ 100): NAF Elo 10^(−100/150) = 0.215443, P = 1/1.215443 = 0.822742;
Glicko-2 g(100) = 0.953149, E = 1/(1 + e^(−0.953149·0.575646)) = 0.633829, and the other way
g(80) = 0.969247, E = 0.364023; KNSB Φ(100/285.714) = 0.636831.
"""
import pytest

from tests.factories import CoachFactory
from tests.web.conftest import table

pytestmark = pytest.mark.django_db


def pairing(client, **fields):
    return client.get("/calculator/", {f"pairing-{name}": value for name, value in fields.items()})


def errors_of(response) -> list[str]:
    form = response.context["pairing_form"]
    return [error for errors in form.errors.values() for error in errors]


def test_two_ratings_give_each_methods_expected_score(client):
    response = pairing(client, home_rating=1600, home_phi=80, away_rating=1500, away_phi=100)
    assert response.status_code == 200
    found = table(response, "Expected score of a rating of 1600 against 1500, under each method")
    assert [[cells[0], *cells[3:]] for _, cells in found["rows"]] == [
        ["NAF Elo", "0.823", "0.177"],
        ["NAF Glicko", "0.634", "0.364"],
        ["KNSB list rating", "0.637", "0.363"],
    ]


def test_the_glicko_phi_is_80_where_none_is_given(client):
    response = pairing(client, home_rating=1600, away_rating=1500)
    rows = {cells[0]: cells for _, cells in table(response, "Expected score of a rating")["rows"]}
    # g(80) = 0.969247 both ways: 1/(1 + e^(∓0.969247·0.575646)) = 0.635977 and 0.364023
    assert rows["NAF Glicko"][1:] == ["1600.00 (φ 80.00)", "1500.00 (φ 80.00)", "0.636", "0.364"]


def test_a_pairing_alone_leaves_the_calculator_unbound(client):
    response = pairing(client, home_rating=1600, away_rating=1500)
    assert not response.context["form"].is_bound and not response.context["results"]


def test_the_calculator_and_a_pairing_answer_together(client):
    response = client.get("/calculator/", {"rating": 150, "results": "150 1", "coaches": 20, "pairing-home_rating": 160,
                                           "pairing-away_rating": 140})
    assert response.status_code == 200
    assert response.context["results"]["elo"][1]["rn"] == 154.47
    assert table(response, "Expected score of a rating of 160 against 140")["rows"][0][1][3] == "0.576"


@pytest.mark.parametrize("fields, message", [
    ({"home_coach": 999_999, "home_race": "human", "away_coach": 1, "away_race": "orc"},
     "There is no coach with federation number 999999."),
    ({"home_coach": 1, "home_race": "human", "away_coach": 1, "away_race": "orc"},
     "A coach cannot play against himself: name two different coaches."),
    ({"home_coach": 1, "home_race": "human", "away_coach": 2}, "Choose the race he plays: NAF Elo and NAF Glicko rate each race apart."),
    ({"home_coach": 1, "home_race": "human"}, "Give the away coach's federation number too."),
    ({"home_coach": 1, "home_race": "human", "away_rating": 1500}, "Name two coaches or give two ratings, not both."),
    ({"home_rating": 1500}, "Give the away rating too."),
    ({"variant": "blood-bowl-2020"}, "Name two coaches by federation number (with their races), or give two ratings."),
    ({"home_rating": 1500, "away_rating": 1400, "variant": "croquet"},
     "Select a valid choice. That choice is not one of the available choices."),
])
def test_bad_pairings_are_form_errors(client, fields, message):
    CoachFactory(number=1, name="One")
    CoachFactory(number=2, name="Two")
    response = pairing(client, **fields)
    assert response.status_code == 400
    assert message in errors_of(response)
    assert message in response.content.decode().replace("&#x27;", "'")
    assert response.context["pairing"] is None


def test_the_empty_page_shows_the_pairing_form(client):
    html = client.get("/calculator/").content.decode()
    assert 'name="pairing-home_coach"' in html and 'name="pairing-away_rating"' in html


def test_a_browsers_submission_with_every_field_the_empty_ones_too(client):
    response = pairing(client, home_coach="", home_race="", away_coach="", away_race="", variant="blood-bowl-2020",
                       home_rating="160", home_phi="80", away_rating="140", away_phi="80")
    assert response.status_code == 200
    found = table(response, "Expected score of a rating of 160 against 140")
    assert found["rows"][0][1] == ["NAF Elo", "160.00", "140.00", "0.576", "0.424"]
