"""Organisers enter their own events: the event form, participants, rounds, games and awards, and submission."""
import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from audit.models import AuditRecord
from ratings.models import RatingSystem, RecalculationRun, RunStatus
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import organiser, staff
from tournaments import services
from tournaments.models import Award, Event, EventStatus, Game, GameSide, Participant, Race, Round, Variant

pytestmark = pytest.mark.django_db

START, END = dt.date(2024, 5, 4), dt.date(2024, 5, 5)


@pytest.fixture
def owner():
    return organiser("olga")


@pytest.fixture
def coaches():
    return {n: CoachFactory(number=n, name=f"Coach {n}") for n in (101, 102, 103, 104)}


@pytest.fixture
def draft(owner):
    return EventFactory(name="Delft Open", start_date=START, end_date=END, status=EventStatus.DRAFT, organiser=owner)


def event_fields(event=None, **changes) -> dict:
    fields = {
        "name": event.name if event else "Delft Open", "variant": Variant.objects.get(slug="blood-bowl-2020").pk,
        "start_date": START.isoformat(), "end_date": END.isoformat(), "country": "NL", "city": event.city if event else "Delft",
        "latitude": "", "longitude": "",
    }
    fields.update(changes)
    return {f"event-{name}": value for name, value in fields.items() if value is not None}


def rows(prefix: str, items: list[dict]) -> dict:
    data = {f"{prefix}-TOTAL_FORMS": str(len(items)), f"{prefix}-INITIAL_FORMS": "0"}
    for index, item in enumerate(items):
        for name, value in item.items():
            data[f"{prefix}-{index}-{name}"] = "" if value is None else str(value)
    return data


def game(round_=1, home=101, away=102, home_td=1, away_td=0, **extra) -> dict:
    return {"round": round_, "home_coach": home, "home_td": home_td, "away_td": away_td, "away_coach": away,
            "home_cas": 0, "away_cas": 0, "kind": "played", **extra}


PARTICIPANTS = [
    {"coach": 101, "race": "human"}, {"coach": 102, "race": "orc"}, {"coach": 103, "race": "dwarf"}, {"coach": 104, "race": "skaven"},
]
ROUNDS = [{"number": 1, "date": "2024-05-04", "time": "09:00"}, {"number": 2, "date": "2024-05-04", "time": "13:00"}]
GAMES = [game(1, 101, 102, 2, 1), game(1, 103, 104, 1, 1), game(2, 101, 103, 0, 1), game(2, 102, 104, 3, 0)]


def entry(event=None, *, fields=None, participants=PARTICIPANTS, rounds=ROUNDS, games=GAMES, awards=()) -> dict:
    return {
        **event_fields(event, **(fields or {})), **rows("participants", list(participants)), **rows("rounds", list(rounds)),
        **rows("games", list(games)), **rows("awards", list(awards)),
    }


def save(client, event, data):
    return client.post(f"/organiser/events/{event.pk}/edit/", data)


def errors_of(response, formset: str) -> list[dict]:
    return [dict(form.errors) for form in getattr(response.context["entry"], formset).forms]


def test_an_organiser_creates_a_draft_that_he_organises(client, owner):
    client.force_login(owner)
    response = client.post("/organiser/events/new/", event_fields(name="Delft Open", is_major="on"))
    event = Event.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/organiser/events/{event.pk}/edit/"
    assert (event.organiser, event.status, event.is_major, event.city) == (owner, EventStatus.DRAFT, True, "Delft")
    record = AuditRecord.objects.get(action="event.create")
    assert (record.actor, record.object_id, record.after["name"]) == (owner, str(event.pk), "Delft Open")


def test_the_event_form_refuses_an_end_before_the_start_and_a_point_off_the_globe(client, owner):
    client.force_login(owner)
    response = client.post("/organiser/events/new/", event_fields(end_date="2024-05-01", latitude="91", longitude="-181"))
    form = response.context["form"]
    assert form.errors == {
        "end_date": ["The event cannot end before it starts."],
        "latitude": ["A latitude lies between −90 and 90."],
        "longitude": ["A longitude lies between −180 and 180."],
    }
    assert not Event.objects.exists()


def test_the_entry_page_saves_participants_rounds_games_and_awards_together(client, owner, draft, coaches):
    client.force_login(owner)
    response = save(client, draft, entry(draft, awards=[{"category": "Best painted", "coach": 103, "race": ""}]))
    assert response.status_code == 302, response.context and response.context["problems"]
    games = Game.objects.filter(event=draft).order_by("played_at", "id")
    assert [
        (g.round.number, g.home_coach.number, g.home_race.slug, g.home_touchdowns, g.away_touchdowns, g.away_race.slug) for g in games
    ] == [
        (1, 101, "human", 2, 1, "orc"), (1, 103, "dwarf", 1, 1, "skaven"),
        (2, 101, "human", 0, 1, "dwarf"), (2, 102, "orc", 3, 0, "skaven"),
    ]
    assert [g.played_at.strftime("%Y-%m-%d %H:%M") for g in games][::2] == ["2024-05-04 09:00", "2024-05-04 13:00"]
    assert GameSide.objects.filter(event=draft).count() == 8
    assert Participant.objects.filter(event=draft).count() == 4
    assert list(Award.objects.filter(event=draft).values_list("category", "coach__number")) == [("Best painted", 103)]
    record = AuditRecord.objects.get(action="event.update")
    assert (record.before, record.after) == ({"participants": 0, "rounds": 0, "games": 0, "awards": 0},
                                             {"participants": 4, "rounds": 2, "games": 4, "awards": 1})


def test_a_game_without_races_plays_the_races_its_coaches_are_registered_with(client, owner, draft, coaches):
    client.force_login(owner)
    save(client, draft, entry(draft, games=[game(1, 101, 102)]))
    assert Game.objects.values_list("home_race__slug", "away_race__slug").get() == ("human", "orc")


def test_a_coach_in_a_game_is_registered_with_the_race_he_plays(client, owner, draft, coaches):
    client.force_login(owner)
    save(client, draft, entry(draft, participants=[], games=[game(1, 101, 102, home_race="norse", away_race="elf-union")]))
    assert sorted(Participant.objects.values_list("coach__number", "race__slug")) == [(101, "norse"), (102, "elf-union")]


def test_a_saved_entry_page_saves_again_unchanged(client, owner, draft, coaches):
    client.force_login(owner)
    save(client, draft, entry(draft))
    before = sorted(Game.objects.values_list(
        "round__number", "home_coach__number", "away_coach__number", "home_touchdowns", "away_touchdowns", "played_at"
    ))
    page = client.get(f"/organiser/events/{draft.pk}/edit/").context["entry"]
    data = {}
    for form in [page.form, *(f for formset in page.formsets for f in formset.forms)]:
        for name in form.fields:
            value = form[name].value()
            if value is None or value is False or name == "DELETE":
                continue
            data[form.add_prefix(name)] = value.isoformat() if hasattr(value, "isoformat") else value
    for formset in page.formsets:
        data.update({f"{formset.prefix}-{key}": value for key, value in formset.management_form.initial.items()})
    response = save(client, draft, data)
    assert response.status_code == 302, response.context and (
        response.context["entry"].form.errors,
        [f.errors for fs in response.context["entry"].formsets for f in fs],
        response.context["problems"],
        data,
    )
    after = sorted(Game.objects.values_list(
        "round__number", "home_coach__number", "away_coach__number", "home_touchdowns", "away_touchdowns", "played_at"
    ))
    assert after == before


def test_a_row_ticked_for_deletion_is_removed(client, owner, draft, coaches):
    client.force_login(owner)
    save(client, draft, entry(draft))
    games = [dict(g) for g in GAMES]
    games[3]["DELETE"] = "on"
    save(client, draft, entry(draft, games=games))
    assert Game.objects.filter(event=draft).count() == 3


def assert_nothing_saved(event):
    event.refresh_from_db()
    assert event.name == "Delft Open"
    assert Game.objects.filter(event=event).count() == Round.objects.filter(event=event).count() == 0
    assert Participant.objects.filter(event=event).count() == 0
    assert not AuditRecord.objects.filter(action="event.update").exists()


@pytest.mark.parametrize("games, expected", [
    ([game(1, 101, 101)], [{"away_coach": ["Coach 101 cannot play against themselves."]}]),
    ([game(1, 101, 102), game(1, 103, 101)], [{}, {"away_coach": ["Coach 101 already plays in round 1 (line 1)."]}]),
    ([game(1, 101, 102), game(1, 102, 101)], [{}, {"__all__": ["Duplicate game: the same coaches already meet in round 1 on line 1."]}]),
    ([game(1, 101, 102, home_td=-1)], [{"home_td": ["The number of touchdowns cannot be negative."]}]),
    ([game(1, 101, 102, away_td=45)], [{"away_td": ["That is not a believable number of touchdowns: at most 20."]}]),
    ([game(1, 101, 102, home_cas=31)], [{"home_cas": ["That is not a believable number of casualties: at most 30."]}]),
    ([game(3, 101, 102)], [{"round": ["Round 3 is not in the list of rounds above."]}]),
    ([game(1, 101, 102, away_race="dwarf")], [{"away_race": ["Coach 102 is registered with Orc: a coach brings one race to an event."]}]),
    ([game(1, 101, None)], [{"away_coach": ["Give the away coach's federation number (or make the game a bye)."]}]),
])
def test_every_broken_rule_is_shown_on_its_row_and_nothing_is_saved(client, owner, draft, coaches, games, expected):
    client.force_login(owner)
    response = save(client, draft, entry(draft, fields={"name": "Renamed"}, games=games))
    assert response.status_code == 200
    assert errors_of(response, "games") == expected
    assert_nothing_saved(draft)


def test_a_round_dated_outside_the_event_is_refused(client, owner, draft, coaches):
    client.force_login(owner)
    response = save(client, draft, entry(draft, rounds=[{"number": 1, "date": "2024-05-06"}, ROUNDS[1]], games=GAMES[:2]))
    assert errors_of(response, "rounds")[0] == {"date": ["2024-05-06 is outside the event's dates (2024-05-04 to 2024-05-05)."]}
    assert_nothing_saved(draft)


def test_an_unknown_federation_number_is_refused_with_an_offer_to_create_the_coach(client, owner, draft, coaches):
    client.force_login(owner)
    response = save(client, draft, entry(
        draft, participants=[{"coach": 999, "race": "human"}], games=[game(1, 999, 101, home_race="human", away_race="human")]
    ))
    assert errors_of(response, "participants")[0] == {"coach": ["No coach has federation number 999: create the coach first."]}
    assert errors_of(response, "games")[0] == {"home_coach": ["No coach has federation number 999: create the coach first."]}
    assert response.context["entry"].unknown_numbers == [999]
    assert f"/organiser/coaches/new/?number=999&amp;next=/organiser/events/{draft.pk}/edit/" in response.content.decode()
    assert_nothing_saved(draft)


@pytest.mark.parametrize("side", ["home", "away"])
def test_an_unknown_number_in_a_game_without_a_race_is_named_not_reported_as_a_missing_race(client, owner, draft, coaches, side):
    client.force_login(owner)
    home, away = (123456, 102) if side == "home" else (101, 123456)
    response = save(client, draft, entry(draft, games=[game(1, home, away), *GAMES[1:]]))
    assert errors_of(response, "games")[0] == {f"{side}_coach": ["No coach has federation number 123456: create the coach first."]}
    assert response.context["entry"].unknown_numbers == [123456]
    page = response.content.decode()
    assert "Choose the race" not in page
    assert f"/organiser/coaches/new/?number=123456&amp;next=/organiser/events/{draft.pk}/edit/" in page
    assert_nothing_saved(draft)


def test_an_unranked_race_cannot_be_chosen(client, owner, draft, coaches):
    Race.objects.create(name="Khemri", slug="khemri", ranked=False)
    client.force_login(owner)
    response = save(client, draft, entry(draft, participants=[{"coach": 101, "race": "khemri"}], games=[]))
    assert errors_of(response, "participants")[0] == {"race": ["Choose one of the federation's ranked races."]}
    assert b"Khemri" not in response.content
    assert_nothing_saved(draft)


def test_the_service_refuses_the_same_rules_without_the_form(owner, draft, coaches):
    from tournaments.uploads import GameEntry, RoundEntry

    bad = GameEntry(line=1, round=1, date=START, home_coach=101, home_race="human", away_coach=101, away_race="human")
    with pytest.raises(ValidationError) as caught:
        services.event_update(event=draft, actor=owner, fields={"name": "Renamed"}, participants=[],
                              rounds=[RoundEntry(line=1, number=1, date=START)], games=[bad], awards=[])
    assert caught.value.messages == ["Game 1, away_coach: Coach 101 cannot play against themselves."]
    assert_nothing_saved(draft)


def test_an_edit_is_refused_while_a_recalculation_covers_the_event(client, owner, draft, coaches):
    system = RatingSystem.objects.get(slug="elo")
    run = RecalculationRun.objects.create(system=system, trigger="manual", from_date=dt.date(2024, 5, 1), status=RunStatus.RUNNING)
    client.force_login(owner)
    response = save(client, draft, entry(draft, fields={"name": "Renamed"}))
    assert response.context["problems"] == [
        f"The NAF Elo ratings are being recalculated from 2024-05-01 (run {run.pk}, running): this event cannot change "
        "until that run finishes. Try again in a few minutes."
    ]
    assert_nothing_saved(draft)


def test_a_recalculation_of_later_dates_does_not_hold_up_an_edit(client, owner, draft, coaches):
    RecalculationRun.objects.create(system=RatingSystem.objects.get(slug="elo"), trigger="manual", from_date=dt.date(2024, 6, 1))
    RecalculationRun.objects.create(system=RatingSystem.objects.get(slug="knsb"), trigger="manual", status=RunStatus.SUCCEEDED)
    client.force_login(owner)
    assert save(client, draft, entry(draft)).status_code == 302
    assert Game.objects.filter(event=draft).count() == 4


def test_an_organiser_submits_his_draft_for_sanctioning(client, owner, draft, coaches):
    client.force_login(owner)
    save(client, draft, entry(draft))
    response = client.post(f"/organiser/events/{draft.pk}/submit/")
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.status == EventStatus.SUBMITTED
    record = AuditRecord.objects.get(action="event.submit")
    assert (record.actor, record.before, record.after) == (owner, {"status": "draft"}, {"status": "submitted"})


def test_an_event_without_games_cannot_be_submitted(client, owner, draft):
    client.force_login(owner)
    response = client.post(f"/organiser/events/{draft.pk}/submit/")
    assert response.context["problems"] == ["An event needs at least one game before it can be submitted."]
    draft.refresh_from_db()
    assert draft.status == EventStatus.DRAFT


def test_a_submitted_event_can_no_longer_be_edited(client, owner, draft, coaches):
    Event.objects.filter(pk=draft.pk).update(status=EventStatus.SUBMITTED)
    client.force_login(owner)
    response = client.get(f"/organiser/events/{draft.pk}/edit/", follow=True)
    assert response.redirect_chain == [(f"/organiser/events/{draft.pk}/", 302)]
    assert "only a draft or a rejected event can be changed" in response.content.decode()
    assert save(client, draft, entry(draft)).status_code == 302
    assert not Game.objects.filter(event=draft).exists()


def test_a_rejected_event_shows_the_reason_and_can_be_corrected_and_submitted_again(client, owner, draft, coaches):
    client.force_login(owner)
    save(client, draft, entry(draft))
    services.event_submit(event=draft, actor=owner)
    services.event_reject(event=draft, actor=staff(), reason="Round 2 is missing <a> game")
    page = client.get(f"/organiser/events/{draft.pk}/").content.decode()
    assert "Round 2 is missing &lt;a&gt; game" in page
    assert save(client, draft, entry(draft, games=GAMES[:3])).status_code == 302
    client.post(f"/organiser/events/{draft.pk}/submit/")
    draft.refresh_from_db()
    assert draft.status == EventStatus.SUBMITTED


def test_the_list_shows_only_the_organisers_own_events(client, owner, draft):
    EventFactory(name="Someone else's", status=EventStatus.DRAFT, organiser=organiser("otto"))
    client.force_login(owner)
    page = client.get("/organiser/events/")
    assert [e.name for e in page.context["page"]] == ["Delft Open"]


@pytest.mark.parametrize("suffix", ["", "edit/", "upload/", "upload/results.csv", "submit/"])
def test_another_organisers_draft_is_not_found(client, draft, suffix):
    client.force_login(organiser("otto"))
    assert client.get(f"/organiser/events/{draft.pk}/{suffix}").status_code == 404
    assert client.post(f"/organiser/events/{draft.pk}/{suffix}", entry(draft, fields={"name": "Mine now"})).status_code in (404, 405)
    draft.refresh_from_db()
    assert (draft.name, draft.status) == ("Delft Open", EventStatus.DRAFT)


def test_names_and_free_text_are_escaped_on_the_organiser_pages(client, owner, coaches):
    event = EventFactory(name="<script>alert('x')</script>", city="<b>Delft</b>", status=EventStatus.DRAFT, organiser=owner)
    coaches[101].name = "<img src=x onerror=alert(1)>"
    coaches[101].save()
    play(RoundFactory(event=event, number=1), coaches[101], coaches[102])
    client.force_login(owner)
    for url in ("/organiser/events/", f"/organiser/events/{event.pk}/", f"/organiser/events/{event.pk}/edit/",
                f"/organiser/events/{event.pk}/upload/", f"/organiser/events/{event.pk}/submit/"):
        page = client.get(url).content.decode()
        assert "<script>alert" not in page and "<img src=x" not in page and "<b>Delft</b>" not in page, url
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in client.get(f"/organiser/events/{event.pk}/").content.decode()


def test_an_organiser_creates_a_missing_coach_and_returns_to_his_event(client, owner, draft):
    client.force_login(owner)
    page = client.get(f"/organiser/coaches/new/?number=555&next=/organiser/events/{draft.pk}/edit/")
    assert page.context["form"]["number"].value() == "555"
    response = client.post("/organiser/coaches/new/", {
        "number": 555, "name": "Nina", "nationality": "BE", "next": f"/organiser/events/{draft.pk}/edit/",
    })
    assert response["Location"] == f"/organiser/events/{draft.pk}/edit/"
    assert AuditRecord.objects.get(action="coach.create").after == {"number": 555, "name": "Nina", "nationality": "BE"}


def test_a_coach_creation_never_redirects_off_the_site(client, owner):
    client.force_login(owner)
    response = client.post("/organiser/coaches/new/", {"number": 556, "name": "Nina", "next": "https://evil.example/"})
    assert response["Location"] == "/organiser/events/"


def test_an_existing_federation_number_cannot_be_created_twice(client, owner, coaches):
    client.force_login(owner)
    response = client.post("/organiser/coaches/new/", {"number": 101, "name": "Again"})
    assert response.context["form"].errors == {"number": ["Coach with this Number already exists."]}
