"""The race grid of every race and roster (hundreds of them in the federation's record) is built once
per statistics refresh and read by each request, and shown GRID_PAGE races a side at a time."""
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ratingsite import page_cache
from stats import selectors, views
from stats.filters import Filters
from stats.services import summaries_refresh
from tests.factories import RoundFactory, play
from tests.stats.test_csv import download
from tournaments.models import Race

pytestmark = pytest.mark.django_db


@pytest.fixture
def rosters(league):
    """The league, and A playing two online rosters the federation does not rank against B's orcs."""
    for number, name in enumerate(("Amazon roster", "Necromantic horror roster"), start=3):
        roster = Race.objects.create(slug=name.lower().replace(" ", "-"), name=name, ranked=False)
        play(RoundFactory(event=league.utrecht, number=number), league.a, league.b, (1, 0), home_race=roster.slug, away_race="orc")
    summaries_refresh()
    return league


def grid_of(response) -> tuple[list[str], list[str]]:
    """The row races and the column races the page's grid shows."""
    html = response.content.decode()
    table = re.search(r'<table class="race-grid">(.*?)</table>', html, re.S).group(1)
    return re.findall(r'<th scope="row">([^<]*)</th>', table), re.findall(r'<th scope="col"><span>([^<]*)</span>', table)


def matchup_queries(client, url: str) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return sum("stats_racematchupsummary" in query["sql"] for query in queries.captured_queries), response


def test_a_grid_of_more_races_than_a_page_shows_them_a_page_a_side_at_a_time(client, rosters, monkeypatch):
    monkeypatch.setattr(views, "GRID_PAGE", 2)
    every = ["Amazon roster", "Human", "Necromantic horror roster", "Orc", "Wood Elf"]
    assert grid_of(client.get("/stats/race-grid/?races=all")) == (every[:2], every[:2])
    assert grid_of(client.get("/stats/race-grid/?races=all&page=3&against_page=2")) == (every[4:], every[2:4])
    page = client.get("/stats/race-grid/?races=all&page=2").content.decode()
    assert grid_of(client.get("/stats/race-grid/?races=all&page=2")) == (every[2:4], every[:2])
    assert "Row races 3–4 of 5" in page and "Column races 1–2 of 5" in page
    assert 'href="?page=3&amp;races=all" title="Wood Elf – Wood Elf"' in page
    assert 'href="?against_page=3&amp;page=2&amp;races=all" title="Wood Elf – Wood Elf"' in page
    assert '<span aria-current="page" title="Necromantic horror roster – Orc">2</span>' in page
    header, *rows = download(client, "/stats/race-grid/?races=all&page=2&_export=csv")
    assert [row[0] for row in rows] == every  # the download is the whole grid
    # a page past the last is the last; one that is no number the first
    assert grid_of(client.get("/stats/race-grid/?races=all&page=9")) == (every[4:], every[:2])
    assert grid_of(client.get("/stats/race-grid/?races=all&page=x")) == (every[:2], every[:2])


def test_a_grid_within_a_page_shows_no_page_links(client, rosters):
    html = client.get("/stats/race-grid/").content.decode()
    assert grid_of(client.get("/stats/race-grid/")) == (["Human", "Orc", "Wood Elf"], ["Human", "Orc", "Wood Elf"])
    assert "against_page" not in html and "Row races" not in html


def test_the_grid_is_counted_once_per_refresh_and_read_after_any_other_change(client, rosters):
    counted, first = matchup_queries(client, "/stats/race-grid/?races=all")
    assert counted == 1
    page_cache.bump()  # a run's commit, say: every page renders again, from the grid kept
    counted, again = matchup_queries(client, "/stats/race-grid/?races=all&page=1")
    assert counted == 0 and grid_of(again) == grid_of(first)
    play(RoundFactory(event=rosters.london, number=3), rosters.c, rosters.d, (2, 0), home_race="amazon-roster", away_race="orc")
    summaries_refresh()
    counted, after = matchup_queries(client, "/stats/race-grid/?races=all")
    assert counted == 1
    assert "Amazon roster against Orc: 2 W, 0 D, 0 L" in after.content.decode()


def test_the_refresh_builds_the_grids_the_pages_then_read(client, rosters, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        summaries_refresh()
    for url in ("/stats/race-grid/", "/stats/race-grid/?races=all"):
        assert matchup_queries(client, url)[0] == 0
    assert matchup_queries(client, "/stats/race-grid/?races=all&variant=blood-bowl-2020")[0] == 1


def test_the_grid_kept_holds_the_cells_counted(rosters):
    filters = Filters(races="all")
    counted = selectors.race_grid(selectors.race_matchups(filters), filters)
    kept = selectors.race_grid_kept(filters)
    assert dict(kept.cells) == counted.cells and len(kept.cells) == len(counted.cells) == 12
    assert (kept.races, kept.opponents, kept.every_race) == (counted.races, counted.opponents, counted.every_race)
    human, orc = Race.objects.get(slug="human"), Race.objects.get(slug="orc")
    assert kept.cells[human.pk, orc.pk] == counted.cells[human.pk, orc.pk]
    amazon = Race.objects.get(slug="amazon-roster").pk
    assert kept.cells.get((amazon, amazon)) is None and (amazon, amazon) not in kept.cells
