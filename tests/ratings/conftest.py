import datetime as dt

import pytest

from tests.factories import CoachFactory, EventFactory, RoundFactory, play

TODAY = dt.date(2024, 9, 15)


@pytest.fixture
def four_coach_event():
    """The spec's 4-coach event: round 1 W–X 2-1, Y–Z 1-1; round 2 W–Y 0-1, X–Z 2-0 (everyone new)."""
    event = EventFactory(name="Four", start_date=dt.date(2024, 3, 2))
    w, x, y, z = (CoachFactory(name=n) for n in "WXYZ")
    r1 = RoundFactory(event=event, number=1)
    r2 = RoundFactory(event=event, number=2)
    play(r1, w, x, (2, 1), home_race="human", away_race="orc")
    play(r1, y, z, (1, 1), home_race="human", away_race="orc")
    play(r2, w, y, (0, 1), home_race="human", away_race="human")
    play(r2, x, z, (2, 0), home_race="orc", away_race="orc")
    return event, (w, x, y, z)


def add_event(coaches, day: dt.date, results, *, status="sanctioned", name=None, races=("human", "orc")):
    """An event of one or more rounds: results is a list of rounds, each a list of (home, away, score)."""
    event = EventFactory(name=name or f"Event {day}", start_date=day, status=status)
    for number, games in enumerate(results, start=1):
        round_ = RoundFactory(event=event, number=number, date=day)
        for home, away, score in games:
            play(round_, coaches[home], coaches[away], score, home_race=races[0], away_race=races[1])
    return event
