"""The NAF report (XML) that tournament programs export: read, checked as the CSV is, uploaded (issue 18, item 9)."""
import codecs
import datetime as dt
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import CoachFactory, EventFactory
from tests.roles import organiser
from tournaments.importers.naf_report import is_naf_report, parse_naf_report, read_naf_report
from tournaments.models import Game, Participant
from tournaments.uploads import RaceLookup, RaceRef

DATA = Path(__file__).parent / "data"
START, END, TODAY = dt.date(2024, 5, 4), dt.date(2024, 5, 5), dt.date(2025, 1, 1)
RACES = RaceLookup([
    RaceRef("human", "Human", True), RaceRef("orc", "Orc", True), RaceRef("skaven", "Skaven", True),
    RaceRef("necromantic-horror", "Necromantic Horror", True), RaceRef("necromantic-horror-2", "Necromantic horror", False),
])


def parse(data: bytes, known=frozenset({901, 902, 903, 904}), names=None):
    return parse_naf_report(
        data, races=RACES, start=START, end=END, today=TODAY, find_coaches=lambda numbers: set(known) & numbers,
        find_names=lambda asked: {name: number for name, number in (names or {}).items() if name in asked},
    )


def test_the_sample_report_gives_its_four_games_in_two_rounds_by_time_stamp():
    upload = parse((DATA / "naf_report.xml").read_bytes(), names={"Zoë": 904})
    assert upload.errors == []
    assert [(g.line, g.round, g.date, g.time, g.home_coach, g.home_race, g.home_td, g.away_td, g.away_coach, g.away_race,
             g.home_cas, g.away_cas) for g in upload.games] == [
        (11, 1, START, dt.time(9), 901, "human", 2, 1, 902, "orc", 1, 3),
        (16, 1, START, dt.time(9), 903, "necromantic-horror", 1, 1, 904, "skaven", 0, 2),
        (21, 2, START, dt.time(13), 901, "human", 0, 1, 903, "necromantic-horror", 1, 1),
        (26, 2, START, dt.time(13), 902, "orc", 3, 0, 904, "skaven", 2, 0),
    ]
    assert upload.is_valid


def test_every_bad_game_of_a_report_is_named_by_line_and_column_and_none_is_kept():
    upload = parse((DATA / "naf_report_bad.xml").read_bytes())
    assert [(e.line, e.column, e.message) for e in upload.errors] == [
        (10, "home_cas", "-1 is negative: the number of casualties must be 0 or more."),
        (15, "date", "'4 May, morning' is not a time stamp: write it as YYYY-MM-DD HH:MM."),
        (15, "home_race", "Race “Necromantic horor”: did you mean “Necromantic Horror”?"),
        (15, "away_coach", "Coach “Nobody” has no <number> in the report, and no one coach of the federation has that name."),
    ]
    assert upload.games == [] and not upload.is_valid


def test_a_report_with_a_coach_the_federation_does_not_know_offers_him_for_creation_by_his_name():
    upload = parse((DATA / "naf_report.xml").read_bytes(), known={901, 902, 903}, names={"Zoë": 904})
    assert upload.unknown_coaches == {904: "Zoë"}
    assert {(e.line, e.column, e.code) for e in upload.errors} == {(16, "away_coach", "unknown_coach"), (26, "away_coach", "unknown_coach")}


@pytest.mark.parametrize("data, message", [
    (b"<nafReport><game>", "This is not well-formed XML: no element found."),
    (b"<results/>", "This XML is not a NAF report: it starts with <results>, not <nafReport>."),
    (b'<!DOCTYPE r [<!ENTITY a "aaaa">]><nafReport>&a;</nafReport>', "A NAF report has no DOCTYPE: remove it and upload the file again."),
    (b"<nafReport><organiser>Olga</organiser></nafReport>", "The NAF report has no <game>."),
])
def test_a_file_that_is_no_naf_report_is_refused_with_one_reason(data, message):
    assert [e.message for e in read_naf_report(data, races=RACES, today=TODAY).errors] == [message]


def test_a_naf_report_saved_as_utf16_with_a_byte_order_mark_is_read_as_the_utf8_one():
    text = (DATA / "naf_report.xml").read_text(encoding="utf-8").replace('encoding="UTF-8"', 'encoding="UTF-16"')
    expected = parse((DATA / "naf_report.xml").read_bytes(), names={"Zoë": 904})
    for data in (text.encode("utf-16"), codecs.BOM_UTF16_BE + text.encode("utf-16-be")):
        assert is_naf_report(data)
        upload = parse(data, names={"Zoë": 904})
        assert upload.errors == [] and upload.games == expected.games and len(upload.games) == 4


def test_xml_is_read_as_a_naf_report_and_anything_else_as_csv():
    assert is_naf_report(b'\xef\xbb\xbf<?xml version="1.0"?><nafReport/>') and is_naf_report(b"\n <nafReport/>")
    assert not is_naf_report(b"round,date,home_coach\n")


@pytest.mark.django_db
def test_an_organiser_uploads_a_naf_report_and_its_games_are_saved_after_the_preview(client):
    owner = organiser()
    event = EventFactory(name="Delft Open", start_date=START, end_date=END, status="draft", organiser=owner)
    for number, name in ((901, "Wim"), (902, "Xander"), (903, "Yara"), (904, "Zoë")):
        CoachFactory(number=number, name=name)
    client.force_login(owner)
    url = f"/organiser/events/{event.pk}/upload/"
    report = SimpleUploadedFile("delft.xml", (DATA / "naf_report.xml").read_bytes(), "application/xml")
    response = client.post(url, {"action": "check", "file": report})
    assert response.status_code == 200 and response.context["upload"].errors == []
    assert [row["game"].line for row in response.context["preview"]] == [11, 16, 21, 26]
    assert Game.objects.count() == 0
    digest = client.session[f"results-upload-{event.pk}"]["digest"]
    response = client.post(url, {"action": "confirm", "digest": digest})
    assert response.status_code == 302
    games = Game.objects.filter(event=event).order_by("played_at", "id")
    assert [(g.round.number, g.home_coach.number, g.home_touchdowns, g.away_touchdowns, g.away_coach.number, g.home_casualties,
             g.away_casualties, g.played_at.strftime("%H:%M")) for g in games] == [
        (1, 901, 2, 1, 902, 1, 3, "09:00"), (1, 903, 1, 1, 904, 0, 2, "09:00"),
        (2, 901, 0, 1, 903, 1, 1, "13:00"), (2, 902, 3, 0, 904, 2, 0, "13:00"),
    ]
    assert sorted(Participant.objects.filter(event=event).values_list("coach__number", "race__slug")) == [
        (901, "human"), (902, "orc"), (903, "necromantic-horror"), (904, "skaven"),
    ]
