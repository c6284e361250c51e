"""Two requests to publish the same list again at once (a double click) make one edition, not two."""
import datetime as dt

import pytest

from ratings.models import Publication, RatingSystem
from ratings.services import list_republish
from tests.roles import staff
from tests.threads import at_once
from tests.web.conftest import build_league, recalculate_all

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]


def test_two_republish_requests_of_the_same_edition_at_once_make_one_edition():
    build_league()
    recalculate_all()
    elo, sam, july = RatingSystem.objects.get(slug="elo"), staff("sam"), dt.date(2024, 7, 1)
    made, errors = at_once(
        lambda: list_republish(system=elo, date=july, actor=sam, reason="Ruling 2024/7", edition=1).pk,
    )
    assert errors == []
    editions = list(Publication.objects.filter(system=elo, date=july).order_by("edition").values_list("edition", "pk"))
    assert [edition for edition, _ in editions] == [1, 2]
    assert made == [editions[1][1]] * 2  # both requests answer with the one new edition
