"""The demo written to the database (demo_federation_create) and its late report sanctioned
(demo_late_reports_sanction); a second run with the same seed adds nothing."""
from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from tournaments import services
from tournaments.federation import RANKED_RACES
from tournaments.models import (
    Award,
    Coach,
    Event,
    EventStatus,
    Game,
    GameKind,
    GameSide,
    Participant,
    Race,
    Round,
    Variant,
)
from tournaments.services import game_sides_for

from .federation import (
    generate_federation,
    seeding_shift,
)
from .world import (
    BATCH,
    FIRST_NUMBER,
    SEEDED_ON,
    SOURCE_PREFIX,
)


@dataclass
class DemoReport:
    coaches_created: int = 0
    events_created: int = 0
    events_present: int = 0
    participants_created: int = 0
    rounds_created: int = 0
    games_created: int = 0
    awards_created: int = 0
    seconds: float = 0.0
    seeding_day: dt.date = SEEDED_ON
    weeks_moved: int = 0


def demo_late_reports_sanction(*, seed: int = 1, coaches: int = 2000, events: int = 320) -> list[Event]:
    """Sanction the demo's events reported late that still wait (`seed_demo --report-late`): run it
    after a recalculation has published the lists after them. Returns the events sanctioned, reported
    on the day it runs (the clock's, as the publications are: an earlier seeding day would put the
    report before the lists it follows). Their sources are the same whatever the seeding day."""
    sources = [e.source for e in generate_federation(seed=seed, coaches=coaches, events=events).events if e.reported_late]
    waiting = list(Event.objects.filter(source__in=sources, status=EventStatus.SUBMITTED))
    for event in waiting:
        services.event_sanction(event=event, actor=None, note="Reported late: its results came in after the lists that follow it.")
    return waiting


@transaction.atomic
def demo_federation_create(
    *, seed: int = 1, coaches: int = 2000, events: int = 320, today: dt.date | None = None
) -> DemoReport:
    """Write the demo federation for a seed as of the seeding day `today` (default the clock's): every
    date before it. Its events already in the database are left alone, whatever day they were seeded
    for; coaches whose number is taken are reused as they are."""
    started = time.perf_counter()
    today = today or timezone.localdate()
    federation = generate_federation(seed=seed, coaches=coaches, events=events, today=today)
    report = DemoReport(seeding_day=today, weeks_moved=seeding_shift(today).days // 7)
    present = set(Event.objects.filter(source__startswith=f"{SOURCE_PREFIX}{seed}:").values_list("source", flat=True))
    todo = [event for event in federation.events if event.source not in present]
    report.events_present = len(federation.events) - len(todo)

    race_ids = dict(Race.objects.filter(name__in=RANKED_RACES).values_list("name", "id"))
    variant_ids = dict(Variant.objects.values_list("name", "id"))
    coach_ids = dict(
        Coach.objects.filter(number__gte=FIRST_NUMBER, number__lt=FIRST_NUMBER + coaches).values_list("number", "id")
    )
    created = Coach.objects.bulk_create(
        [
            Coach(
                number=c.number, name=c.name, nationality=c.nationality, member_since=c.member_since,
                member_until=c.member_until, birth_year=c.birth_year,
            )
            for c in federation.coaches
            if c.number not in coach_ids
        ],
        batch_size=BATCH,
    )
    coach_ids.update((coach.number, coach.pk) for coach in created)
    report.coaches_created = len(created)

    rows = Event.objects.bulk_create(
        [
            Event(
                name=e.name, variant_id=variant_ids[e.variant], start_date=e.start_date, end_date=e.end_date,
                country=e.city.country, city=e.city.name, latitude=e.latitude, longitude=e.longitude,
                is_major=e.is_major, status=e.status, source=e.source,
            )
            for e in todo
        ]
    )
    report.events_created = len(rows)
    participants, rounds, awards = [], [], []
    for event, row in zip(todo, rows):
        participants += [
            Participant(event_id=row.pk, coach_id=coach_ids[number], race_id=race_ids[race])
            for number, race in event.participants.items()
        ]
        rounds += [Round(event_id=row.pk, number=r.number, date=r.date, start_time=r.start_time) for r in event.rounds]
        awards += [
            Award(
                event_id=row.pk, category=category, coach_id=coach_ids[number],
                race_id=race_ids[event.participants[number]],
            )
            for category, number in event.awards
        ]
    Participant.objects.bulk_create(participants, batch_size=BATCH)
    Round.objects.bulk_create(rounds, batch_size=BATCH)
    Award.objects.bulk_create(awards, batch_size=BATCH)
    report.participants_created = len(participants)
    report.rounds_created = len(rounds)
    report.awards_created = len(awards)

    round_rows = iter(rounds)
    games = []
    for event, row in zip(todo, rows):
        for demo_round in event.rounds:
            round_row = next(round_rows)
            for table, g in enumerate(demo_round.games, start=1):
                games.append(
                    Game(
                        round_id=round_row.pk,
                        event_id=row.pk,
                        home_coach_id=coach_ids[g.home],
                        home_race_id=race_ids[g.home_race],
                        away_coach_id=coach_ids[g.away] if g.away is not None else None,
                        away_race_id=race_ids[g.away_race] if g.away_race else None,
                        home_touchdowns=g.home_touchdowns,
                        away_touchdowns=g.away_touchdowns,
                        home_casualties=g.home_casualties,
                        away_casualties=g.away_casualties,
                        conceded_by=g.conceded_by,
                        kind=GameKind.BYE if g.away is None else GameKind.PLAYED,
                        played_at=demo_round.played_at,
                        source=f"{event.source}:{demo_round.number}:{table}",
                        reported_on=event.reported_on or Game.reported_in_bulk(row),
                    )
                )
    for start in range(0, len(games), BATCH):
        batch = Game.objects.bulk_create(games[start:start + BATCH])
        GameSide.objects.bulk_create([side for game in batch for side in game_sides_for(game)])
    report.games_created = len(games)
    report.seconds = time.perf_counter() - started
    return report
