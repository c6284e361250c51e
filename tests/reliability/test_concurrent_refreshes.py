"""Two statistics refreshes at once both succeed, and the tables hold each game once."""
import datetime as dt

import pytest

from stats.models import EventSummary, SummaryRefresh
from stats.services import summaries_refresh
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event
from tests.threads import at_once

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]


def test_two_refreshes_at_once_both_succeed_and_count_every_game_once():
    coaches = CoachFactory.create_batch(4)
    for month in range(1, 7):
        add_event(coaches, dt.date(2024, month, 6), [[(0, 1, (2, 0)), (2, 3, (1, 1))], [(0, 2, (0, 1)), (1, 3, (3, 2))]])
    _, errors = at_once(summaries_refresh)
    assert errors == []
    assert SummaryRefresh.objects.count() == 2
    assert EventSummary.objects.count() == 6
    assert sorted(EventSummary.objects.values_list("games", flat=True)) == [4] * 6  # each game counted once
    assert [refresh.games for refresh in SummaryRefresh.objects.all()] == [24, 24]
