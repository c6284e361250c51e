"""A small federation whose statistics were counted by hand (see the docstring of `league`)."""
import datetime as dt
from dataclasses import dataclass

import pytest

from stats.services import summaries_refresh
from tests.factories import CoachFactory, EventFactory, RoundFactory, play, variant
from tournaments.models import Award, Coach, Event, EventStatus


@dataclass
class League:
    a: Coach
    b: Coach
    c: Coach
    d: Coach
    utrecht: Event
    london: Event
    sevens: Event


@pytest.fixture
def league(db) -> League:
    """Four coaches, three events, nine games (and one bye, which is not a game):

    Utrecht (NL, 2022, Blood Bowl 2020, sanctioned)
      round 1: A human 2-1 B orc        C wood elf 1-1 D orc
      round 2: A human 0-0 C wood elf   B orc 0-2 D orc
    London (GB, 2023, Blood Bowl 2020, not sanctioned, no coordinates)
      round 1: A wood elf 3-0 D human   B orc 1-2 C human
      round 2: A wood elf 1-2 B orc     C human 1-1 D human
    Sevens cup (NL Utrecht, 2023, Sevens, sanctioned)
      round 1: A human 1-0 D orc        C human: bye

    By hand: human 7 games 3-3-1 (64.3 %), orc 7 games 2-1-4 (35.7 %), wood elf 4 games 1-2-1 (50.0 %);
    A 5 games 3-1-1 (70.0 %), B 4 games 1-0-3 (25.0 %), C 4 games 1-3-0 (62.5 %), D 5 games 1-2-2 (40.0 %).
    """
    a = CoachFactory(number=1001, name="Anna Alpha", nationality="NL")
    b = CoachFactory(number=1002, name="Bert Bravo", nationality="GB")
    c = CoachFactory(number=1003, name="Cora Charlie", nationality="NL")
    d = CoachFactory(number=1004, name="Dirk Delta", nationality="DE")
    utrecht = EventFactory(name="Utrecht Open", start_date=dt.date(2022, 5, 7), country="NL", city="Utrecht",
                           latitude="52.09000", longitude="5.12000")
    london = EventFactory(name="London Bash", start_date=dt.date(2023, 9, 2), country="GB", city="London",
                          status=EventStatus.OPEN_PLAY)
    sevens = EventFactory(name="Sevens Cup", start_date=dt.date(2023, 3, 4), country="NL", city="Utrecht",
                          variant=variant("sevens"), latitude="52.10000", longitude="5.10000")
    r1, r2 = RoundFactory(event=utrecht, number=1), RoundFactory(event=utrecht, number=2)
    play(r1, a, b, (2, 1), home_race="human", away_race="orc")
    play(r1, c, d, (1, 1), home_race="wood-elf", away_race="orc")
    play(r2, a, c, (0, 0), home_race="human", away_race="wood-elf")
    play(r2, b, d, (0, 2), home_race="orc", away_race="orc")
    r1, r2 = RoundFactory(event=london, number=1), RoundFactory(event=london, number=2)
    play(r1, a, d, (3, 0), home_race="wood-elf", away_race="human")
    play(r1, b, c, (1, 2), home_race="orc", away_race="human")
    play(r2, a, b, (1, 2), home_race="wood-elf", away_race="orc")
    play(r2, c, d, (1, 1), home_race="human", away_race="human")
    r1 = RoundFactory(event=sevens, number=1)
    play(r1, a, d, (1, 0), home_race="human", away_race="orc")
    play(r1, c, None, (0, 0), home_race="human")
    Award.objects.create(event=utrecht, category="Winner", coach=a)
    Award.objects.create(event=utrecht, category="Best painted", coach=c)
    Award.objects.create(event=london, category="Winner", coach=c)
    Award.objects.create(event=sevens, category="Winner", coach=a)
    summaries_refresh()
    return League(a, b, c, d, utrecht, london, sevens)
