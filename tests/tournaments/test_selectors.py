"""The record's reads behind the organiser and staff pages."""
import datetime as dt

import pytest

from tests.factories import CoachFactory, EventFactory, RoundFactory, play, race
from tests.roles import organiser, staff
from tournaments import selectors
from tournaments.models import Award, Coach, Event, EventStatus, Game, Participant
from tournaments.uploads import RaceRef

pytestmark = pytest.mark.django_db


def test_event_get_returns_the_event_with_its_variant_and_organiser():
    olga = organiser()
    event = EventFactory(name="Delft Open", organiser=olga)
    found = selectors.event_get(pk=event.pk)
    assert (found, found.variant.slug, found.organiser) == (event, "blood-bowl-2020", olga)


def test_event_get_raises_for_an_unknown_id():
    with pytest.raises(Event.DoesNotExist):
        selectors.event_get(pk=999_999)


def test_an_organiser_opens_his_own_events_and_staff_any():
    olga, other = organiser("olga"), organiser("otto")
    own, theirs = EventFactory(organiser=olga), EventFactory(organiser=other)
    assert selectors.organiser_event_get(user=olga, pk=own.pk) == own
    with pytest.raises(Event.DoesNotExist):
        selectors.organiser_event_get(user=olga, pk=theirs.pk)
    assert selectors.organiser_event_get(user=staff(), pk=theirs.pk) == theirs


def test_organiser_events_are_his_own_newest_first():
    olga = organiser()
    older = EventFactory(name="Older", organiser=olga, start_date=dt.date(2024, 1, 6))
    newer = EventFactory(name="Newer", organiser=olga, start_date=dt.date(2024, 6, 1))
    EventFactory(name="Someone else's", organiser=organiser("otto"))
    assert list(selectors.organiser_events(organiser=olga)) == [newer, older]


def test_the_event_queue_counts_each_events_games_oldest_event_first():
    later = EventFactory(name="Later", start_date=dt.date(2024, 6, 1), status=EventStatus.SUBMITTED)
    EventFactory(name="Earlier", start_date=dt.date(2024, 2, 3), status=EventStatus.SUBMITTED)
    round_ = RoundFactory(event=later, number=1)
    play(round_, CoachFactory(), CoachFactory())
    play(round_, CoachFactory(), CoachFactory())
    assert [(e.name, e.game_count) for e in selectors.event_queue()] == [("Earlier", 0), ("Later", 2)]


def test_event_games_come_round_by_round():
    event = EventFactory()
    anna, bert, cees = CoachFactory(name="Anna"), CoachFactory(name="Bert"), CoachFactory(name="Cees")
    second = play(RoundFactory(event=event, number=2), anna, cees)
    first = play(RoundFactory(event=event, number=1), anna, bert)
    games = list(selectors.event_games(event=event))
    assert games == [first, second]
    assert (games[0].round.number, games[0].home_coach.name, games[0].away_race.slug) == (1, "Anna", "orc")


def test_event_participants_awards_and_counts():
    event = EventFactory()
    anna, bert = CoachFactory(name="Anna"), CoachFactory(name="Bert")
    Participant.objects.create(event=event, coach=anna, race=race("human"))
    Participant.objects.create(event=event, coach=bert, race=race("orc"))
    Award.objects.create(event=event, category="Best painted", coach=bert, race=race("orc"))
    play(RoundFactory(event=event, number=1), anna, bert)
    assert [(p.coach.name, p.race.slug) for p in selectors.event_participants(event=event)] == [("Anna", "human"), ("Bert", "orc")]
    assert [(a.category, a.coach.name) for a in selectors.event_awards(event=event)] == [("Best painted", "Bert")]
    assert selectors.event_counts(event=event) == {"games": 1, "rounds": 1, "participants": 2}
    assert selectors.event_game_count(event=event) == 1


def test_game_get_finds_a_game_only_in_its_own_event():
    event, other = EventFactory(), EventFactory()
    game = play(RoundFactory(event=event, number=1), CoachFactory(), CoachFactory())
    assert selectors.game_get(event=event, pk=game.pk) == game
    with pytest.raises(Game.DoesNotExist):
        selectors.game_get(event=other, pk=game.pk)


def test_coach_lookups_by_federation_number():
    anna = CoachFactory(number=101, name="Anna")
    CoachFactory(number=102, name="Bert")
    assert selectors.coach_get(number=101) == anna
    with pytest.raises(Coach.DoesNotExist):
        selectors.coach_get(number=999)
    assert selectors.coach_numbers_known(numbers={101, 102, 999}) == {101, 102}
    assert selectors.coach_names(numbers=[101, 999]) == {101: "Anna"}


def test_coach_counts_what_his_record_holds():
    event = EventFactory()
    anna, bert = CoachFactory(name="Anna"), CoachFactory(name="Bert")
    Participant.objects.create(event=event, coach=anna, race=race("human"))
    Award.objects.create(event=event, category="Most touchdowns", coach=anna)
    play(RoundFactory(event=event, number=1), anna, bert)
    play(RoundFactory(event=event, number=2), bert, anna)
    assert selectors.coach_counts(coach=anna) == {"games": 2, "participations": 1, "awards": 1}
    assert selectors.coach_counts(coach=bert) == {"games": 2, "participations": 0, "awards": 0}


def test_race_names_and_refs_cover_every_race():
    names = selectors.race_names()
    assert (names["human"], names["orc"]) == ("Human", "Orc")
    refs = {ref.slug: ref for ref in selectors.race_refs()}
    assert refs["human"] == RaceRef("human", "Human", True)
    assert set(refs) == set(names)


def test_member_list_finds_accounts_by_name_email_or_coach():
    mia, olga = organiser("mia"), organiser("olga")
    CoachFactory(name="Olga Jansen", user=olga)
    assert [user.username for user in selectors.member_list()] == ["mia", "olga"]
    assert list(selectors.member_list(query="jansen")) == [olga]
    assert list(selectors.member_list(query="mia@example")) == [mia]
    member = selectors.member_get(pk=olga.pk)
    assert (member, member.coach.name) == (olga, "Olga Jansen")
