"""Races are found by exact name, then slug, then a name whatever its case if only one race has it
(issue 18, item 9): the demo's ranked "Necromantic Horror" and an unranked roster's "Necromantic horror"."""
import datetime as dt

import pytest

from tournaments.uploads import RaceLookup, RaceRef, parse_results

RANKED = RaceRef("necromantic-horror", "Necromantic Horror", True)
ROSTER = RaceRef("necromantic-horror-2", "Necromantic horror", False)
HUMAN = RaceRef("human", "Human", True)
RACES = RaceLookup([RANKED, ROSTER, HUMAN, RaceRef("orc", "Orc", True)])
START, END = dt.date(2024, 5, 4), dt.date(2024, 5, 5)


@pytest.mark.parametrize("text, race", [
    ("Necromantic Horror", RANKED),  # the exact name
    ("Necromantic horror", ROSTER),  # the other exact name
    ("necromantic-horror", RANKED),  # the slug
    (" Necromantic-Horror ", RANKED),  # the slug, whatever its case
    ("HUMAN", HUMAN),  # the only race of that name whatever its case
])
def test_a_race_is_found_by_exact_name_then_slug_then_a_unique_name_whatever_its_case(text, race):
    assert RACES.find(text) == (race, None)


def test_a_name_two_races_share_whatever_their_case_is_refused_naming_both():
    assert RACES.find("NECROMANTIC HORROR") == (
        None, "Race “NECROMANTIC HORROR” could be “Necromantic Horror” or “Necromantic horror”: "
              "write the name exactly, or the race's slug.",
    )


def test_a_misspelt_race_is_answered_with_the_closest_ranked_race():
    assert RACES.find("Necromantic horor") == (None, "Race “Necromantic horor”: did you mean “Necromantic Horror”?")
    assert RACES.find("Humann") == (None, "Race “Humann”: did you mean “Human”?")
    assert RACES.find("Elves") == (None, "'Elves' is not a race the federation knows.")


def test_an_upload_naming_the_ranked_race_is_accepted_and_the_roster_race_refused():
    text = ("round,date,home_coach,home_race,home_td,away_td,away_coach,away_race\n"
            "1,2024-05-04,1,Necromantic Horror,1,0,2,Orc\n"
            "1,2024-05-04,3,Necromantic horror,1,0,4,Orc\n"
            "1,2024-05-04,5,Necromantic horor,1,0,6,Orc\n")
    upload = parse_results(text.encode(), races=RACES, start=START, end=END, find_coaches=lambda numbers: numbers,
                           today=dt.date(2025, 1, 1))
    assert [(g.line, g.home_race) for g in upload.games] == [(2, "necromantic-horror")]
    assert [(e.line, e.column, e.message) for e in upload.errors] == [
        (3, "home_race", "Necromantic horror is not a ranked race: only the federation's ranked races can be sanctioned."),
        (4, "home_race", "Race “Necromantic horor”: did you mean “Necromantic Horror”?"),
    ]


def test_a_plain_mapping_of_races_is_looked_up_the_same_way():
    assert RaceLookup.of({"whatever": RANKED, "other": ROSTER}).find("Necromantic Horror") == (RANKED, None)
    assert RaceLookup.of(RACES) is RACES
