"""The embeds and feeds through the page cache: a few queries to render, none to serve again (with
their framing headers), and renewed when a run commits. Cached only outside a transaction, so these
tests commit (a transactional database)."""
import datetime as dt

import pytest

from ratings.models import CurrentRating
from tests.factories import EventFactory, RoundFactory, play
from tests.syndication.conftest import build_federation
from tests.web.conftest import recalculate_all
from tests.web.test_headers import POLICY, policy

EMBEDS = {"/embed/elo/country/nl/": 4, "/embed/glicko/race/human/": 4, "/nl/embed/knsb/country/NL/": 4,
          "/embed/elo/badge/101.svg": 4}
FEEDS = {"/feeds/events/": 2, "/feeds/lists/knsb/": 3, "/feeds/coaches/101/": 5}


@pytest.fixture
def federation(transactional_db):
    data = build_federation()
    recalculate_all()
    return data


def test_embeds_and_feeds_render_in_a_few_queries_then_come_from_the_cache(
        client, federation, django_assert_max_num_queries, django_assert_num_queries):
    for path, most in {**EMBEDS, **FEEDS}.items():
        with django_assert_max_num_queries(most):
            first = client.get(path)
        assert first.status_code == 200, path
        with django_assert_num_queries(0):
            again = client.get(path)
        assert again.content == first.content
        assert again["Content-Type"] == first["Content-Type"]
        framable = "/badge/" not in path and path.startswith(("/embed/", "/nl/embed/"))
        assert policy(again) == ({**POLICY, "frame-ancestors": "*"} if framable else POLICY), path
        assert ("X-Frame-Options" in again) is not framable, path


def test_a_committed_run_renews_the_leaderboard(client, federation):
    eva = federation["eva"]
    before = client.get("/embed/elo/country/nl/").content.decode()
    old = CurrentRating.objects.get(system__slug="elo", coach=eva)
    assert f">{old.value:.2f}<" in before
    late = EventFactory(name="Autumn Cup", start_date=dt.date(2024, 9, 7))
    play(RoundFactory(event=late, number=1), eva, federation["bert"], (3, 0), home_race="dwarf", away_race="orc")
    assert client.get("/embed/elo/country/nl/").content.decode() == before  # nothing rated yet: still the cached page
    recalculate_all()
    new = CurrentRating.objects.get(system__slug="elo", coach=eva)
    assert new.value > old.value
    after = client.get("/embed/elo/country/nl/").content.decode()
    assert f">{new.value:.2f}<" in after and f">{old.value:.2f}<" not in after
