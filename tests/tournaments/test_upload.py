"""Results uploads: the CSV format, every bad row by line and column, nothing saved until all is valid."""
import codecs
import datetime as dt

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from audit.models import AuditRecord
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import organiser
from tournaments.models import Coach, Event, Game, GameSide, Participant, Race, Round
from tournaments.uploads import COLUMN_NAMES, COLUMNS, MAX_UPLOAD_BYTES, RaceRef, parse_results, race_lookup

RACES = race_lookup([
    RaceRef("human", "Human", True), RaceRef("orc", "Orc", True), RaceRef("chaos-dwarf", "Chaos Dwarf", True),
    RaceRef("khemri", "Khemri", False),
])
START, END = dt.date(2024, 5, 4), dt.date(2024, 5, 5)
HEADER = "round,date,home_coach,home_race,home_td,away_td,away_coach,away_race"


def parse(text: str, known=frozenset({1, 2, 3, 4, 5, 6})):
    return parse_results(text.encode(), races=RACES, start=START, end=END, find_coaches=lambda numbers: set(known) & numbers)


def problems(text: str, **kwargs):
    return [(e.line, e.column) for e in parse(text, **kwargs).errors]


def test_a_valid_file_gives_one_entry_per_game_with_races_by_name_or_slug():
    upload = parse(f"{HEADER}\n1,2024-05-04,1,Human,2,1,2,orc\n1,2024-05-04,3,chaos dwarf,0,0,4,Chaos-Dwarf\n")
    assert upload.is_valid
    assert [(g.line, g.home_coach, g.home_race, g.home_td, g.away_td, g.away_coach, g.away_race) for g in upload.games] == [
        (2, 1, "human", 2, 1, 2, "orc"), (3, 3, "chaos-dwarf", 0, 0, 4, "chaos-dwarf"),
    ]


def test_columns_may_come_in_any_order_and_semicolons_separate_too():
    upload = parse("away_race;away_coach;away_td;home_td;home_race;home_coach;date;round\nOrc;2;0;3;Human;1;2024-05-05;2\n")
    assert upload.is_valid
    game = upload.games[0]
    assert (game.round, game.date, game.home_td, game.away_td) == (2, dt.date(2024, 5, 5), 3, 0)


def test_a_byte_order_mark_from_a_spreadsheet_is_ignored():
    upload = parse_results(
        ("\ufeff" + HEADER + "\n1,2024-05-04,1,Human,1,0,2,Orc\n").encode(), races=RACES, start=START, end=END,
        find_coaches=lambda numbers: numbers,
    )
    assert upload.is_valid


@pytest.mark.parametrize("codec, bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_utf16_with_a_byte_order_mark_as_some_spreadsheets_save_it_is_read(codec, bom):
    text = HEADER + "\r\n1,2024-05-04,1,Human,1,0,2,Orc\r\n2,2024-05-05,3,Chaos Dwarf,2,2,4,Orc\r\n"
    upload = parse_results(bom + text.encode(codec), races=RACES, start=START, end=END, find_coaches=lambda numbers: numbers)
    assert upload.errors == []
    assert [(g.line, g.home_coach, g.home_race, g.home_td, g.away_td, g.away_coach) for g in upload.games] == [
        (2, 1, "human", 1, 0, 2), (3, 3, "chaos-dwarf", 2, 2, 4),
    ]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_refused_with_how_to_save_it(codec):
    data = (HEADER + "\n1,2024-05-04,1,Human,1,0,2,Orc\n").encode(codec)
    upload = parse_results(data, races=RACES, start=START, end=END, find_coaches=lambda numbers: numbers)
    assert [(e.line, e.message) for e in upload.errors] == [
        (0, "The file is UTF-16 text without a byte order mark: save it as CSV UTF-8 (or UTF-8 XML) and upload it again."),
    ]


def test_every_bad_cell_is_reported_with_its_line_and_column():
    text = (
        f"{HEADER},home_cas,conceded,kind\n"
        "1,2024-05-04,1,Human,2,1,2,Orc,0,,played\n"
        "x,2024-13-01,3,Human,-1,99,4,Orc,abc,nobody,friendly\n"
        "\n"
        "2,2024-05-05,1,Human,1,0,,Orc,0,,played\n"
    )
    assert problems(text) == [
        (3, "round"), (3, "date"), (3, "home_td"), (3, "away_td"), (3, "home_cas"), (3, "conceded"), (3, "kind"),
        (5, "away_coach"),
    ]
    messages = [e.message for e in parse(text).errors]
    assert "-1 is negative: the number of touchdowns must be 0 or more." in messages
    assert "99 is not a believable number of touchdowns: at most 20." in messages
    assert "'2024-13-01' is not a date: write it as YYYY-MM-DD." in messages


def test_a_coach_against_himself_is_refused():
    errors = parse(f"{HEADER}\n1,2024-05-04,1,Human,1,0,1,Human\n").errors
    assert [(e.line, e.column, e.message) for e in errors] == [(2, "away_coach", "Coach 1 cannot play against themselves.")]


def test_a_coach_twice_in_a_round_is_refused_on_the_second_line():
    errors = parse(f"{HEADER}\n1,2024-05-04,1,Human,1,0,2,Orc\n1,2024-05-04,3,Human,1,0,1,Human\n").errors
    assert [(e.line, e.column, e.message) for e in errors] == [(3, "away_coach", "Coach 1 already plays in round 1 (line 2).")]


def test_a_duplicate_game_is_refused_even_with_home_and_away_swapped():
    errors = parse(f"{HEADER}\n1,2024-05-04,1,Human,1,0,2,Orc\n1,2024-05-04,2,Orc,0,1,1,Human\n").errors
    assert [(e.line, e.message) for e in errors] == [(3, "Duplicate game: the same coaches already meet in round 1 on line 2.")]


def test_a_date_outside_the_event_and_a_round_with_two_dates_are_refused():
    errors = parse(f"{HEADER}\n1,2024-05-04,1,Human,1,0,2,Orc\n1,2024-05-05,3,Human,1,0,4,Orc\n2,2024-05-07,1,Human,1,0,3,Human\n").errors
    assert [(e.line, e.column, e.message) for e in errors] == [
        (3, "date", "Round 1 is dated 2024-05-04 on line 2: a round has one date."),
        (4, "date", "2024-05-07 is outside the event's dates (2024-05-04 to 2024-05-05)."),
    ]


def test_unknown_federation_numbers_are_reported_and_offered_for_creation_with_their_names():
    upload = parse(f"{HEADER},home_name,away_name\n1,2024-05-04,1,Human,1,0,77,Orc,Anna,Zed <Z>\n", known={1})
    assert [(e.line, e.column, e.code) for e in upload.errors] == [(2, "away_coach", "unknown_coach")]
    assert upload.unknown_coaches == {77: "Zed <Z>"}
    assert upload.only_unknown_coaches


def test_an_unranked_race_and_an_unknown_race_are_refused():
    errors = parse(f"{HEADER}\n1,2024-05-04,1,Khemri,1,0,2,Elves\n").errors
    assert [(e.column, e.message) for e in errors] == [
        ("home_race", "Khemri is not a ranked race: only the federation's ranked races can be sanctioned."),
        ("away_race", "'Elves' is not a race the federation knows."),
    ]


def test_a_coach_brings_one_race_to_an_event():
    errors = parse(f"{HEADER}\n1,2024-05-04,1,Human,1,0,2,Orc\n2,2024-05-05,1,Orc,1,0,3,Human\n").errors
    assert [(e.line, e.column, e.message) for e in errors] == [
        (3, "home_race", "Coach 1 plays Human on line 2: a coach brings one race to an event."),
    ]


def test_a_bye_has_no_opponent_and_needs_no_score():
    upload = parse("round,date,home_coach,home_race,home_td,away_td,away_coach,away_race,kind\n1,2024-05-04,1,Human,,,,,bye\n")
    assert upload.is_valid
    assert (upload.games[0].away_coach, upload.games[0].home_td, upload.games[0].kind) == (None, 0, "bye")
    assert problems("round,date,home_coach,home_race,home_td,away_td,away_coach,away_race,kind\n1,2024-05-04,1,Human,,,2,Orc,bye\n") == [
        (2, "away_coach"), (2, "away_race"),
    ]


def test_the_header_must_name_known_and_required_columns():
    errors = parse("round,date,home_coach,home_race,home_td,away_td,away_coach,colour\n").errors
    assert [(e.line, e.column) for e in errors] == [(1, "colour"), (1, "away_race")]


@pytest.mark.parametrize("data, message", [
    (b"", "The file is empty: the first line must name the columns."),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "This is not a text file: save the results as CSV (comma-separated values)."),
    ("round,date\n1,2024-05-04 caf\u00e9".encode("latin-1"), "The file is not UTF-8 text: save it as CSV UTF-8."),
    (HEADER.encode() + b"\n", "The file has a header but no games."),
])
def test_a_file_that_is_not_results_is_refused_as_a_whole(data, message):
    upload = parse_results(data, races=RACES, start=START, end=END, find_coaches=lambda numbers: numbers)
    assert [(e.line, e.message) for e in upload.errors] == [(1 if not data else 0, message)]


def test_a_line_with_more_values_than_columns_is_refused():
    assert problems(f"{HEADER}\n1,2024-05-04,1,Human,1,0,2,Orc,surplus\n") == [(2, "")]


def test_the_example_on_the_upload_page_is_itself_a_valid_upload():
    header = ",".join(COLUMN_NAMES)
    example = ",".join(c.example for c in COLUMNS)
    extra = "1,2024-05-04,09:30,10003,,Human,0,0,10004,,Orc,2,1,,played\n2,2024-05-04,,10001,,Human,0,0,,,,,,,bye\n"
    upload = parse(f"{header}\n{example}\n{extra}", known={10001, 10002, 10003, 10004})
    assert upload.errors == []
    assert len(upload.games) == 3


# The upload page.

CSV_HEADER = "round,date,time,home_coach,home_race,home_td,away_td,away_coach,away_race,home_cas,away_cas"


@pytest.fixture
def draft(db):
    owner = organiser()
    event = EventFactory(name="Delft Open", start_date=START, end_date=END, status="draft", organiser=owner)
    coaches = [CoachFactory(number=n, name=f"Coach {n}") for n in (101, 102, 103, 104)]
    return owner, event, coaches


def csv_file(text: str, name: str = "results.csv", content_type: str = "text/csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type)


GOOD = (
    f"{CSV_HEADER}\n"
    "1,2024-05-04,09:00,101,Human,2,1,102,Orc,1,0\n"
    "1,2024-05-04,09:00,103,Chaos Dwarf,1,1,104,Skaven,0,2\n"
    "2,2024-05-04,,101,Human,0,1,103,Chaos Dwarf,0,0\n"
    "2,2024-05-04,,102,Orc,3,0,104,Skaven,1,1\n"
)


def check(client, event, text, **kwargs):
    return client.post(f"/organiser/events/{event.pk}/upload/", {"action": "check", "file": csv_file(text, **kwargs)})


def confirm(client, event):
    digest = client.session[f"results-upload-{event.pk}"]["digest"]
    return client.post(f"/organiser/events/{event.pk}/upload/", {"action": "confirm", "digest": digest})


@pytest.mark.django_db
def test_an_upload_is_previewed_and_saved_only_when_confirmed(client, draft):
    owner, event, _ = draft
    client.force_login(owner)
    response = check(client, event, GOOD)
    assert response.status_code == 200
    assert [row["game"].line for row in response.context["preview"]] == [2, 3, 4, 5]
    assert Game.objects.count() == 0
    response = confirm(client, event)
    assert response.status_code == 302
    games = Game.objects.filter(event=event).order_by("played_at", "id")
    assert [(g.round.number, g.home_coach.number, g.home_touchdowns, g.away_touchdowns, g.away_coach.number) for g in games] == [
        (1, 101, 2, 1, 102), (1, 103, 1, 1, 104), (2, 101, 0, 1, 103), (2, 102, 3, 0, 104),
    ]
    assert [g.played_at.strftime("%H:%M") for g in games] == ["09:00", "09:00", "10:30", "10:30"]
    assert GameSide.objects.filter(event=event).count() == 8
    assert sorted(Participant.objects.filter(event=event).values_list("coach__number", "race__slug")) == [
        (101, "human"), (102, "orc"), (103, "chaos-dwarf"), (104, "skaven"),
    ]
    record = AuditRecord.objects.get(action="event.upload")
    assert (record.actor, record.after["games"], record.note) == (owner, 4, "results.csv")


@pytest.mark.django_db
def test_one_bad_row_saves_nothing_and_is_shown_by_line_and_column(client, draft):
    owner, event, _ = draft
    client.force_login(owner)
    bad = GOOD.replace("2,2024-05-04,,102,Orc,3,0,104", "2,2024-05-04,,102,Orc,-3,0,104")
    response = check(client, event, bad)
    assert [(e.line, e.column) for e in response.context["upload"].errors] == [(5, "home_td")]
    page = response.content.decode()
    assert "nothing was saved" in page and "-3 is negative" in page
    assert "preview" not in response.context
    assert Game.objects.count() == Round.objects.count() == Participant.objects.count() == 0
    response = client.post(f"/organiser/events/{event.pk}/upload/", {
        "action": "confirm", "digest": client.session[f"results-upload-{event.pk}"]["digest"],
    })
    assert response.status_code == 200
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_a_utf16_upload_as_a_spreadsheet_saves_unicode_text_is_previewed_and_saved(client, draft):
    owner, event, _ = draft
    client.force_login(owner)
    # Excel's "Unicode text": UTF-16 LE with a byte order mark, values separated by tabs
    data = codecs.BOM_UTF16_LE + GOOD.replace(",", "\t").replace("\n", "\r\n").encode("utf-16-le")
    response = client.post(f"/organiser/events/{event.pk}/upload/", {
        "action": "check", "file": SimpleUploadedFile("results.txt", data, "text/plain"),
    })
    assert response.status_code == 200 and response.context["upload"].errors == []
    assert [row["game"].line for row in response.context["preview"]] == [2, 3, 4, 5]
    assert confirm(client, event).status_code == 302
    assert Game.objects.filter(event=event).count() == 4


@pytest.mark.django_db
def test_an_upload_replaces_the_games_entered_before(client, draft):
    owner, event, coaches = draft
    play(RoundFactory(event=event, number=1, date=START), coaches[0], coaches[3], (0, 0))
    client.force_login(owner)
    response = check(client, event, GOOD)
    assert "Saving replaces the 1 game entered now." in response.content.decode()
    confirm(client, event)
    assert Game.objects.filter(event=event).count() == 4
    assert Round.objects.filter(event=event).count() == 2


@pytest.mark.django_db
def test_a_confirmation_that_does_not_match_the_preview_saves_nothing(client, draft):
    owner, event, _ = draft
    client.force_login(owner)
    check(client, event, GOOD)
    response = client.post(f"/organiser/events/{event.pk}/upload/", {"action": "confirm", "digest": "0" * 64})
    assert response.status_code == 302
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_unknown_coaches_can_be_created_from_the_upload_page_then_the_file_checks_again(client, draft):
    owner, event, _ = draft
    client.force_login(owner)
    text = GOOD.replace("104", "555").replace("away_cas\n", "away_cas,away_name\n").replace("0,2\n", "0,2,Nina Nieuw\n", 1)
    response = check(client, event, text)
    assert response.context["upload"].unknown_coaches == {555: "Nina Nieuw"}
    assert "create the coach first" in response.content.decode()
    response = client.post(f"/organiser/events/{event.pk}/upload/", {
        "action": "create_coaches", "coaches-TOTAL_FORMS": "1", "coaches-INITIAL_FORMS": "1",
        "coaches-0-number": "555", "coaches-0-name": "Nina Nieuw", "coaches-0-create": "on",
    })
    assert Coach.objects.get(number=555).name == "Nina Nieuw"
    assert AuditRecord.objects.filter(action="coach.create", actor=owner).count() == 1
    assert response.context["upload"].is_valid
    confirm(client, event)
    assert Game.objects.filter(event=event).count() == 4


@pytest.mark.django_db
def test_uploads_are_limited_in_size(client, draft):
    owner, event, _ = draft
    client.force_login(owner)
    big = GOOD + ("#" * (MAX_UPLOAD_BYTES + 1))
    response = check(client, event, big)
    assert response.context["form"].errors["file"] == [f"The file is {(len(big)) // 1024} KB; uploads are limited to 1024 KB."]
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("name, content_type, message", [
    ("results.xlsx", "text/csv", "Upload a .csv file (comma-separated values) or a NAF report (.xml)."),
    ("results.csv", "image/png", "This file is image/png, not CSV text or a NAF report."),
])
def test_uploads_are_limited_in_type(client, draft, name, content_type, message):
    owner, event, _ = draft
    client.force_login(owner)
    response = check(client, event, GOOD, name=name, content_type=content_type)
    assert response.context["form"].errors["file"] == [message]


@pytest.mark.django_db
def test_the_template_is_the_header_then_the_games_entered_with_formulas_defused(client, draft):
    owner, event, coaches = draft
    coaches[0].name = "=HYPERLINK(\"http://evil\")"
    coaches[0].save()
    play(RoundFactory(event=event, number=1, date=START), coaches[0], coaches[1], (2, 1))
    client.force_login(owner)
    response = client.get(f"/organiser/events/{event.pk}/upload/results.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'attachment; filename="results-event-' in response["Content-Disposition"]
    body = b"".join(response.streaming_content)
    assert body.startswith(codecs.BOM_UTF8)
    lines = body.decode("utf-8-sig").splitlines()
    assert lines[0] == ",".join(COLUMN_NAMES)
    assert lines[1].startswith("1,2024-05-04,,101,\"'=HYPERLINK(\"\"http://evil\"\")\",Human,2,1,102,")


@pytest.mark.django_db
def test_the_downloaded_results_upload_again_unchanged(client, draft):
    owner, event, _ = draft
    client.force_login(owner)
    check(client, event, GOOD)
    confirm(client, event)
    before = sorted(Game.objects.values_list(
        "round__number", "home_coach__number", "away_coach__number",
        "home_touchdowns", "away_touchdowns", "home_casualties", "away_casualties",
    ))
    download = b"".join(client.get(f"/organiser/events/{event.pk}/upload/results.csv").streaming_content)
    assert download.startswith(codecs.BOM_UTF8)  # sent back as downloaded, byte order mark and all
    response = check(client, event, download.decode("utf-8"))
    assert response.context["upload"].is_valid
    confirm(client, event)
    after = sorted(Game.objects.values_list(
        "round__number", "home_coach__number", "away_coach__number",
        "home_touchdowns", "away_touchdowns", "home_casualties", "away_casualties",
    ))
    assert after == before


@pytest.mark.django_db
def test_the_upload_page_documents_the_columns(client, draft):
    owner, event, _ = draft
    client.force_login(owner)
    page = client.get(f"/organiser/events/{event.pk}/upload/").content.decode()
    for name in COLUMN_NAMES:
        assert f"<code>{name}</code>" in page
    assert f"/organiser/events/{event.pk}/upload/results.csv" in page


@pytest.mark.django_db
def test_names_in_an_upload_are_escaped_on_the_page(client, draft):
    owner, event, _ = draft
    client.force_login(owner)
    text = f"{HEADER},home_name\n1,2024-05-04,101,<script>alert(1)</script>,1,0,999,Orc,<b>x</b>\n"
    page = check(client, event, text).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&#x27;&lt;script&gt;alert(1)&lt;/script&gt;&#x27; is not a race the federation knows." in page


@pytest.mark.django_db
def test_a_submitted_event_cannot_take_an_upload(client, draft):
    owner, event, _ = draft
    Event.objects.filter(pk=event.pk).update(status="submitted")
    client.force_login(owner)
    response = check(client, event, GOOD)
    assert response.status_code == 302
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_the_service_refuses_an_unranked_race_even_without_the_form(draft):
    from django.core.exceptions import ValidationError

    from tournaments.services import results_upload
    from tournaments.uploads import GameEntry

    owner, event, _ = draft
    Race.objects.create(name="Khemri", slug="khemri", ranked=False)
    game = GameEntry(line=2, round=1, date=START, home_coach=101, home_race="khemri", away_coach=102, away_race="orc", home_td=1)
    with pytest.raises(ValidationError) as caught:
        results_upload(event=event, actor=owner, games=[game])
    assert caught.value.messages == ["Khemri is not a ranked race: only the federation's ranked races can be sanctioned."]
    assert Game.objects.count() == 0
