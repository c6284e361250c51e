"""Rank over time: a coach's rank and rating per monthly list, as a step chart and a table."""
import codecs
import datetime as dt
import re

import pytest
from django.core.management import call_command
from django.utils import timezone

from ratings import selectors
from ratings.models import Publication, PublishedEntry, RatingList, RatingListEntry, RatingSystem
from tests.factories import race, variant

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(league):
    """Anna's human (Blood Bowl 2020) on the Elo lists: Jan rank 3 (160), Feb rank 2 (165), off March's (complete, so
    inactive), April inactive."""
    elo = RatingSystem.objects.get(slug="elo")
    lists = {month: RatingList.objects.create(system=elo, date=dt.date(2024, month, 1)) for month in (1, 2, 3, 4)}
    for month, rank, value in ((1, 3, 160.0), (2, 2, 165.25), (4, None, 163.0)):
        RatingListEntry.objects.create(
            rating_list=lists[month], system=elo, coach=league.a, race=race("human"), variant=variant(),
            value=value, rank=rank, games=month,
        )
    RatingListEntry.objects.create(
        rating_list=lists[1], system=elo, coach=league.a, race=race("wood-elf"), variant=variant(), value=150, rank=9,
    )
    return elo


def test_rank_history_per_list(history, league):
    rows = selectors.rank_history(coach=league.a, system=history, race=race("human"), variant=variant())
    assert [(r.date, r.rank, r.value, r.on_list) for r in rows] == [
        (dt.date(2024, 1, 1), 3, 160.0, True), (dt.date(2024, 2, 1), 2, 165.25, True),
        (dt.date(2024, 3, 1), None, 165.25, False), (dt.date(2024, 4, 1), None, 163.0, True),
    ]


def test_page_shows_chart_and_table(client, history):
    body = client.get("/stats/rank-over-time/?coach=1001&race=human&system=elo&variant=blood-bowl-2020").content.decode()
    assert body.count('<svg class="stats-chart"') == 2
    cells = re.sub(r"<[^>]+>", " ", body.split('<table class="stats-table">')[1].split("</table>")[0]).split()
    assert cells == ["List", "Rank", "Rating", "Games", "On", "the", "list", "As", "published", "Revised", "rank", "Revised",
                     "rating", "2024-01", "3", "160.00", "1", "yes", "not", "published", "2024-02", "2", "165.25", "2", "yes",
                     "not", "published", "2024-03", "-", "165.25", "2", "no", "not", "published", "2024-04", "-", "163.00", "4",
                     "yes", "not", "published"]


def test_page_picks_the_key_with_most_lists(client, history):
    body = client.get("/stats/rank-over-time/?coach=1001").content.decode()
    assert "Anna Alpha (1001), Human, Blood Bowl 2020, NAF Elo" in body
    assert "race=wood-elf" in body


def test_step_line_breaks_where_the_key_has_no_rank(client, history):
    body = client.get("/stats/rank-over-time/?coach=1001&race=human").content.decode()
    rank_path = re.search(r'<path class="line" d="([^"]+)"', body).group(1)
    # January to February continuous (L), then the line stops: March and April have no rank (inactive), nothing drawn.
    assert rank_path.count("M") == 1 and rank_path.count("L") == 1


def test_csv_of_the_history(client, history):
    response = client.get("/stats/rank-over-time/?coach=1001&race=human&_export=csv")
    body = b"".join(response.streaming_content)
    assert body.startswith(codecs.BOM_UTF8)
    assert body.decode("utf-8-sig").splitlines() == [
        "List,Rank,Rating,Games,On the list,As published,Revised rank,Revised rating", "2024-01,3,160.00,1,yes,not published,,",
        "2024-02,2,165.25,2,yes,not published,,", "2024-03,-,165.25,2,no,not published,,", "2024-04,-,163.00,4,yes,not published,,",
    ]


def test_coach_without_lists(client, league):
    assert "is on no NAF Elo list yet" in client.get("/stats/rank-over-time/?coach=1002").content.decode()


def test_refresh_command(league, capsys):
    call_command("refresh_stats")
    assert "Statistics refreshed: 9 games" in capsys.readouterr().out


def test_a_knsb_history_reads_in_whole_numbers(client, league):
    knsb = RatingSystem.objects.get(slug="knsb")
    rating_list = RatingList.objects.create(system=knsb, date=dt.date(2024, 1, 1))
    RatingListEntry.objects.create(
        rating_list=rating_list, system=knsb, coach=league.a, race=None, variant=variant(), value=1591.0, rank=4, games=8,
    )
    body = client.get("/stats/rank-over-time/?coach=1001&system=knsb&variant=blood-bowl-2020").content.decode()
    cells = re.sub(r"<[^>]+>", " ", body.split('<table class="stats-table">')[1].split("</table>")[0]).split()
    assert cells[13:] == ["2024-01", "4", "1591", "8", "yes", "not", "published"]


def test_a_month_whose_list_keeps_only_movements_shows_the_rank_the_key_had_and_says_it_is_derived(client, league):
    elo = RatingSystem.objects.get(slug="elo")
    lists = {month: RatingList.objects.create(system=elo, date=dt.date(2019, month, 1), complete=month == 1) for month in (1, 2, 3)}
    for month, coach, value, rank in ((1, league.b, 170.0, 1), (1, league.a, 160.0, 2), (2, league.b, 155.0, 2), (3, league.c, 165.0, 1)):
        RatingListEntry.objects.create(
            rating_list=lists[month], system=elo, coach=coach, race=race("human"), variant=variant(), value=value, rank=rank, games=3,
        )
    url = "/stats/rank-over-time/?coach=1001&race=human&system=elo&variant=blood-bowl-2020"
    body = client.get(url).content.decode()
    # February: Bert fell below Anna, so Anna led; March: Cora passed her
    rows = ["2019-01", "2", "160.00", "3", "yes", "2019-02", "1", "160.00", "3", "no", "2019-03", "2", "160.00", "3", "no"]
    cells = re.sub(r"<[^>]+>", " ", body.split('<table class="stats-table">')[1].split("</table>")[0]).split()
    assert [cell for cell in cells[13:] if cell not in ("not", "published")] == rows
    assert "the list keeps only the month's movements" in re.sub(r"\s+", " ", body)
    assert "(unchanged, as it did not play)" in re.sub(r"\s+", " ", body)  # an Elo rating does not drift while idle
    csv = b"".join(client.get(url + "&_export=csv").streaming_content).decode("utf-8-sig").splitlines()
    assert csv[1:] == [",".join(rows[i:i + 5]) + ",not published,," for i in range(0, len(rows), 5)]


@pytest.fixture
def revised(league):
    """Anna's human on three Elo lists, the first two published; a result reported late since revised
    the second (published rank 1, 154.74; now rank 2, 142.54); the third is not published yet."""
    elo = RatingSystem.objects.get(slug="elo")
    lists = {month: RatingList.objects.create(system=elo, date=dt.date(2026, month, 1)) for month in (9, 10, 11)}
    for month, rank, value in ((9, 1, 150.0), (10, 2, 142.54), (11, 2, 143.0)):
        RatingListEntry.objects.create(rating_list=lists[month], system=elo, coach=league.a, race=race("human"),
                                       variant=variant(), value=value, rank=rank, games=month)
    for month, rank, value in ((9, 1, 150.0), (10, 1, 154.74)):
        publication = Publication.objects.create(system=elo, date=dt.date(2026, month, 1), published_at=timezone.now())
        PublishedEntry.objects.create(
            publication=publication, coach_number=1001, coach_name="Anna Alpha", race_slug="human", race_name="Human",
            variant_slug="blood-bowl-2020", variant_name="Blood Bowl 2020", value=value, rank=rank, games=month,
        )
    return elo


def test_a_revised_list_shows_its_published_figures_and_the_revised_ones_beside(revised, league):
    rows = selectors.rank_history(coach=league.a, system=revised, race=race("human"), variant=variant())
    assert [(r.date.month, r.rank, r.value, r.published, r.revised_rank, r.revised_value) for r in rows] == [
        (9, 1, 150.0, "yes", None, None), (10, 1, 154.74, "yes", 2, 142.54), (11, 2, 143.0, "", None, None),
    ]


def test_the_rank_over_time_table_and_csv_have_published_and_revised_columns(client, revised):
    url = "/stats/rank-over-time/?coach=1001&race=human&system=elo&variant=blood-bowl-2020"
    body = client.get(url).content.decode()
    cells = re.sub(r"<[^>]+>", " ", body.split('<table class="stats-table">')[1].split("</table>")[0]).split()
    assert cells[:13] == ["List", "Rank", "Rating", "Games", "On", "the", "list", "As", "published", "Revised", "rank",
                          "Revised", "rating"]
    assert cells[13:] == ["2026-09", "1", "150.00", "9", "yes", "yes",
                          "2026-10", "1", "154.74", "10", "yes", "yes", "2", "142.54",
                          "2026-11", "2", "143.00", "11", "yes", "not", "published"]
    csv = b"".join(client.get(url + "&_export=csv").streaming_content).decode("utf-8-sig").splitlines()
    assert csv == ["List,Rank,Rating,Games,On the list,As published,Revised rank,Revised rating",
                   "2026-09,1,150.00,9,yes,yes,,", "2026-10,1,154.74,10,yes,yes,2,142.54", "2026-11,2,143.00,11,yes,not published,,"]


def test_only_a_glicko_rating_drifts_while_idle(league):
    assert {s.slug: selectors.drifts_while_idle(s) for s in RatingSystem.objects.filter(active=True)} == {
        "elo": False, "glicko": True, "global-glicko": True, "knsb": False,
    }
