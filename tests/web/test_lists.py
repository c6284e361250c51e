"""Monthly rating lists: counts, starters with games counted and played, risers and fallers."""
import datetime as dt
import re

import pytest

from rating_pages.presenters import lists as lists_page
from ratings.models import Publication, RatingList, RatingListEntry
from ratings.selectors.lists import RevisionReason, Revisions
from tests.web.conftest import column, table

pytestmark = pytest.mark.django_db


def test_index_shows_each_system_with_its_latest_list(client, league):
    response = client.get("/lists/")
    assert response.status_code == 200
    rows = table(response, "Monthly lists per rating system")["rows"]
    elo_lists = RatingList.objects.filter(system__slug="elo").count()
    assert rows[0][1] == ["NAF Elo", "2024-09-01", str(elo_lists)]
    assert 'href="/lists/knsb/2024-09/"' in response.content.decode()


def test_system_page_lists_every_list_newest_first(client, league):
    response = client.get("/lists/elo/")
    found = table(response, "monthly rating lists")
    assert column(found, "List of")[:3] == ["2024-09-01", "2024-08-01", "2024-07-01"]
    july = RatingList.objects.get(system__slug="elo", date="2024-07-01")
    assert found["rows"][2][1][1:] == [str(july.rated), str(july.ranked), str(july.starters)]


def test_knsb_starters_with_games_counted_and_played(client, league):
    response = client.get("/lists/knsb/2024-07/")
    assert response.status_code == 200
    found = table(response, "Starters")
    starters = RatingListEntry.objects.filter(
        rating_list__system__slug="knsb", rating_list__date="2024-07-01", change__isnull=True
    ).select_related("coach").order_by("-value", "coach__number")
    assert len(starters) == 6  # everyone of the league with six games in the depot
    assert [cells for _, cells in found["rows"]] == [
        [s.coach.name, str(s.coach.number), "Blood Bowl 2020", f"{s.value:.0f}", str(s.games_counted), str(s.games_played)]
        for s in starters
    ]
    assert found["header"][-2:] == ["Nt", "Gt"]
    assert "Nt, the games counted for the start rating, and Gt, every game played" in found["caption"]
    anna = next(s for s in starters if s.coach.name == "Anna Jansen")
    # Nt: the eight depot games of March to June the start rating rests on (Dutch Open 2, Utrecht
    # Cup 1, Summer League 5); Gt: every game she played since March, counted or not: those, the
    # forfeit at the Utrecht Cup and the unsanctioned Garage Bash in May
    assert (anna.games_counted, anna.games_played) == (8, 10)


def test_risers_and_fallers_since_the_previous_list(client, league):
    response = client.get("/lists/elo/2024-07/")
    risers = table(response, "Risers")
    entries = RatingListEntry.objects.filter(rating_list__system__slug="elo", rating_list__date="2024-07-01").select_related("coach")
    gains = sorted((e for e in entries if e.change and e.change > 0), key=lambda e: (-e.change, e.coach.number))
    assert column(risers, "Coach") == [e.coach.name for e in gains]
    assert dict(zip(column(risers, "Coach"), column(risers, "Change")))["Anna Jansen"] == "+2.23"  # 151.97 → 154.20
    fallers = table(response, "Fallers")
    losses = sorted((e for e in entries if e.change is not None and e.change < 0), key=lambda e: (e.change, e.coach.number))
    assert column(fallers, "Coach") == [e.coach.name for e in losses]
    assert all(value.startswith("-") for value in column(fallers, "Change"))


def test_counts_and_neighbour_links(client, league):
    response = client.get("/lists/elo/2024-07/")
    july = RatingList.objects.get(system__slug="elo", date="2024-07-01")
    assert response.context["counts"]["rated"] == july.rated
    html = response.content.decode()
    assert 'href="/lists/elo/2024-06/"' in html and 'href="/lists/elo/2024-08/"' in html
    assert 'href="/rankings/elo/2024-07/"' in html


def test_variant_filter_narrows_the_list(client, league):
    response = client.get("/lists/knsb/2024-07/?variant=sevens")
    assert response.status_code == 200
    assert table(response, "Starters")["rows"] == [("", ["None on this list."])]
    assert response.context["counts"]["rated"] == 0


@pytest.mark.parametrize("url, status", [
    ("/lists/chess/", 404),
    ("/lists/elo/2024-13/", 404),
    ("/lists/elo/2030-01/", 404),
    ("/lists/elo/2024-07/?variant=croquet", 400),
    ("/lists/elo/2024-07/?starters-page=abc", 200),
])
def test_tampered_list_urls(client, league, url, status):
    assert client.get(url).status_code == status


def test_list_pages_query_counts(client, league, django_assert_num_queries):
    with django_assert_num_queries(2):  # systems, latest dates
        client.get("/lists/")
    with django_assert_num_queries(3):  # system, count, page
        client.get("/lists/elo/")
    # system, publication, its editions, variants, starters count and page, risers, fallers, neighbours
    # (2), changed count, and the list as published and as computed now (nothing revised: no reasons)
    with django_assert_num_queries(13):
        client.get("/lists/knsb/2024-07/")


def test_a_list_keeping_only_its_movements_says_so_and_gives_no_per_variant_totals(client, league):
    RatingList.objects.filter(system__slug="elo", date="2024-07-01").update(complete=False)
    Publication.objects.filter(system__slug="elo", date="2024-07-01").update(complete=False)  # as it was published
    page = client.get("/lists/elo/2024-07/").content.decode()
    assert "This list keeps the month's movements" in page
    assert "This month's movements as a ranking" in page
    by_variant = client.get("/lists/elo/2024-07/?variant=blood-bowl-2020").content.decode()
    assert "<dt>Entries on the list</dt><dd>—</dd>" in by_variant
    assert "This list keeps the month's movements" in client.get("/rankings/elo/2024-07/").content.decode()
    assert "This list keeps the month's movements" not in client.get("/rankings/elo/2024-08/").content.decode()


def test_the_knsb_starters_lead_says_what_nt_and_gt_span_and_the_elo_one_stays(client, league):
    def lead(url):
        body = re.sub(r"\s+", " ", client.get(url).content.decode())
        return body.split('id="starters-heading">Starters</h2>')[1].split("</p>")[0]

    knsb = lead("/lists/knsb/2024-07/")
    assert "since the previous list" not in knsb  # a start rating rests on depot games of months before it
    assert "Nt, the games counted for the start rating" in knsb
    assert "from the month of the oldest game counted" in knsb
    assert "the games counted and played since the previous list" in lead("/lists/elo/2024-07/")


def test_the_reasons_a_published_list_is_revised_read_as_before_the_move():
    found = Revisions(rows=[], total=0, reasons=[
        RevisionReason(dt.date(2024, 8, 3), "reported", "Late Cup", games=1),
        RevisionReason(dt.date(2024, 8, 4), "corrected", "Dutch Open", games=2),
        RevisionReason(dt.date(2024, 8, 5), "audit", "Anna Jansen ← Anna J.", action="coach merge"),
    ])
    assert lists_page.worded_revisions(found).reasons == [
        "Late Cup: reported 2024-08-03, after this list (1 game)",
        "Dutch Open: 2 games corrected on 2024-08-04",
        "Coach merge: Anna Jansen ← Anna J. (2024-08-05)",
    ]
