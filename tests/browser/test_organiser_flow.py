"""In a browser: an organiser enters an event and its results, staff sanction and correct it, the rankings follow."""
import datetime as dt
import re
import time

import pytest
from django.urls import NoReverseMatch, reverse
from playwright.sync_api import expect

from ratings.models import CalculationRow, CurrentRating, RecalculationRun, RunStatus
from tests.factories import CoachFactory
from tests.roles import PASSWORD, organiser, staff
from tournaments.models import Event, EventStatus, Game

# The flow runs on the live server, so its transactions commit; the migration's races, systems and groups come back after.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

HEADER = "round,date,time,home_coach,home_race,home_td,away_td,away_coach,away_race"


def results(day: dt.date, *, bad: bool = False) -> bytes:
    """Two rounds of four coaches; the bad version has a negative score on line 3."""
    d = day.isoformat()
    return (
        f"{HEADER}\n"
        f"1,{d},09:00,901,Human,2,1,902,Orc\n"
        f"1,{d},09:00,903,Dwarf,1,{'-1' if bad else '1'},904,Skaven\n"
        f"2,{d},13:00,901,Human,0,1,903,Dwarf\n"
        f"2,{d},13:00,902,Orc,2,0,904,Skaven\n"
    ).encode()


def log_in(page, username: str, next_url: str) -> None:
    page.goto(f"/accounts/login/?next={next_url}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def upload(page, data: bytes) -> None:
    page.get_by_label("Results file (CSV)").set_input_files({"name": "results.csv", "mimeType": "text/csv", "buffer": data})
    page.get_by_role("button", name="Check the file").click()


def resolves(name: str, *args) -> str | None:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def runs_finished(seconds: float = 60.0) -> None:
    """Wait until no recalculation is queued or running (they go on in the server after the answer)."""
    deadline = time.monotonic() + seconds
    while RecalculationRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).exists():
        assert time.monotonic() < deadline, "the recalculations did not finish"
        time.sleep(0.2)


@pytest.mark.slow
def test_an_event_goes_from_entry_to_rankings_and_a_correction_reaches_the_breakdown(page):
    organiser("olga")
    staff("sam")
    coaches = {n: CoachFactory(number=n, name=name) for n, name in ((901, "Wim"), (902, "Xander"), (903, "Yara"), (904, "Zoe"))}
    day = dt.date.today() - dt.timedelta(days=20)

    # The organiser enters the event.
    log_in(page, "olga", "/organiser/events/")
    page.get_by_role("link", name="Enter a new event").click()
    page.locator("main").get_by_label("Name").fill("Browser Bowl")  # the form's, not the header search's
    page.get_by_label("Variant").select_option(label="Blood Bowl 2020")
    page.get_by_label("Start date").fill(day.isoformat())
    page.get_by_label("End date").fill(day.isoformat())
    page.get_by_label("Country").select_option("NL")
    page.get_by_label("City").fill("Leiden")
    page.get_by_role("button", name="Save as draft").click()
    expect(page.get_by_role("heading", name="Edit Browser Bowl")).to_be_visible()
    event = Event.objects.get(name="Browser Bowl")
    assert event.status == EventStatus.DRAFT

    # A file with one bad row: reported by line and column, nothing saved.
    page.goto(f"/organiser/events/{event.pk}/")
    page.get_by_role("link", name="Upload results (CSV)").click()
    upload(page, results(day, bad=True))
    errors = page.locator("table.upload-errors tbody tr")
    expect(errors).to_have_count(1)
    expect(errors.first).to_contain_text("3")
    expect(errors.first).to_contain_text("away_td")
    expect(errors.first).to_contain_text("-1 is negative")
    assert Game.objects.filter(event=event).count() == 0

    # Fixed, previewed, saved.
    upload(page, results(day))
    expect(page.get_by_role("heading", name=re.compile("Preview: 4 games in 2 rounds"))).to_be_visible()
    assert Game.objects.filter(event=event).count() == 0
    page.get_by_role("button", name="Save these results").click()
    expect(page.get_by_role("heading", name="Games (4)")).to_be_visible()

    # Submitted for sanctioning.
    page.get_by_role("link", name="Submit for sanctioning").click()
    page.get_by_role("button", name="Submit for sanctioning").click()
    expect(page.locator("h1 .status")).to_have_text("Submitted")
    page.get_by_role("button", name="Log out").click()

    # Staff sanction it from the queue; the ratings are recalculated when the sanction commits.
    log_in(page, "sam", "/staff/events/")
    page.get_by_role("link", name="Browser Bowl").click()
    page.get_by_role("button", name="Sanction the event").click()
    expect(page.locator(".messages")).to_contain_text("Browser Bowl is sanctioned")
    event.refresh_from_db()
    assert event.status == EventStatus.SANCTIONED
    # the runs go on after the answer; the page staff land on follows them until they finish
    expect(page.locator("main")).to_contain_text("Every run has finished", timeout=60_000)
    assert set(RecalculationRun.objects.values_list("trigger", "status")) == {("sanctioned", RunStatus.SUCCEEDED)}
    elo = {r.coach.number: round(r.value, 2) for r in CurrentRating.objects.filter(system__slug="elo").select_related("coach")}
    # Everyone new at 150, K = 4: W beats X then loses to Y; Y–Z draw then Y beats W; X beats Z.
    assert elo == {901: 149.97, 902: 150.03, 903: 152.03, 904: 147.97}
    rankings = resolves("rankings", "elo")
    if rankings:
        page.goto(rankings)
        expect(page.locator("main")).to_contain_text("Yara")

    # Staff correct the first game (W 2-1 X becomes 1-2); the stored breakdown rows follow.
    first = Game.objects.get(event=event, home_coach=coaches[901], away_coach=coaches[902])
    assert set(CalculationRow.objects.filter(system__slug="elo", game=first).values_list("coach__number", "w")) == {(901, 1.0), (902, 0.0)}
    page.goto(f"/staff/events/{event.pk}/correct/")
    page.locator(f"#g{first.pk}_home_touchdowns").fill("1")
    page.locator(f"#g{first.pk}_away_touchdowns").fill("2")
    page.locator(f"#g{first.pk}_note").fill("Score sheet was read the wrong way round")
    page.locator(f"#game-{first.pk}").get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text(f"Game {first.pk} corrected")
    runs_finished()
    first.refresh_from_db()
    assert (first.home_touchdowns, first.away_touchdowns) == (1, 2)
    assert set(CalculationRow.objects.filter(system__slug="elo", game=first).values_list("coach__number", "w")) == {(901, 0.0), (902, 1.0)}
    assert round(CurrentRating.objects.get(system__slug="elo", coach=coaches[902]).value, 2) > 150.03
    breakdown = resolves("breakdown", 901, "elo")
    if breakdown:
        page.goto(breakdown)
        expect(page.locator("main")).to_contain_text("Xander")
