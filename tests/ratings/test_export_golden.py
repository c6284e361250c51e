"""`export_ratings` of every system on the real FUMBBL games, byte for byte as the golden files
made before the speed redesign (issue 35: a change of shape, never of results). The files are only
remade by tools/golden_exports.py, when a change of figures is meant; see golden_exports.py. The real
data's own checks (the import's counts, every run verifies, open play is never rated) share the
module's import and runs: the full file is imported once in the suite."""
import csv
import difflib
import io
from collections import defaultdict
from unittest import mock

import pytest
from django.core.management import call_command

from assurance.verification import verify_system
from rating_engines import methods, naf_elo
from ratings.models import CalculationRow, CurrentRating, RatingSystem, RecalculationRun, RunStatus
from ratingsite.formatting import fixed
from tests.ratings import golden_exports
from tests.scopes import kept_for_the_module
from tournaments.federation import RANKED_RACES
from tournaments.models import Coach, Event, Game, GameSide, Race, Round

# one worker runs the module under `make test` (--dist loadgroup): the data is built once, not once a worker
pytestmark = [pytest.mark.slow, pytest.mark.django_db, pytest.mark.xdist_group("golden-exports")]

SYSTEMS = ("elo", "glicko", "global-glicko", "knsb")
SHOWN = 12  # lines of the difference in a failure's message: enough to see what moved, not the file


@pytest.fixture(scope="module")
def real_data_module(django_db_setup, django_db_blocker, naf_data):
    """The import (its report) and the four recalculations, once for the module (half a minute on SQLite)."""
    with kept_for_the_module(django_db_blocker):
        yield golden_exports.build(naf_data)


@pytest.fixture
def real_data(real_data_module, db):
    return real_data_module


def difference(stored: bytes, exported: bytes) -> str:
    """The first differing lines of two CSVs as a unified diff, and how many lines differ in all."""
    old = stored.decode().splitlines(keepends=True)
    new = exported.decode().splitlines(keepends=True)
    diff = list(difflib.unified_diff(old, new, "stored", "exported", n=1))
    changed = sum(1 for line in diff[2:] if line[:1] == "-")
    # repr where the line is not plain text: a changed line end or a stray byte would not show
    shown = [line.rstrip("\n") if line.rstrip("\n").isprintable() else repr(line) for line in diff[:SHOWN]]
    more = f"\n... ({len(diff) - SHOWN} more lines of difference)" if len(diff) > SHOWN else ""
    return f"{changed} of {len(old)} stored lines differ ({len(new)} exported):\n" + "\n".join(shown) + more


def test_the_golden_files_are_those_of_every_active_system(real_data):
    assert sorted(real_data.slugs) == sorted(SYSTEMS) == sorted(RatingSystem.objects.filter(active=True).values_list("slug", flat=True))
    expected = {golden_exports.path(slug, kind).name for slug in SYSTEMS for kind in golden_exports.KINDS}
    assert {path.name for path in golden_exports.FOLDER.iterdir()} == expected


@pytest.mark.parametrize("kind", list(golden_exports.KINDS))
@pytest.mark.parametrize("slug", SYSTEMS)
def test_the_export_is_byte_for_byte_the_golden_file(real_data, slug, kind):
    exported = golden_exports.exported(slug, kind)
    stored = golden_exports.stored(slug, kind)
    assert exported == stored, (
        f"export_ratings --system {slug} {' '.join(golden_exports.KINDS[kind])} is not "
        f"{golden_exports.path(slug, kind).name}; " + difference(stored, exported)
    )


def test_a_difference_shows_its_first_lines_and_counts_them():
    stored = b"h\na,1\nb,2\nc,3\n"
    assert difference(stored, b"h\na,1\nb,9\nc,3\n") == (
        "1 of 4 stored lines differ (4 exported):\n--- stored\n+++ exported\n@@ -2,3 +2,3 @@\n a,1\n-b,2\n+b,9\n c,3"
    )
    # a changed line end shows
    assert difference(stored, b"h\na,1\nb,2\r\nc,3\n").endswith("\n-b,2\n'+b,2\\r\\n'\n c,3")


def test_the_full_import_recalculates_in_every_system_and_verifies(real_data):
    """(The real data's own checks, on the module's import and runs.)"""
    for slug in SYSTEMS:
        finished = RecalculationRun.objects.get(system__slug=slug)
        assert finished.status == RunStatus.SUCCEEDED
        assert finished.games_processed == 21_455
        assert verify_system(RatingSystem.objects.get(slug=slug), today=golden_exports.TODAY).count == 0
    # the runs took NAF Elo's compiled history, the check above the Python one; a check by the compiled one
    # reads its rows as columns
    with mock.patch.object(methods, "COMPILED_FROM_GAMES", 0):
        assert verify_system(RatingSystem.objects.get(slug="elo"), today=golden_exports.TODAY).count == 0
    # Open play is never rated: every row of those games is footnoted, none counted.
    open_play = CalculationRow.objects.filter(system__slug="elo", game__event__source__startswith="fumbbl-open:")
    assert open_play.exists()
    assert not open_play.filter(counted=True).exists()
    assert set(open_play.values_list("reason", flat=True)) == {"event_not_sanctioned"}
    assert CurrentRating.objects.filter(system__slug="elo").exists()
    # Every key's exported rating is its rating after its last counted game, whatever the event
    # (37 keys of coaches in two overlapping events were stale before).
    after_last = {}
    rows = CalculationRow.objects.filter(system__slug="elo", counted=True).order_by("played_at", "game_id")
    for number, race, variant, r0, rt in rows.values_list("coach__number", "race__name", "variant__name", "r0", "rt"):
        after_last[(str(number), race, variant)] = naf_elo.rating_after(r0, rt)
    out = io.StringIO()
    call_command("export_ratings", system="elo", stdout=out)
    exported = {(r["coach_number"], r["race"], r["variant"]): r["rating"] for r in csv.DictReader(io.StringIO(out.getvalue()))}
    assert len(exported) == len(after_last) == 3_028
    assert exported == {key: fixed(value) for key, value in after_last.items()}
    assert exported[("2885", "Dwarf", "Blood Bowl 2020")] == "139.60"


def expected_events_and_rounds(path) -> tuple[int, int]:
    """Events and rounds by the README's conventions, counted straight from the CSV."""
    games_by_event = defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = row["tournament_id"] if row["tournament_id"] != "0" else row["match_date"][:7]
            order = (row["match_date"], row["match_time"], int(row["match_id"]))
            games_by_event[key].append((*order, row["team1_coach_id"], row["team2_coach_id"]))
    rounds = 0
    for games in games_by_event.values():
        in_round: set = set()
        rounds += 1
        for *_, home, away in sorted(games):
            if home in in_round or away in in_round:
                rounds += 1
                in_round = set()
            in_round |= {home, away}
    return len(games_by_event), rounds


def test_the_full_file_gives_the_counts_the_conventions_give(real_data, naf_data):
    """(tournaments.importers.fumbbl on the whole file: the counts the README's conventions give, on
    the module's import; the runs after it add no record.)"""
    path = naf_data / "fumbbl_matches.csv"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    coaches = {row[f"team{n}_coach_id"] for row in rows for n in (1, 2)}
    race_names = {row[f"team{n}_race_name"] for row in rows for n in (1, 2)}
    unranked = {name for name in race_names if name not in RANKED_RACES and name != "Elven Union"}
    events, rounds = expected_events_and_rounds(path)
    report = real_data.report

    assert (report.games_read, report.games_imported, report.bad_rows) == (21_455, 21_455, [])
    assert (len(rows), len(coaches)) == (21_455, 3_209)
    assert Game.objects.count() == len(rows)
    assert GameSide.objects.count() == 2 * len(rows)
    assert Coach.objects.count() == report.coaches_created == len(coaches)
    assert Event.objects.count() == report.events_created == events
    assert Round.objects.count() == report.rounds_created == rounds
    assert Race.objects.filter(ranked=False).count() == report.races_created == len(unranked)
    assert Game.objects.exclude(conceded_by=None).count() == 964
    assert Event.objects.filter(source__startswith="fumbbl-tournament:").count() == 719
    assert Game.objects.filter(event__source__startswith="fumbbl-open:").count() == 15_083
