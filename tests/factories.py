"""Factories for the federation's record, so tests state only what matters to them."""
import datetime as dt

import factory
from django.utils import timezone

from tournaments.models import Coach, Event, EventStatus, Game, GameKind, Race, Round, Variant
from tournaments.services import game_record


def variant(slug: str = "blood-bowl-2020") -> Variant:
    return Variant.objects.get(slug=slug)


def race(slug: str = "human") -> Race:
    return Race.objects.get(slug=slug)


class CoachFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Coach

    number = factory.Sequence(lambda n: 10_000 + n)
    name = factory.Sequence(lambda n: f"Coach {n}")
    nationality = "NL"


class EventFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Event

    name = factory.Sequence(lambda n: f"Event {n}")
    variant = factory.LazyFunction(variant)
    start_date = dt.date(2024, 3, 2)
    end_date = factory.LazyAttribute(lambda o: o.start_date)
    country = "NL"
    city = "Utrecht"
    status = EventStatus.SANCTIONED


class RoundFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Round

    event = factory.SubFactory(EventFactory)
    number = factory.Sequence(lambda n: n + 1)
    date = factory.LazyAttribute(lambda o: o.event.start_date)


def play(
    round_: Round,
    home: Coach,
    away: Coach | None,
    score: tuple[int, int] = (1, 0),
    *,
    home_race: str = "human",
    away_race: str = "orc",
    kind: str = GameKind.PLAYED,
    at: dt.datetime | None = None,
) -> Game:
    """Record one game through the service (sides included)."""
    played_at = at or timezone.make_aware(dt.datetime.combine(round_.date, dt.time(10, 0)) + dt.timedelta(hours=round_.number))
    game = Game(
        round=round_,
        event_id=round_.event_id,
        home_coach=home,
        home_race=race(home_race),
        away_coach=away,
        away_race=race(away_race) if away else None,
        home_touchdowns=score[0],
        away_touchdowns=score[1],
        kind=GameKind.BYE if away is None else kind,
        played_at=played_at,
    )
    return game_record(game=game)
