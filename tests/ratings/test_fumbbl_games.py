"""The real FUMBBL games through the import and the recalculation (../shared/data/naf/README.md)."""
import csv
import datetime as dt
import io

import pytest
from django.core.management import call_command

from assurance.verification import verify_system
from rating_engines import naf_elo
from ratings import services
from ratings.models import CalculationRow, CurrentRating, RatingSystem, RunStatus, Trigger
from ratingsite.formatting import fixed
from tournaments.importers.fumbbl import import_matches
from tournaments.models import Game

pytestmark = pytest.mark.django_db

TODAY = dt.date(2022, 7, 1)


def recalculate(slug):
    system = RatingSystem.objects.get(slug=slug)
    queued = services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
    return services.recalculation_execute(run_id=queued.pk, today=TODAY)


def test_tournament_51427_alone_gives_the_readme_check(naf_data, tmp_path):
    matches = tmp_path / "fumbbl_matches.csv"
    with open(naf_data / "fumbbl_matches.csv", newline="") as source, open(matches, "w", newline="") as target:
        reader = csv.DictReader(source)
        writer = csv.DictWriter(target, fieldnames=reader.fieldnames)
        writer.writeheader()
        writer.writerows(row for row in reader if row["tournament_id"] == "51427")
    import_matches(matches, tourneys_path=naf_data / "fumbbl_tourneys.csv")
    assert recalculate("elo").status == RunStatus.SUCCEEDED
    game = Game.objects.get(source="fumbbl-match:4218220")
    rows = CalculationRow.objects.filter(system__slug="elo", game=game)
    assert {r.k for r in rows} == {4.0}
    after = sorted(round(r.r0 + r.rt + 1e-9, 2) for r in rows)
    assert after == [150.03, 151.97]


@pytest.mark.slow
def test_the_full_import_recalculates_in_every_system_and_verifies(naf_data):
    import_matches(naf_data / "fumbbl_matches.csv")
    for slug in ("elo", "glicko", "global-glicko", "knsb"):
        finished = recalculate(slug)
        assert finished.status == RunStatus.SUCCEEDED
        assert finished.games_processed == 21_455
        assert verify_system(RatingSystem.objects.get(slug=slug), today=TODAY).count == 0
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
