"""verify_ratings on lists published monthly, as a live site publishes them, each with its own
newest game. The federation is built, rated and published month by month once for the module
(each test's changes roll back with it)."""
import datetime as dt

import pytest

from ratings.models import Publication, PublishedEntry, RatingList, RatingSystem
from tests.assurance.test_verification import (
    SYSTEMS,
    counted_replays,
    each_on_its_own,
    published_lines,
    redigest,
)
from tests.ratings.conftest import add_event

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("verification-monthly")]


def test_monthly_publications_are_checked_by_the_live_replay(published_monthly, monkeypatch):
    """A list a month, each with the games entered by then: each agrees with the live record on the
    games played before its date, so the verification's own replay of the live record checks them
    all, those published complete and now stored as movements drawn both ways (a replay each, from
    the first game, made the check of a federation's two hundred lists quadratic)."""
    elo = RatingSystem.objects.get(slug="elo")
    newest = sorted(set(Publication.objects.filter(system=elo).values_list("newest_game", flat=True)))
    assert len(newest) >= 6  # the first six lists each knew fewer games than the next
    early = Publication.objects.get(system=elo, date=dt.date(2024, 3, 1))
    assert early.complete and not RatingList.objects.get(system=elo, date=early.date).complete
    replays = counted_replays(monkeypatch)
    for slug in SYSTEMS:
        found, lines = published_lines(slug)
        assert found.published == 0, lines
        assert replays == [], slug
    # a figure changed on the list of February, one of the early groups, is named by the live replay
    entry = PublishedEntry.objects.filter(publication__system=elo, publication__date=dt.date(2024, 2, 1),
                                          rank__isnull=False).select_related("publication").first()
    PublishedEntry.objects.filter(pk=entry.pk).update(value=entry.value + 1)
    redigest(entry.publication)
    found, lines = published_lines("elo")
    assert replays == []
    assert any(f"published list of 2024-02-01 entry of coach {entry.coach_number} " in line
               and f"value published {entry.value + 1:.10g}, the games reported before " in line for line in lines), lines
    each_on_its_own(monkeypatch)
    alone, alone_lines = published_lines("elo")
    assert (alone.published, alone_lines) == (found.published, lines)
    assert len(replays) >= 6 and all(start is None for _, start in replays)


@pytest.mark.parametrize("came_late", ["reported", "entered"])
@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_list_whose_record_lacked_a_late_result_is_checked_as_a_replay_of_its_own_would(
    published_monthly, monkeypatch, slug, came_late,
):
    """Each list published the day after its date; a March game that came late for the April and May
    lists, reported in May (every list's newest game after it) or entered after them (reported in
    March); a tampered April figure. The lists from June on hold the game, the April and May ones do
    not: those two are checked by one replay of their record, resumed from the live replay's state
    on 1 March, the others by the live replay, and every finding is a replay per list's."""
    from tournaments.models import Game

    for publication in Publication.objects.all():
        Publication.objects.filter(pk=publication.pk).update(
            published_at=dt.datetime.combine(publication.date + dt.timedelta(days=1), dt.time(12), tzinfo=dt.UTC))
    late = add_event(published_monthly, dt.date(2024, 3, 20), [[(0, 7, (3, 0)), (1, 6, (2, 0))]])
    # in the lists from June on (which show differences of their own: they were computed without it)
    newest = Game.objects.order_by("-pk").values_list("pk", flat=True).first()
    if came_late == "reported":
        Game.objects.filter(event=late).update(reported_on=dt.date(2024, 5, 10))
        Publication.objects.update(newest_game=newest)
    else:
        Game.objects.filter(event=late).update(reported_on=dt.date(2024, 3, 21))
        Publication.objects.filter(date__gte=dt.date(2024, 6, 1)).update(newest_game=newest)
    system = RatingSystem.objects.get(slug=slug)
    entry = PublishedEntry.objects.filter(publication__system=system, publication__date=dt.date(2024, 4, 1),
                                          rank__isnull=False).select_related("publication").first()
    PublishedEntry.objects.filter(pk=entry.pk).update(value=entry.value + 1)
    redigest(entry.publication)
    replays = counted_replays(monkeypatch)
    found, lines = published_lines(slug)
    shared = list(replays)
    replays.clear()
    each_on_its_own(monkeypatch)
    alone, alone_lines = published_lines(slug)
    assert (found.published, lines) == (alone.published, alone_lines)
    assert any(f"published list of 2024-04-01 entry of coach {entry.coach_number} " in line for line in lines), lines
    # one replay without the late game (for April and May), from March on; alone, one from the first game a group
    late_games = set(Game.objects.filter(event=late).values_list("pk", flat=True))
    [(record, start)] = shared
    assert start == dt.date(2024, 3, 1) and not late_games & {g.game_id for g in record}
    assert record and min(g.played_at for g in record) >= dt.datetime(2024, 3, 1)
    assert len(replays) >= 2 and all(start is None for _, start in replays)
