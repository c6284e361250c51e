"""generate_federation(): the whole demo federation drawn in memory, pure and deterministic (coaches,
the schedule of events, who attends, each event's play), then moved by whole weeks to the seeding day."""
from __future__ import annotations

import datetime as dt
import heapq
import random
from dataclasses import replace
from decimal import Decimal

from tournaments.models import (
    EventStatus,
)

from .draws import DemoCoach, DemoEvent, DemoFederation, _Slot, _weighted
from .play import _awards, _race_for, _swiss
from .world import (
    ANCHOR,
    BLOOD_BOWL_2020,
    BLOOD_BOWL_2020_FROM,
    CITIES,
    CLASSIC,
    COUNTRIES,
    EVENT_SUFFIXES,
    FIRST_NUMBER,
    FIRST_YEAR,
    LATE_IN_HISTORY,
    MAJOR_SHARE,
    NUMERALS,
    PANDEMIC,
    RACE_POPULARITY,
    SEEDED_ON,
    SEVENS,
    SOURCE_PREFIX,
    YEAR_WEIGHTS,
)


def _coaches(rng: random.Random, count: int) -> list[DemoCoach]:
    codes = list(COUNTRIES)
    weights = [COUNTRIES[code][0] for code in codes]
    taken: set[str] = set()
    coaches = []
    for i in range(count):
        # Every country first, so even a small federation is international.
        country = codes[i] if i < len(codes) else rng.choices(codes, weights=weights)[0]
        _, _, first_names, surnames = COUNTRIES[country]
        for _ in range(10):
            name = f"{rng.choice(first_names)} {rng.choice(surnames)}"
            if name not in taken:
                break
        else:
            name = f"{name.split(' ', 1)[0]} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {name.split(' ', 1)[1]}"
        taken.add(name)
        # A third were already playing when the record starts; careers last about nine years.
        start = rng.randint(2004, FIRST_YEAR - 1) if rng.random() < 0.35 else rng.randint(FIRST_YEAR, ANCHOR.year)
        end = ANCHOR.year if rng.random() < 0.45 else min(ANCHOR.year, start + int(rng.expovariate(1 / 9)))
        coaches.append(
            DemoCoach(
                number=FIRST_NUMBER + i,
                name=name,
                nationality=country,
                skill=rng.gauss(0, 1),
                activity=min(rng.paretovariate(1.3), 25.0),
                career=(start, end),
                favourite_race=_weighted(rng, RACE_POPULARITY),
                birth_year=rng.randint(1962, min(2005, start - 14)) if rng.random() < 0.45 else None,
            )
        )
    return coaches


def _saturday(rng: random.Random, first: dt.date, last: dt.date) -> dt.date:
    day = first + dt.timedelta(days=rng.randint(0, (last - first).days))
    return day + dt.timedelta(days=(5 - day.weekday()) % 7)


def _majors() -> list[tuple[str, int, list[str], int, int, int, tuple[int, int]]]:
    """(name, year, host cities, month, days, rounds, size range) of every major in the record."""
    europe = ["Amsterdam", "Barcelona", "Bochum", "Bologna", "Brussels", "Copenhagen", "Lyon", "Madrid", "Malmö",
              "Paris", "Prague", "Rome", "Vienna", "Warsaw"]
    majors = []
    for year in range(FIRST_YEAR, ANCHOR.year + 1):
        if year in (2020, 2021):
            continue
        majors += [
            (f"Dungeonbowl {year}", year, ["Bochum", "Cologne", "Berlin", "Antwerp", "Eindhoven"], 4, 2, 6, (100, 160)),
            (f"Eurobowl {year}", year, europe, 5, 2, 6, (140, 200)),
            (f"NAF Championship {year}", year, ["Nottingham"], 10, 2, 6, (80, 150)),
        ]
    for year in (2015, 2019, 2023):
        hosts = ["Amsterdam", "Dallas", "Lyon", "Madrid", "Milan"]
        majors.append((f"NAF World Cup {year}", year, hosts, 11, 3, 8, (180, 200)))
    return majors


def _schedule(rng: random.Random, count: int) -> list[_Slot]:
    cities = {city.name: city for city in CITIES}
    majors = _majors()
    major_count = min(len(majors), round(count * MAJOR_SHARE) or (1 if count >= 4 else 0))
    chosen = sorted(rng.sample(range(len(majors)), major_count))
    slots = []
    for name, year, hosts, month, days, rounds, (low, high) in (majors[i] for i in chosen):
        start = _saturday(rng, dt.date(year, month, 1), dt.date(year, month, 21))
        variant = BLOOD_BOWL_2020 if start >= BLOOD_BOWL_2020_FROM else CLASSIC
        slots.append(_Slot(name, start, days, rounds, rng.randint(low, high), cities[rng.choice(hosts)], variant, True))

    codes = sorted({city.country for city in CITIES})
    host_weights = [COUNTRIES[code][0] for code in codes]
    years = list(YEAR_WEIGHTS)
    seen_names: set[str] = set()
    for _ in range(count - major_count):
        year = rng.choices(years, weights=list(YEAR_WEIGHTS.values()))[0]
        first, last = dt.date(year, 1, 1), min(dt.date(year, 12, 20), ANCHOR - dt.timedelta(days=7))
        if year == PANDEMIC[0].year:
            last = PANDEMIC[0] - dt.timedelta(days=7)
        if year == PANDEMIC[1].year:
            first = PANDEMIC[1]
        start = _saturday(rng, first, last)
        country = rng.choices(codes, weights=host_weights)[0]
        city = rng.choice([c for c in CITIES if c.country == country])
        variant = BLOOD_BOWL_2020 if start >= BLOOD_BOWL_2020_FROM else CLASSIC
        if rng.random() < 0.05:
            variant, days, rounds, size, suffix = SEVENS, 1, 5, rng.randint(8, 24), "Sevens"
        else:
            days = 1 if rng.random() < 0.65 else 2
            rounds = 5 if days == 1 else 6
            # Most events are small; a few local ones draw sixty.
            size, suffix = int(8 + rng.betavariate(1.3, 3.2) * 52), rng.choice(EVENT_SUFFIXES)
        name = f"{city.name} {suffix} {start.year}"
        for numeral in NUMERALS:
            if name not in seen_names:
                break
            name = f"{city.name} {suffix} {start.year} {numeral}"
        seen_names.add(name)
        slots.append(_Slot(name, start, days, rounds, size, city, variant, False))
    slots.sort(key=lambda slot: (slot.start_date, slot.name))
    return slots


def _attendees(rng: random.Random, slot: _Slot, coaches: list[DemoCoach]) -> list[DemoCoach]:
    """A weighted draw without replacement: active, keen coaches from nearby come most."""
    region = COUNTRIES[slot.city.country][1]
    near, far = (0.5, 0.25 if "World Cup" in slot.name else 0.06) if slot.is_major else (0.08, 0.003)
    keyed = []
    for coach in coaches:
        weight = coach.activity
        if coach.nationality != slot.city.country:
            weight *= near if COUNTRIES[coach.nationality][1] == region else far
        if not coach.career[0] <= slot.start_date.year <= coach.career[1]:
            weight *= 0.01
        # Efraimidis-Spirakis: the k largest u^(1/w) are a weighted sample without replacement.
        keyed.append((rng.random() ** (1.0 / weight), coach.number, coach))
    # nlargest is sorted(reverse=True)[:n] without sorting the whole federation for each event
    return [coach for _, _, coach in heapq.nlargest(min(slot.size, len(coaches)), keyed, key=lambda item: (item[0], item[1]))]




def generate_federation(
    *, seed: int = 1, coaches: int = 2000, events: int = 320, today: dt.date = SEEDED_ON
) -> DemoFederation:
    """The demo federation for a seed as of the seeding day `today`, in memory: drawn as of SEEDED_ON,
    then moved by seeding_shift(today). Deterministic: no clock, no global random."""
    if coaches < 2 or events < 1:
        raise ValueError("a federation needs at least 2 coaches and 1 event")
    rng = random.Random(seed)
    members = _coaches(rng, coaches)
    generated = []
    for n, slot in enumerate(_schedule(rng, events)):
        players = _attendees(rng, slot, members)
        event = DemoEvent(
            source=f"{SOURCE_PREFIX}{seed}:{n}",
            name=slot.name,
            variant=slot.variant,
            start_date=slot.start_date,
            end_date=slot.start_date + dt.timedelta(days=slot.days - 1),
            city=slot.city,
            # The venue: somewhere in the city.
            latitude=Decimal(f"{slot.city.latitude + rng.uniform(-0.03, 0.03):.5f}"),
            longitude=Decimal(f"{slot.city.longitude + rng.uniform(-0.03, 0.03):.5f}"),
            is_major=slot.is_major,
            participants={coach.number: _race_for(rng, coach, slot.variant) for coach in players},
        )
        event.rounds = _swiss(rng, slot, players, event.participants)
        event.awards = _awards(rng, event)
        generated.append(event)
    _leave_some_unsanctioned(rng, generated)
    _memberships(rng, members, generated)
    _upload_one_again(generated)
    return _moved(DemoFederation(seed, members, generated), by=seeding_shift(today))


def seeding_shift(today: dt.date) -> dt.timedelta:
    """How far the generated federation moves for the seeding day `today`: the most whole weeks that
    keep its last day (ANCHOR) before `today`, so that Saturdays stay Saturdays (none for SEEDED_ON)."""
    return dt.timedelta(weeks=(today - SEEDED_ON).days // 7)


def _moved(federation: DemoFederation, *, by: dt.timedelta) -> DemoFederation:
    """The same federation with every date `by` later: events, rounds, reports, memberships; names
    take the year of their new start, and birth years and careers the whole years moved (ages stay)."""
    if not by:
        return federation
    years = round(by.days / 365.2425)
    coaches = [
        replace(
            coach,
            career=(coach.career[0] + years, coach.career[1] + years),
            birth_year=coach.birth_year + years if coach.birth_year is not None else None,
            member_since=coach.member_since + by if coach.member_since else None,
            member_until=coach.member_until + by if coach.member_until else None,
        )
        for coach in federation.coaches
    ]
    events = [
        replace(
            event,
            name=name,
            start_date=event.start_date + by,
            end_date=event.end_date + by,
            reported_on=event.reported_on + by if event.reported_on else None,
            rounds=[replace(round_, date=round_.date + by) for round_ in event.rounds],
        )
        for event, name in zip(federation.events, _names_moved(federation.events, by=by), strict=True)
    ]
    return DemoFederation(federation.seed, coaches, events)


def _names_moved(events: list[DemoEvent], *, by: dt.timedelta) -> list[str]:
    """Each event's name with the year of its moved start ("Ghent Bowl 2025" in December moved into
    2026 is "Ghent Bowl 2026"); one that now meets an earlier event's name takes the next free numeral."""
    taken: set[str] = set()
    names = []
    for event in events:
        year = f" {(event.start_date + by).year}"
        name = event.name.replace(f" {event.start_date.year}", year, 1)
        if name in taken and year in name:
            stem = name[: name.index(year) + len(year)]
            name = next((f"{stem} {numeral}" for numeral in NUMERALS if f"{stem} {numeral}" not in taken), name)
        taken.add(name)
        names.append(name)
    return names


def _leave_some_unsanctioned(rng: random.Random, events: list[DemoEvent]) -> None:
    """Three of the latest events still wait for the staff (submitted, one still a draft; one submitted
    is then made a likely duplicate by _upload_one_again); a few were rejected. The very latest is
    sanctioned, so that the last full month has rated games whatever the seeding day: its list and the
    current ranking show changes."""
    if len(events) < 10:
        events[-2 if len(events) > 1 else -1].status = EventStatus.SUBMITTED
        return
    events[-2].status = EventStatus.DRAFT
    events[-3].status = events[-4].status = EventStatus.SUBMITTED
    minors = [event for event in events[:-4] if not event.is_major]
    for event in rng.sample(minors, min(3, len(minors))):
        event.status = EventStatus.REJECTED
    # One event months back is reported late: `seed_demo --report-late` sanctions it once the lists
    # after it are published, so that they show revised figures and why (no draw of rng: the rest stays).
    late = [event for event in events[:-12] if not event.is_major and event.status == EventStatus.SANCTIONED]
    if late:
        late[-1].status, late[-1].reported_late = EventStatus.SUBMITTED, True
    # Another came in late months ago: the KNSB list after its report rated it, with the ratings of the
    # lists in force when it was played (its breakdowns show both dates, and an Rl-limitering).
    if len(late) > LATE_IN_HISTORY:
        earlier = late[-1 - LATE_IN_HISTORY]
        earlier.reported_on = (earlier.end_date.replace(day=1) + dt.timedelta(days=62)).replace(day=10)


def _upload_one_again(events: list[DemoEvent]) -> None:
    """One of the submitted events is a likely duplicate: its organiser uploaded the NAF report of the
    latest sanctioned minor event into a new event of its name with a numeral (the same games, the same
    weekend), so that the staff review warns and asks for a reason. No draw of rng: the rest stays."""
    if len(events) < 10:
        return
    originals = [e for e in events[:-4] if e.status == EventStatus.SANCTIONED and not e.is_major and e.reported_on is None]
    if not originals:
        return
    original, waiting = originals[-1], events[-3]
    taken = {event.name for event in events}
    events[-3] = replace(
        original, source=waiting.source, status=waiting.status, uploaded_again_from=original.source,
        name=next(f"{original.name} {numeral}" for numeral in NUMERALS if f"{original.name} {numeral}" not in taken),
        participants=dict(original.participants), awards=list(original.awards),
        rounds=[replace(r, games=[replace(g) for g in r.games]) for r in original.rounds],
    )


def _memberships(rng: random.Random, coaches: list[DemoCoach], events: list[DemoEvent]) -> None:
    """Members joined before their first event; some who stopped playing let membership lapse."""
    first: dict[int, dt.date] = {}
    last: dict[int, dt.date] = {}
    for event in events:
        for number in event.participants:
            first.setdefault(number, event.start_date)
            last[number] = event.end_date
    for coach in coaches:
        some_day_in_first_year = dt.date(coach.career[0], 1, 1) + dt.timedelta(days=rng.randint(0, 364))
        joined = first.get(coach.number, some_day_in_first_year)
        coach.member_since = min(joined, ANCHOR) - dt.timedelta(days=rng.randint(0, 500))
        stopped = last.get(coach.number)
        if stopped and stopped.year <= ANCHOR.year - 4 and rng.random() < 0.6:
            coach.member_until = stopped + dt.timedelta(days=rng.randint(30, 365))
