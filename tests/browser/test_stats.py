"""Head-to-head in a browser: choose three coaches, share the view, open the link, see the matrix."""
import datetime as dt

import pytest

from stats.services import summaries_refresh
from tests.factories import CoachFactory, EventFactory, RoundFactory, play


@pytest.fixture
def three_coaches(transactional_db):
    anna = CoachFactory(number=2001, name="Anna Alpha")
    bert = CoachFactory(number=2002, name="Bert Bravo")
    cora = CoachFactory(number=2003, name="Cora Charlie")
    event = EventFactory(name="Utrecht Open", start_date=dt.date(2022, 5, 7))
    first, second = RoundFactory(event=event, number=1), RoundFactory(event=event, number=2)
    play(first, anna, bert, (2, 1))
    play(second, anna, cora, (1, 1))
    play(RoundFactory(event=event, number=3), bert, cora, (0, 1))
    summaries_refresh()
    return anna, bert, cora


def matrix_rows(page) -> list[str]:
    return [" ".join(row.inner_text().split()) for row in page.locator("table.head-to-head tbody tr").all()]


def test_head_to_head_shared_link_shows_the_matrix(page, three_coaches):
    page.goto("/stats/head-to-head/")
    page.get_by_label("Coach 1", exact=True).fill("Anna Alpha")
    page.get_by_label("Coach 2", exact=True).fill("2002")
    page.get_by_label("Coach 3", exact=True).fill("cora")
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url("**/stats/head-to-head/?coach=2001&coach=2002&coach=2003")
    expected = [
        "Anna Alpha (2001) ■ 1–0–0 0–1–0",
        "Bert Bravo (2002) 0–0–1 ■ 0–0–1",
        "Cora Charlie (2003) 0–1–0 1–0–0 ■",
    ]
    assert matrix_rows(page) == expected

    shared = page.get_by_label("Link to this view").input_value()
    other = page.context.new_page()
    other.goto(shared)
    assert matrix_rows(other) == expected
    assert other.get_by_role("heading", name="The games between them").is_visible()
    assert other.locator("table.stats-table tbody tr").count() == 3
