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

from tournaments.demo import FIRST_NUMBER, generate_federation
from tournaments.federation import STUNTY_RACES
from tournaments.models import Award, Coach, Event, Game, GameSide, Participant, Round

SMALL = {"coaches": 60, "events": 6}


def seed(**options) -> None:
    call_command("seed_demo", *[f"--{key}={value}" for key, value in options.items()], stdout=StringIO())


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
            "played_at",
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

    out = StringIO()
    call_command("seed_demo", "--seed=7", "--coaches=60", "--events=6", stdout=out)

    assert (fingerprint(), Game.objects.count(), GameSide.objects.count(), Award.objects.count()) == before
    assert re.search(r"^events already present +6$", out.getvalue(), re.MULTILINE)


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
            capture_output=True, text=True, check=True, cwd=settings.BASE_DIR,
            env={**os.environ, "PYTHONHASHSEED": hash_seed, "DJANGO_SETTINGS_MODULE": "ratingsite.settings.test"},
        ).stdout
        for hash_seed in ("1", "2")
    }
    assert len(digests) == 1


def test_same_seed_generates_the_same_federation():
    assert generate_federation(seed=5, **SMALL) == generate_federation(seed=5, **SMALL)
    assert generate_federation(seed=5, **SMALL) != generate_federation(seed=6, **SMALL)


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
    from ratings.selectors.pages import processed_late

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
    assert rows and all(processed_late(r) and r.period == processed_in for r in rows)
    limited = PeriodSummary.objects.filter(system=knsb, period=processed_in, limitation="rl",
                                           coach__in=[r.coach_id for r in rows if r.counted]).select_related("coach", "variant")
    assert limited.exists()
    summary = limited.first()
    page = client.get(
        f"/coaches/{summary.coach.number}/breakdown/knsb/?variant={summary.variant.slug}&period={processed_in}"
    ).content.decode()
    assert "Rl-limitering: Rn held at Rl" in page and f"reported {late.reported_on:%Y-%m-%d}" in page


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
