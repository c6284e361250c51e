"""A member, two coaches who played once, and a recalculation whose notices run as after a commit."""
import datetime as dt

import pytest

from ratings import services
from ratings.models import RatingSystem, Trigger
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import member

TODAY = dt.date(2024, 9, 15)


@pytest.fixture
def recalculate(django_capture_on_commit_callbacks):
    """Run every active system (or those named) as a committed run would: its on-commit work included."""
    def run(*slugs: str, today: dt.date = TODAY) -> None:
        systems = RatingSystem.objects.filter(active=True, **({"slug__in": slugs} if slugs else {}))
        for system in systems:
            with django_capture_on_commit_callbacks(execute=True):
                queued = services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
                services.recalculation_execute(run_id=queued.pk, today=today)
    return run


@pytest.fixture
def pair(db):
    """Anna (101) beat Bert (102) at an event in March 2024."""
    anna = CoachFactory(number=101, name="Anna Jansen")
    bert = CoachFactory(number=102, name="Bert Smith")
    event = EventFactory(name="Dutch Open", start_date=dt.date(2024, 3, 2))
    play(RoundFactory(event=event, number=1), anna, bert, (2, 1))
    return {"anna": anna, "bert": bert, "event": event}


def another_game(home, away, day: dt.date = dt.date(2024, 5, 4), score=(1, 0), races=("orc", "human")):
    """`home` beats `away` at a new event (Bert plays Orc and Anna Human, as in `pair`)."""
    event = EventFactory(start_date=day)
    return play(RoundFactory(event=event, number=1), home, away, score, home_race=races[0], away_race=races[1])


@pytest.fixture
def mia(db):
    return member("mia")
