"""Each page makes a bounded number of queries, however many games, coaches or awards there are."""
import pytest

from stats.services import summaries_refresh
from tests.factories import CoachFactory, EventFactory, RoundFactory, play

pytestmark = pytest.mark.django_db

PAGES = [
    ("/stats/", 4),
    # The explorer: its page of games, then their events, variants, coaches and races (one query each).
    ("/stats/games/", 12),
    ("/stats/games/?race=orc&country=NL", 13),
    ("/stats/games/?coach=1001", 13),
    ("/stats/games/?_export=csv", 7),
    ("/stats/win-ratios/", 8),
    ("/stats/win-ratios/?coach=1001", 9),
    ("/stats/race-grid/", 7),
    ("/stats/race-grid/?coach=1001", 8),
    ("/stats/head-to-head/?coach=1001&coach=1002&coach=1003", 14),
    ("/stats/differentials/?coach=1001", 7),
    ("/stats/top/", 8),
    ("/stats/awards/", 10),
    ("/stats/legends/", 6),
    ("/stats/map/", 5),
    ("/stats/rank-over-time/?coach=1001", 9),
]


def grow(league, events: int = 3) -> None:
    """More of everything: the query counts must not follow."""
    coaches = CoachFactory.create_batch(8)
    for index in range(events):
        event = EventFactory(country=["NL", "GB", "FR"][index])
        for number in (1, 2):
            round_ = RoundFactory(event=event, number=number)
            for home, away in zip(coaches[::2], coaches[1::2]):
                play(round_, home, away, home_race="dwarf", away_race="skaven")
            play(round_, league.a, league.b) if number == 1 else play(round_, league.c, league.a)
    summaries_refresh()


@pytest.mark.parametrize(("url", "most"), PAGES)
def test_query_count_is_bounded(client, league, django_assert_max_num_queries, url, most):
    with django_assert_max_num_queries(most):
        response = client.get(url)
        if getattr(response, "streaming", False):
            b"".join(response.streaming_content)
    assert response.status_code == 200


@pytest.mark.parametrize(("url", "most"), PAGES)
def test_query_count_does_not_grow_with_the_record(client, league, django_assert_max_num_queries, url, most):
    grow(league)
    with django_assert_max_num_queries(most):
        response = client.get(url)
        if getattr(response, "streaming", False):
            b"".join(response.streaming_content)
    assert response.status_code == 200
