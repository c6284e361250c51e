"""The demo federation: deterministic for a seed, idempotent, and shaped like a real federation."""
import datetime as dt
import hashlib
import os
import re
import subprocess
import sys
from collections import Counter
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from tournaments.demo import FIRST_NUMBER, generate_federation, seeding_shift
from tournaments.federation import STUNTY_RACES
from tournaments.models import Award, Coach, Event, EventStatus, Game, GameSide, Participant, Round

SMALL = {"coaches": 60, "events": 6}
GENERATED_FOR = dt.date(2026, 1, 1)  # the seeding day the generator draws for: nothing moves


def seed(**options) -> str:
    """seed_demo's output; on a fixed seeding day unless told, so that no figure depends on the calendar."""
    options.setdefault("today", GENERATED_FOR.isoformat())
    out = StringIO()
    flags = [f"--{key.replace('_', '-')}" if value is True else f"--{key}={value}" for key, value in options.items()]
    call_command("seed_demo", *flags, stdout=out)
    return out.getvalue()


def fingerprint() -> str:
    """A digest of every demo row by its natural keys (database ids and timestamps left out)."""
    rows = [
        *Coach.objects.filter(number__gte=FIRST_NUMBER).values_list(
            "number", "name", "nationality", "member_since", "member_until", "birth_year"
        ),
        *Event.objects.values_list(
            "source", "name", "variant__name", "start_date", "end_date", "country", "city", "latitude", "longitude",
            "is_major", "status",
        ),
        *Participant.objects.values_list("event__source", "coach__number", "race__name"),
        *Round.objects.values_list("event__source", "number", "date", "start_time"),
        *Game.objects.values_list(
            "source", "round__number", "home_coach__number", "away_coach__number", "home_race__name", "away_race__name",
            "home_touchdowns", "away_touchdowns", "home_casualties", "away_casualties", "conceded_by", "kind",
            "played_at", "reported_on",
        ),
        *Award.objects.values_list("event__source", "category", "coach__number", "race__name"),
    ]
    return hashlib.sha256("\n".join(sorted(map(repr, rows))).encode()).hexdigest()


def forget_demo() -> None:
    Event.objects.filter(source__startswith="demo:").delete()
    Coach.objects.filter(number__gte=FIRST_NUMBER).delete()


@pytest.fixture(scope="module")
def federation():
    """The default-size federation, in memory."""
    return generate_federation(seed=1)


@pytest.mark.django_db
def test_same_seed_writes_identical_rows():
    seed(seed=7, **SMALL)
    first = fingerprint()
    forget_demo()

    seed(seed=7, **SMALL)

    assert fingerprint() == first
    assert Event.objects.count() == 6
    assert Coach.objects.count() == 60


@pytest.mark.django_db
def test_another_seed_writes_other_rows():
    seed(seed=7, **SMALL)
    first = fingerprint()
    forget_demo()

    seed(seed=8, **SMALL)

    assert fingerprint() != first


@pytest.mark.django_db
def test_rerunning_seed_demo_changes_nothing():
    seed(seed=7, **SMALL)
    before = (fingerprint(), Game.objects.count(), GameSide.objects.count(), Award.objects.count())

    out = seed(seed=7, today="2026-12-01", **SMALL)  # whatever the seeding day: the events are there

    assert (fingerprint(), Game.objects.count(), GameSide.objects.count(), Award.objects.count()) == before
    assert re.search(r"^events already present +6$", out, re.MULTILINE)


@pytest.mark.django_db
def test_every_game_has_its_sides():
    seed(seed=7, **SMALL)

    byes = Game.objects.filter(kind="bye").count()
    assert GameSide.objects.count() == 2 * Game.objects.count() - byes
    assert list(Event.objects.values_list("source", flat=True).order_by("start_date", "source")) == [
        f"demo:7:{n}" for n in range(6)
    ]


def test_the_generator_is_the_same_in_another_process():
    """No set or dict order leaks into the output: string hashing differs between processes."""
    script = (
        "import django, hashlib; django.setup(); from tournaments.demo import generate_federation; "
        "print(hashlib.sha256(repr(generate_federation(seed=3, coaches=60, events=6)).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True, text=True, check=True, timeout=120, cwd=settings.BASE_DIR,
            env={**os.environ, "PYTHONHASHSEED": hash_seed, "DJANGO_SETTINGS_MODULE": "ratingsite.settings.test"},
        ).stdout
        for hash_seed in ("1", "2")
    }
    assert len(digests) == 1


# Taken from the demo as it was before it became a package (main at cd915d3): a change to what the
# generator draws, or to the rows it writes, is a change of the demo and must be made on purpose.
PINNED_GENERATOR_DIGEST = "3c4a19ecf94a64c9f5d910fd0c51f5917005974ad64ea3bdc74945fdcc39c916"
PINNED_ROWS_FINGERPRINT = "73765059dc0b5f66a19f44ead77c1a1a3ea3da13e560f40a64dcfa9ba3f8a1c0"


def test_the_generator_draws_the_pinned_federation():
    assert hashlib.sha256(repr(generate_federation(seed=3, **SMALL)).encode()).hexdigest() == PINNED_GENERATOR_DIGEST


@pytest.mark.django_db
def test_a_seeded_small_demo_writes_the_pinned_rows():
    seed(seed=7, **SMALL)
    assert fingerprint() == PINNED_ROWS_FINGERPRINT


def test_same_seed_generates_the_same_federation():
    assert generate_federation(seed=5, **SMALL) == generate_federation(seed=5, **SMALL)
    assert generate_federation(seed=5, **SMALL) != generate_federation(seed=6, **SMALL)


@pytest.mark.parametrize(("today", "days"), [
    ("2026-01-01", 0), ("2026-01-07", 0), ("2026-01-08", 7), ("2026-12-01", 329), ("2025-12-31", -7),
])
def test_the_demo_moves_by_the_most_whole_weeks_that_keep_its_last_day_before_the_seeding_day(today, days):
    # 2026-12-01 is 334 days after 2026-01-01: 47 whole weeks, and 2025-12-31 + 329 days is 2026-11-25
    assert seeding_shift(dt.date.fromisoformat(today)) == dt.timedelta(days=days)


def test_a_later_seeding_day_gives_the_same_federation_moved_by_whole_weeks(federation):
    later = generate_federation(seed=1, today=dt.date(2026, 12, 1))
    by = dt.timedelta(days=329)

    def undated(event):
        return (event.source, event.variant, event.city, event.latitude, event.is_major, event.status,
                event.reported_late, event.participants, event.awards, [r.games for r in event.rounds])

    assert [undated(e) for e in later.events] == [undated(e) for e in federation.events]
    assert [(c.number, c.name, c.nationality, c.skill) for c in later.coaches] == [
        (c.number, c.name, c.nationality, c.skill) for c in federation.coaches
    ]
    for before, after in zip(federation.events, later.events, strict=True):
        assert (after.start_date, after.end_date) == (before.start_date + by, before.end_date + by)
        assert [r.played_at for r in after.rounds] == [r.played_at + by for r in before.rounds]
        assert after.start_date.weekday() == before.start_date.weekday() == 5  # Saturdays stay Saturdays
        assert after.name.startswith(before.name.split(f" {before.start_date.year}")[0])
        assert re.search(r" (\d{4})(?: [IVX]+)?$", after.name)[1] == str(after.start_date.year)  # "Ghent Bowl 2026"
    assert len({e.name for e in later.events}) == len(later.events)
    [reported] = [(b.reported_on, a.reported_on) for b, a in zip(federation.events, later.events) if b.reported_on]
    assert reported == (dt.date(2025, 7, 10), dt.date(2026, 6, 4))  # Thessaloniki Rumble's report, 47 weeks on
    assert (federation.events[-1].name, later.events[-1].name) == ("Hamburg Rumble 2025", "Hamburg Rumble 2026")
    for before, after in zip(federation.coaches, later.coaches, strict=True):
        assert after.member_since == before.member_since + by
        assert after.member_until == (before.member_until and before.member_until + by)
        assert after.birth_year == (before.birth_year and before.birth_year + 1)  # 329 days: ages a year on stay


@pytest.mark.parametrize("today", ["2026-01-01", "2026-01-08", "2026-12-01", "2027-03-06", "2031-06-01"])
def test_nothing_is_dated_on_or_after_the_seeding_day_and_the_last_event_is_weeks_before(today):
    today = dt.date.fromisoformat(today)
    federation = generate_federation(seed=1, today=today)
    days = [
        *(day for e in federation.events for day in (e.start_date, e.end_date, e.reported_on) if day),
        *(r.played_at.date() for e in federation.events for r in e.rounds),
        *(day for c in federation.coaches for day in (c.member_since, c.member_until) if day),
    ]
    assert max(days) < today
    # the last event (2025-12-20 as drawn) ends less than three weeks before the seeding day
    assert today - dt.timedelta(days=18) <= max(e.end_date for e in federation.events) < today


@pytest.mark.parametrize("today", ["2026-01-01", "2026-06-01", "2026-12-01", "2027-03-01", "2031-06-01"])
def test_seeded_on_the_1st_the_last_full_month_has_sanctioned_games(today):
    # the current ranking's change columns compare with the list of the last full month's start, and
    # that month's list with the one before: both need games sanctioned in it, or every change is +0.00
    today = dt.date.fromisoformat(today)
    federation = generate_federation(seed=1, today=today)
    last_month = (today - dt.timedelta(days=1)).replace(day=1)
    sanctioned = [e for e in federation.events if e.status == EventStatus.SANCTIONED]
    assert max(e.end_date for e in sanctioned) >= last_month
    waiting = [e for e in federation.events[-5:] if e.status in (EventStatus.DRAFT, EventStatus.SUBMITTED)]
    assert len(waiting) == 3  # a draft and two submitted events still wait among the latest


@pytest.mark.django_db
def test_seed_demo_today_writes_the_same_rows_dated_weeks_later():
    seed(seed=7, **SMALL)
    drawn = {g.source: g for g in Game.objects.select_related("home_coach", "away_coach")}
    members = dict(Coach.objects.values_list("number", "member_since"))
    forget_demo()

    out = seed(seed=7, today="2026-12-01", **SMALL)

    by = dt.timedelta(days=329)
    assert "dated before 2026-12-01: moved 47 weeks" in out
    games = Game.objects.select_related("home_coach", "away_coach")
    assert games.count() == len(drawn) > 0
    for game in games:
        was = drawn[game.source]
        assert (game.home_coach.number, game.away_coach and game.away_coach.number, game.home_touchdowns,
                game.away_touchdowns, game.kind) == (was.home_coach.number, was.away_coach and was.away_coach.number,
                                                     was.home_touchdowns, was.away_touchdowns, was.kind)
        assert game.played_at == was.played_at + by
        assert game.reported_on == (was.reported_on and was.reported_on + by)
    assert dict(Coach.objects.values_list("number", "member_since")) == {n: d + by for n, d in members.items()}
    assert Event.objects.get(source="demo:7:5").name == "Lyon Masters 2026"  # "Lyon Masters 2025" as drawn
    assert Round.objects.latest("date").date < dt.date(2026, 12, 1)


@pytest.mark.django_db
def test_report_late_sanctions_the_late_event_as_seeded_and_reports_it_on_the_day_it_runs():
    size = {"coaches": 120, "events": 30, "today": "2026-06-06"}
    seed(**size)
    [source] = [e.source for e in generate_federation(seed=1, coaches=120, events=30).events if e.reported_late]

    out = seed(**size, report_late=True)

    event = Event.objects.get(source=source)
    assert "sanctioned, reported late: Milan Masters 2022 (2022-03-12)" in out  # drawn for 2021-10-09, 22 weeks on
    # the day it runs, as the lists it follows were published: an earlier seeding day would put it before them
    assert set(event.games.values_list("reported_on", flat=True)) == {timezone.localdate()}


@pytest.mark.django_db
def test_make_demo_leaves_the_games_reported_late_waiting_for_the_next_knsb_list(client, monkeypatch):
    """`make demo`'s steps (seed, recalculate, --report-late, recalculate): the event reported late is
    reported on the day it runs, so its KNSB games wait for the list of the next 1st, and their pages
    show them waiting, with the R0 and Rc of the list in force when they were played."""
    from ratings import services
    from ratings.models import CalculationRow, RatingSystem, Trigger
    from ratings.selectors import waiting_rows

    day = dt.date(2026, 6, 6)
    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: day)

    knsb = RatingSystem.objects.get(slug="knsb")

    def recalculate():  # manage.py recalculate on the seeding day, of KNSB alone (the others' runs change nothing here)
        run = services.recalculation_request(system=knsb, trigger=Trigger.MANUAL, enqueue=False)
        services.recalculation_execute(run_id=run.pk, today=day)

    size = {"coaches": 150, "events": 80, "today": day.isoformat()}
    seed(**size)
    recalculate()
    seed(**size, report_late=True)
    recalculate()

    [source] = [e.source for e in generate_federation(seed=1, coaches=150, events=80).events if e.reported_late]
    event = Event.objects.get(source=source)
    assert not CalculationRow.objects.filter(system=knsb, game__event=event, counted=True).exists()  # no list has rated them
    rows = waiting_rows(knsb, event=event)
    assert rows and {r.waiting_for for r in rows} == {dt.date(2026, 7, 1)}
    assert {r.list_date for r in rows} == {event.start_date.replace(day=1)}  # the Lijstdatum of their date of play
    rated = [r for r in rows if r.counted]
    assert rated and all(r.r0 is not None and r.rc is not None and r.we is not None for r in rated)
    coach = Coach.objects.get(pk=rated[0].coach_id)
    page = client.get(f"/coaches/{coach.number}/breakdown/knsb/?variant={event.variant.slug}")
    assert page.status_code == 200 and "Waiting for the list of 2026-07-01" in page.content.decode()
    assert "waiting for the list of 2026-07-01" in client.get(f"/events/{event.pk}/?system=knsb").content.decode()


def test_every_game_is_between_participants_of_its_event(federation):
    for event in federation.events:
        for round_ in event.rounds:
            for game in round_.games:
                assert game.home in event.participants
                assert game.away is None or game.away in event.participants
                assert game.home_race == event.participants[game.home]


def test_no_coach_plays_twice_in_a_round_and_everyone_plays_every_round(federation):
    for event in federation.events:
        for round_ in event.rounds:
            seats = [n for game in round_.games for n in (game.home, game.away) if n is not None]
            assert len(seats) == len(set(seats))
            assert set(seats) == set(event.participants)


def test_only_an_odd_field_has_a_bye(federation):
    for event in federation.events:
        for round_ in event.rounds:
            byes = sum(game.away is None for game in round_.games)
            assert byes == len(event.participants) % 2


def test_the_federation_is_international_and_big(federation):
    assert len(federation.coaches) == 2000
    assert len({coach.nationality for coach in federation.coaches}) >= 25
    assert len(federation.events) == 320
    assert len({event.city.country for event in federation.events}) >= 20
    years = sorted({event.start_date.year for event in federation.events})
    assert (years[0], years[-1]) == (2013, 2025)
    assert max(event.end_date for event in federation.events) <= dt.date(2025, 12, 31)


def test_majors_are_big_and_a_few_a_year(federation):
    majors = [event for event in federation.events if event.is_major]
    assert 30 <= len(majors) <= 40
    assert {event.name.split(" 20")[0] for event in majors} == {
        "Dungeonbowl", "Eurobowl", "NAF Championship", "NAF World Cup",
    }
    assert all(80 <= len(event.participants) <= 200 for event in majors)
    assert max(Counter(event.start_date.year for event in majors).values()) <= 4
    minors = [len(event.participants) for event in federation.events if not event.is_major]
    assert min(minors) >= 8
    assert max(minors) <= 60


def test_variants_follow_the_rules_of_their_time(federation):
    for event in federation.events:
        if event.variant != "Sevens":
            expected = "Blood Bowl 2020" if event.start_date >= dt.date(2021, 1, 1) else "Classic"
            assert event.variant == expected
    assert 3 <= sum(event.variant == "Sevens" for event in federation.events) <= 30


def test_events_run_five_or_six_swiss_rounds_without_rematches_where_possible(federation):
    for event in federation.events:
        days = (event.end_date - event.start_date).days + 1
        assert len(event.rounds) == (8 if days == 3 else 5 if days == 1 else 6)
        pairs = Counter(
            frozenset((g.home, g.away)) for round_ in event.rounds for g in round_.games if g.away is not None
        )
        if len(event.participants) >= 12:
            assert max(pairs.values()) == 1, event.name


def test_popular_races_are_common_and_stunties_rare(federation):
    races = Counter(race for event in federation.events for race in event.participants.values())
    top_ten = {race for race, _ in races.most_common(10)}
    assert {"Human", "Orc", "Dwarf", "Wood Elf"} <= top_ten
    assert all(races[race] < races["Human"] / 2 for race in STUNTY_RACES)


def test_scores_spread_with_a_few_concessions(federation):
    games = [g for e in federation.events for r in e.rounds for g in r.games if g.away is not None]
    draws = sum(g.home_touchdowns == g.away_touchdowns for g in games) / len(games)
    conceded = sum(g.conceded_by is not None for g in games) / len(games)
    assert 0.15 < draws < 0.35
    assert 0.002 < conceded < 0.05


def test_awards_go_to_participants_with_a_stunty_cup_only_for_stunties(federation):
    for event in federation.events:
        categories = [category for category, _ in event.awards]
        assert categories[:2] == ["Winner", "Runner-up"]
        assert {"Best Painted", "Most Touchdowns", "Most Casualties"} <= set(categories)
        for category, number in event.awards:
            assert number in event.participants
            if category == "Stunty Cup":
                assert event.participants[number] in STUNTY_RACES
        has_stunty = any(race in STUNTY_RACES for race in event.participants.values())
        assert ("Stunty Cup" in categories) == has_stunty


def test_some_events_wait_for_the_staff(federation):
    statuses = Counter(event.status for event in federation.events)
    assert statuses["draft"] >= 1
    assert statuses["submitted"] >= 1
    assert statuses["rejected"] >= 1
    assert statuses["sanctioned"] >= 300


def test_one_submitted_event_is_the_latest_sanctioned_minor_event_uploaded_again(federation):
    [again] = [event for event in federation.events if event.uploaded_again_from]
    [original] = [event for event in federation.events if event.source == again.uploaded_again_from]
    assert (again.status, original.status, original.is_major) == ("submitted", "sanctioned", False)
    assert again.name == f"{original.name} II"
    assert (again.start_date, again.end_date, again.participants) == (original.start_date, original.end_date, original.participants)
    assert again.rounds == original.rounds and again.rounds is not original.rounds and again.source != original.source
    later = [event for event in federation.events[federation.events.index(original) + 1:] if event.status == "sanctioned"]
    assert all(event.is_major or event.reported_on for event in later[:-1])  # the latest minor one before the last four


@pytest.mark.django_db
def test_the_demo_has_a_waiting_event_flagged_as_a_likely_duplicate_of_a_sanctioned_one(client):
    from tests.roles import staff
    from tournaments.selectors import event_likely_duplicates

    seed(seed=7, coaches=60, events=12)
    [demo] = [e for e in generate_federation(seed=7, coaches=60, events=12).events if e.uploaded_again_from]
    again, original = Event.objects.get(source=demo.source), Event.objects.get(source=demo.uploaded_again_from)
    [duplicate] = [d for d in event_likely_duplicates(event=again) if d.likely]
    assert (again.status, duplicate.event, original.status) == ("submitted", original, "sanctioned")
    assert duplicate.same_games == duplicate.of_games == Game.objects.filter(event=original, away_coach__isnull=False).count() > 0
    client.force_login(staff())
    page = client.get(f"/staff/events/{again.pk}/").content.decode()
    assert "Likely duplicate" in page and f'href="/staff/events/{original.pk}/"' in page


def test_members_joined_before_they_played(federation):
    first_event = {}
    for event in federation.events:
        for number in event.participants:
            first_event.setdefault(number, event.start_date)
    for coach in federation.coaches:
        assert coach.member_since <= first_event.get(coach.number, dt.date(2025, 12, 31))
        assert coach.member_until is None or coach.member_until >= coach.member_since
    assert 0.3 < sum(coach.birth_year is not None for coach in federation.coaches) / 2000 < 0.6
    assert len({coach.name for coach in federation.coaches}) == 2000


@pytest.mark.slow
@pytest.mark.django_db
def test_the_demo_has_an_event_reported_late_that_a_later_knsb_list_rates_with_an_rl_limitering(client):
    """Within the demo's history one event's results came in two months late: the KNSB list after the
    report rates them with the ratings of their own Lijstdatum, and one coach's list shows the Rl-limitering."""
    from ratings import services
    from ratings.models import CalculationRow, PeriodSummary, RatingSystem, Trigger
    from ratings.selectors.breakdown import processed_late

    seed()
    [late] = [e for e in generate_federation(seed=1).events if e.reported_on is not None]
    event = Event.objects.get(source=late.source)
    assert set(Game.objects.filter(event=event).values_list("reported_on", flat=True)) == {late.reported_on}
    assert late.reported_on >= dt.date(event.end_date.year + event.end_date.month // 12, event.end_date.month % 12 + 1, 1)
    knsb = RatingSystem.objects.get(slug="knsb")
    run = services.recalculation_request(system=knsb, trigger=Trigger.MANUAL, enqueue=False)
    services.recalculation_execute(run_id=run.pk, today=dt.date(2026, 1, 15))
    rows = list(CalculationRow.objects.filter(system=knsb, game__event=event))
    processed_in = (late.reported_on.replace(day=28) + dt.timedelta(days=4)).replace(day=1).isoformat()
    # each went into the list after its report: its period's, or a coach without a rating its depot's
    # (then rated in the list where the depot reached a start rating)
    assert rows and all(processed_late(r) and (r.depot_date or dt.date.fromisoformat(r.period)).isoformat() == processed_in
                        for r in rows)
    limited = PeriodSummary.objects.filter(system=knsb, period=processed_in, limitation="rl",
                                           coach__in=[r.coach_id for r in rows if r.counted]).select_related("coach", "variant")
    assert limited.exists()
    summary = limited.first()
    page = client.get(
        f"/coaches/{summary.coach.number}/breakdown/knsb/?variant={summary.variant.slug}&period={processed_in}"
    ).content.decode()
    assert '<span lang="nl">Rl-limitering</span>: Rn held at Rl' in page and f"reported {late.reported_on:%Y-%m-%d}" in page


@pytest.mark.django_db
def test_the_demo_logins_are_made_only_on_a_developers_site_and_let_staff_and_the_organiser_in(client, settings):
    from django.core.management.base import CommandError

    from tournaments.demo import DEMO_PASSWORD
    from tournaments.models import EventStatus

    seed(**SMALL)
    settings.DEBUG = False
    with pytest.raises(CommandError, match="only on a developer's site"):
        call_command("demo_logins", stdout=StringIO())
    settings.DEBUG = True
    out = StringIO()
    call_command("demo_logins", stdout=out)
    assert "as demo-staff with the password blood-bowl-demo" in out.getvalue()
    assert "as demo-organiser with the password blood-bowl-demo" in out.getvalue()
    waiting = Event.objects.filter(status__in=[EventStatus.DRAFT, EventStatus.SUBMITTED, EventStatus.REJECTED])
    assert waiting.exists() and set(waiting.values_list("organiser__username", flat=True)) == {"demo-organiser"}
    def log_in(username):
        client.logout()
        answer = client.post("/accounts/login/", {"username": username, "password": DEMO_PASSWORD})
        assert answer.status_code == 302

    log_in("demo-organiser")
    assert client.get("/organiser/events/").status_code == 200
    assert client.get("/staff/events/").status_code == 403
    log_in("demo-staff")
    assert client.get("/staff/events/").status_code == 200
    call_command("demo_logins", stdout=StringIO())  # again: the same two logins, reset
    from django.contrib.auth.models import User
    assert User.objects.filter(username__startswith="demo-").count() == 2
