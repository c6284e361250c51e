"""Predictions for an event: each method's expected score of every pairing from the ratings its
engine would use before the event, and once rated the stored We against the scores.

Hand arithmetic (NAF Elo P = 1/(10^((Ropp − R)/150) + 1); Glicko-2 E = 1/(1 + exp(−g(φj)(μ − μj)/173.7178)),
g(φ) = 1/√(1 + 3(φ/173.7178)²/π²); KNSB We = Φ((R0 − Rc)/σ), σ = 2000/7):
    Elo 160 v 140: 10^(−20/150) = 0.735642, P = 1/1.735642 = 0.576156; the other side 0.423844
    Elo 160 v 150: 10^(−10/150) = 0.857696, P = 0.538301; 140 v 150: 0.461699; 150 v 150: 0.5
    Glicko 1600 v (1500, φ 100): g = 1/√(1 + 3·0.575646²/π²) = 0.953149, E = 1/(1 + e^(−0.953149·0.575646)) = 0.633829
    Glicko 1500 v (1600, φ 80): g = 0.969247, E = 1/(1 + e^(0.969247·0.575646)) = 0.364023 (the two need not add up to 1)
    KNSB 1700 v 1600: Φ(100/285.714) = Φ(0.35) = 0.636831; 1600 v 1700: 0.363169
"""
import datetime as dt

import pytest

from rating_engines.common import Reason
from rating_engines.glicko import GlickoConfig
from rating_engines.knsb import KnsbConfig
from rating_engines.naf_elo import EloConfig
from rating_pages.presenters import predictions as predictions_page
from ratings import selectors
from ratings.models import CurrentRating, Method, RatingList, RatingListEntry, RatingSystem
from ratings.selectors.predictions import expected_scores
from tests.factories import CoachFactory, EventFactory, RoundFactory, play, race, variant
from tests.roles import organiser
from tests.web.conftest import recalculate_all, table
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db

SideRating = selectors.SideRating


def test_each_method_gives_the_hand_computed_expected_scores():
    elo = expected_scores(Method.NAF_ELO, EloConfig(), SideRating(160.0), SideRating(140.0))
    assert elo == pytest.approx((0.576156, 0.423844), abs=1e-6)
    glicko = expected_scores(Method.GLICKO, GlickoConfig(), SideRating(1600.0, 80.0), SideRating(1500.0, 100.0))
    assert glicko == pytest.approx((0.633829, 0.364023), abs=1e-6)
    knsb = expected_scores(Method.KNSB, KnsbConfig(), SideRating(1700.0), SideRating(1600.0))
    assert knsb == pytest.approx((0.636831, 0.363169), abs=1e-6)


def test_the_printed_table_rounds_the_knsb_we_and_both_sides_still_add_up_to_one():
    assert expected_scores(Method.KNSB, KnsbConfig(we_table=True), SideRating(1700.0), SideRating(1600.0)) == (0.637, 0.363)


def _rate(slug: str, coach, *, race_slug=None, value=0.0, mu=None, phi=None):
    system = RatingSystem.objects.get(slug=slug)
    CurrentRating.objects.create(
        system=system, coach=coach, race=race(race_slug) if race_slug else None, variant=variant(), value=value, mu=mu, phi=phi,
        sigma=0.06 if mu is not None else None, games=10,
    )


def _list(day: dt.date, entries: dict):
    system = RatingSystem.objects.get(slug="knsb")
    rating_list = RatingList.objects.create(system=system, date=day)
    for coach, value in entries.items():
        RatingListEntry.objects.create(rating_list=rating_list, system=system, coach=coach, variant=variant(), value=value, nv=50)


@pytest.fixture
def submitted_event():
    """Four coaches with known ratings before a submitted two-round event on 2 March 2024:
    round 1 A–B, C–D; round 2 A–C, B–D. Human (A, C) against orc (B, D)."""
    a, b, c, d = (CoachFactory(name=f"Coach {letter}") for letter in "ABCD")
    _rate("elo", a, race_slug="human", value=160.0)
    _rate("elo", a, race_slug="orc", value=200.0)  # another race of A's: not his key here
    _rate("elo", b, race_slug="orc", value=140.0)
    _rate("elo", d, race_slug="orc", value=150.0)  # C has no Elo rating: he starts at 150
    _rate("glicko", a, race_slug="human", value=1400.0, mu=1600.0, phi=80.0)
    _rate("glicko", b, race_slug="orc", value=1250.0, mu=1500.0, phi=100.0)
    # C is new with humans but rated with two other races: he starts at their median μ and largest φ
    _rate("glicko", c, race_slug="dwarf", value=1525.0, mu=1700.0, phi=70.0)
    _rate("glicko", c, race_slug="wood-elf", value=1375.0, mu=1600.0, phi=90.0)
    _list(dt.date(2024, 2, 1), {b: 1550.0})
    _list(dt.date(2024, 3, 1), {a: 1700.0, b: 1600.0})  # in force on 2 March; C and D have no list rating
    _list(dt.date(2024, 4, 1), {a: 1800.0})  # after the event: not used
    event = EventFactory(name="Submitted Cup", start_date=dt.date(2024, 3, 2), status=EventStatus.SUBMITTED, organiser=organiser())
    r1, r2 = RoundFactory(event=event, number=1), RoundFactory(event=event, number=2)
    play(r1, a, b, (2, 1), home_race="human", away_race="orc")
    play(r1, c, d, (1, 1), home_race="human", away_race="orc")
    play(r2, a, c, (0, 1), home_race="human", away_race="human")
    play(r2, b, d, (2, 0), home_race="orc", away_race="orc")
    return event, (a, b, c, d)


def _column(predictions, slug: str) -> int:
    return next(i for i, column in enumerate(predictions.systems) if column.system.slug == slug)


def _we(predictions, slug: str) -> list[list[tuple]]:
    """Per round, each pairing's (home We, away We) in one system."""
    index = _column(predictions, slug)
    return [[(p.cells[index][0].we, p.cells[index][1].we) for p in r.pairings] for r in predictions.rounds]


def test_an_unrated_event_predicts_each_pairing_from_the_ratings_before_it(submitted_event):
    event, _ = submitted_event
    predictions = selectors.event_predictions(event, selectors.public_systems())
    assert not predictions.rated
    assert _we(predictions, "elo") == [
        [pytest.approx((0.576156, 0.423844), abs=1e-6), (0.5, 0.5)],
        [pytest.approx((0.538301, 0.461699), abs=1e-6), pytest.approx((0.461699, 0.538301), abs=1e-6)],
    ]
    assert _we(predictions, "glicko")[0][0] == pytest.approx((0.633829, 0.364023), abs=1e-6)
    knsb = _we(predictions, "knsb")
    assert knsb[0][0] == pytest.approx((0.636831, 0.363169), abs=1e-6)
    assert knsb[0][1] == (None, None) and knsb[1] == [(None, None), (None, None)]


def test_a_coach_without_a_rating_has_the_engines_start_value_and_knsb_none(submitted_event):
    event, (a, b, c, d) = submitted_event
    predictions = selectors.event_predictions(event, selectors.public_systems())
    a_v_c = predictions.rounds[1].pairings[0]
    elo_c = a_v_c.cells[_column(predictions, "elo")][1]
    assert (elo_c.rating.rating, elo_c.rating.start) == (150.0, True)
    glicko_c = a_v_c.cells[_column(predictions, "glicko")][1].rating
    assert (glicko_c.rating, glicko_c.phi, glicko_c.start) == (1650.0, 90.0, True)
    global_c = a_v_c.cells[_column(predictions, "global-glicko")][1].rating
    assert (global_c.rating, global_c.phi) == (1500.0, 350.0)  # pooled: no other race to start from
    home, away = a_v_c.cells[_column(predictions, "knsb")]
    assert (home.we, home.note) == (None, selectors.OPPONENT_NO_LIST_RATING)
    assert (home.rating.rating, home.rating.list_date) == (1700.0, dt.date(2024, 3, 1))
    assert (away.we, away.note) == (None, selectors.NO_LIST_RATING)


def test_each_coachs_expected_total_is_the_sum_of_his_pairings(submitted_event):
    event, (a, b, c, d) = submitted_event
    predictions = selectors.event_predictions(event, selectors.public_systems())
    elo = predictions.systems[_column(predictions, "elo")]
    totals = {t.coach: (t.total.games, t.total.we) for t in elo.coaches}
    assert totals == {
        a: (2, pytest.approx(0.576156 + 0.538301, abs=1e-6)),
        b: (2, pytest.approx(0.423844 + 0.461699, abs=1e-6)),
        c: (2, pytest.approx(0.5 + 0.461699, abs=1e-6)),
        d: (2, pytest.approx(0.5 + 0.538301, abs=1e-6)),
    }
    knsb = predictions.systems[_column(predictions, "knsb")]
    assert {t.coach: (t.total.games, t.total.we) for t in knsb.coaches} == {
        a: (1, pytest.approx(0.636831, abs=1e-6)), b: (1, pytest.approx(0.363169, abs=1e-6)), c: (0, 0.0), d: (0, 0.0),
    }


def test_byes_and_forfeits_are_not_predicted(submitted_event):
    event, (a, b, c, d) = submitted_event
    r3 = RoundFactory(event=event, number=3)
    play(r3, a, None)
    play(r3, b, c, (0, 0), home_race="orc", away_race="human", kind="forfeit")
    predictions = selectors.event_predictions(event, selectors.public_systems())
    assert (predictions.byes, predictions.forfeits) == (1, 1)
    bye, forfeit = predictions.rounds[2].pairings
    for column in range(len(predictions.systems)):
        assert (bye.cells[column][0].we, bye.cells[column][0].note) == (None, "bye")
        assert [side.note for side in forfeit.cells[column]] == ["forfeit", "forfeit"]
    elo = predictions.systems[_column(predictions, "elo")]
    assert {t.coach: t.total.games for t in elo.coaches} == {a: 2, b: 2, c: 2, d: 2}


def test_a_race_the_system_leaves_out_is_not_predicted_there(submitted_event):
    event, (a, b, c, d) = submitted_event
    r3 = RoundFactory(event=event, number=3)
    play(r3, a, d, (1, 0), home_race="human", away_race="goblin")
    predictions = selectors.event_predictions(event, selectors.public_systems())
    game = predictions.rounds[2].pairings[0]
    home, away = game.cells[_column(predictions, "global-glicko")]
    assert (home.we, home.note) == (None, Reason.RACE_EXCLUDED)
    assert predictions_page.worded_event(predictions).rounds[2].pairings[0].cells[_column(predictions, "global-glicko")][0].note == (
        "race excluded from global ranking"
    )
    assert game.cells[_column(predictions, "elo")][0].we == pytest.approx(0.538301, abs=1e-6)  # D new with goblins: 150


def test_the_calculator_predicts_two_named_coaches_from_their_ratings_as_they_stand_now(client, submitted_event):
    _, (a, b, c, d) = submitted_event
    response = client.get("/calculator/", {
        "pairing-home_coach": a.number, "pairing-home_race": "human", "pairing-away_coach": b.number,
        "pairing-away_race": "orc", "pairing-variant": "blood-bowl-2020",
    })
    assert response.status_code == 200
    found = table(response, "Expected score of Coach A (Human) against Coach B (Orc), Blood Bowl 2020")
    assert found["header"] == ["System", "Home rating", "Away rating", "Home We", "Away We"]
    assert [cells for _, cells in found["rows"]] == [
        ["NAF Elo", "160.00", "140.00", "0.576", "0.424"],
        ["NAF Glicko", "1600.00 (φ 80.00)", "1500.00 (φ 100.00)", "0.634", "0.364"],
        # no pooled ratings: both start at μ0 1500, φ0 350, so E = 1/(1 + e^0) = 0.5
        ["Global Glicko", "1500.00 (φ 350.00) start value", "1500.00 (φ 350.00) start value", "0.500", "0.500"],
        # today the list of 1 April is in force: A 1800 on it, B still 1600 from 1 March; Φ(200/285.714) = 0.758036
        ["KNSB list rating", "1800 (list of 2024-04-01)", "1600 (list of 2024-03-01)", "0.758", "0.242"],
    ]


def test_the_calculator_says_when_a_named_coach_has_no_list_rating_yet(client, submitted_event):
    _, (a, b, c, d) = submitted_event
    response = client.get("/calculator/", {
        "pairing-home_coach": c.number, "pairing-home_race": "human", "pairing-away_coach": d.number,
        "pairing-away_race": "orc", "pairing-variant": "blood-bowl-2020",
    })
    rows = {cells[0]: cells for _, cells in table(response, "Expected score of Coach C")["rows"]}
    assert rows["KNSB list rating"][3:] == ["no list rating yet", "no list rating yet"]
    assert rows["NAF Elo"][1:] == ["150.00 start value", "150.00", "0.500", "0.500"]


def test_a_rated_event_gives_the_stored_we_and_the_scores_per_round_and_for_the_event(four_coach_event):
    event, (w, x, y, z) = four_coach_event
    play(RoundFactory(event=event, number=3), w, None)
    recalculate_all()
    predictions = selectors.event_predictions(event, selectors.public_systems())
    elo = predictions.systems[_column(predictions, "elo")]
    assert elo.rated
    # everyone new at 150 (K = 4): round 1 even; W 2-1 X → 152 / 148, Y 1-1 Z; round 2 W (152) v Y (150):
    # P = 1/(10^(−2/150) + 1) = 0.507675, X (148) v Z (150): 0.492325
    assert _we(predictions, "elo") == [
        [(0.5, 0.5), (0.5, 0.5)],
        [pytest.approx((0.507675, 0.492325), abs=1e-6), pytest.approx((0.492325, 0.507675), abs=1e-6)],
        [(None, None)],
    ]
    bye = predictions.rounds[2].pairings[0].cells[_column(predictions, "elo")]
    assert [side.note for side in bye] == ["bye", "bye"]
    # round 2's favourites, W and Z, both lost
    favourites = predictions.rounds[1].favourites[_column(predictions, "elo")][1]
    assert (favourites.games, favourites.we, favourites.w) == (2, pytest.approx(1.015349, abs=1e-6), 0.0)
    totals = {t.coach: (t.total.games, t.total.we, t.total.w) for t in elo.coaches}
    assert totals == {
        w: (2, pytest.approx(1.007675, abs=1e-6), 1.0), x: (2, pytest.approx(0.992325, abs=1e-6), 1.0),
        y: (2, pytest.approx(0.992325, abs=1e-6), 1.5), z: (2, pytest.approx(1.007675, abs=1e-6), 0.5),
    }
    assert (elo.event.games, elo.event.we, elo.event.w) == (8, pytest.approx(4.0), 4.0)


def test_a_pairing_even_at_the_shown_precision_has_no_favourite():
    a, b, c, d = CoachFactory.create_batch(4)
    # 150.05 v 150: P = 1/(10^(−0.05/150) + 1) = 0.500192, shown 0.500 – 0.500: no favourite; 160 v 140: 0.576156
    for coach, value in ((a, 150.05), (b, 150.0), (c, 160.0), (d, 140.0)):
        _rate("elo", coach, race_slug="human", value=value)
    event = EventFactory(start_date=dt.date(2024, 3, 2), status=EventStatus.SUBMITTED, organiser=organiser())
    round_ = RoundFactory(event=event, number=1)
    play(round_, a, b, (1, 0), home_race="human", away_race="human")
    play(round_, c, d, (0, 1), home_race="human", away_race="human")
    predictions = selectors.event_predictions(event, selectors.public_systems())
    assert _we(predictions, "elo")[0][0] == pytest.approx((0.500192, 0.499808), abs=1e-6)
    favourites = predictions.rounds[0].favourites[_column(predictions, "elo")][1]
    assert (favourites.games, favourites.we) == (1, pytest.approx(0.576156, abs=1e-6))
