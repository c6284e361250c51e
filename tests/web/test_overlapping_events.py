"""A coach in two overlapping events: every NAF Elo figure on the pages adds up.

Anna plays a league (1 to 28 March) and an open (9 to 24 March) at the same time, K = 2·√3 in both:
  1 Mar league v Bert  1-0  150.00 → 151.73
  9 Mar open   v Cees  1-1  151.73 → 151.71
 20 Mar league v Eva   0-1  151.71 → 149.96
 24 Mar open   v Dirk  2-0  149.96 → 151.69
and the league goes on without her (28 March, Bert v Eva), so it closes after the open.
"""
import datetime as dt

import pytest

from assurance.verification import verify_system
from ratings.models import CurrentRating, RatingSystem
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.web.conftest import recalculate_all, table

pytestmark = pytest.mark.django_db


@pytest.fixture
def overlapping():
    anna, bert, cees, dirk, eva = (
        CoachFactory(number=number, name=name) for number, name in
        [(201, "Anna"), (202, "Bert"), (203, "Cees"), (204, "Dirk"), (205, "Eva")]
    )
    league = EventFactory(name="Spring League", start_date=dt.date(2024, 3, 1), end_date=dt.date(2024, 3, 28))
    open_ = EventFactory(name="Utrecht Open", start_date=dt.date(2024, 3, 9), end_date=dt.date(2024, 3, 24))
    for event, day, home, away, score in [
        (league, 1, anna, bert, (1, 0)), (open_, 9, anna, cees, (1, 1)), (league, 20, anna, eva, (0, 1)),
        (open_, 24, anna, dirk, (2, 0)), (league, 28, bert, eva, (1, 1)),
    ]:
        round_ = RoundFactory(event=event, number=day, date=dt.date(2024, 3, day))
        play(round_, home, away, score, home_race="human", away_race="orc",
             at=dt.datetime(2024, 3, day, 12, tzinfo=dt.UTC))
    recalculate_all(dt.date(2024, 5, 15))
    return {"league": league, "open": open_}


def standing_of(response, name):
    found = table(response, "Standings")
    for _, cells in found["rows"]:
        if cells[1] == name:
            return dict(zip(found["header"], cells))
    raise AssertionError(name)


def test_the_published_rating_is_the_one_after_the_last_game(overlapping):
    current = CurrentRating.objects.get(system__slug="elo", coach__number=201)
    assert current.value == pytest.approx(151.69)


def test_the_event_page_gives_each_event_its_own_change_and_names_the_games_between(client, overlapping):
    league = client.get(f"/events/{overlapping['league'].pk}/")
    anna = standing_of(league, "Anna")
    # 150.00 −0.02 (league) −0.02 (the open's game on 9 March) = 149.96
    assert (anna["Change"], anna["After"]) == ("-0.02*", "149.96")
    html = league.content.decode()
    assert "1 game of" in html and "Utrecht Open</a> (-0.02)" in html
    open_ = client.get(f"/events/{overlapping['open'].pk}/")
    anna = standing_of(open_, "Anna")
    # 151.73 +1.71 (open) −1.75 (the league's game on 20 March) = 151.69
    assert (anna["Change"], anna["After"]) == ("+1.71*", "151.69")
    assert "Spring League</a> (-1.75)" in open_.content.decode()
    assert standing_of(open_, "Cees")["Change"] == "+0.02"  # no games elsewhere: no note


def test_the_breakdown_event_block_adds_up(client, overlapping):
    response = client.get(
        f"/coaches/201/breakdown/elo/?race=human&variant=blood-bowl-2020&period=event:{overlapping['open'].pk}"
    )
    block = table(response, "new rating")
    figures = dict(zip(block["header"], block["rows"][0][1]))
    assert (figures["Rl"], figures["Rn"], figures["Change"]) == ("151.73", "151.69", "+1.71")
    html = response.content.decode()
    assert "Spring League</a> (1 game, -1.75)" in html
    assert "Rl 151.73 +1.71 (this event) -1.75 = Rn 151.69." in html
    rows = table(response, "game by game")["rows"]
    assert [cells[-1] for cls, cells in rows if cls == "counted"] == ["151.71", "151.69"]  # Rn after each game


def test_a_fresh_recalculation_agrees_with_the_store(overlapping):
    diffs = verify_system(RatingSystem.objects.get(slug="elo"), today=dt.date(2024, 5, 15))
    assert (diffs.count, diffs.first) == (0, [])


def test_the_coach_page_history_ends_at_the_published_rating(client, overlapping):
    history = table(client.get("/coaches/201/?system=elo"), "rating after each event")
    # each event's rating is in force from Anna's last game there (the league's ends on 28 March)
    assert [(cells[0], cells[3], cells[5]) for _, cells in history["rows"]] == [
        ("2024-03-20", overlapping["league"].name, "149.96"),
        ("2024-03-24", overlapping["open"].name, "151.69"),
    ]
