"""The FUMBBL import follows data/naf/README.md ("How the site imports these games").

The small files in data/ are real rows: tournament 51427 (5 games, 4 coaches), 51738 (2 games, one
in 2020 and one in 2022), 52144 (2 games, not in the tourneys file), and open play in 2020-08 (4
games) and 2022-03 (2 games, coach 230570 in both). The whole file's counts are checked on the
import tests/ratings/test_export_golden.py makes (the suite imports it once).
"""
import datetime as dt
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tournaments.importers.fumbbl import import_matches, parse_matches
from tournaments.models import Coach, Event, EventStatus, Game, GameSide, Participant, Race, Round

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command("import_fumbbl", *map(str, args), stdout=out, stderr=out)
    return out.getvalue()


def printed_counts(output: str) -> dict[str, int]:
    """The counts the command prints, by label."""
    found = (re.fullmatch(r"(\S.*?)\s{2,}([\d,]+)", line) for line in output.splitlines())
    return {m[1]: int(m[2].replace(",", "")) for m in found if m}


def record_counts() -> dict:
    return {
        "games": Game.objects.count(),
        "sides": GameSide.objects.count(),
        "coaches": Coach.objects.count(),
        "events": Event.objects.count(),
        "rounds": Round.objects.count(),
        "participants": Participant.objects.count(),
        "races": Race.objects.count(),
    }


def test_import_of_the_slice_gives_the_counts_the_conventions_give(fumbbl_data):
    report = import_matches(fumbbl_data / "fumbbl_matches.csv")

    assert (report.games_read, report.games_imported, report.games_already_present) == (15, 15, 0)
    assert (report.coaches_created, report.events_created, report.races_created) == (20, 5, 5)
    assert (report.rounds_created, report.participants_created) == (5 + 2 + 2 + 1 + 2, 4 + 3 + 2 + 8 + 3)
    assert GameSide.objects.count() == 30
    assert sorted(Race.objects.filter(ranked=False).values_list("name", flat=True)) == [
        "Avelorn", "Dryad", "Kurgan", "Treemen", "Witch Hunter",
    ]
    assert Coach.objects.get(number=21027).name == "FUMBBL coach 21027"
    assert Coach.objects.get(number=21027).nationality == ""
    assert Game.objects.filter(conceded_by="home").count() == 2
    assert Game.objects.filter(conceded_by="away").count() == 2


def test_events_are_named_dated_and_sanctioned_by_the_conventions(fumbbl_data):
    import_matches(fumbbl_data / "fumbbl_matches.csv")

    events = {
        e.source: (e.name, e.variant.name, e.start_date.isoformat(), e.end_date.isoformat(), e.status)
        for e in Event.objects.select_related("variant")
    }
    assert events == {
        # Listed on 2020-06-16, played until 2020-08-07: widened to cover its games.
        "fumbbl-tournament:51427": ("SUMMER DUNGEON BOWL", "Classic", "2020-06-16", "2020-08-07", "sanctioned"),
        # Games in 2020 and 2022: the variant of its first game.
        "fumbbl-tournament:51738": ("Hemliga Sommarpokalen I", "Classic", "2020-07-10", "2022-03-21", "sanctioned"),
        "fumbbl-tournament:52144": ("FUMBBL tournament 52144", "Classic", "2020-08-11", "2020-08-11", "sanctioned"),
        "fumbbl-open:2020-08": ("FUMBBL open play 2020-08", "Classic", "2020-08-02", "2020-08-02", "open_play"),
        "fumbbl-open:2022-03": ("FUMBBL open play 2022-03", "Blood Bowl 2020", "2022-03-12", "2022-03-12", "open_play"),
    }
    assert not Event.objects.filter(is_major=True).exists()


def test_open_play_is_never_sanctioned(fumbbl_data):
    import_matches(fumbbl_data / "fumbbl_matches.csv")

    open_play = Event.objects.filter(source__startswith="fumbbl-open:")
    assert open_play.count() == 2
    assert not open_play.filter(status=EventStatus.SANCTIONED).exists()
    assert Game.objects.filter(event__status=EventStatus.SANCTIONED).count() == 9


def test_a_game_keeps_its_fields_and_round(fumbbl_data):
    import_matches(fumbbl_data / "fumbbl_matches.csv")

    game = Game.objects.select_related("round", "event", "home_coach", "away_coach", "home_race", "away_race").get(
        source="fumbbl-match:4218220"
    )
    assert game.event.source == game.round.event.source == "fumbbl-tournament:51427"
    assert game.round.number == 4
    assert (game.home_coach.number, game.home_race.name) == (21285, "Vampire")
    assert (game.away_coach.number, game.away_race.name) == (21027, "Nurgle")
    assert (game.home_touchdowns, game.away_touchdowns) == (0, 0)
    # Casualties are bh + si + rip of each team's own columns.
    assert (game.home_casualties, game.away_casualties) == (0, 2)
    assert game.conceded_by is None
    assert game.kind == "played"
    assert game.played_at == dt.datetime(2020, 8, 7, 1, 27, 14, tzinfo=dt.UTC)


def test_elven_union_is_imported_as_elf_union_with_casualties_summed(fumbbl_data):
    import_matches(fumbbl_data / "fumbbl_matches.csv")

    game = Game.objects.select_related("away_race", "round").get(source="fumbbl-match:4216342")
    assert game.away_race.name == "Elf Union"
    assert game.away_race.ranked
    assert (game.home_touchdowns, game.away_touchdowns, game.home_casualties, game.away_casualties) == (2, 5, 1, 6)
    assert game.round.number == 1


def test_rounds_open_when_a_coach_plays_again(fumbbl_data):
    import_matches(fumbbl_data / "fumbbl_matches.csv")

    rounds = {
        source: list(
            Round.objects.filter(event__source=source).order_by("number").values_list("number", "date", "start_time")
        )
        for source in ("fumbbl-tournament:51427", "fumbbl-open:2020-08", "fumbbl-open:2022-03")
    }
    assert [number for number, _, _ in rounds["fumbbl-tournament:51427"]] == [1, 2, 3, 4, 5]
    # A round is dated and timed by its first game.
    assert rounds["fumbbl-tournament:51427"][3] == (4, dt.date(2020, 8, 7), dt.time(1, 27, 14))
    assert len(rounds["fumbbl-open:2020-08"]) == 1  # four games, eight different coaches
    assert rounds["fumbbl-open:2022-03"] == [
        (1, dt.date(2022, 3, 12), dt.time(15, 17, 16)),
        (2, dt.date(2022, 3, 12), dt.time(20, 11, 31)),  # coach 230570 again
    ]
    conceded = Game.objects.get(source="fumbbl-match:4370649")
    assert (conceded.round.number, conceded.conceded_by) == (2, "away")


def test_participants_bring_the_race_of_their_first_game(fumbbl_data):
    import_matches(fumbbl_data / "fumbbl_matches.csv")

    participants = dict(
        Participant.objects.filter(event__source="fumbbl-tournament:51427").values_list("coach__number", "race__name")
    )
    assert participants == {21027: "Goblin", 94435: "High Elf", 252173: "Human", 21285: "Vampire"}


def test_unranked_race_slugs_do_not_collide(fumbbl_data, tmp_path):
    matches = (fumbbl_data / "fumbbl_matches.csv").read_text().replace("Lizardmen", "Chaos dwarf")
    (tmp_path / "fumbbl_matches.csv").write_text(matches)

    import_matches(tmp_path / "fumbbl_matches.csv")

    assert Race.objects.get(name="Chaos dwarf").slug == "chaos-dwarf-2"
    assert not Race.objects.get(name="Chaos dwarf").ranked
    assert Race.objects.get(name="Chaos Dwarf").slug == "chaos-dwarf"


def test_rerunning_the_import_changes_nothing(fumbbl_data):
    run(fumbbl_data / "fumbbl_matches.csv")
    before = record_counts()

    output = run(fumbbl_data / "fumbbl_matches.csv")

    assert record_counts() == before
    printed = printed_counts(output)
    assert (printed["games read"], printed["games imported"], printed["games already present"]) == (15, 0, 15)
    assert (printed["coaches created"], printed["events created"], printed["rounds created"]) == (0, 0, 0)


def test_new_games_of_an_imported_event_continue_its_rounds(fumbbl_data, tmp_path):
    lines = (fumbbl_data / "fumbbl_matches.csv").read_text().splitlines()
    without_last_game_of_51427 = [line for line in lines if not line.startswith("4218439,")]
    (tmp_path / "fumbbl_matches.csv").write_text("\n".join(without_last_game_of_51427) + "\n")
    import_matches(tmp_path / "fumbbl_matches.csv", tourneys_path=fumbbl_data / "fumbbl_tourneys.csv")

    report = import_matches(fumbbl_data / "fumbbl_matches.csv")

    assert (report.games_imported, report.games_already_present, report.events_created) == (1, 14, 0)
    assert Game.objects.get(source="fumbbl-match:4218439").round.number == 5
    assert Round.objects.filter(event__source="fumbbl-tournament:51427").count() == 5


def test_bad_rows_are_reported_by_line_and_nothing_is_imported(fumbbl_data):
    with pytest.raises(CommandError, match="9 bad rows: nothing imported"):
        run(fumbbl_data / "fumbbl_matches_bad.csv")

    assert Game.objects.count() == 0
    assert Coach.objects.count() == 0
    report = import_matches(fumbbl_data / "fumbbl_matches_bad.csv")
    assert report.aborted
    assert [(bad.line, bad.message) for bad in report.bad_rows] == [
        (4, "expected 25 columns, found 23"),
        (5, "team1_coach_id 'abc' is not an id (a whole number from 0 to 2147483647)"),
        (6, "match_date '2020-13-01' is not a date YYYY-MM-DD"),
        (7, "match_time '25:61:00' is not a time HH:MM:SS"),
        (8, "team2_score '-1' is not a whole number from 0 to 99"),
        (9, "team1_score 'two' is not a whole number from 0 to 99"),
        (10, "coach 254624 plays against himself"),
        (11, "match_id 4216342 already on line 2"),
        (12, "match_conceded 'Both' is not None, Team1 or Team2"),
    ]


def test_the_command_prints_bad_rows_with_file_and_line(fumbbl_data):
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("import_fumbbl", str(fumbbl_data / "fumbbl_matches_bad.csv"), stdout=out, stderr=out)

    assert "bad row: fumbbl_matches_bad.csv line 10: coach 254624 plays against himself" in out.getvalue()


def test_skip_bad_imports_the_good_rows(fumbbl_data):
    output = run(fumbbl_data / "fumbbl_matches_bad.csv", "--skip-bad")

    assert sorted(Game.objects.values_list("source", flat=True)) == [
        "fumbbl-match:4216342", "fumbbl-match:4216346", "fumbbl-match:4216347",
    ]
    printed = printed_counts(output)
    assert (printed["games read"], printed["games imported"], printed["games skipped (bad rows)"]) == (12, 3, 9)
    assert "bad row: fumbbl_matches_bad.csv line 4: expected 25 columns, found 23" in output
    assert list(Event.objects.values_list("source", flat=True)) == ["fumbbl-open:2020-08"]
    assert Round.objects.count() == 1


def test_a_file_that_is_not_a_fumbbl_export_is_refused(tmp_path):
    (tmp_path / "games.csv").write_text("home,away\n1,2\n")

    with pytest.raises(CommandError, match="header lacks match_id"):
        run(tmp_path / "games.csv")


def test_parsing_reports_every_problem_of_a_row():
    header = (
        "match_id,replay_id,tournament_id,match_date,match_time,match_conceded,team1_id,team1_coach_id,"
        "team1_roster_id,team1_race_name,team1_cas_bh,team1_cas_si,team1_cas_rip,team2_id,team2_coach_id,"
        "team2_roster_id,team2_race_name,team2_cas_bh,team2_cas_si,team2_cas_rip,team1_score,team2_score"
    )
    row = "7,1,0,2022-02-30,12:00:00,None,1,x,1,Orc,0,0,0,2,5,2,Human,0,0,0,1,-2"

    matches, bad = parse_matches([header, row])

    assert matches == []
    assert [(b.line, b.message) for b in bad] == [
        (2, "team1_coach_id 'x' is not an id (a whole number from 0 to 2147483647); "
            "team2_score '-2' is not a whole number from 0 to 99; match_date '2022-02-30' is not a date YYYY-MM-DD"),
    ]
