"""Ranked races by default: every race filter, grid, legend and top list shows the federation's
ranked races unless the visitor asks for every race and roster (?races=all), or names an unranked one."""
import re

import pytest

from stats.services import summaries_refresh
from tests.factories import RoundFactory, play
from tournaments.models import Race

pytestmark = pytest.mark.django_db


@pytest.fixture
def with_roster(league):
    """The league, and A playing an online roster the federation does not rank against B's orcs."""
    roster = Race.objects.create(slug="necromantic-horror-roster", name="Necromantic horror roster", ranked=False)
    play(RoundFactory(event=league.utrecht, number=3), league.a, league.b, (1, 0), home_race=roster.slug, away_race="orc")
    summaries_refresh()
    return league, roster


def options(page: str, name: str) -> list[str]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, re.S).group(1)
    return re.findall(r'<option value="([^"]*)"', select)


def test_the_race_grid_shows_the_ranked_races_unless_every_race_is_asked_for(client, with_roster):
    _, roster = with_roster
    ranked = client.get("/stats/race-grid/").context["grid"]
    assert roster not in ranked.races and roster not in ranked.opponents and roster not in ranked.every_race
    assert [r.slug for r in ranked.races] == ["human", "orc", "wood-elf"]
    every = client.get("/stats/race-grid/?races=all").context["grid"]
    assert roster in every.races and roster in every.every_race
    orc_column = client.get("/stats/race-grid/?_export=csv")
    header = b"".join(orc_column.streaming_content).decode().splitlines()[0]
    assert "Necromantic horror roster" not in header and "Orc win %" in header


def test_win_ratios_and_their_race_select_list_the_ranked_races_and_an_unranked_one_asked_for(client, with_roster):
    _, roster = with_roster
    page = client.get("/stats/win-ratios/")
    assert sorted(row["race__slug"] for row in page.context["races"].data.data) == ["human", "orc", "wood-elf"]
    assert roster.slug not in options(page.content.decode(), "race")
    assert options(page.content.decode(), "races") == ["", "all"]
    every = client.get("/stats/win-ratios/?races=all")
    assert roster.slug in [row["race__slug"] for row in every.context["races"].data.data]
    assert roster.slug in options(every.content.decode(), "race")
    asked = client.get(f"/stats/win-ratios/?race={roster.slug}")
    assert asked.status_code == 200 and f'<option value="{roster.slug}" selected>' in asked.content.decode()
    assert [row["race__slug"] for row in asked.context["races"].data.data] == [roster.slug]
    assert client.get("/stats/win-ratios/?races=some").status_code == 400


def test_the_top_lists_and_legends_count_ranked_races(client, with_roster):
    league, _ = with_roster
    def races_played(url):
        sections = {name: table for name, _, table in client.get(url).context["sections"]}
        return {row["coach__number"]: row["races"] for row in sections["races"].data.data}

    assert races_played("/stats/top/")[league.a.number] == 2  # human and wood elf; the roster only with ?races=all
    assert races_played("/stats/top/?races=all")[league.a.number] == 3


def test_the_games_explorer_lists_every_game_but_offers_the_ranked_races_to_filter_by(client, with_roster):
    _, roster = with_roster
    page = client.get("/stats/games/")
    assert page.context["table"].paginator.count == 10  # the roster's game among them
    assert roster.slug not in options(page.content.decode(), "race")


def test_a_rankings_race_select_offers_the_ranked_races_only(client, with_roster):
    _, roster = with_roster
    page = client.get("/rankings/glicko/").content.decode()
    offered = options(page, "race")
    assert roster.slug not in offered and "human" in offered
    assert set(offered) - {""} == set(Race.objects.filter(ranked=True).values_list("slug", flat=True))
