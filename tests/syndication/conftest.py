"""The web pages' small federation, with a hidden coach who played, a pseudonymous one, and a
submitted event (not public): what the feeds and embeds must leave out."""
import datetime as dt

import pytest

from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.scopes import kept_for_the_module
from tests.web.conftest import build_league, recalculate_all
from tournaments.models import EventStatus, Visibility

HIDDEN_NAME = "Ivo Geheim"
SUBMITTED_EVENT = "Waiting Cup"


def build_federation():
    data = build_league()
    ivo = CoachFactory(number=109, name=HIDDEN_NAME, nationality="NL", visibility=Visibility.HIDDEN)
    jan = CoachFactory(number=110, name="Jan Echtnaam", nationality="NL", visibility=Visibility.PSEUDONYM, pseudonym="Jumping Jan")
    summer = EventFactory(name="Hidden Derby", start_date=dt.date(2024, 7, 6), country="NL", city="Delft")
    r1, r2 = RoundFactory(event=summer, number=1), RoundFactory(event=summer, number=2)
    play(r1, ivo, data["anna"], (2, 0), home_race="human", away_race="human")
    play(r1, jan, data["cees"], (1, 1), home_race="human", away_race="human")
    play(r2, ivo, data["cees"], (1, 0), home_race="human", away_race="human")
    play(r2, jan, data["anna"], (0, 1), home_race="human", away_race="human")
    waiting = EventFactory(name=SUBMITTED_EVENT, start_date=dt.date(2024, 8, 3), status=EventStatus.SUBMITTED)
    play(RoundFactory(event=waiting, number=1), data["anna"], data["bert"], (1, 0), home_race="human", away_race="orc")
    return data | {"ivo": ivo, "jan": jan, "summer": summer, "waiting": waiting}


@pytest.fixture(scope="module")
def federation_module(django_db_setup, django_db_blocker):
    with kept_for_the_module(django_db_blocker):
        data = build_federation()
        recalculate_all()
        yield data


@pytest.fixture
def federation(federation_module, db):
    return federation_module
