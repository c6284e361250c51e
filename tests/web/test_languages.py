"""The site in English and Dutch: English at the bare addresses, Dutch under /nl/, a switch that is a
link, the bare home page leading a Dutch browser on, and downloads the same file in either language."""
import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from stats.services import summaries_refresh
from tests.web.conftest import tables_of

pytestmark = pytest.mark.django_db


def html_lang(response) -> str:
    text = response.content.decode()
    start = text.index("<html lang=\"") + len("<html lang=\"")
    return text[start:text.index("\"", start)]


def test_a_dutch_browser_at_the_home_page_is_led_to_the_dutch_home_page(client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="nl-NL,nl;q=0.9,en;q=0.5")
    assert response.status_code == 302 and response["Location"] == "/nl/"
    assert {"Accept-Language", "Cookie"} <= {part.strip() for part in response["Vary"].split(",")}
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="nl")
    assert html_lang(page) == "nl" and page["Content-Language"] == "nl"
    text = page.content.decode()
    assert "<h1>Federatieratings</h1>" in text and "Recent goedgekeurde toernooien" in text
    assert "Skip to content" not in text and "Naar de inhoud" in text


def test_an_english_browser_stays_at_the_bare_home_page_in_english(client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.8")
    assert response.status_code == 200 and html_lang(response) == "en-gb"
    assert "<h1>Federation ratings</h1>" in response.content.decode()


def test_every_other_bare_address_is_english_whatever_the_browser(client):
    response = client.get("/events/", HTTP_ACCEPT_LANGUAGE="nl")
    assert response.status_code == 200 and html_lang(response) == "en-gb"
    assert "<h1>Events</h1>" in response.content.decode()


def test_a_dutch_address_is_dutch_whatever_the_browser(client, league):
    response = client.get("/nl/rankings/elo/?race=orc", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200 and html_lang(response) == "nl"
    text = response.content.decode()
    assert "Ranglijsten" in text  # the navigation
    # every link the page makes stays in Dutch
    assert 'href="/nl/events/"' in text and 'href="/events/"' not in text


def test_the_switch_links_to_this_page_in_the_other_language_keeping_the_query(client, league):
    response = client.get("/stats/games/?race=orc&year=2024")
    text = response.content.decode()
    switch = "/language/nl/?next=%2Fstats%2Fgames%2F%3Frace%3Dorc%26year%3D2024"
    assert f'href="{switch}"' in text and 'hreflang="nl" lang="nl">Nederlands</a>' in text
    assert '<link rel="alternate" hreflang="nl" href="/nl/stats/games/?race=orc&amp;year=2024">' in text
    followed = client.get(switch)
    assert followed.status_code == 302 and followed["Location"] == "/nl/stats/games/?race=orc&year=2024"
    assert followed.cookies[settings.LANGUAGE_COOKIE_NAME].value == "nl"
    dutch = client.get(followed["Location"])
    back = "/language/en-gb/?next=%2Fnl%2Fstats%2Fgames%2F%3Frace%3Dorc%26year%3D2024"
    assert f'href="{back}"' in dutch.content.decode() and 'lang="en-gb">English</a>' in dutch.content.decode()
    returned = client.get(back)
    assert returned["Location"] == "/stats/games/?race=orc&year=2024"


def test_english_chosen_with_the_switch_keeps_a_dutch_browser_at_the_english_home_page(client):
    client.get("/language/en-gb/?next=/nl/")
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="nl")
    assert response.status_code == 200 and html_lang(response) == "en-gb"


def test_dutch_chosen_with_the_switch_leads_an_english_browser_to_the_dutch_home_page(client):
    client.get("/language/nl/?next=/")
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="en")["Location"] == "/nl/"


@pytest.mark.parametrize("target", ["https://elsewhere.example/", "//elsewhere.example/x", "javascript:alert(1)"])
def test_the_switch_leads_only_to_this_site(client, target):
    response = client.get("/language/nl/", {"next": target})
    assert response.status_code == 302 and response["Location"] == "/nl/"


def test_the_switch_knows_only_the_sites_languages(client):
    assert client.get("/language/de/?next=/").status_code == 404


def test_reverse_gives_the_address_in_the_active_language():
    assert reverse("rankings", args=["elo"]) == "/rankings/elo/"
    with translation.override("nl"):
        assert reverse("rankings", args=["elo"]) == "/nl/rankings/elo/"


def test_a_dutch_page_translates_the_stats_table_headers_and_page_text(client, league):
    response = client.get("/nl/stats/win-ratios/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "Per ras" in text and "Download deze tabel als CSV" in text


@pytest.mark.parametrize("address", [
    "/rankings/elo/?_export=csv", "/rankings/knsb/2024-07/?_export=csv", "/stats/games/?_export=csv",
    "/stats/win-ratios/?_export=csv&_table=coaches", "/stats/rank-over-time/?coach=101&system=elo&_export=csv",
])
def test_a_csv_download_is_the_same_file_from_the_dutch_address(client, league, address):
    english = client.get(address)
    english_bytes = b"".join(english.streaming_content)  # a download holds its export slot until read
    dutch = client.get(f"/nl{address}", HTTP_ACCEPT_LANGUAGE="nl")
    assert english.status_code == dutch.status_code == 200
    assert b"".join(dutch.streaming_content) == english_bytes
    assert english["Content-Disposition"] == dutch["Content-Disposition"]


def test_a_csv_download_keeps_its_figures_and_dates_unlocalised_with_dutch_active(client, league):
    body = b"".join(client.get("/nl/rankings/elo/?_export=csv").streaming_content).decode("utf-8-sig")
    header, first = body.splitlines()[:2]
    assert header.startswith("Overall,Rank,Coach,Number")
    assert "." in first.split(",")[7] and "," not in first.split(",")[7]  # the rating, 2 decimals with a point



def test_a_dutch_page_writes_figures_with_a_decimal_comma_and_its_csv_keeps_the_point(client, league):
    summaries_refresh()
    english = tables_of(client.get("/stats/win-ratios/"))[0]
    dutch = tables_of(client.get("/nl/stats/win-ratios/"))[0]
    english_header, *english_rows = english["rows"]
    dutch_header, *dutch_rows = dutch["rows"]
    ratio = english_header[1].index("Win %")
    assert dutch_header[1][ratio] == "Winst %"
    english_ratios = [cells[ratio] for _, cells in english_rows]
    assert english_ratios and all("." in value for value in english_ratios)
    assert [cells[ratio] for _, cells in dutch_rows] == [value.replace(".", ",") for value in english_ratios]
    body = b"".join(client.get("/nl/stats/win-ratios/?_export=csv&_table=races").streaming_content).decode("utf-8-sig")
    assert [line.split(",")[-1] for line in body.splitlines()[1:]] == english_ratios


def test_a_dutch_page_shows_dutch_status_names_and_form_labels(client, league):
    text = client.get("/nl/stats/games/").content.decode()
    assert ">Alle varianten</option>" in text and "Land van het toernooi" in text


def test_the_knsb_names_of_the_figures_stay_as_they_are_explained_in_each_language(client, league):
    event = league["dutch"].pk
    english = client.get(f"/events/{event}/?system=knsb").content.decode()
    dutch = client.get(f"/nl/events/{event}/?system=knsb").content.decode()
    assert "<dt>R0</dt><dd>the coach&#x27;s rating used for this game</dd>" in english
    assert "<dt>R0</dt><dd>de rating van de coach die voor deze wedstrijd gebruikt wordt</dd>" in dutch
    assert "<dt>Wt</dt><dd>totale score over de meegetelde wedstrijden</dd>" in dutch


def test_every_knsb_name_has_a_meaning_in_both_languages():
    from ratingsite.rating_terms import TERMS, rating_terms

    symbols = ("Lijstdatum", "R0", "Rc", "W", "We", "Rt", "Wx", "LPR", "Rn", "Nv")
    with translation.override("en-gb"):
        english = dict(rating_terms(*symbols))
    with translation.override("nl"):
        dutch = dict(rating_terms(*symbols))
    assert set(symbols) <= set(TERMS)
    assert [symbol for symbol in symbols if english[symbol] == dutch[symbol]] == []
    assert dutch["Lijstdatum"].startswith("lijstdatum: de ratinglijst")


def test_a_dutch_ranking_is_in_dutch_with_decimal_commas_and_its_csv_unchanged(client, league):
    english = tables_of(client.get("/rankings/elo/"))[0]
    response = client.get("/nl/rankings/elo/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "<h1>NAF Elo-ranglijst</h1>" in text and "Deze lijst downloaden als CSV" in text
    dutch = tables_of(response)[0]
    assert dutch["caption"].startswith("NAF Elo-ranglijst, actueel")
    english_header, *english_rows = english["rows"]
    dutch_header, *dutch_rows = dutch["rows"]
    rating = english_header[1].index("Rating")
    assert dutch_header[1][rating] == "Rating" and dutch_header[1][english_header[1].index("Coach")] == "Coach"
    assert "Laatst gespeeld" in dutch_header[1] and "Last played" not in dutch_header[1]
    english_ratings = [cells[rating] for _, cells in english_rows]
    assert english_ratings and all("." in value for value in english_ratings)
    assert [cells[rating] for _, cells in dutch_rows] == [value.replace(".", ",") for value in english_ratings]
    english_csv = b"".join(client.get("/rankings/elo/?_export=csv").streaming_content)
    assert b"".join(client.get("/nl/rankings/elo/?_export=csv").streaming_content) == english_csv
    assert english_csv.decode("utf-8-sig").splitlines()[0].startswith("Overall,Rank,Coach,Number")


def test_a_dutch_knsb_ranking_explains_nv_in_dutch(client, league):
    text = client.get("/nl/rankings/knsb/").content.decode()
    assert "<dt>Nv</dt>" in text and "aantal wedstrijden waarop de rating berust" in text
    assert "number of games the rating rests on" not in text


def test_a_dutch_knsb_breakdown_keeps_the_knsb_symbols_with_dutch_explanations(client, league):
    response = client.get("/nl/coaches/101/breakdown/knsb/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "hoe de rating van Anna Jansen werd berekend" in text
    game_table = next(t for t in tables_of(response) if "wedstrijd voor wedstrijd" in t["caption"])
    header = game_table["rows"][0][1]
    assert header[:5] == ["ID", "Tegenstander", "Ras", "Datum", "Lijstdatum"]
    assert header[5:] == ["R0", "Rc", "W", "We", "W−We", "k", "Rt", "Wx"]
    assert '<dt lang="nl">Lijstdatum</dt>' in text and "<dt>LPR</dt>" in text and "<dt>Rn</dt>" in text
    assert "De symbolen van de KNSB" in text
    assert "lijstdatum: de ratinglijst" in text and "list date: the rating list" not in text
    figures = [cell for _, cells in game_table["rows"][1:] for cell in cells[6:]]
    assert any("," in cell for cell in figures) and not any("." in cell for cell in figures)


def test_a_dutch_list_page_is_in_dutch_with_decimal_commas(client, league):
    english = client.get("/lists/elo/2024-07/")
    response = client.get("/nl/lists/elo/2024-07/")
    assert response.status_code == 200
    text = response.content.decode()
    assert "<h1>NAF Elo: lijst van 2024-07-01</h1>" in text
    assert ">Nieuwkomers</h2>" in text and ">Stijgers</h2>" in text and "Regels op de lijst" in text
    english_tables, dutch_tables = tables_of(english), tables_of(response)
    assert [t["caption"].split(":")[0] for t in dutch_tables] == ["Nieuwkomers", "Stijgers", "Dalers"]
    for english_table, dutch_table in zip(english_tables, dutch_tables):
        for (_, english_cells), (_, dutch_cells) in zip(english_table["rows"][1:], dutch_table["rows"][1:]):
            values = [cell for cell in english_cells if cell.replace(".", "", 1).lstrip("+-").isdigit() and "." in cell]
            assert all(value.replace(".", ",") in dutch_cells for value in values)


def test_the_dutch_about_and_coach_pages_are_in_dutch(client, league):
    about = client.get("/nl/about/ratings/").content.decode()
    assert "<h1>Over de ratings</h1>" in about and "Gepubliceerde lijsten veranderen nooit" in about
    assert '<dt lang="nl">Lijstdatum</dt>' in about and "lijstdatum: de ratinglijst" in about
    coach = client.get("/nl/coaches/101/").content.decode()
    assert "Ratingverloop" in coach and "Resultaten per ras" in coach and "Rating history" not in coach


def test_the_dutch_predictions_page_is_in_dutch_with_decimal_commas(client, league):
    text = client.get(f"/nl/events/{league['league'].pk}/predictions/").content.decode()
    assert "<h1>Summer League: voorspellingen</h1>" in text
    assert '<h2 id="how-heading">Waar de cijfers vandaan komen</h2>' in text
    assert re.search(r"verwacht \d+,\d{3}(, behaald \d+,\d)? in \d+", text)
