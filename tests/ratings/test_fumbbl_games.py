"""The real FUMBBL games through the import and the recalculation (../shared/data/naf/README.md)."""
import csv
import datetime as dt

import pytest

from ratings import services
from ratings.models import CalculationRow, RatingSystem, RunStatus, Trigger
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
