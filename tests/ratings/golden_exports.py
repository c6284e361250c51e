"""The golden exports: `export_ratings` of every active rating system on the real FUMBBL games,
stored under tests/data/exports/ from the code as it stood before the speed redesign (issue 35),
so that a change of shape that changes a figure shows up. test_export_golden.py compares; only
tools/golden_exports.py writes the files.

Everything that could depend on the day it runs is pinned: the recalculation's today (the lists
it closes and publishes, the ranks lapsed by inactivity, its checkpoints) and the export's date.
"""
import datetime as dt
import gzip
import io
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from django.core.management import call_command

from rating_engines import methods
from ratings import services
from ratings.models import RatingSystem, RunStatus, Trigger
from tournaments.importers.fumbbl import ImportReport, import_matches

FOLDER = Path(__file__).resolve().parent.parent / "data" / "exports"
TODAY = dt.date(2022, 7, 1)  # a month after the last game (2022-06-06): June's list closes and is published
# Mid-May: the export replays from the checkpoint of 1 May through the games since (Elo) and shows
# the list of 1 May in force (--published).
AS_OF = "2022-05-20"
# Each export by the name of its file: current ratings (what a run writes), the ranking as of a date
# (replayed in memory from a checkpoint), and the published list in force on that date.
KINDS = {
    "current": [],
    f"as-of-{AS_OF}": ["--as-of", AS_OF],
    f"published-{AS_OF}": ["--published", "--as-of", AS_OF],
}


@dataclass(frozen=True)
class Built:
    slugs: list[str]  # the active systems, each recalculated
    report: ImportReport  # the import's counts (test_export_golden checks them against the file)


def build(naf_data: Path) -> Built:
    """Import the real games and recalculate every active system as `manage.py recalculate` does
    (one run each, the games read once), on TODAY; NAF Elo through its compiled history, as a
    run of the federation's whole record does (methods.COMPILED_FROM_GAMES: the file's 21,455
    games are fewer)."""
    report = import_matches(naf_data / "fumbbl_matches.csv")
    runs = [
        services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
        for system in RatingSystem.objects.filter(active=True).order_by("slug")
    ]
    with mock.patch.object(methods, "COMPILED_FROM_GAMES", 0):
        outcomes = services.recalculation_execute_many([run.pk for run in runs], today=TODAY)
    for outcome in outcomes:
        if isinstance(outcome, Exception):
            raise outcome
        assert outcome.status == RunStatus.SUCCEEDED, outcome.error
    return Built([run.system.slug for run in runs], report)


def exported(slug: str, kind: str) -> bytes:
    """`export_ratings --system <slug>` with the kind's options, as the bytes it prints."""
    out = io.StringIO()
    call_command("export_ratings", "--system", slug, *KINDS[kind], stdout=out, stderr=io.StringIO())
    return out.getvalue().encode()


def path(slug: str, kind: str) -> Path:
    return FOLDER / f"{slug}.{kind}.csv.gz"


def stored(slug: str, kind: str) -> bytes:
    return gzip.decompress(path(slug, kind).read_bytes())


def store(slug: str, kind: str, content: bytes) -> Path:
    """Write the file; gzip without a name or time in its header, so the same export gives the same file."""
    target = path(slug, kind)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as packed:
        packed.write(content)
    return target
