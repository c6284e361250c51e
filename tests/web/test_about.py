"""About the ratings: formulas and parameters as configured, charts drawn from that configuration."""
import pytest

from ratings.models import RatingSystem
from tests.web.conftest import table

pytestmark = pytest.mark.django_db


def test_parameters_are_read_from_the_configuration(client, db):
    response = client.get("/about/ratings/")
    assert response.status_code == 200
    params = dict(cells for _, cells in table(response, "NAF Glicko: engine parameters")["rows"])
    assert (params["tau"], params["phi0"], params["inactive_phi"], params["period"]) == ("0.2", "350.0", "100.0", "month")
    global_params = dict(cells for _, cells in table(response, "Global Glicko: engine parameters")["rows"])
    assert global_params["period"] == "two_weeks" and global_params["excluded_races"] == "goblin, halfling, ogre"
    assert dict(cells for _, cells in table(response, "NAF Elo: engine parameters")["rows"])["inactive_after_months"] == "24"


def test_months_until_a_rank_lapses_match_the_spec(client, db):
    response = client.get("/about/ratings/")
    lapse = table(response, "NAF Glicko: idle months until the rank lapses")
    months = dict(zip(lapse["header"][1:], lapse["rows"][0][1][1:]))
    assert (months["60"], months["90"]) == ("59", "18")  # from φ 60 about 59 idle months; from φ 90 about 18
    growth = table(response, "NAF Glicko: φ after idle months")
    row18 = next(cells for _, cells in growth["rows"] if cells[0] == "18")
    assert row18[growth["header"].index("from φ 60")] == "74.54"  # the spec: idle from φ 60, after 18 months


def test_months_until_a_rank_lapses_from_a_given_phi(client, db):
    html = client.get("/about/ratings/?phi=60").content.decode()
    assert "From φ 60: the rank lapses after 59 idle months." in html
    assert "From φ 150 the entry is already unranked." in client.get("/about/ratings/?phi=150").content.decode()
    bad = client.get("/about/ratings/?phi=lots")
    assert bad.status_code == 400 and "is not a φ" in bad.content.decode()


def test_charts_follow_a_change_of_the_parameters(client, db):
    system = RatingSystem.objects.get(slug="glicko")
    system.parameters = {"period": "month", "inactive_phi": 120}
    system.save()
    response = client.get("/about/ratings/")
    assert "ranked while φ ≤ 120" in response.content.decode()
    lapse = table(response, "NAF Glicko: idle months until the rank lapses (φ above 120)")
    months = dict(zip(lapse["header"][1:], lapse["rows"][0][1][1:]))
    assert months["60"] == str(int((120**2 - 60**2) // (173.7178 * 0.06) ** 2) + 1)


def test_expected_score_against_rating_difference(client, db):
    response = client.get("/about/ratings/")
    found = table(response, "Expected score by rating difference")
    rows = {cells[0]: cells[1:] for _, cells in found["rows"]}
    knsb, _glicko, elo = rows["200"]
    assert knsb == "0.758"  # the KNSB's 200 points → 0.758
    assert elo == "0.956"  # NAF Elo on its 150-point scale
    assert rows["0"] == ["0.500", "0.500", "0.500"]


def test_charts_have_a_text_alternative(client, db):
    html = client.get("/about/ratings/").content.decode()
    assert html.count('<svg class="chart"') == 5  # φ growth and lapse for both Glicko systems, and We
    assert html.count('role="img"') == 5 and html.count("<desc id=") == 5


def test_the_dash_rule_is_explained_for_every_system(client, db):
    response = client.get("/about/ratings/")
    html = response.content.decode()
    assert 'id="inactive"' in html
    assert "No rank after 24 months without a counted game." in html
    assert "No rank while φ is above 100" in html


def test_about_query_count(client, db, django_assert_num_queries):
    # the systems, then variants and excluded races of each of the four
    with django_assert_num_queries(9):
        client.get("/about/ratings/")


def test_the_page_says_what_each_change_does_to_published_lists_and_to_the_live_ratings(client, db):
    text = client.get("/about/ratings/").content.decode()
    assert '<h2 id="published-heading">Published lists never change</h2>' in text
    for rule in ("A result reported late, or a correction (NAF Elo and Glicko):",
                 "A result reported late, or a correction (KNSB):", "A merge of two coach records:",
                 "A change of a system's parameters:", "A ruling that must apply retroactively:"):
        assert rule in text
    assert "keep the duplicate's entries under the duplicate's own number and name" in text
    assert "goes into the list after the month of its report, with R0 and Rc of the list in force when it was played" in text
    assert "one row takes the old result's Rt back, one rates the new result" in text
