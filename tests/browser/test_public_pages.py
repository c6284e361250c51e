"""The public pages in a real browser: filter and share a ranking, follow a name to its breakdown,
export CSV, use the calculator, and read the pages on a phone."""
import csv
import io
import re

import pytest

# The live server needs committed data; serialized_rollback restores the migrations' races, variants
# and rating systems for the tests that follow.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)




def ranking_names(page) -> list[str]:
    return page.locator("table.data tbody tr td:nth-child(3)").all_inner_texts()


def test_filter_a_ranking_by_race_and_country_and_share_the_view(page, league):
    page.goto("/rankings/elo/")
    assert len(ranking_names(page)) == 8
    page.select_option("#id_race", "orc")
    page.select_option("#id_country", "GB")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"race=orc"))
    assert "country=GB" in page.url
    assert page.locator("table.data tbody tr td:nth-child(3)").all_inner_texts() == ["Bert Smith"]
    shared = page.locator("a.share").get_attribute("href")
    assert "race=orc" in shared and "country=GB" in shared
    page.goto("/rankings/")
    page.goto(shared)
    assert page.locator("table.data tbody tr td:nth-child(3)").all_inner_texts() == ["Bert Smith"]
    assert page.locator("#id_race").input_value() == "orc"


def test_click_a_name_to_see_the_breakdown_with_a_footnoted_excluded_game(page, league):
    page.goto("/rankings/elo/?name=Anna")
    page.get_by_role("link", name="Anna Jansen").click()
    page.wait_for_url(re.compile(r"/coaches/101/breakdown/elo/"))
    assert page.locator("h1").inner_text() == "NAF Elo: how Anna Jansen's rating was computed"
    page.select_option("#id_period", f"event:{league['cup'].pk}")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"period=event"))
    excluded = page.locator("table.breakdown tr.excluded")
    assert excluded.count() == 1
    assert "Fay Brown" in excluded.inner_text()
    colour = excluded.locator("td").first.evaluate("cell => getComputedStyle(cell).color")
    assert colour == "rgb(179, 38, 30)"  # --excluded
    excluded.get_by_role("link", name="footnote 1").click()
    assert page.locator("#fn-1").inner_text() == "forfeit"
    period = page.locator("table.breakdown tr.period")
    assert period.evaluate("row => getComputedStyle(row.querySelector('td')).backgroundColor") == "rgb(251, 227, 196)"


def test_export_the_filtered_ranking_as_csv(page, league):
    page.goto("/rankings/elo/?country=NL&sort=coach")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download this list as CSV").click()
    with open(download.value.path(), encoding="utf-8") as handle:
        text = handle.read()
    assert text.startswith("\ufeff")  # so that spreadsheets read it as UTF-8
    header, *rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    assert header[:3] == ["Overall", "Rank", "Coach"]
    assert [row[2] for row in rows] == ["Anna Jansen", "Cees de Vries", "Eva Bakker"]


def test_use_the_calculator(page, db):
    page.goto("/calculator/")
    page.fill("#id_rating", "150")
    page.fill("#id_results", "150 1")
    page.fill("#id_coaches", "20")
    page.get_by_role("button", name="Calculate").click()
    assert page.locator("#calc-elo").inner_text() == "NAF Elo: 150.00 → 154.47"
    page.fill("#id_results", "150 7")
    page.get_by_role("button", name="Calculate").click()
    assert "the score must be 1, 0.5 or 0" in page.locator(".form-errors").inner_text()


def test_pages_fit_a_phone_without_sideways_scrolling(phone, league):
    for url in (
        "/rankings/elo/", "/coaches/101/", "/coaches/101/breakdown/knsb/", f"/events/{league['dutch'].pk}/",
        "/lists/knsb/2024-07/", "/about/ratings/", "/calculator/?rating=1800&nv=40&results=1700+1%0A1850+0.5",
    ):
        phone.goto(url)
        overflow = phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{url} is {overflow}px wider than the phone"
