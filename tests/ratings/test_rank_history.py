"""A key's rank over time on every monthly list: a movements list's months are as exact as a complete list's."""
import datetime as dt
import random

import pytest

from ratings import selectors
from ratings.models import RatingList, RatingListEntry, RatingSystem
from ratings.services import execution
from tests.factories import CoachFactory, EventFactory, RoundFactory, play, race, variant
from tests.web.conftest import recalculate_all
from tournaments.models import Coach, Race, Variant

pytestmark = pytest.mark.django_db

TODAY = dt.date(2024, 9, 15)  # the lists from 2023-08 on are complete; older ones only in January


def build_history() -> None:
    """Six years of monthly events (seeded), two rounds each, one in five of Sevens: a core of four
    coaches in most months, eight others now and then, two of them away for years (their Elo and KNSB
    ranks lapse after 24 months, their Glicko φ grows)."""
    rng = random.Random(18)
    core, others = CoachFactory.create_batch(4), CoachFactory.create_batch(8)
    races = {coach.pk: rng.choice(["human", "orc"]) for coach in core + others}
    away = {others[0].pk: range(2019, 2023), others[1].pk: range(2020, 2024)}
    month = dt.date(2018, 6, 1)
    while month < dt.date(2024, 9, 1):
        if rng.random() < 0.75:
            present = [c for c in core if rng.random() < 0.8]
            present += [c for c in others if rng.random() < 0.35 and month.year not in away.get(c.pk, ())]
            present = present[:len(present) // 2 * 2]
            played_variant = variant("sevens" if rng.random() < 0.2 else "blood-bowl-2020")
            event = EventFactory(start_date=month.replace(day=rng.randint(1, 27)), variant=played_variant)
            for number in (1, 2):
                rng.shuffle(present)
                round_ = RoundFactory(event=event, number=number)
                for home, visitor in zip(present[::2], present[1::2]):
                    play(round_, home, visitor, (rng.randint(0, 3), rng.randint(0, 3)),
                         home_race=races[home.pk], away_race=races[visitor.pk])
        month = (month + dt.timedelta(days=32)).replace(day=1)


def every_history() -> dict:
    """(system, coach, race, variant) -> [(list date, rank, value, games, on the list)] for every key on any list."""
    coaches, races, variants = Coach.objects.in_bulk(), Race.objects.in_bulk(), Variant.objects.in_bulk()
    out = {}
    for system in RatingSystem.objects.filter(active=True):
        for coach, race_id, variant_id in RatingListEntry.objects.filter(system=system).values_list("coach", "race", "variant").distinct():
            months = selectors.rank_history(coach=coaches[coach], system=system, race=races.get(race_id), variant=variants[variant_id])
            out[(system.slug, coach, race_id, variant_id)] = [(m.date, m.rank, m.value, m.games, m.on_list) for m in months]
    return out


def test_every_month_of_every_key_is_as_if_every_list_had_been_complete(monkeypatch):
    build_history()
    recalculate_all(TODAY)
    assert RatingList.objects.filter(complete=False).exists()
    normal = every_history()
    # not vacuous: every system has months whose list lacks an active key, whose rank is worked out
    for slug in ("elo", "glicko", "global-glicko", "knsb"):
        derived = [m for key, months in normal.items() if key[0] == slug for m in months if not m[4] and m[1] is not None]
        assert len(derived) >= 10, slug
    monkeypatch.setattr(execution, "complete_list", lambda today: lambda day: True)
    recalculate_all(TODAY)
    assert not RatingList.objects.filter(complete=False).exists()
    complete = every_history()
    assert normal.keys() == complete.keys()
    for key, months in normal.items():
        assert [m[:4] for m in months] == [m[:4] for m in complete[key]], key
        # with every list complete, a month is derived only while the key is inactive
        assert all(m[4] or m[1] is None for m in complete[key]), key


def entries_of(system, lists: dict, rows) -> None:
    """Stored entries: (month, coach, race, value, rank) on the lists of 2020 by month."""
    RatingListEntry.objects.bulk_create([
        RatingListEntry(rating_list=lists[month], system=system, coach=coach, race=race(slug), variant=variant(),
                        value=value, rank=rank, games=int(value) % 10)
        for month, coach, slug, value, rank in rows
    ])


def test_a_movements_month_ranks_the_key_among_its_group_ties_sharing_and_a_lapse_carried():
    elo = RatingSystem.objects.get(slug="elo")
    lists = {month: RatingList.objects.create(system=elo, date=dt.date(2020, month, 1), complete=month == 1) for month in range(1, 9)}
    a, b, c, d, x = CoachFactory.create_batch(5)
    entries_of(elo, lists, [
        # January (complete): A 160, B and C tied at 150, D 140; X (orc, another group) 200
        (1, a, "human", 160.0, 1), (1, b, "human", 150.0, 2), (1, c, "human", 150.0, 2), (1, d, "human", 140.0, 4),
        (1, x, "orc", 200.0, 1),
        (2, d, "human", 150.0, 2),  # February: D plays up to 150, a three-way tie behind A
        (3, a, "human", 145.0, 4),  # March: A drops below the tie, which now leads
        (4, b, "human", 150.0, None), (4, c, "human", 155.0, 1),  # April: B's rank lapses, C plays
        (6, b, "human", 158.0, 1),  # June: B plays again
        (7, c, "human", 170.0, 1), (7, x, "orc", 120.0, 2),  # July: C passes B; the orcs do not count
    ])
    months = selectors.rank_history(coach=b, system=elo, race=race("human"), variant=variant())
    assert [(m.date.month, m.rank, m.value, m.on_list) for m in months] == [
        (1, 2, 150.0, True), (2, 2, 150.0, False), (3, 1, 150.0, False), (4, None, 150.0, True),
        (5, None, 150.0, False), (6, 1, 158.0, True), (7, 2, 158.0, False), (8, 2, 158.0, False),
    ]


def test_off_a_complete_list_a_key_is_inactive_from_then_on():
    elo = RatingSystem.objects.get(slug="elo")
    lists = {month: RatingList.objects.create(system=elo, date=dt.date(2020, month, 1), complete=month in (1, 3)) for month in range(1, 5)}
    a, b = CoachFactory.create_batch(2)
    entries_of(elo, lists, [(1, a, "human", 160.0, 1), (1, b, "human", 150.0, 2), (3, b, "human", 150.0, 1), (4, b, "human", 151.0, 1)])
    months = selectors.rank_history(coach=a, system=elo, race=race("human"), variant=variant())
    assert [(m.date.month, m.rank, m.value, m.games, m.on_list) for m in months] == [
        (1, 1, 160.0, 0, True), (2, 1, 160.0, 0, False), (3, None, 160.0, 0, False), (4, None, 160.0, 0, False),
    ]
