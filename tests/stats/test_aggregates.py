"""Every aggregate against the hand-counted league of conftest.py."""
import datetime as dt
from itertools import combinations

import pytest
from django.utils import timezone

from stats import selectors
from stats.filters import Filters
from stats.models import SummaryRefresh, SummaryRefreshRequest
from stats.services import summaries_refresh
from stats.tasks import dispatch_owed_refresh
from tests.factories import CoachFactory, EventFactory, RoundFactory, play, race, variant
from tournaments.federation import RANKED_RACES
from tournaments.models import Race

pytestmark = pytest.mark.django_db


def coach_rows(filters, **kwargs):
    return selectors.with_coach_names(selectors.coach_records(filters, **kwargs))


def records(rows, key):
    return {row[key]: (row["games"], row["wins"], row["draws"], row["losses"], round(100 * row["ratio"], 1)) for row in rows}


def test_race_records_count_wins_draws_losses_and_ratio(league):
    assert records(selectors.race_records(Filters()), "race__slug") == {
        "human": (7, 3, 3, 1, 64.3),
        "orc": (7, 2, 1, 4, 35.7),
        "wood-elf": (4, 1, 2, 1, 50.0),
    }


def test_race_records_most_games_first(league):
    assert [row["race__slug"] for row in selectors.race_records(Filters())] == ["human", "orc", "wood-elf"]


def test_coach_records_count_wins_draws_losses_and_ratio(league):
    assert records(coach_rows(Filters()), "coach__number") == {
        1001: (5, 3, 1, 1, 70.0),
        1002: (4, 1, 0, 3, 25.0),
        1003: (4, 1, 3, 0, 62.5),
        1004: (5, 1, 2, 2, 40.0),
    }


def test_a_bye_is_not_a_game(league):
    assert sum(row["games"] for row in coach_rows(Filters())) == 18


def test_coach_records_with_a_race_count_only_that_race(league):
    assert records(coach_rows(Filters(race=race("wood-elf"))), "coach__number") == {
        1001: (2, 1, 0, 1, 50.0),
        1003: (2, 0, 2, 0, 50.0),
    }


def test_coach_records_minimum_games(league):
    assert [row["coach__number"] for row in coach_rows(Filters(), min_games=5)] == [1001, 1004]


def test_race_records_of_one_coach(league):
    assert records(selectors.race_records(Filters(coach=league.a)), "race__slug") == {
        "human": (3, 2, 1, 0, 83.3),
        "wood-elf": (2, 1, 0, 1, 50.0),
    }


@pytest.mark.parametrize(
    ("filters", "games"),
    [
        ({"sanctioned": True}, {1001: 3, 1002: 2, 1003: 2, 1004: 3}),
        ({"sanctioned": False}, {1001: 2, 1002: 2, 1003: 2, 1004: 2}),
        ({"year": 2023}, {1001: 3, 1002: 2, 1003: 2, 1004: 3}),
        ({"country": "GB"}, {1001: 2, 1002: 2, 1003: 2, 1004: 2}),
        ({"nationality": "NL"}, {1001: 5, 1003: 4}),
    ],
)
def test_coach_records_follow_the_filters(league, filters, games):
    assert {row["coach__number"]: row["games"] for row in coach_rows(Filters(**filters))} == games


def test_variant_filter(league):
    rows = coach_rows(Filters(variant=variant("sevens")))
    assert records(rows, "coach__number") == {1001: (1, 1, 0, 0, 100.0), 1004: (1, 0, 0, 1, 0.0)}


def cells(rows):
    return {(row["race__slug"], row["opponent_race__slug"]): (row["games"], row["wins"], row["draws"], row["losses"]) for row in rows}


def test_race_grid_cells(league):
    assert cells(selectors.race_matchups(Filters())) == {
        ("human", "orc"): (3, 3, 0, 0), ("orc", "human"): (3, 0, 0, 3),
        ("human", "wood-elf"): (2, 0, 1, 1), ("wood-elf", "human"): (2, 1, 1, 0),
        ("orc", "wood-elf"): (2, 1, 1, 0), ("wood-elf", "orc"): (2, 0, 1, 1),
        ("orc", "orc"): (2, 1, 0, 1), ("human", "human"): (2, 0, 2, 0),
    }


def test_race_grid_of_one_coach_counts_his_games_only(league):
    assert cells(selectors.race_matchups(Filters(coach=league.a))) == {
        ("human", "orc"): (2, 2, 0, 0), ("human", "wood-elf"): (1, 0, 1, 0),
        ("wood-elf", "human"): (1, 1, 0, 0), ("wood-elf", "orc"): (1, 0, 0, 1),
    }


def test_race_grid_row_race_filter(league):
    assert set(cells(selectors.race_matchups(Filters(race=race("wood-elf"))))) == {("wood-elf", "human"), ("wood-elf", "orc")}


def test_race_grid_layout(league):
    grid = selectors.race_grid(selectors.race_matchups(Filters()))
    assert [r.slug for r in grid.races] == ["human", "orc", "wood-elf"]
    human = dict((opponent.slug, cell) for opponent, cell in next(grid.rows())[1])
    assert round(human["wood-elf"].ratio, 3) == 0.25 and human["orc"].ratio == 1.0


def test_head_to_head_matrix(league):
    matrix = selectors.head_to_head([league.a, league.b, league.c], Filters())
    wdl = {(key[0], key[1]): (cell.wins, cell.draws, cell.losses) for key, cell in matrix.items()}
    a, b, c = league.a.pk, league.b.pk, league.c.pk
    assert wdl == {
        (a, b): (1, 0, 1), (b, a): (1, 0, 1),
        (a, c): (0, 1, 0), (c, a): (0, 1, 0),
        (b, c): (0, 0, 1), (c, b): (1, 0, 0),
    }


def test_head_to_head_games_are_those_between_the_chosen(league):
    games = selectors.head_to_head_games([league.a, league.b, league.c], Filters())
    assert sorted((g.event.name, g.home_coach.number, g.away_coach.number) for g in games) == [
        ("London Bash", 1001, 1002), ("London Bash", 1002, 1003),
        ("Utrecht Open", 1001, 1002), ("Utrecht Open", 1001, 1003),
    ]


def test_differentials_against_the_race_average(league):
    rows = {row["race__slug"]: row for row in selectors.differentials(Filters(coach=league.a))}
    assert round(100 * rows["human"]["ratio"], 1) == 83.3
    assert round(100 * rows["human"]["average"], 1) == 64.3
    assert round(100 * rows["human"]["differential"], 1) == 19.0
    assert round(100 * rows["wood-elf"]["differential"], 1) == 0.0
    assert rows["human"]["games"] == 3


def test_differentials_average_follows_the_filters(league):
    rows = {row["race__slug"]: row for row in selectors.differentials(Filters(coach=league.a, sanctioned=True))}
    # Sanctioned human games: A W, A D, A W (Utrecht, Sevens) and nothing else.
    assert round(100 * rows["human"]["average"], 1) == 83.3 and rows["human"]["differential"] == 0


def numbers(rows, *fields):
    return [tuple(row[f] for f in ("coach__number", *fields)) for row in rows]


def test_top_most_games(league):
    assert numbers(selectors.top_lists(Filters())["games"], "games") == [(1001, 5), (1004, 5), (1002, 4), (1003, 4)]


def test_top_most_games_with_one_race(league):
    assert numbers(selectors.top_lists(Filters())["race"], "race__slug", "games")[:3] == [
        (1002, "orc", 4), (1001, "human", 3), (1004, "orc", 3),
    ]


def test_top_most_events_counts_each_event_once(league):
    assert numbers(selectors.top_lists(Filters())["events"], "events") == [(1001, 3), (1004, 3), (1002, 2), (1003, 2)]


def test_top_most_races(league):
    assert numbers(selectors.top_lists(Filters())["races"], "races") == [(1001, 2), (1004, 2), (1003, 2), (1002, 1)]


def test_top_by_event_country_and_nationality(league):
    assert numbers(selectors.top_lists(Filters(country="GB", nationality="NL"))["games"], "games") == [(1001, 2), (1003, 2)]


def test_top_lists_stop_at_ten(db):
    event = EventFactory()
    coaches = CoachFactory.create_batch(24)
    round_ = RoundFactory(event=event, number=1)
    for home, away in zip(coaches[::2], coaches[1::2]):
        play(round_, home, away)
    summaries_refresh()
    assert len(selectors.top_lists(Filters())["games"]) == 10


def test_awards_per_event_coach_and_category(league):
    assert [(a.event.name, a.category, a.coach.number) for a in selectors.awards(Filters())] == [
        ("London Bash", "Winner", 1003),
        ("Sevens Cup", "Winner", 1001),
        ("Utrecht Open", "Best painted", 1003),
        ("Utrecht Open", "Winner", 1001),
    ]
    assert [(r["coach__number"], r["awards"], r["events"]) for r in selectors.with_coach_names(selectors.awards_per_coach(Filters()))] == [
        (1001, 2, 2), (1003, 2, 2),
    ]
    assert [(r["category"], r["awards"]) for r in selectors.awards_per_category(Filters())] == [
        ("Winner", 3), ("Best painted", 1),
    ]


def test_awards_filtered_by_country(league):
    assert [(r["category"], r["awards"]) for r in selectors.awards_per_category(Filters(country="GB"))] == [("Winner", 1)]


@pytest.fixture
def globetrotters(db):
    """Coach 24 played 24 races, coach 23 played 23, each against one sparring partner; 3 countries for 24."""
    sparring = CoachFactory(number=9000, name="Sparring")
    twenty_four, twenty_three = CoachFactory(number=24, name="Twenty-four"), CoachFactory(number=23, name="Twenty-three")
    slugs = list(Race.objects.filter(name__in=RANKED_RACES).order_by("name").values_list("slug", flat=True))
    countries = ["NL", "GB", "FR"]
    for index, slug in enumerate(slugs[:24]):
        event = EventFactory(start_date=dt.date(2020, 1, 4) + dt.timedelta(days=7 * index), country=countries[index % 3])
        round_ = RoundFactory(event=event, number=1)
        play(round_, twenty_four, sparring, home_race=slug, away_race="human")
        if index < 23:
            play(RoundFactory(event=event, number=2), twenty_three, sparring, home_race=slug, away_race="human")
    summaries_refresh()
    return twenty_four, twenty_three


def test_legends_need_24_races(globetrotters):
    assert numbers(selectors.legends_by_races(Filters()), "races") == [(24, 24)]


def test_legends_23_races_are_not_enough(globetrotters):
    assert 23 not in [row["coach__number"] for row in selectors.legends_by_races(Filters())]


def test_legends_most_countries(globetrotters):
    assert numbers(selectors.legends_by_countries(Filters()), "countries", "games") == [(9000, 3, 47), (24, 3, 24), (23, 3, 23)]


def test_places_sum_games_per_city_and_fall_back_to_the_country_centre(league):
    places = {(p.country, p.city): p for p in selectors.places(Filters())}
    utrecht, london = places["NL", "Utrecht"], places["GB", "London"]
    assert (utrecht.events, utrecht.games, utrecht.placed_by) == (2, 5, "event")
    assert round(utrecht.latitude, 3) == 52.095
    assert (london.events, london.games, london.placed_by) == (1, 4, "country")


def test_places_filtered_by_year_and_variant(league):
    assert [(p.city, p.games) for p in selectors.places(Filters(year=2023, variant=variant("sevens")))] == [("Utrecht", 1)]


def test_refresh_replaces_the_summaries(league):
    play(RoundFactory(event=league.london, number=3), league.a, league.b, (1, 0), home_race="orc", away_race="orc")
    assert selectors.top_lists(Filters())["games"][0]["games"] == 5
    refresh = summaries_refresh()
    assert refresh.games == 10
    assert numbers(selectors.top_lists(Filters())["games"], "games")[0] == (1001, 6)


def by_hand(filters: Filters, key: str) -> dict:
    """The same records counted straight from the game sides, for comparison with the summaries."""
    from django.db.models import Count, Q

    from tournaments.models import GameSide

    rows = (
        GameSide.objects.filter(filters.event_q(), opponent__isnull=False).values(key).order_by()
        .annotate(games=Count("id"), wins=Count("id", filter=Q(score=1)), draws=Count("id", filter=Q(score=0.5)))
    )
    return {row[key]: (row["games"], row["wins"], row["draws"]) for row in rows}


SLICE_VALUES = {"variant": lambda: variant(), "country": lambda: "NL", "year": lambda: 2023, "sanctioned": lambda: True}


@pytest.mark.parametrize("chosen", [
    combo for size in range(5) for combo in combinations(SLICE_VALUES, size)
])
def test_every_filter_combination_matches_the_games(league, chosen):
    filters = Filters(**{name: SLICE_VALUES[name]() for name in chosen})
    coaches = {r["coach__number"]: (r["games"], r["wins"], r["draws"]) for r in coach_rows(filters)}
    races = {r["race__slug"]: (r["games"], r["wins"], r["draws"]) for r in selectors.race_records(filters)}
    assert coaches == by_hand(filters, "coach__number")
    assert races == by_hand(filters, "race__slug")


def test_refresh_task(league):
    from stats.tasks import refresh_summaries

    assert refresh_summaries.delay().get() == 9


def test_a_refresh_whose_message_the_broker_lost_is_sent_again_past_the_bound(league, settings):
    now = timezone.now()
    refreshes = SummaryRefresh.objects.count()
    sent_at = now - settings.RECALCULATION_RESEND_AFTER
    lost = SummaryRefreshRequest.objects.create(created_at=now - dt.timedelta(hours=1), enqueued_at=sent_at + dt.timedelta(seconds=30))
    assert dispatch_owed_refresh() is False  # within the bound: a worker may still take it
    SummaryRefreshRequest.objects.filter(pk=lost.pk).update(enqueued_at=sent_at - dt.timedelta(seconds=30))
    assert dispatch_owed_refresh() is True  # sent again (no broker here: carried out at once)
    assert not SummaryRefreshRequest.objects.exists()
    assert SummaryRefresh.objects.count() == refreshes + 1 and SummaryRefresh.objects.order_by("pk").last().games == 9
