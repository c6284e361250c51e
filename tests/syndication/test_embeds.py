"""The embeds: leaderboards for an iframe (framable by any site, unlike every other page) equal to the
ranking page for the same filter, the coach's SVG badge, both cached and cheap; and the embeds page."""
import xml.etree.ElementTree as ET

import pytest

from ratings.models import CurrentRating
from ratingsite.formatting import fixed
from tests.syndication.conftest import HIDDEN_NAME
from tests.web.conftest import column, table
from tests.web.test_headers import POLICY, policy
from tournaments.models import Coach

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def leaderboard(response) -> dict:
    assert response.status_code == 200
    return table(response, "ranking")


@pytest.mark.parametrize("path", ["/embed/elo/country/nl/", "/embed/glicko/race/human/", "/nl/embed/knsb/country/NL/"])
def test_an_embed_may_be_framed_by_any_site(client, federation, path):
    response = client.get(path)
    assert response.status_code == 200
    assert policy(response) == {**POLICY, "frame-ancestors": "*"}
    assert "X-Frame-Options" not in response


@pytest.mark.parametrize("path", ["/embed/", "/rankings/elo/", "/feeds/events/", "/coaches/101/", "/embed/elo/badge/101.svg"])
def test_every_other_page_keeps_the_sites_framing_policy(client, federation, path):
    response = client.get(path)
    assert response.status_code == 200
    assert policy(response) == POLICY
    assert response["X-Frame-Options"] == "DENY"


def test_a_country_leaderboard_equals_the_ranking_page_with_that_country(client, federation):
    embed = leaderboard(client.get("/embed/elo/country/nl/"))
    assert embed["header"] == ["Rank", "Coach", "Race", "Rating", "Games"]
    assert embed["caption"] == "NAF Elo ranking, nationality Netherlands (first 20)"
    page = table(client.get("/rankings/elo/?country=NL"), "ranking")
    assert column(embed, "Coach") == column(page, "Coach")
    assert column(embed, "Rank") == column(page, "Overall")
    assert column(embed, "Rating") == column(page, "Rating")
    assert column(embed, "Race") == column(page, "Race")
    # the hidden coach plays for the Netherlands: a hidden coach shows no nationality, so no country's
    # leaderboard (nor the ranking page's country filter) finds him, by label or name
    ivo = Coach.objects.get(number=109)
    assert ivo.label not in column(embed, "Coach")
    assert HIDDEN_NAME not in client.get("/embed/elo/country/nl/").content.decode()
    assert "Jumping Jan" in column(embed, "Coach")


def test_a_race_leaderboard_equals_the_ranking_page_with_that_race_and_inactive_keys_get_a_dash(client, federation):
    embed = leaderboard(client.get("/embed/glicko/race/human/"))
    assert embed["header"] == ["Rank", "Coach", "Rating", "Games"]
    page = table(client.get("/rankings/glicko/?race=human"), "ranking")
    assert column(embed, "Coach") == column(page, "Coach")
    assert column(embed, "Rank") == column(page, "Rank")
    assert column(embed, "Rating") == column(page, "Rating")
    anna = CurrentRating.objects.get(system__slug="glicko", coach__number=101, race__slug="human")
    assert anna.rank is None  # φ above the limit: no rank, as on the ranking page
    row = dict(zip(embed["header"], next(cells for _, cells in embed["rows"] if cells[1] == "Anna Jansen")))
    assert (row["Rank"], row["Rating"]) == ("-", fixed(anna.value))


def test_the_rows_parameter_bounds_the_leaderboard(client, federation):
    embed = leaderboard(client.get("/embed/elo/country/nl/?rows=2"))
    assert len(embed["rows"]) == 2
    assert embed["caption"] == "NAF Elo ranking, nationality Netherlands (first 2)"
    assert client.get("/embed/elo/country/nl/?rows=0").status_code == 400
    assert client.get("/embed/elo/country/nl/?rows=101").status_code == 400


def test_a_leaderboard_of_nothing_known_is_not_found(client, federation):
    assert client.get("/embed/elo/country/xx/").status_code == 404
    assert client.get("/embed/elo/race/no-such-race/").status_code == 404
    assert client.get("/embed/no-such-system/country/nl/").status_code == 404
    # Global Glicko pools the races: it ranks no race
    assert client.get("/embed/global-glicko/race/human/").status_code == 404


def test_the_leaderboard_is_its_own_accessible_page_in_the_addresss_language(client, federation):
    html = client.get("/nl/embed/elo/country/nl/").content.decode()
    assert html.startswith("<!doctype html>\n<html lang=\"nl\">")
    assert 'class="site-header"' not in html and "<nav" not in html
    assert '<th scope="col" class="num">Plaats</th>' in html


def badge(response) -> ET.Element:
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    svg = ET.fromstring(response.content)
    assert svg.tag == f"{SVG}svg"
    assert svg.get("role") == "img"
    return svg


def test_a_badge_holds_the_coachs_rating_and_rank(client, federation):
    best = CurrentRating.objects.filter(system__slug="elo", coach__number=101).order_by("overall_rank").first()
    svg = badge(client.get("/embed/elo/badge/101.svg"))
    expected = f"Anna Jansen: NAF Elo rating {fixed(best.value)}, rank {best.overall_rank}"
    assert svg.find(f"{SVG}title").text == expected
    assert svg.get("aria-labelledby") == svg.find(f"{SVG}title").get("id")
    assert [text.text for text in svg.findall(f"{SVG}text")] == ["Anna Jansen", f"NAF Elo {fixed(best.value)}, rank {best.overall_rank}"]
    dutch = badge(client.get("/nl/embed/elo/badge/101.svg"))
    dutch_value = fixed(best.value).replace(".", ",")
    assert dutch.find(f"{SVG}title").text == f"Anna Jansen: NAF Elo, rating {dutch_value}, plaats {best.overall_rank}"


def test_an_unranked_coachs_badge_says_so(client, federation):
    gus = CurrentRating.objects.get(system__slug="elo", coach__number=107)
    assert gus.overall_rank is None
    svg = badge(client.get("/embed/elo/badge/107.svg"))
    assert svg.find(f"{SVG}title").text == f"Gus Martin: NAF Elo rating {fixed(gus.value)}, not ranked"


def test_a_hidden_coach_has_no_badge(client, federation):
    assert CurrentRating.objects.filter(coach__number=109).exists()
    assert client.get("/embed/elo/badge/109.svg").status_code == 404
    assert client.get("/embed/elo/badge/999.svg").status_code == 404


def test_the_embeds_page_gives_the_snippets_for_the_choice(client, federation):
    html = client.get("/embed/?system=elo&country=NL&race=human&number=101").content.decode()
    assert '&lt;iframe src="http://testserver/embed/elo/country/nl/" title="NAF Elo ranking"' in html
    assert '&lt;iframe src="http://testserver/embed/elo/race/human/" title="NAF Elo ranking"' in html
    assert '&lt;img src="http://testserver/embed/elo/badge/101.svg" alt="Rating badge of coach 101"&gt;' in html
    assert client.get("/embed/?number=abc").status_code == 400
    assert "&lt;iframe" not in client.get("/embed/").content.decode()
