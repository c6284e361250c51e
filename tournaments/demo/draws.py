"""The shapes the generator draws (coaches, games, rounds, events, the federation) and its two
random helpers."""
from __future__ import annotations

import datetime as dt
import math
import random
from dataclasses import dataclass, field
from decimal import Decimal

from tournaments.models import (
    EventStatus,
)

from .world import (
    City,
)


@dataclass
class DemoCoach:
    number: int
    name: str
    nationality: str
    skill: float
    activity: float
    career: tuple[int, int]
    favourite_race: str
    birth_year: int | None = None
    member_since: dt.date | None = None
    member_until: dt.date | None = None


@dataclass
class DemoGame:
    home: int
    away: int | None  # None: a bye
    home_race: str
    away_race: str | None
    home_touchdowns: int = 0
    away_touchdowns: int = 0
    home_casualties: int = 0
    away_casualties: int = 0
    conceded_by: str | None = None


@dataclass
class DemoRound:
    number: int
    date: dt.date
    start_time: dt.time
    games: list[DemoGame]

    @property
    def played_at(self) -> dt.datetime:
        return dt.datetime.combine(self.date, self.start_time, tzinfo=dt.UTC)


@dataclass
class DemoEvent:
    source: str
    name: str
    variant: str
    start_date: dt.date
    end_date: dt.date
    city: City
    latitude: Decimal
    longitude: Decimal
    is_major: bool
    status: str = EventStatus.SANCTIONED
    # submitted when seeded, sanctioned only after the lists after it are published (reported late)
    reported_late: bool = False
    # results that came in late within the demo's history: reported on this day, after the lists after it
    reported_on: dt.date | None = None
    # a likely duplicate: the results of the event of this source, uploaded again (_upload_one_again)
    uploaded_again_from: str | None = None
    participants: dict[int, str] = field(default_factory=dict)  # coach number -> race
    rounds: list[DemoRound] = field(default_factory=list)
    awards: list[tuple[str, int]] = field(default_factory=list)  # (category, coach number)


@dataclass
class DemoFederation:
    seed: int
    coaches: list[DemoCoach]
    events: list[DemoEvent]


@dataclass
class _Slot:
    """An event before its games: when, where, how big."""

    name: str
    start_date: dt.date
    days: int
    rounds: int
    size: int
    city: City
    variant: str
    is_major: bool


def _weighted(rng: random.Random, weights: dict[str, float]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _poisson(rng: random.Random, mean: float) -> int:
    limit, count, product = math.exp(-mean), 0, rng.random()
    while product > limit and count < 9:
        count += 1
        product *= rng.random()
    return count
