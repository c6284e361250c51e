"""KNSB games that wait for the next list (spec, Publication): until that list is made their pages
show them as waiting for it, with the R0 and Rc they will be rated with, provisional and out of
every stored total. A late game (reported after the list that would have rated it) and an on-time
game of the month still running both wait for the first list after them."""
import datetime as dt

import pytest

from rating_engines.common import Reason
from rating_engines.knsb import expected_score
from ratings.models import CalculationRow, CurrentRating, RatingSystem
from ratings.selectors import waiting_rows
from tests.factories import CoachFactory
from tests.ratings import test_late_results as late
from tests.ratings.test_late_results import FEBRUARY, JANUARY, LATE_GAME, carry_out, sanctioned_event, settle_other_systems
from tests.web.conftest import column, table
from tournaments import services as record
from tournaments.models import Event, Game

pytestmark = pytest.mark.django_db

clock, coaches = late.clock, late.coaches  # the late results' fixtures: its coaches on the imported list

MARCH = dt.date(2024, 3, 1)


@pytest.fixture
def waiting(coaches, clock, django_capture_on_commit_callbacks):
    """As of 18 February 2024: Anna's thirty January draws with Bert are on the list of 1 February
    (she reaches 1800); her January draw with Cees, sanctioned on 10 February, and her February
    draw with Dirk, sanctioned on 18 February, wait for the list of 1 March."""
    anna, bert, cees, dirk = coaches
    sanctioned_event("Marathon", JANUARY, [(anna, bert, (1, 1))] * 30, clock=clock, reported=JANUARY,
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 2, 5))
    sanctioned_event("Late Cup", LATE_GAME, [(anna, cees, (0, 0))], clock=clock, reported=dt.date(2024, 2, 10),
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    sanctioned_event("February Cup", FEBRUARY, [(anna, dirk, (2, 2))], clock=clock, reported=dt.date(2024, 2, 18),
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 2, 18))
    settle_other_systems(dt.date(2024, 2, 18))
    return coaches


def knsb():
    return RatingSystem.objects.get(slug="knsb")


def test_late_and_on_time_games_wait_for_the_next_list_with_the_r0_and_rc_they_will_be_rated_with(waiting):
    anna, _, cees, dirk = waiting
    assert not CalculationRow.objects.filter(system__slug="knsb", period="2024-03-01").exists()  # no list yet
    late, on_time = [r for r in waiting_rows(knsb(), coach_ids={anna.pk}) if r.coach_id == anna.pk]
    # the late game: the list in force on its date of play, 1 January (the imported ratings)
    assert (late.opponent_id, late.list_date, late.waiting_for, late.r0, late.rc, late.w, late.k, late.counted) == (
        cees.pk, dt.date(2024, 1, 1), MARCH, 1650, 1750, 0.5, 25, True)
    assert late.we == pytest.approx(expected_score(-100), abs=1e-12)
    assert late.rt == pytest.approx(25 * (0.5 - expected_score(-100)), abs=1e-12)
    assert late.reported_on == dt.date(2024, 2, 10) and late.late
    # the on-time game of the month still running: the list of 1 February, where Anna has 1800
    assert (on_time.opponent_id, on_time.list_date, on_time.waiting_for, on_time.r0, on_time.rc, on_time.late) == (
        dirk.pk, dt.date(2024, 2, 1), MARCH, 1800, 1750, False)
    assert on_time.we == pytest.approx(expected_score(50), abs=1e-12)


def test_the_opponents_side_waits_too_with_the_sides_swapped(waiting):
    anna, _, cees, _ = waiting
    (row,) = [r for r in waiting_rows(knsb(), coach_ids={cees.pk}) if r.coach_id == cees.pk]
    assert (row.opponent_id, row.r0, row.rc, row.w) == (anna.pk, 1750, 1650, 0.5)


def test_games_already_on_a_list_do_not_wait(waiting):
    _, bert, _, _ = waiting
    assert [r for r in waiting_rows(knsb(), coach_ids={bert.pk}) if r.coach_id == bert.pk] == []


def test_an_unrated_coach_waits_for_the_depot(waiting, clock, django_capture_on_commit_callbacks):
    anna, *_ = waiting
    newcomer = CoachFactory(name="Nina Nieuw")
    sanctioned_event("Newcomers", dt.date(2024, 2, 20), [(newcomer, anna, (1, 0))], clock=clock, reported=dt.date(2024, 2, 20),
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 2, 20))
    rows = {r.coach_id: r for r in waiting_rows(knsb(), coach_ids={newcomer.pk}) if r.event_name == "Newcomers"}
    depot, rated = rows[newcomer.pk], rows[anna.pk]
    assert (depot.counted, depot.reason, depot.r0, depot.rc, depot.we, depot.depot_date) == (
        False, Reason.IN_DEPOT, None, 1800, None, MARCH)
    assert (rated.counted, rated.reason, rated.r0, rated.rc, rated.we) == (False, Reason.OPPONENT_UNRATED, 1800, None, None)



def test_an_unrated_coachs_pages_show_the_games_waiting_for_the_depot(client, waiting, clock, django_capture_on_commit_callbacks):
    anna, *_ = waiting
    newcomer = CoachFactory(name="Nina Nieuw")
    sanctioned_event("Newcomers", dt.date(2024, 2, 20), [(newcomer, anna, (1, 0))], clock=clock, reported=dt.date(2024, 2, 20),
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 2, 20))
    page = client.get(f"/coaches/{newcomer.number}/breakdown/knsb/?variant=blood-bowl-2020")
    assert page.status_code == 200, page.context.get("missing")  # no list has a row of hers yet: the waiting game is all there is
    assert page.context["breakdown"].period is None
    text = " ".join(page.content.decode().split())
    assert "Waiting for the list of 2024-03-01" in text
    assert "game in depot: no rating yet" in text  # its footnote
    coach_page = " ".join(client.get(f"/coaches/{newcomer.number}/").content.decode().split())
    assert "1 game waiting for the list of 2024-03-01, for the depot: no rating yet" in coach_page


def test_the_breakdown_shows_the_waiting_block_as_it_will_be_rated_provisional(client, waiting):
    anna, _, cees, _ = waiting
    page = client.get(f"/coaches/{anna.number}/breakdown/knsb/")
    assert page.status_code == 200
    b = page.context["breakdown"]
    assert b.period.label == "2024-02-01"  # the latest list: its stored figures untouched
    (block,) = b.waiting
    assert block.list_date == MARCH
    assert [e.name for e in block.events] == ["Late Cup", "February Cup"]
    assert block.nt == 2 and block.wt == 1.0
    found = table(page, "Waiting for the list of 2024-03-01")
    r0, rc = found["header"].index("R0"), found["header"].index("Rc")
    games = [(cells[r0], cells[rc]) for css, cells in found["rows"] if css == "counted"]
    assert games == [("1650", "1750"), ("1800", "1750")]
    text = page.content.decode()
    assert "provisional" in text
    assert "reported 2024-02-10" in text
    assert "30 counted games, + 2 waiting for the list of 2024-03-01" in " ".join(text.split())
    assert CurrentRating.objects.get(system__slug="knsb", coach=anna).games == 30  # stored totals unchanged


def test_the_coach_page_says_the_games_waiting_beside_the_counted_ones(client, waiting):
    anna, *_ = waiting
    page = client.get(f"/coaches/{anna.number}/")
    found = table(page, "ratings in every system")
    games = dict(zip(column(found, "System"), column(found, "Games")))
    assert games["KNSB list rating"] == "30 + 2 waiting"
    assert games["NAF Elo"] == "32"  # the other systems rate them already
    last = dict(zip(column(found, "System"), column(found, "Last played")))
    assert last["KNSB list rating"] == "2024-01-14 2024-02-17 (waiting)"
    text = " ".join(page.content.decode().split())
    assert "KNSB list rating, All races (Blood Bowl 2020): 2 games waiting for the list of 2024-03-01, not yet counted" in text


def test_the_ranking_says_the_waiting_count_beside_games_and_last_played(client, waiting):
    anna, bert, *_ = waiting
    found = table(client.get("/rankings/knsb/"), "ranking")
    games = dict(zip(column(found, "Coach"), column(found, "Games")))
    assert games[anna.name] == "30 + 2 waiting"
    assert games[bert.name] == "30"
    last = dict(zip(column(found, "Coach"), column(found, "Last played")))
    assert last[anna.name] == "2024-02-17 (waiting)"
    assert last[bert.name] == "2024-01-14"


def test_the_event_page_tells_waiting_from_not_counted(client, waiting):
    anna, _, cees, _ = waiting
    event = Event.objects.get(name="Late Cup")
    page = client.get(f"/events/{event.pk}/?system=knsb")
    standings = {s.coach.pk: s for s in page.context["standings"]}
    assert standings[anna.pk].waiting.list_date == MARCH
    assert standings[anna.pk].waiting.change == pytest.approx(25 * (0.5 - expected_score(-100)), abs=1e-12)
    assert standings[anna.pk].change is None  # nothing stored yet
    text = page.content.decode()
    assert "waiting for the list of 2024-03-01" in text


def as_stored(rows):
    return sorted(
        (r.game_id, r.side, r.period, r.r0, r.rc, r.we, r.k, r.rt, r.counted, r.reason or "", r.list_date, r.depot_date)
        for r in rows
    )


def stored_rows(period):
    return as_stored(CalculationRow.objects.filter(system__slug="knsb", period=period))


def test_the_list_when_made_rates_the_waiting_games_as_they_were_shown(waiting, clock, django_capture_on_commit_callbacks):
    """Every figure shown while waiting is the one the list stores: late, on time, depot, opponent unrated."""
    anna, *_ = waiting
    newcomer = CoachFactory(name="Nina Nieuw")
    sanctioned_event("Newcomers", dt.date(2024, 2, 20), [(newcomer, anna, (1, 0))], clock=clock, reported=dt.date(2024, 2, 20),
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 2, 20))
    shown = as_stored(waiting_rows(knsb()))
    assert len(shown) == 6
    late.from_scratch(today=dt.date(2024, 3, 5))  # the list of 1 March is made
    assert waiting_rows(knsb()) == []  # the list is made: nothing waits
    assert stored_rows("2024-03-01") == shown


def test_a_correction_after_the_list_waits_as_a_row_taking_the_old_result_back_and_one_with_the_new(
        waiting, clock, django_capture_on_commit_callbacks):
    anna, *_ = waiting
    late.from_scratch(today=dt.date(2024, 3, 5))
    clock(dt.date(2024, 3, 10))  # after the list of 1 March rated it as a draw, Anna's 2-2 with Dirk becomes a 3-2 win
    with django_capture_on_commit_callbacks(execute=False):
        record.game_correct(game=Game.objects.get(event__name="February Cup"), actor=None, home_touchdowns=3)
    carry_out(today=dt.date(2024, 3, 10))
    rows = waiting_rows(knsb(), coach_ids={anna.pk})
    assert [(r.coach_id == anna.pk, r.w, r.counted, r.reason) for r in rows if r.coach_id == anna.pk] == [
        (True, 0.5, False, Reason.REVERSED), (True, 1.0, True, "")]
    shown = as_stored(rows)
    late.from_scratch(today=dt.date(2024, 4, 3))
    assert stored_rows("2024-04-01") == shown
    assert CurrentRating.objects.get(system__slug="knsb", coach=anna).games == 32


def test_the_about_page_says_how_waiting_games_are_shown(client):
    text = " ".join(client.get("/about/ratings/").content.decode().split())
    assert "is shown as <em>waiting for the list of</em> its date" in text
