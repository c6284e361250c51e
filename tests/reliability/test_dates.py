"""One event cannot stop every rating: dates of play lie in a window (1986-01-01 to a year from
today) at every entry point, and a record stored before that check neither breaks a run nor draws
empty lists; a game no run can rate fails that system's run by name, changing nothing."""
import datetime as dt
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from assurance.verification import verify_system
from audit.models import AuditRecord
from ratings import services as ratings_services
from ratings.models import CurrentRating, RatingList, RatingListEntry, RatingSystem, RecalculationRun, RunStatus, Trigger
from tests.factories import CoachFactory, EventFactory, RoundFactory, play, race
from tests.roles import organiser, staff
from tournaments import services
from tournaments.importers.fumbbl import import_matches
from tournaments.models import Event, EventStatus, Game, GameSide, Round, Variant
from tournaments.rules import last_play_date

pytestmark = pytest.mark.django_db

TODAY = dt.date(2024, 9, 15)
DAY = dt.date(2024, 5, 4)
BAD_DAYS = [dt.date(9999, 12, 31), dt.date(1, 1, 1)]
SYSTEMS = ["elo", "glicko", "global-glicko", "knsb"]


def window_message(day: dt.date) -> str:
    last = last_play_date(dt.date.today())
    return f"{day.isoformat()} is not a plausible date: dates of play run from 1986-01-01 to {last.isoformat()} (a year from today)."


def stored_game(round_: Round, home, away, *, day: dt.date | None = None, score=(1, 0)) -> Game:
    """A game written as the record did before it checked dates (no validation), its sides included."""
    game = Game.objects.create(
        round=round_, event_id=round_.event_id, home_coach=home, home_race=race("human"), away_coach=away,
        away_race=race("orc"), home_touchdowns=score[0], away_touchdowns=score[1],
        played_at=dt.datetime.combine(day or round_.date, dt.time(10), tzinfo=dt.UTC),
    )
    GameSide.objects.bulk_create(services.game_sides_for(game))
    return game


def stored_event(day: dt.date, coaches, *, status=EventStatus.SUBMITTED, name=None) -> Event:
    event = EventFactory(name=name or f"Typo {day.isoformat()}", start_date=day, end_date=day, status=status)
    stored_game(RoundFactory(event=event, number=1, date=day), coaches[0], coaches[1])
    return event


# --- every entry point refuses the date ----------------------------------------------------------


@pytest.mark.parametrize("day", BAD_DAYS)
def test_the_event_form_refuses_an_implausible_date_and_saves_nothing(client, day):
    client.force_login(organiser())
    response = client.post("/organiser/events/new/", {
        "event-name": "Typo Open", "event-variant": Variant.objects.get(slug="blood-bowl-2020").pk,
        "event-start_date": day.isoformat(), "event-end_date": day.isoformat(), "event-country": "NL",
    })
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert errors["start_date"] == [window_message(day)] and errors["end_date"] == [window_message(day)]
    assert not Event.objects.exists() and not AuditRecord.objects.exists()


@pytest.mark.parametrize("day", BAD_DAYS)
def test_the_entry_form_refuses_an_implausible_round_date_and_saves_nothing(client, day):
    owner = organiser()
    event = EventFactory(name="Delft Open", start_date=DAY, end_date=DAY, status=EventStatus.DRAFT, organiser=owner)
    CoachFactory(number=101), CoachFactory(number=102)
    client.force_login(owner)
    data = {
        "event-name": "Delft Open", "event-variant": event.variant_id, "event-start_date": DAY.isoformat(),
        "event-end_date": day.isoformat(), "event-country": "NL",
        "participants-TOTAL_FORMS": "0", "participants-INITIAL_FORMS": "0",
        "rounds-TOTAL_FORMS": "1", "rounds-INITIAL_FORMS": "0", "rounds-0-number": "1", "rounds-0-date": day.isoformat(),
        "games-TOTAL_FORMS": "1", "games-INITIAL_FORMS": "0", "games-0-round": "1", "games-0-home_coach": "101",
        "games-0-home_race": "human", "games-0-home_td": "1", "games-0-away_td": "0", "games-0-away_coach": "102",
        "games-0-away_race": "orc", "games-0-kind": "played",
        "awards-TOTAL_FORMS": "0", "awards-INITIAL_FORMS": "0",
    }
    response = client.post(f"/organiser/events/{event.pk}/edit/", data)
    assert response.status_code == 200
    entry = response.context["entry"]
    assert entry.form.errors["end_date"] == [window_message(day)]
    assert entry.rounds.forms[0].errors["date"] == [window_message(day)]
    event.refresh_from_db()
    assert event.end_date == DAY
    assert not Round.objects.exists() and not Game.objects.exists()


@pytest.mark.parametrize("day", BAD_DAYS)
def test_the_upload_refuses_an_implausible_date_by_line_and_column(client, day):
    owner = organiser()
    event = EventFactory(name="Delft Open", start_date=DAY, end_date=DAY, status=EventStatus.DRAFT, organiser=owner)
    CoachFactory(number=101), CoachFactory(number=102)
    client.force_login(owner)
    text = f"round,date,home_coach,home_race,home_td,away_td,away_coach,away_race\n1,{day.isoformat()},101,Human,1,0,102,Orc\n"
    response = client.post(f"/organiser/events/{event.pk}/upload/", {
        "action": "check", "file": SimpleUploadedFile("results.csv", text.encode(), "text/csv"),
    })
    assert [(e.line, e.column, e.message) for e in response.context["upload"].errors] == [(2, "date", window_message(day))]
    assert "preview" not in response.context
    response = client.post(f"/organiser/events/{event.pk}/upload/", {
        "action": "confirm", "digest": client.session[f"results-upload-{event.pk}"]["digest"],
    })
    assert not Game.objects.exists() and not Round.objects.exists()


@pytest.mark.parametrize("day", BAD_DAYS)
def test_the_services_refuse_an_implausible_date_whatever_calls_them(day):
    from tournaments.uploads import GameEntry

    owner = organiser()
    event = EventFactory(start_date=DAY, end_date=DAY, status=EventStatus.DRAFT, organiser=owner)
    CoachFactory(number=101), CoachFactory(number=102)
    game = GameEntry(line=1, round=1, date=day, home_coach=101, home_race="human", away_coach=102, away_race="orc")
    with pytest.raises(ValidationError) as refused:
        services.results_upload(event=event, actor=owner, games=[game])
    assert refused.value.messages == [f"Line 1, date: {window_message(day)}"]
    with pytest.raises(ValidationError) as refused:
        services.event_create(actor=owner, name="Typo", variant=event.variant, start_date=day, end_date=day)
    assert refused.value.message_dict == {"start_date": [window_message(day)], "end_date": [window_message(day)]}
    assert Event.objects.count() == 1 and not Game.objects.exists() and not AuditRecord.objects.exists()


@pytest.mark.parametrize("day", BAD_DAYS)
def test_the_model_itself_refuses_an_implausible_date(day):
    event = Event(name="Typo", variant=Variant.objects.get(slug="blood-bowl-2020"), start_date=day, end_date=day)
    with pytest.raises(ValidationError) as refused:
        event.full_clean(exclude=["source"])
    assert refused.value.message_dict == {"start_date": [window_message(day)], "end_date": [window_message(day)]}
    good = EventFactory(start_date=DAY)
    with pytest.raises(ValidationError) as refused:
        play(RoundFactory(event=good, number=1), CoachFactory(), CoachFactory(),
             at=dt.datetime.combine(day, dt.time(10), tzinfo=dt.UTC))
    assert refused.value.message_dict == {"played_at": [window_message(day)]}
    assert not Game.objects.exists()


@pytest.mark.parametrize("day", BAD_DAYS)
def test_the_admin_cannot_enter_an_event_at_all(client, day):
    client.force_login(staff())
    response = client.post("/admin/tournaments/event/add/", {
        "name": "Typo", "variant": Variant.objects.get(slug="blood-bowl-2020").pk,
        "start_date": day.isoformat(), "end_date": day.isoformat(), "status": "sanctioned",
    })
    assert response.status_code == 403
    assert not Event.objects.exists()


@pytest.mark.parametrize("day", BAD_DAYS)
def test_a_staff_correction_of_a_game_stored_with_an_implausible_date_is_refused(client, day):
    coaches = CoachFactory.create_batch(2)
    event = stored_event(day, coaches)
    game = event.games.get()
    client.force_login(staff())
    response = client.post(f"/staff/events/{event.pk}/correct/", {
        "game": game.pk, "home_touchdowns": 3, "away_touchdowns": 0, "home_casualties": 0, "away_casualties": 0,
        "conceded_by": "", "kind": "played", "note": "typo",
    })
    assert response.status_code == 200
    assert response.context["problems"] == [
        f"Game {game.pk} cannot be corrected: {window_message(day)} Reject the event so that its organiser corrects its dates.",
    ]
    game.refresh_from_db()
    assert game.home_touchdowns == 1
    assert not AuditRecord.objects.filter(action="game.correct").exists()


@pytest.mark.parametrize("day", BAD_DAYS)
def test_an_event_stored_with_an_implausible_date_cannot_be_sanctioned_or_submitted(day):
    coaches = CoachFactory.create_batch(2)
    event = stored_event(day, coaches)
    last = last_play_date(dt.date.today()).isoformat()
    expected = [
        f"The event starts on {day.isoformat()}", f"The event ends on {day.isoformat()}",
        f"The event has a round on {day.isoformat()}", f"The event has a game on {day.isoformat()}",
        f"Dates of play run from 1986-01-01 to {last}: correct the event's dates first.",
    ]
    with pytest.raises(ValidationError) as refused:
        services.event_sanction(event=event, actor=staff())
    assert refused.value.messages == expected
    Event.objects.filter(pk=event.pk).update(status=EventStatus.DRAFT)
    with pytest.raises(ValidationError) as refused:
        services.event_submit(event=event, actor=event.organiser)
    assert refused.value.messages == expected
    event.refresh_from_db()
    assert event.status == EventStatus.DRAFT
    assert not RecalculationRun.objects.exists() and not AuditRecord.objects.exists()


@pytest.mark.parametrize("day", BAD_DAYS)
def test_the_importer_reports_an_implausible_date_as_a_bad_row_and_imports_nothing(tmp_path, day):
    header = ("match_id,replay_id,tournament_id,match_date,match_time,match_conceded,team1_id,team1_coach_id,team1_roster_id,"
              "team1_race_name,team1_value,team1_cas_bh,team1_cas_si,team1_cas_rip,team2_id,team2_coach_id,team2_roster_id,"
              "team2_race_name,team2_value,team2_cas_bh,team2_cas_si,team2_cas_rip,team1_score,team2_score")
    rows = [
        "1,1,0,2020-08-02,02:40:45,None,1,11,61,Human,1000k,0,0,0,2,12,46,Orc,1000k,0,0,0,1,0",
        f"2,2,0,{day.isoformat()},02:40:45,None,1,11,61,Human,1000k,0,0,0,2,12,46,Orc,1000k,0,0,0,1,0",
    ]
    matches = tmp_path / "fumbbl_matches.csv"
    matches.write_text("\n".join([header, *rows]) + "\n")
    report = import_matches(matches)
    last = last_play_date(dt.date.today()).isoformat()
    assert [str(bad) for bad in report.bad_rows] == [
        f"fumbbl_matches.csv line 3: match_date '{day.isoformat()}' is outside the dates of play (1986-01-01 to {last})",
    ]
    assert report.aborted and not Game.objects.exists() and not Event.objects.exists()
    skipped = import_matches(matches, skip_bad=True)
    assert (skipped.games_imported, skipped.games_skipped) == (1, 1)
    assert list(Game.objects.values_list("played_at__year", flat=True)) == [2020]


# --- a record stored before the check breaks no run -----------------------------------------------


def league():
    """Four coaches and two sanctioned events (March and May 2024): every system counts them."""
    coaches = CoachFactory.create_batch(4)
    for day in (dt.date(2024, 3, 2), dt.date(2024, 5, 4)):
        event = EventFactory(start_date=day, status=EventStatus.SANCTIONED)
        round_ = RoundFactory(event=event, number=1, date=day)
        play(round_, coaches[0], coaches[1], (2, 1))
        play(round_, coaches[2], coaches[3], (1, 1))
    return coaches


def recalculate(slug: str, *, today: dt.date = TODAY) -> RecalculationRun:
    system = RatingSystem.objects.get(slug=slug)
    queued = ratings_services.recalculation_request(system=system, trigger=Trigger.MANUAL, since=None, enqueue=False)
    try:
        return ratings_services.recalculation_execute(run_id=queued.pk, today=today)
    except Exception:
        return RecalculationRun.objects.get(pk=queued.pk)


def lists_of(slug: str):
    """Every stored list of a system and its entries, and its current ratings: what a run publishes."""
    return (
        sorted(RatingList.objects.filter(system__slug=slug).values_list("date", "rated", "ranked", "starters")),
        sorted(RatingListEntry.objects.filter(system__slug=slug).values_list(
            "rating_list__date", "coach_id", "race_id", "value", "rank", "games")),
        sorted(CurrentRating.objects.filter(system__slug=slug).values_list("coach_id", "race_id", "value", "rank", "games")),
    )


@pytest.mark.parametrize("day", [dt.date(1900, 1, 1), *BAD_DAYS])
def test_an_unsanctioned_event_stored_with_any_date_changes_no_run_and_no_list(day):
    coaches = league()
    before = {}
    for slug in SYSTEMS:
        assert recalculate(slug).status == RunStatus.SUCCEEDED
        before[slug] = lists_of(slug)
    # lists start at the first counted game (March 2024), not at the first game read
    assert [d for d, *_ in before["elo"][0]] == [dt.date(2024, m, 1) for m in (4, 5, 6, 7, 8, 9)]
    stored_event(day, coaches, status=EventStatus.SUBMITTED)
    stored_event(day, coaches, status=EventStatus.REJECTED)
    for slug in SYSTEMS:
        run = recalculate(slug)
        assert (run.status, run.error) == (RunStatus.SUCCEEDED, "")
        assert lists_of(slug) == before[slug]
        assert verify_system(RatingSystem.objects.get(slug=slug), today=TODAY).count == 0


def test_verify_ratings_passes_beside_events_stored_with_impossible_dates():
    coaches = league()
    for day in [dt.date(1900, 1, 1), *BAD_DAYS]:
        stored_event(day, coaches)
    for slug in SYSTEMS:
        assert recalculate(slug, today=dt.date.today()).status == RunStatus.SUCCEEDED
    out = StringIO()
    call_command("verify_ratings", stdout=out)  # raises CommandError on any difference
    assert sorted(out.getvalue().splitlines()) == [f"{slug}: every stored figure matches a fresh recalculation" for slug in SYSTEMS]


@pytest.mark.parametrize("day", BAD_DAYS)
def test_a_sanctioned_game_no_run_can_rate_fails_each_run_by_name_and_changes_nothing(day):
    coaches = league()
    for slug in SYSTEMS:
        recalculate(slug)
    published = {slug: lists_of(slug) for slug in SYSTEMS}
    event = stored_event(day, coaches, status=EventStatus.SANCTIONED, name="Typo Bowl")
    game = event.games.get()
    bound = "before 1986-01-01, the first date of play" if day.year == 1 else "after 2025-09-15, a year after the run's last day"
    for slug in SYSTEMS:
        run = recalculate(slug)
        assert run.status == RunStatus.FAILED
        assert run.error.strip().splitlines()[-1] == (
            f"ratings.replay.UnratableGame: game {game.pk} of event 'Typo Bowl' ({event.pk}), "
            f"played {day.isoformat()}, cannot be rated: it is dated {bound}"
        )
        assert lists_of(slug) == published[slug]
    # once staff reject the event, its game counts for no one and every run goes through again
    services.event_reject(event=event, actor=staff(), reason="Its date is a typing error.")
    for slug in SYSTEMS:
        assert recalculate(slug).status == RunStatus.SUCCEEDED
        assert lists_of(slug) == published[slug]
