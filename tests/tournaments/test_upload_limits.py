"""Uploads within time: at most MAX_UPLOAD_GAMES games a file, the largest saved whole, the preview
shown page by page, and the checked file kept in the database rather than in the session."""
import datetime as dt
import random

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import EventFactory
from tests.roles import organiser
from tournaments import services
from tournaments.models import Coach, Game, GameSide, Participant, ResultsUpload, Round
from tournaments.organiser_views import PREVIEW_PER_PAGE, PROBLEMS_SHOWN
from tournaments.uploads import MAX_UPLOAD_GAMES, GameEntry

pytestmark = pytest.mark.django_db

DAY = dt.date(2024, 5, 4)
RACES = ["Human", "Orc", "Dwarf", "Skaven"]
HEADER = "round,date,home_coach,home_race,home_td,away_td,away_coach,away_race"


def results(coaches: int, rounds: int) -> str:
    """A valid file: every coach once in every round, one race each, coaches numbered from 1."""
    rng = random.Random(rounds)
    lines = [HEADER]
    for number in range(1, rounds + 1):
        order = list(range(1, coaches + 1))
        rng.shuffle(order)
        for home, away in zip(order[::2], order[1::2]):
            lines.append(f"{number},{DAY.isoformat()},{home},{RACES[home % 4]},{rng.randint(0, 3)},{rng.randint(0, 3)},"
                         f"{away},{RACES[away % 4]}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def draft():
    owner = organiser()
    event = EventFactory(name="World Cup", start_date=DAY, end_date=DAY, status="draft", organiser=owner)
    return owner, event


def with_coaches(count: int) -> None:
    Coach.objects.bulk_create([Coach(number=n, name=f"Coach {n}") for n in range(1, count + 1)])


def check(client, event, text: str):
    return client.post(f"/organiser/events/{event.pk}/upload/", {
        "action": "check", "file": SimpleUploadedFile("results.csv", text.encode(), "text/csv"),
    })


def confirm(client, event):
    digest = client.session[f"results-upload-{event.pk}"]["digest"]
    return client.post(f"/organiser/events/{event.pk}/upload/", {"action": "confirm", "digest": digest})


def test_a_file_of_more_games_than_an_event_holds_is_refused_with_one_message(client, draft):
    owner, event = draft
    text = HEADER + "\n" + "".join(f"{n},{DAY.isoformat()},1,Human,1,0,2,Orc\n" for n in range(1, MAX_UPLOAD_GAMES + 2))
    client.force_login(owner)
    response = check(client, event, text)
    assert [(e.line, e.column, e.message) for e in response.context["upload"].errors] == [(
        0, "", f"The file has more than {MAX_UPLOAD_GAMES:,} games (line {MAX_UPLOAD_GAMES + 2} is game {MAX_UPLOAD_GAMES + 1:,}); "
        f"one upload holds at most {MAX_UPLOAD_GAMES:,}, more than the largest events have. Upload one event's results.",
    )]
    assert "preview" not in response.context
    confirm(client, event)
    assert not Game.objects.exists() and not Round.objects.exists()


def test_the_services_refuse_more_games_than_an_event_holds(draft):
    owner, event = draft
    games = [GameEntry(line=n, round=n % 99 + 1, date=DAY, home_coach=1, home_race="human", away_coach=2, away_race="orc")
             for n in range(MAX_UPLOAD_GAMES + 1)]
    with pytest.raises(ValidationError) as refused:
        services.results_upload(event=event, actor=owner, games=games)
    assert refused.value.messages == [
        f"{MAX_UPLOAD_GAMES + 1:,} games are more than one event holds: an event takes at most {MAX_UPLOAD_GAMES:,}.",
    ]
    assert not Game.objects.exists()


@pytest.mark.slow
def test_the_largest_upload_allowed_is_saved_whole(client, draft):
    owner, event = draft
    with_coaches(1000)
    text = results(coaches=1000, rounds=MAX_UPLOAD_GAMES // 500)
    client.force_login(owner)
    response = check(client, event, text)
    assert response.context["preview_count"] == MAX_UPLOAD_GAMES
    assert len(response.context["preview"]) == PREVIEW_PER_PAGE
    assert confirm(client, event).status_code == 302
    assert Game.objects.filter(event=event).count() == MAX_UPLOAD_GAMES
    assert GameSide.objects.filter(event=event).count() == 2 * MAX_UPLOAD_GAMES
    assert Participant.objects.filter(event=event).count() == 1000
    # game ids follow the file's lines, the order the ratings apply games of one time of play in
    ids = list(Game.objects.filter(event=event).order_by("round__number", "id").values_list("home_coach__number", flat=True))
    assert ids == [int(line.split(",")[2]) for line in text.splitlines()[1:]]


def test_the_preview_is_shown_page_by_page_and_saved_whole(client, draft):
    owner, event = draft
    with_coaches(100)
    text = results(coaches=100, rounds=9)  # 450 games
    client.force_login(owner)
    response = check(client, event, text)
    assert (response.context["preview_count"], response.context["rounds"]) == (450, 9)
    assert [row["game"].line for row in response.context["preview"]] == list(range(2, 2 + PREVIEW_PER_PAGE))
    page = response.content.decode()
    assert "Preview: 450 games in 9 rounds" in page and "Page 1 of 3" in page and 'href="?page=2"' in page
    last = client.get(f"/organiser/events/{event.pk}/upload/?page=3")
    assert [row["game"].line for row in last.context["preview"]] == list(range(2 + 2 * PREVIEW_PER_PAGE, 452))
    assert "Save all 450 games" in last.content.decode()
    assert confirm(client, event).status_code == 302
    assert Game.objects.filter(event=event).count() == 450


def test_a_checked_file_waits_in_the_database_not_in_the_session(client, draft):
    owner, event = draft
    with_coaches(100)
    text = results(coaches=100, rounds=9)
    client.force_login(owner)
    check(client, event, text)
    session = client.session
    assert len(session.encode(dict(session.items()))) < 1000
    staged = ResultsUpload.objects.get(event=event, uploaded_by=owner)
    assert (bytes(staged.data), staged.name) == (text.encode(), "results.csv")
    check(client, event, text.replace("\n1,", "\n1,", 1))  # checking again replaces it
    assert ResultsUpload.objects.count() == 1
    confirm(client, event)
    assert not ResultsUpload.objects.exists()
    assert f"results-upload-{event.pk}" not in client.session


def test_another_users_checked_file_cannot_be_confirmed(client, draft):
    owner, event = draft
    with_coaches(4)
    client.force_login(owner)
    check(client, event, results(coaches=4, rounds=1))
    digest = client.session[f"results-upload-{event.pk}"]["digest"]
    other = organiser("otto")
    event.organiser = other
    event.save()
    client.force_login(other)
    session = client.session
    session[f"results-upload-{event.pk}"] = {"digest": digest, "name": "results.csv"}
    session.save()
    response = client.post(f"/organiser/events/{event.pk}/upload/", {"action": "confirm", "digest": digest})
    assert response.status_code == 302
    assert not Game.objects.exists()


def test_a_file_with_many_problems_lists_the_first_ones_and_counts_the_rest(client, draft):
    owner, event = draft
    with_coaches(2)
    bad = PROBLEMS_SHOWN + 50
    text = HEADER + "\n" + f"1,{DAY.isoformat()},1,Human,-1,0,2,Orc\n" * bad
    client.force_login(owner)
    response = check(client, event, text)
    assert len(response.context["upload"].errors) == bad
    page = response.content.decode()
    assert page.count("-1 is negative") == PROBLEMS_SHOWN
    assert "… and 50 more problems" in page
