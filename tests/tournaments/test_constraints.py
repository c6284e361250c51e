"""The database itself refuses impossible records, whatever path the data takes."""
import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from tests.factories import CoachFactory, EventFactory, RoundFactory, play, race
from tournaments.models import Game, GameSide, Race, Round, Variant

pytestmark = pytest.mark.django_db

NOON = timezone.make_aware(dt.datetime(2024, 3, 2, 12, 0))


def raw_game(round_, home, away, **fields):
    values = dict(
        round=round_, event=round_.event, home_coach=home, home_race=race("human"), away_coach=away,
        away_race=race("orc"), home_touchdowns=1, away_touchdowns=0, played_at=NOON,
    )
    values.update(fields)
    return Game(**values)


def refused(make):
    with pytest.raises(IntegrityError), transaction.atomic():
        make()


def test_ranked_races_and_variants_arrive_with_migrate():
    ranked = Race.objects.filter(ranked=True)
    assert ranked.count() == 30
    assert ranked.filter(slug="wood-elf").exists()
    assert set(ranked.filter(stunty=True).values_list("name", flat=True)) >= {"Goblin", "Halfling", "Ogre", "Snotling"}
    assert set(Variant.objects.values_list("slug", flat=True)) >= {"classic", "blood-bowl-2020", "sevens"}


def test_a_coach_cannot_play_himself():
    coach = CoachFactory()
    refused(lambda: raw_game(RoundFactory(), coach, coach).save())


def test_the_service_explains_a_coach_playing_himself():
    coach = CoachFactory()
    with pytest.raises(ValidationError, match="game_coach_not_against_himself"):
        play(RoundFactory(), coach, coach)
    assert Game.objects.count() == 0


def test_a_coach_cannot_play_twice_in_one_round():
    round_ = RoundFactory()
    a, b, c = CoachFactory.create_batch(3)
    play(round_, a, b)
    game = raw_game(round_, a, c)
    game.save()
    refused(lambda: GameSide.objects.create(
        game=game, side="home", round=round_, event=round_.event, coach=a, race=race("human"),
        opponent=c, opponent_race=race("orc"), touchdowns_for=1, touchdowns_against=0, score=1, played_at=NOON,
    ))


def test_the_service_refuses_a_coach_twice_in_one_round_and_saves_nothing():
    round_ = RoundFactory()
    a, b, c = CoachFactory.create_batch(3)
    play(round_, a, b)
    with pytest.raises(IntegrityError), transaction.atomic():
        play(round_, c, a)
    assert Game.objects.count() == 1
    assert GameSide.objects.count() == 2


@pytest.mark.parametrize("field", ["home_touchdowns", "away_touchdowns", "home_casualties", "away_casualties"])
def test_negative_scores_are_refused(field):
    a, b = CoachFactory.create_batch(2)
    refused(lambda: raw_game(RoundFactory(), a, b, **{field: -1}).save())


def test_absurd_scores_are_refused():
    a, b = CoachFactory.create_batch(2)
    refused(lambda: raw_game(RoundFactory(), a, b, home_touchdowns=250).save())


def test_two_rounds_with_the_same_number_in_one_event_are_refused():
    event = EventFactory()
    Round.objects.create(event=event, number=1, date=event.start_date)
    refused(lambda: Round.objects.create(event=event, number=1, date=event.start_date))


def test_the_same_round_number_in_two_events_is_fine():
    Round.objects.create(event=EventFactory(), number=1, date=dt.date(2024, 3, 2))
    Round.objects.create(event=EventFactory(), number=1, date=dt.date(2024, 3, 2))
    assert Round.objects.filter(number=1).count() == 2


def test_an_event_cannot_end_before_it_starts():
    refused(lambda: EventFactory(start_date=dt.date(2024, 3, 2), end_date=dt.date(2024, 3, 1)))


def test_a_bye_has_no_opponent_and_a_game_needs_one():
    a, b = CoachFactory.create_batch(2)
    refused(lambda: raw_game(RoundFactory(), a, None, away_race=None).save())
    refused(lambda: raw_game(RoundFactory(), a, b, kind="bye").save())


def test_a_bye_records_one_side():
    a = CoachFactory()
    game = play(RoundFactory(), a, None)
    assert game.kind == "bye"
    assert list(GameSide.objects.values_list("coach_id", "score")) == [(a.pk, 1)]


def test_federation_numbers_are_unique():
    CoachFactory(number=4242)
    refused(lambda: CoachFactory(number=4242))


def test_game_sides_mirror_the_game():
    a, b = CoachFactory.create_batch(2)
    game = play(RoundFactory(), a, b, (1, 1), home_race="wood-elf", away_race="dwarf")
    sides = {s.side: s for s in game.sides.all()}
    assert (sides["home"].coach_id, sides["home"].race.slug, sides["home"].score) == (a.pk, "wood-elf", 0.5)
    assert (sides["away"].coach_id, sides["away"].opponent_id, sides["away"].opponent_race.slug) == (b.pk, a.pk, "wood-elf")
