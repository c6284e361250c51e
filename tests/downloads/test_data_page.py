"""/data/ (and /nl/data/): the downloads with sizes, dates and checksums, the licence, the column
dictionary, the errata and the status of the data; the files answer with their checksum as ETag."""
import datetime as dt
import json
import re

import pytest
from django.utils import timezone

from downloads.services import open_data_dump
from ratings.models import RatingSystem, RecalculationRun, RunStatus
from tests.factories import EventFactory
from tests.web.conftest import build_league, recalculate_all, table
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db

NOW = timezone.make_aware(dt.datetime(2024, 9, 16, 2, 30))


@pytest.fixture
def written(settings, tmp_path):
    """The league, its runs, two events waiting for the staff, a draft, and the open data written."""
    settings.DATA_FILES_ROOT = str(tmp_path)
    data = build_league()
    recalculate_all()
    EventFactory(name="Waiting One", status=EventStatus.SUBMITTED)
    EventFactory(name="Waiting Two", status=EventStatus.SUBMITTED)
    EventFactory(name="Just A Draft", status=EventStatus.DRAFT)
    open_data_dump(now=NOW)
    return data


def figure(response, name: str) -> str:
    return re.search(rf'<dd id="status-{name}">([^<]*)</dd>', response.content.decode()).group(1)


@pytest.mark.parametrize("prefix", ["", "/nl"])
def test_the_status_figures(client, written, prefix):
    response = client.get(f"{prefix}/data/")
    assert response.status_code == 200
    # 25 games of 5 public events (one of them open play); two events submitted, a draft not counted
    assert (figure(response, "games"), figure(response, "events"), figure(response, "waiting")) == ("25", "5", "2")
    caption = "Last run and last list of each rating system" if not prefix else "Laatste berekening en laatste lijst van elk ratingsysteem"
    status = table(response, caption)
    assert [cells[0] for _, cells in status["rows"]] == ["NAF Elo", "NAF Glicko", "Global Glicko", "KNSB list rating"]
    elo = status["rows"][0][1]
    run = RecalculationRun.objects.get(system__slug="elo", status=RunStatus.SUCCEEDED)
    assert elo[1] == f"{run.finished_at:%Y-%m-%d %H:%M} UTC"
    assert elo[3] == "25"  # the games the run read
    assert elo[4] == "8"  # every coach of the league has a NAF Elo rating
    assert elo[5] == "2024-09-01"
    decimal = "," if prefix else "."
    assert elo[2] == f"{run.duration:.1f}".replace(".", decimal)


def test_the_files_with_sizes_rows_and_checksums(client, written, tmp_path):
    response = client.get("/data/")
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    by_path = {e["path"]: e for e in manifest["files"]}
    dump = table(response, "Files of the latest nightly dump")
    assert [cells[0] for _, cells in dump["rows"]] == [
        "dumps/2024-09-16/games.csv.gz", "dumps/2024-09-16/games.parquet",
        "dumps/2024-09-16/ratings.csv.gz", "dumps/2024-09-16/ratings.parquet",
    ]
    for _, (path, _size, rows, day, sha) in dump["rows"]:
        assert (rows, day, sha) == (str(by_path[path]["rows"]), "2024-09-16", by_path[path]["sha256"])
    knsb = table(response, "Files of the latest lists of KNSB list rating")
    assert [cells[0] for _, cells in knsb["rows"]][:3] == [
        "lists/knsb/knsb-2024-09-01-e1-r1.json", "lists/knsb/knsb-2024-09-01-e1-r1.csv",
        "lists/knsb/knsb-2024-09-01-e1-r1-blood-bowl-2020.knsb.csv",
    ] or {cells[0] for _, cells in knsb["rows"][:3]} == {
        "lists/knsb/knsb-2024-09-01-e1-r1.json", "lists/knsb/knsb-2024-09-01-e1-r1.csv",
        "lists/knsb/knsb-2024-09-01-e1-r1-blood-bowl-2020.knsb.csv",
    }
    content = response.content.decode()
    assert 'href="https://creativecommons.org/publicdomain/zero/1.0/" rel="license"' in content
    assert "No errata: no published file has been replaced." in content
    games = table(response, "The game record (nightly dump)")
    assert [cells[0] for _, cells in games["rows"]][:3] == ["game_id", "event_id", "event"]


def test_the_dutch_page_says_it_in_dutch(client, written):
    content = client.get("/nl/data/").content.decode()
    assert "<h1>Open data</h1>" in content
    assert "Wachtend op de staf van de federatie" in content or "wachten op de staf van de federatie" in content
    assert "Geboortejaar" in content


def test_a_file_answers_with_its_checksum_as_etag_and_304_when_unchanged(client, written, tmp_path):
    entry = next(e for e in json.loads((tmp_path / "manifest.json").read_text())["files"] if e["format"] == "csv")
    response = client.get(f"/data/files/{entry['path']}")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == (tmp_path / entry["path"]).read_bytes()
    assert response["ETag"] == f'"{entry["sha256"]}"'
    assert response["Last-Modified"] == "Mon, 16 Sep 2024 02:30:00 GMT"
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Access-Control-Allow-Origin"] == "*"
    again = client.get(f"/data/files/{entry['path']}", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304
    since = client.get(f"/data/files/{entry['path']}", HTTP_IF_MODIFIED_SINCE="Tue, 17 Sep 2024 00:00:00 GMT")
    assert since.status_code == 304


@pytest.mark.parametrize("path", ["manifest.json", ".lock", "../manifest.json", "lists/elo/nothing.csv", "dumps/"])
def test_only_what_the_manifest_publishes_is_served(client, written, path):
    assert client.get(f"/data/files/{path}").status_code == 404


def test_the_manifest_is_served_with_an_etag(client, written, tmp_path):
    response = client.get("/data/manifest.json")
    assert response.status_code == 200
    assert json.loads(response.content)["licence"]["id"] == "CC0-1.0"
    assert client.get("/data/manifest.json", HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


def test_an_erratum_shows_on_the_page(client, written):
    from ratings import services
    from tests.roles import staff

    services.list_republish(system=RatingSystem.objects.get(slug="elo"), date=dt.date(2024, 7, 1), actor=staff(),
                            reason="Ruling 2024/7", edition=1)
    open_data_dump(now=NOW + dt.timedelta(days=1))
    errata = table(client.get("/data/"), "Errata, newest first")
    assert errata["rows"][0][1][:3] == [
        "2024-09-17", "elo 2024-07-01",
        "Published again as edition 2: “Ruling 2024/7”. The files of the earlier edition stay as they were.",
    ]
