"""The ratings' reads behind the staff pages: the staff home, rating-system settings and runs."""
import pytest

from ratings import selectors
from ratings.models import RatingSystem, RecalculationRun, RunStatus
from tests.factories import EventFactory, variant
from tests.roles import staff
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db


def _run(slug: str, **fields) -> RecalculationRun:
    return RecalculationRun.objects.create(system=RatingSystem.objects.get(slug=slug), trigger="manual", **fields)


def test_submitted_event_count_counts_only_the_events_waiting_for_sanctioning():
    EventFactory(status=EventStatus.SUBMITTED)
    EventFactory(status=EventStatus.SUBMITTED)
    EventFactory(status=EventStatus.DRAFT)
    EventFactory(status=EventStatus.SANCTIONED)
    assert selectors.submitted_event_count() == 2


def test_recent_runs_are_the_latest_first_up_to_the_limit():
    runs = [_run(slug) for slug in ("elo", "glicko", "knsb")]
    recent = list(selectors.recent_runs(limit=2))
    assert recent == [runs[2], runs[1]]
    assert [run.system.slug for run in recent] == ["knsb", "glicko"]


def test_staff_systems_are_every_system_in_display_order_with_their_rules(django_assert_num_queries):
    elo = RatingSystem.objects.get(slug="elo")
    elo.active = False
    elo.save(update_fields=["active"])
    elo.variants.set([variant("classic")])
    with django_assert_num_queries(3):
        systems = [
            (system.slug, [v.slug for v in system.variants.all()], sorted(r.slug for r in system.excluded_races.all()))
            for system in selectors.staff_systems()
        ]
    assert systems == [
        ("elo", ["classic"], []),
        ("glicko", [], []),
        ("global-glicko", [], ["goblin", "halfling", "ogre"]),
        ("knsb", [], []),
    ]


def test_rating_system_get_returns_the_system_or_raises():
    knsb = RatingSystem.objects.get(slug="knsb")
    assert selectors.rating_system_get(pk=knsb.pk).name == "KNSB list rating"
    with pytest.raises(RatingSystem.DoesNotExist):
        selectors.rating_system_get(pk=999_999)


def test_run_list_and_run_get_carry_the_system_and_who_asked():
    sam = staff()
    older = _run("elo", status=RunStatus.SUCCEEDED)
    newer = _run("knsb", requested_by=sam)
    assert list(selectors.run_list()) == [newer, older]
    run = selectors.run_get(pk=newer.pk)
    assert (run.system.slug, run.requested_by.username) == ("knsb", "sam")
    with pytest.raises(RecalculationRun.DoesNotExist):
        selectors.run_get(pk=999_999)
