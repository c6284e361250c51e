"""The sanction's impact preview on the staff review page: replayed in memory, then held against
what the sanction's run stores."""
import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ratings import selectors, services
from ratings.models import CurrentRating, EngineCheckpoint, Publication, RatingSystem, Trigger
from ratings.replay import month_start, next_month
from ratings.selectors import impact as impact_module
from ratingsite.formatting import fixed, rating_places
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event
from tests.roles import staff
from tournaments import services as record

pytestmark = pytest.mark.django_db

SLUGS = ["elo", "glicko", "global-glicko", "knsb"]


def today() -> dt.date:
    return timezone.now().date()  # the day the sanction's run replays to


def run(slug, *, on):
    system = RatingSystem.objects.get(slug=slug)
    queued = services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
    return services.recalculation_execute(run_id=queued.pk, today=on)


def stored(slug) -> dict:
    """{(coach number, race): (value, rank)} of the system's current ratings."""
    return {
        (c.coach.number, c.race.name if c.race else ""): (c.value, c.rank)
        for c in CurrentRating.objects.filter(system__slug=slug).select_related("coach", "race")
    }


def impact_of(event, slug):
    return next(i for i in selectors.sanction_impact(event=event) if i.slug == slug)


@pytest.fixture
def federation():
    """Eight coaches rated in every system: each plays six games in each of two events (enough for a
    KNSB start rating), three and two months back; every system run as of today."""
    coaches = CoachFactory.create_batch(8)
    rounds = [[(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1)), (6, 7, (2, 1))],
              [(0, 2, (1, 0)), (1, 3, (0, 2)), (4, 6, (1, 1)), (5, 7, (3, 0))],
              [(0, 3, (0, 0)), (1, 2, (1, 0)), (4, 7, (2, 2)), (5, 6, (0, 1))]]
    for months in (3, 2):
        day = month_start(today()) - dt.timedelta(days=30 * months - 10)
        add_event(coaches, day, rounds + rounds, name=f"Earlier {months}")
    for slug in SLUGS:
        run(slug, on=today())
    return coaches


def submitted(coaches, day, *, name="Submitted"):
    """Coaches 0 to 3 play two rounds on `day` (4 to 7 stay home)."""
    return add_event(coaches, day, [[(0, 1, (0, 3)), (2, 3, (2, 0))], [(0, 2, (1, 1)), (1, 3, (0, 1))]],
                     status="submitted", name=name)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_preview_moves_exactly_the_events_coaches_and_gives_what_the_sanction_stores(
    slug, federation, django_capture_on_commit_callbacks,
):
    coaches = federation
    event = submitted(coaches, today())
    impact = impact_of(event, slug)
    assert not impact.note
    places = rating_places(RatingSystem.objects.get(slug=slug).method)
    # NAF Elo rates each game at once; the others once the list or rating period that takes the games is made
    if slug == "elo":
        assert (impact.as_of, impact.processed_on, impact.waiting) == (today(), [], False)
    else:
        assert impact.waiting and impact.as_of > today() and impact.processed_on == [(impact.as_of, 4, True)]
    if slug == "knsb":
        assert impact.as_of == next_month(today())
    run(slug, on=impact.as_of)  # the figures as they will stand on that day without the event
    before = stored(slug)
    with django_capture_on_commit_callbacks(execute=True):
        record.event_sanction(event=event, actor=None)
    run(slug, on=impact.as_of)
    after = stored(slug)
    moved = {key for key in after if key not in before or fixed(before[key][0], places) != fixed(after[key][0], places)}
    assert {number for number, _ in moved} == {c.number for c in coaches[:4]}
    assert (impact.moved, impact.coaches) == (len(moved), 4) and impact.new == len(after.keys() - before.keys()) == 0
    assert len(impact.largest) == len(moved)
    for row in impact.largest:
        key = (row.coach_number, row.race)
        assert (row.before, row.rank_before) == pytest.approx(before[key])
        assert (row.after, row.rank_after) == pytest.approx(after[key])
    largest = max(abs(after[key][0] - before[key][0]) for key in moved)
    assert abs(impact.largest[0].change) == pytest.approx(largest)
    assert impact.revised == []  # nothing dated after the event is published


def test_a_backdated_event_names_the_published_lists_it_revises_with_their_revised_entries(federation, django_capture_on_commit_callbacks):
    coaches = federation
    day = month_start(today()) - dt.timedelta(days=40)  # before the last two lists
    event = submitted(coaches, day, name="Late")
    impacts = {i.slug: i for i in selectors.sanction_impact(event=event)}
    with django_capture_on_commit_callbacks(execute=True):
        record.event_sanction(event=event, actor=None)
    for slug in ("elo", "glicko", "global-glicko"):
        system = RatingSystem.objects.get(slug=slug)
        dates = list(Publication.objects.filter(system=system, date__gt=day).order_by("date").values_list("date", flat=True))
        assert len(dates) == 2
        revisions = {
            p.date: selectors.publication_revisions(p, places=rating_places(system.method)).total
            for p in Publication.objects.filter(system=system, date__in=dates)
        }
        # what the list pages show beside each published list once the sanction's run has stored it
        # (a Glicko list holds the keys ranked or rated that month: these coaches' φ leaves some empty)
        assert [(r.date, r.entries) for r in impacts[slug].revised] == [(d, revisions[d]) for d in dates if revisions[d]]
    # NAF Elo: both lists since, each with the six keys of the event's four coaches
    lists = [next_month(month_start(day)), month_start(today())]
    assert [(r.date, r.entries) for r in impacts["elo"].revised] == [(lists[0], 6), (lists[1], 6)]
    # KNSB takes a late result into its next list: no published list changes
    knsb = impacts["knsb"]
    assert knsb.revised == [] and knsb.processed_on == [(next_month(today()), 4, True)]


def test_a_system_that_never_ran_is_previewed_from_the_first_game(client):
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, today() - dt.timedelta(days=70), [[(0, 1, (2, 0)), (2, 3, (1, 0))]])
    event = submitted(coaches, today())
    assert not EngineCheckpoint.objects.exists() and not CurrentRating.objects.exists()
    elo = impact_of(event, "elo")
    # coaches 1 and 2 play a race new to them: two new ratings
    assert (elo.note, elo.replayed_from, elo.moved, elo.new) == ("", None, 6, 2)
    client.force_login(staff("sam"))
    page = client.get(f"/staff/events/{event.pk}/")
    assert page.status_code == 200
    assert "6 ratings of 4 coaches would change, 2 of them new" in page.content.decode()


def test_without_a_checkpoint_a_long_record_is_left_to_the_run(monkeypatch):
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, today() - dt.timedelta(days=70), [[(0, 1, (2, 0)), (2, 3, (1, 0))]])
    event = submitted(coaches, today())
    monkeypatch.setattr(impact_module, "MAX_GAMES", 5)
    elo = impact_of(event, "elo")
    assert elo.note.startswith("No preview: NAF Elo would replay 6 games from the first game (it has no stored state before the event)")


def test_a_preview_that_fails_says_so_and_the_page_still_answers(client, federation, monkeypatch):
    event = submitted(federation, today())

    def broken(*args, **kwargs):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(impact_module, "replay", broken)
    client.force_login(staff("sam"))
    page = client.get(f"/staff/events/{event.pk}/")
    assert page.status_code == 200
    assert page.content.decode().count("No preview: it failed (RuntimeError: engine exploded)") == len(SLUGS)


def test_the_preview_is_cached_until_the_systems_state_changes(client, federation, monkeypatch):
    event = submitted(federation, today())
    client.force_login(staff("sam"))
    replays = []
    real = impact_module.replay
    monkeypatch.setattr(impact_module, "replay", lambda *a, **k: replays.append(1) or real(*a, **k))
    client.get(f"/staff/events/{event.pk}/")
    assert len(replays) == 2 * len(SLUGS)  # as the record stands, and with the event
    client.get(f"/staff/events/{event.pk}/")
    assert len(replays) == 2 * len(SLUGS)
    run("elo", on=today())  # a new run of one system: only its preview is replayed again
    client.get(f"/staff/events/{event.pk}/")
    assert len(replays) == 2 * len(SLUGS) + 2


def test_a_sanctioned_event_has_no_preview_and_reads_nothing_of_the_ratings(client, federation):
    event = add_event(federation, today(), [[(0, 1, (1, 0))]])
    client.force_login(staff("sam"))
    with CaptureQueriesContext(connection) as queries:
        page = client.get(f"/staff/events/{event.pk}/")
    assert "What the sanction would change" not in page.content.decode()
    assert not any("ratings_" in query["sql"] for query in queries.captured_queries)


def test_the_review_page_shows_each_systems_preview(client, federation):
    event = submitted(federation, today())
    client.force_login(staff("sam"))
    text = client.get(f"/staff/events/{event.pk}/").content.decode()
    assert "What the sanction would change" in text
    for system in RatingSystem.objects.filter(active=True):
        assert f"<h3>{system.name}</h3>" in text
    assert "ratings of 4 coaches would change as of" in text
    assert f"4 games go into the list of {next_month(today()):%Y-%m-%d} (still to come)" in text


def test_a_replay_from_a_checkpoint_is_bounded_too(federation, monkeypatch):
    event = submitted(federation, month_start(today()) - dt.timedelta(days=40))
    monkeypatch.setattr(impact_module, "MAX_GAMES", 5)
    elo = impact_of(event, "elo")
    start = EngineCheckpoint.objects.filter(system__slug="elo", as_of__lte=event.start_date).order_by("-as_of").first().as_of
    assert elo.note.startswith(f"No preview: NAF Elo would replay 28 games from its stored state of {start:%Y-%m-%d}, twice")
