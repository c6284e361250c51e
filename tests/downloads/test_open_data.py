"""The open data's files: every published list of every system as CSV and JSON (and the KNSB layout),
the nightly dump as gzip CSV and Parquet, a manifest whose checksums and row counts are the files',
files never rewritten (a new edition or a renamed coach adds files and an erratum), and nothing
private in any of them."""
import csv
import datetime as dt
import gzip
import hashlib
import io
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command
from django.utils import timezone

from downloads.services import open_data_dump
from ratings import services
from ratings.models import CurrentRating, Publication, PublishedEntry, RatingSystem
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import staff
from tests.web.conftest import build_league, recalculate_all
from tournaments import privacy
from tournaments.models import EventStatus, Game, Visibility, coach_label

pytestmark = pytest.mark.django_db

NOW = timezone.make_aware(dt.datetime(2024, 9, 16, 2, 30))
BOM = "\ufeff"


@pytest.fixture
def league():
    data = build_league()
    recalculate_all()
    return data


def manifest(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text(encoding="utf-8"))


def published_files(root: Path, **match) -> list[dict]:
    return [e for e in manifest(root)["files"] if e["status"] == "published" and all(e.get(k) == v for k, v in match.items())]


def export_text(slug: str, day: dt.date) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("export_ratings", system=slug, published=True, as_of=day, stdout=out, stderr=err)
    return out.getvalue()


def every_file_byte(root: Path) -> bytes:
    """Every file of the folder as one blob, the compressed ones decompressed (Parquet's strings are stored plain)."""
    blob = b""
    for path in sorted(root.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            blob += gzip.decompress(data) if path.suffix == ".gz" else data
            if path.suffix == ".parquet":
                blob += json.dumps(pq.read_table(path).to_pylist(), default=str, ensure_ascii=False).encode()
    return blob


def test_every_published_list_of_every_system_is_written_as_the_site_exports_it(league, tmp_path):
    result = open_data_dump(root=tmp_path, now=NOW)
    publications = list(Publication.objects.select_related("system"))
    assert {p.system.slug for p in publications} == {"elo", "glicko", "global-glicko", "knsb"}
    for publication in publications:
        slug, day = publication.system.slug, publication.date
        entries = published_files(tmp_path, system=slug, list_date=day.isoformat(), edition=1)
        assert sorted(e["format"] for e in entries if e["format"] != "knsb") == ["csv", "json"]
        by_format = {e["format"]: e for e in entries}
        csv_bytes = (tmp_path / by_format["csv"]["path"]).read_bytes()
        # the site's list CSV byte for byte (BOM, RFC 4180 line ends), its rows export_ratings' rows
        assert csv_bytes.decode("utf-8") == BOM + export_text(slug, day).replace("\n", "\r\n")
        rows = list(csv.reader(io.StringIO(csv_bytes.decode("utf-8-sig"))))
        assert rows[0] == ["coach_number", "coach", "race", "variant", "rating", "mu", "phi", "sigma", "rank", "games"]
        assert len(rows) - 1 == PublishedEntry.objects.filter(publication=publication).count() == by_format["csv"]["rows"]
        document = json.loads((tmp_path / by_format["json"]["path"]).read_text(encoding="utf-8"))
        assert (document["system"], document["list_date"], document["edition"]) == (slug, day.isoformat(), 1)
        assert [[str(e["coach_number"]), e["coach"], e["race"], e["variant"]] for e in document["entries"]] == [r[:4] for r in rows[1:]]
        assert [e["rating"] for e in document["entries"]] == [float(r[4]) for r in rows[1:]]
    assert len(result.written) == len(manifest(tmp_path)["files"])


def test_the_figures_of_a_known_list_row(league, tmp_path):
    """Anna's NAF Elo entry (Human) on the list of 2024-04-01: after the Dutch Open, 149.97 (as her breakdown says)."""
    open_data_dump(root=tmp_path, now=NOW, dumps=False)
    entry = PublishedEntry.objects.get(publication__system__slug="elo", publication__date=dt.date(2024, 4, 1),
                                       coach_number=101, race_slug="human")
    [csv_file] = published_files(tmp_path, system="elo", list_date="2024-04-01", format="csv")
    rows = list(csv.DictReader(io.StringIO((tmp_path / csv_file["path"]).read_text(encoding="utf-8-sig"))))
    [anna] = [r for r in rows if r["coach_number"] == "101" and r["race"] == "Human"]
    assert anna["coach"] == "Anna Jansen"
    assert anna["rating"] == f"{entry.value:.2f}" == "149.97"
    assert anna["games"] == "2"


def test_the_knsb_list_in_the_knsbs_semicolon_layout(league, tmp_path):
    open_data_dump(root=tmp_path, now=NOW, dumps=False)
    publication = Publication.objects.filter(system__slug="knsb", rated__gt=0).order_by("-date").first()
    [knsb] = published_files(tmp_path, system="knsb", list_date=publication.date.isoformat(), format="knsb")
    assert knsb["path"].endswith("-blood-bowl-2020.knsb.csv")
    raw = (tmp_path / knsb["path"]).read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    lines = raw.decode("utf-8").split("\r\n")
    assert lines[0] == "Relatienummer;Naam;Rating;Nv;Geboortejaar"
    expected = [
        f"{e.coach_number};{e.coach_name};{round(e.value)};{e.nv};"
        for e in PublishedEntry.objects.filter(publication=publication).order_by("rank", "-value", "coach_number")
    ]
    assert lines[1:-1] == expected and len(expected) == knsb["rows"] == publication.rated > 0
    assert all("," not in line.split(";")[2] and "." not in line.split(";")[2] for line in lines[1:-1])  # whole ratings
    # no other system gets the KNSB layout
    assert not [e for e in manifest(tmp_path)["files"] if e["format"] == "knsb" and e["system"] != "knsb"]


def test_the_manifest_states_each_files_checksum_size_and_rows(league, tmp_path):
    open_data_dump(root=tmp_path, now=NOW)
    document = manifest(tmp_path)
    assert document["licence"]["id"] == "CC0-1.0"
    assert "nationality" in document["personal_data"]
    assert {"list-csv", "list-json", "list-knsb", "games", "ratings"} == set(document["schemas"])
    assert [c["name"] for c in document["schemas"]["games"]][:3] == ["game_id", "event_id", "event"]
    for entry in document["files"]:
        path = tmp_path / entry["path"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"], entry["path"]
        assert path.stat().st_size == entry["size"]
        if entry["format"] in ("csv", "knsb"):
            assert len(path.read_text(encoding="utf-8").splitlines()) - 1 == entry["rows"]
        elif entry["format"] == "json":
            assert len(json.loads(path.read_text(encoding="utf-8"))["entries"]) == entry["rows"]
        assert entry["created_at"] == NOW.isoformat() and entry["licence"] == "CC0-1.0"
    # nothing in the folder that the manifest does not list (no temporary file left)
    on_disk = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()} - {"manifest.json", ".lock"}
    assert on_disk == {e["path"] for e in document["files"]}


def test_a_republished_list_adds_files_and_an_erratum_and_leaves_the_old_ones_byte_for_byte(league, tmp_path):
    open_data_dump(root=tmp_path, now=NOW, dumps=False)
    old = published_files(tmp_path, system="elo", list_date="2024-07-01")
    before = {e["path"]: (tmp_path / e["path"]).read_bytes() for e in old}
    elo = RatingSystem.objects.get(slug="elo")
    services.list_republish(system=elo, date=dt.date(2024, 7, 1), actor=staff(), reason="Ruling 2024/7", edition=1)

    later = NOW + dt.timedelta(days=1)
    result = open_data_dump(root=tmp_path, now=later, dumps=False)

    assert sorted(result.written) == ["lists/elo/elo-2024-07-01-e2-r1.csv", "lists/elo/elo-2024-07-01-e2-r1.json"]
    assert {path: (tmp_path / path).read_bytes() for path in before} == before
    assert {e["path"] for e in published_files(tmp_path, system="elo", list_date="2024-07-01", edition=1)} == set(before)
    [erratum] = manifest(tmp_path)["errata"]
    assert (erratum["kind"], erratum["system"], erratum["list_date"], erratum["edition"]) == ("edition", "elo", "2024-07-01", 2)
    assert erratum["reason"] == "Ruling 2024/7" and erratum["replaces"] == []
    assert erratum["files"] == sorted(result.written)
    assert "Ruling 2024/7" in erratum["text"]


def test_a_coach_hidden_after_publication_is_written_again_under_his_label_and_the_old_files_withdrawn(league, tmp_path):
    open_data_dump(root=tmp_path, now=NOW, dumps=False)
    named = [e for e in published_files(tmp_path) if b"Anna Jansen" in (tmp_path / e["path"]).read_bytes()]
    assert named
    privacy.coach_privacy_set(coach=league["anna"], visibility=Visibility.HIDDEN, actor=None)

    result = open_data_dump(root=tmp_path, now=NOW + dt.timedelta(days=1), dumps=False)

    assert sorted(result.withdrawn) == sorted(e["path"] for e in named)
    assert b"Anna Jansen" not in every_file_byte(tmp_path)
    assert coach_label(league["anna"].pk).encode() in every_file_byte(tmp_path)
    withdrawn = {e["path"]: e for e in manifest(tmp_path)["files"] if e["status"] == "withdrawn"}
    assert set(withdrawn) == {e["path"] for e in named}
    assert all(withdrawn[e["path"]]["sha256"] == e["sha256"] for e in named)  # the checksums stay on record
    errata = manifest(tmp_path)["errata"]
    assert {e["kind"] for e in errata} == {"renamed"}
    assert sorted(p for e in errata for p in e["replaces"]) == sorted(withdrawn)
    assert all(re.search(r"-e1-r2[.-]", p) for e in errata for p in e["files"])
    # a list that never named her keeps its one revision
    assert published_files(tmp_path, system="elo", list_date="2022-02-01", revision=1)


def test_no_hidden_name_and_no_unpublished_event_in_any_file(league, tmp_path):
    ivo = CoachFactory(number=109, name="Ivo Verborgen", nationality="BE")
    privacy.coach_privacy_set(coach=ivo, visibility=Visibility.HIDDEN, actor=None)
    pia = CoachFactory(number=110, name="Pia Echtnaam")
    privacy.coach_privacy_set(coach=pia, visibility=Visibility.PSEUDONYM, pseudonym="Blitzer Pia", actor=None)
    shown = EventFactory(name="Hidden Coaches Open", start_date=dt.date(2024, 8, 3))
    play(RoundFactory(event=shown, number=1), ivo, pia, (2, 1))
    for status in (EventStatus.DRAFT, EventStatus.SUBMITTED, EventStatus.REJECTED):
        secret = EventFactory(name=f"Secret {status} Cup", start_date=dt.date(2024, 8, 10), status=status)
        play(RoundFactory(event=secret, number=1), league["anna"], league["bert"], (4, 0))
    recalculate_all()

    open_data_dump(root=tmp_path, now=NOW)

    blob = every_file_byte(tmp_path)
    assert b"Hidden Coaches Open" in blob and coach_label(ivo.pk).encode() in blob and b"Blitzer Pia" in blob
    for private in (b"Ivo Verborgen", b"Pia Echtnaam", b"Secret draft Cup", b"Secret submitted Cup", b"Secret rejected Cup",
                    b"@example.org"):
        assert private not in blob, private
    games = pq.read_table(tmp_path / f"dumps/{NOW.date()}/games.parquet").to_pylist()
    assert {g["event_status"] for g in games} == {"sanctioned", "open_play"}
    assert len(games) == Game.objects.filter(event__status__in=["sanctioned", "open_play"]).count()


def test_the_dump_reads_back_with_the_manifests_row_counts(league, tmp_path):
    open_data_dump(root=tmp_path, now=NOW)
    day = NOW.date().isoformat()
    dump = {(e["dataset"], e["format"]): e for e in published_files(tmp_path, kind="dump")}
    assert set(dump) == {("games", "csv.gz"), ("games", "parquet"), ("ratings", "csv.gz"), ("ratings", "parquet")}
    assert all(e["path"].startswith(f"dumps/{day}/") for e in dump.values())

    games_csv = list(csv.DictReader(io.StringIO(gzip.decompress((tmp_path / dump["games", "csv.gz"]["path"]).read_bytes()).decode())))
    games_parquet = pq.read_table(tmp_path / dump["games", "parquet"]["path"])
    assert len(games_csv) == games_parquet.num_rows == dump["games", "csv.gz"]["rows"] == dump["games", "parquet"]["rows"] == 25
    first = next(g for g in games_csv if g["event"] == "Dutch Open" and g["round"] == "1" and g["home_coach_number"] == "101")
    assert (first["home_coach"], first["home_race"], first["home_touchdowns"], first["away_coach"], first["away_touchdowns"]) == (
        "Anna Jansen", "Human", "2", "Bert Smith", "1")
    assert first["played_at"] == "2024-03-02T11:00:00Z" and first["event_status"] == "sanctioned"
    as_parquet = next(g for g in games_parquet.to_pylist() if g["game_id"] == int(first["game_id"]))
    assert as_parquet["played_at"] == dt.datetime(2024, 3, 2, 11, tzinfo=dt.UTC)
    assert as_parquet["home_touchdowns"] == 2 and as_parquet["away_coach_number"] == 102

    ratings_csv = list(csv.DictReader(io.StringIO(gzip.decompress((tmp_path / dump["ratings", "csv.gz"]["path"]).read_bytes()).decode())))
    ratings_parquet = pq.read_table(tmp_path / dump["ratings", "parquet"]["path"])
    assert len(ratings_csv) == ratings_parquet.num_rows == dump["ratings", "parquet"]["rows"] == CurrentRating.objects.count()
    out = io.StringIO()
    call_command("export_ratings", system="knsb", stdout=out)
    exported = list(csv.reader(io.StringIO(out.getvalue())))[1:]
    assert [[r[k] for k in exported_header()] for r in ratings_csv if r["system"] == "knsb"] == exported
    assert manifest(tmp_path)["last_dump"]["games"] == 25


def exported_header() -> list[str]:
    return ["coach_number", "coach", "race", "variant", "rating", "mu", "phi", "sigma", "rank", "games"]


def test_the_dump_command_is_idempotent(league, tmp_path):
    out = io.StringIO()
    call_command("dump_open_data", root=tmp_path, stdout=out)
    assert out.getvalue().startswith(f"Wrote {len(manifest(tmp_path)['files'])} files, withdrew 0")
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.rglob("*") if p.is_file()}

    again = io.StringIO()
    call_command("dump_open_data", root=tmp_path, stdout=again)

    assert again.getvalue().startswith("Wrote 0 files, withdrew 0, 0 errata entries")
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.rglob("*") if p.is_file()} == before


def test_a_dump_stopped_before_its_manifest_keeps_the_files_it_wrote(league, tmp_path):
    """A file on disk that the manifest does not list (a dump stopped half-way) is adopted as it is, never rewritten."""
    open_data_dump(root=tmp_path, now=NOW, dumps=False)
    kept = tmp_path / "lists/elo/elo-2024-07-01-e1-r1.csv"
    data = kept.read_bytes()
    (tmp_path / "manifest.json").unlink()

    open_data_dump(root=tmp_path, now=NOW + dt.timedelta(days=1), dumps=False)

    assert kept.read_bytes() == data
    [entry] = [e for e in manifest(tmp_path)["files"] if e["path"] == "lists/elo/elo-2024-07-01-e1-r1.csv"]
    assert entry["sha256"] == hashlib.sha256(data).hexdigest()


def test_old_dumps_are_kept_for_data_dumps_kept_days(league, tmp_path, settings):
    settings.DATA_DUMPS_KEPT = 2
    for days in range(3):
        open_data_dump(root=tmp_path, now=NOW + dt.timedelta(days=days))
    dates = sorted({e["dump_date"] for e in published_files(tmp_path, kind="dump")})
    assert dates == ["2024-09-17", "2024-09-18"]
    assert not (tmp_path / "dumps" / "2024-09-16").exists()


def test_the_nightly_task_is_on_the_beat_schedule_and_writes_the_files(league, tmp_path, settings):
    from django_celery_beat.models import PeriodicTask

    from downloads.tasks import dump_open_data

    task = PeriodicTask.objects.get(task="downloads.tasks.dump_open_data")
    assert task.enabled and (task.crontab.minute, task.crontab.hour, task.crontab.day_of_month) == ("30", "2", "*")
    settings.DATA_FILES_ROOT = str(tmp_path)
    summary = dump_open_data.delay().get()
    assert summary["written"] == len(manifest(tmp_path)["files"]) > 4 and not summary["busy"]
    assert dump_open_data.delay().get()["written"] == 0


def test_a_dump_finding_another_under_way_writes_nothing(league, tmp_path):
    from django.core.management import CommandError

    from downloads import files

    with files.exclusive(tmp_path) as held:
        assert held
        assert open_data_dump(root=tmp_path).busy
        with pytest.raises(CommandError, match="Another dump is writing to this folder"):
            call_command("dump_open_data", root=tmp_path, stdout=io.StringIO())
    assert not (tmp_path / "manifest.json").exists()


def test_a_dump_stopped_before_its_manifest_is_written_again_the_next_run(league, tmp_path):
    open_data_dump(root=tmp_path, now=NOW)
    games = tmp_path / f"dumps/{NOW.date()}/games.csv.gz"
    rows = published_files(tmp_path, dataset="games", format="csv.gz")[0]["rows"]
    (tmp_path / "manifest.json").unlink()  # as if the dump had stopped before writing it

    result = open_data_dump(root=tmp_path, now=NOW)

    assert f"dumps/{NOW.date()}/games.csv.gz" in result.written
    [entry] = published_files(tmp_path, dataset="games", format="csv.gz")
    assert entry["rows"] == rows and entry["sha256"] == hashlib.sha256(games.read_bytes()).hexdigest()
