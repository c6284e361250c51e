"""The accuracy report: its measures by hand, its baselines learning only from earlier games, and
the report of stored rows on a history where skill decides games."""
import datetime as dt
import io
import math
import random

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from assurance.accuracy import metrics
from assurance.accuracy.report import accuracy_report_compute
from ratings.models import AccuracyRefreshRequest, AccuracyReport, CalculationRow, RatingSystem
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import staff
from tests.scopes import kept_for_the_module
from tests.web.conftest import build_league, recalculate_all
from tournaments import services as record
from tournaments.models import Event, EventStatus, Game

TODAY = dt.date(2025, 1, 15)


def test_log_loss_brier_and_the_favourite_by_hand():
    p, s = np.array([0.8, 0.5, 0.3]), np.array([1.0, 0.5, 0.0])
    # −[ln 0.8 + ln 0.5 + ln 0.7] / 3 (the draw: −[½ ln 0.5 + ½ ln 0.5] = −ln 0.5)
    assert metrics.score_log_loss(p, s) == pytest.approx((0.223144 + 0.693147 + 0.356675) / 3, abs=1e-6)
    assert metrics.brier_score(p, s) == pytest.approx((0.04 + 0 + 0.09) / 3)
    # both decisive games went the favourite's way (0.3 lost: its opponent, the favourite, won)
    assert metrics.favourite_share(p, s) == (1.0, 2)
    assert metrics.favourite_share(np.array([0.5, 0.6]), np.array([1.0, 0.0])) == (0.0, 1)


def test_calibration_bins_by_hand():
    bins = metrics.calibration(np.array([0.05, 0.15, 0.12, 0.95, 1.0]), np.array([0.0, 1.0, 0.5, 1.0, 1.0]))
    assert [b["games"] for b in bins] == [1, 2, 0, 0, 0, 0, 0, 0, 0, 2]
    assert bins[1]["expected"] == pytest.approx(0.135) and bins[1]["observed"] == pytest.approx(0.75)
    assert bins[2]["expected"] is None and bins[9]["observed"] == 1.0


def test_what_is_known_before_each_game_leaves_out_its_own_instant():
    groups, times = np.array([1, 1, 1, 2, 1]), np.array([1, 2, 2, 1, 3])
    sums, counts = metrics.before_each(groups, times, np.array([1.0, 2.0, 4.0, 8.0, 16.0]))
    assert sums.tolist() == [0, 1, 1, 0, 7] and counts.tolist() == [0, 1, 1, 0, 3]


def test_the_race_table_starts_at_one_half_and_learns_both_ways_round():
    # orc (2) beats human (1), then human meets orc again, then orc meets human
    expected = metrics.race_table_expected(np.array([2, 1, 2]), np.array([1, 2, 1]), np.array([1, 2, 3]), np.array([1.0, 0.0, 1.0]))
    prior = metrics.RACE_PRIOR_GAMES
    assert expected[0] == 0.5
    assert expected[1] == pytest.approx((0 + prior / 2) / (1 + prior))  # human's record against orc: one loss
    assert expected[2] == pytest.approx((2 + prior / 2) / (2 + prior))  # orc: a win, and human's loss


def test_the_outcome_log_loss_with_the_draw_model_by_hand():
    # p 0.6, P(draw) 0.2: win 0.5, draw 0.2, loss 0.3
    loss = metrics.outcome_log_loss(np.array([0.6, 0.6, 0.6]), np.array([0.2, 0.2, 0.2]), np.array([1.0, 0.5, 0.0]))
    assert loss == pytest.approx(-(math.log(0.5) + math.log(0.2) + math.log(0.3)) / 3)
    first = metrics.draw_rate_expected(np.array([0.5, 0.5]), np.array([1, 2]), np.array([0.5, 1.0]))
    prior = metrics.DRAW_PRIOR_RATE * metrics.DRAW_PRIOR_GAMES
    assert first.tolist() == pytest.approx([prior / metrics.DRAW_PRIOR_GAMES, (1 + prior) / (1 + metrics.DRAW_PRIOR_GAMES)])


def test_the_figures_of_a_group_add_up_from_its_cells():
    p, s = np.array([0.8, 0.5, 0.3, 0.6]), np.array([1.0, 0.5, 1.0, 0.0])
    draw = np.full(4, 0.2)
    sums = metrics.cell_sums(p, draw, s, np.array([0, 1, 0, 1]), 2)
    whole, first = metrics.figures(sums.sum(axis=1)), metrics.figures(sums[:, 0])
    assert whole["log_loss"] == pytest.approx(metrics.score_log_loss(p, s))
    assert whole["brier"] == pytest.approx(metrics.brier_score(p, s))
    assert whole["outcome_log_loss"] == pytest.approx(metrics.outcome_log_loss(p, draw, s))
    # decisive with a favourite: 0.8 won, 0.3 won (the favourite lost), 0.6 lost: one of three
    assert (whole["favourite_share"], whole["decisive"]) == (pytest.approx(1 / 3), 3)
    assert (first["log_loss"], first["favourite_share"]) == (pytest.approx((-math.log(0.8) - math.log(0.3)) / 2), 0.5)


def test_the_report_of_one_event_by_hand(db):
    build_league()
    recalculate_all(TODAY)
    elo = RatingSystem.objects.get(slug="elo")
    report = accuracy_report_compute(system=elo, start=dt.date(2024, 3, 2), end=dt.date(2024, 3, 2))
    # The Dutch Open (K = 2·√4 = 4), each game from its home side: round 1 Anna v Bert 0.5, won; Cees
    # v Dirk 0.5, drawn. Round 2 Anna (152) v Cees (150): p = 1/(10^(−2/150) + 1) = 0.507675, lost;
    # Bert (148) v Dirk (150): 1 − p, won.
    p = 1 / (10 ** (-2 / 150) + 1)
    assert (report["games"], report["draws"], report["first"], report["last"]) == (4, 0.25, "2024-03-02", "2024-03-02")
    method = report["overall"]["method"]
    # −ln 0.5 for the first two (a draw at 0.5 costs ½·ln 2 twice), −ln(1 − p) for each of the others
    assert method["log_loss"] == pytest.approx((2 * math.log(2) - 2 * math.log(1 - p)) / 4)
    assert method["brier"] == pytest.approx((0.25 + 0 + p**2 + p**2) / 4)
    # two decisive games with a favourite (0.5 names none), both lost by it: Anna at p, Dirk at p against Bert
    assert (method["favourite_share"], method["decisive"]) == (0.0, 2)
    low, high = report["calibration"][4], report["calibration"][5]
    assert (low["games"], low["observed"]) == (1, 1.0) and low["expected"] == pytest.approx(1 - p)
    assert (high["games"], high["observed"]) == (3, 0.5) and high["expected"] == pytest.approx((0.5 + 0.5 + p) / 3)
    assert sum(b["games"] for b in report["calibration"]) == 4
    even = report["overall"]["even"]
    assert (even["log_loss"], even["brier"], even["favourite_share"]) == (pytest.approx(math.log(2)), 0.1875, None)
    # first meetings of human and orc at one instant, then two mirror matches: 0.5 every time
    assert report["overall"]["race_table"]["log_loss"] == pytest.approx(math.log(2))
    assert [(g["label"], g["games"]) for g in report["splits"]["major"]] == [("Other events", 4)]


def skill_league() -> dict:
    """Sixteen coaches whose hidden skill decides their games (seeded), over twelve monthly events."""
    rng = random.Random(7)
    coaches = [CoachFactory(number=500 + i, name=f"Coach {i}") for i in range(16)]
    skill = {c.pk: i / 15 for i, c in enumerate(coaches)}
    for month in range(12):
        event = EventFactory(name=f"League {month}", start_date=dt.date(2024, 1 + month, 6), is_major=month % 4 == 0)
        for number in range(1, 4):
            order = coaches[:]
            rng.shuffle(order)
            round_ = RoundFactory(event=event, number=number)
            for a, b in zip(order[::2], order[1::2]):
                edge = skill[a.pk] - skill[b.pk] + rng.uniform(-0.5, 0.5)
                score = (1, 0) if edge > 0.15 else (0, 1) if edge < -0.15 else (1, 1)
                play(round_, a, b, score, home_race="human", away_race="orc")
    return {"coaches": coaches}


@pytest.fixture(scope="module")
def league_module(django_db_setup, django_db_blocker):
    with kept_for_the_module(django_db_blocker):
        built = skill_league()
        recalculate_all(TODAY)
        yield built


@pytest.fixture
def league(league_module, db):
    return league_module


def test_every_method_beats_one_half_and_an_oracle_beats_every_method(league):
    oracle_beaten = []
    for system in RatingSystem.objects.filter(active=True):
        report = accuracy_report_compute(system=system)
        assert report["games"] > 100
        overall = report["overall"]
        assert overall["even"]["log_loss"] == pytest.approx(math.log(2))
        assert overall["method"]["log_loss"] < overall["even"]["log_loss"], system.slug
        assert overall["method"]["brier"] < overall["even"]["brier"], system.slug
        assert overall["race_table"]["log_loss"] > overall["method"]["log_loss"], system.slug
        # an oracle knows the result: 1 or 0, and 0.5 for a draw
        rows = CalculationRow.objects.filter(system=system, counted=True, side="home", we__isnull=False)
        scores = np.array(rows.values_list("w", flat=True))
        oracle_beaten.append(metrics.score_log_loss(scores, scores) < overall["method"]["log_loss"])
        assert sum(b["games"] for b in report["calibration"]) == report["games"]
        assert sum(g["games"] for g in report["splits"]["year"]) == report["games"]
        assert {g["label"] for g in report["splits"]["major"]} == {"Majors", "Other events"}
    assert all(oracle_beaten)


def test_a_corrected_result_never_changes_its_own_prediction(league):
    elo = RatingSystem.objects.get(slug="elo")
    game = Game.objects.filter(event__name="League 11").order_by("pk").first()
    before = {row.side: row.we for row in CalculationRow.objects.filter(system=elo, game=game)}
    record.game_correct(game=game, actor=staff(), home_touchdowns=game.away_touchdowns + 2, away_touchdowns=0)
    recalculate_all(TODAY)
    after = {row.side: row.we for row in CalculationRow.objects.filter(system=elo, game=game)}
    assert after == before
    report = accuracy_report_compute(system=elo, start=dt.date(2024, 12, 1))
    assert report["games"] == Game.objects.filter(event__name="League 11").count()


def test_an_event_no_longer_public_leaves_the_report(league):
    elo = RatingSystem.objects.get(slug="elo")
    games = accuracy_report_compute(system=elo)["games"]
    Event.objects.filter(name="League 3").update(status=EventStatus.SUBMITTED)
    hidden = Game.objects.filter(event__name="League 3").count()
    assert accuracy_report_compute(system=elo)["games"] == games - hidden


def test_a_window_is_computed_on_demand_and_not_stored(league):
    out = io.StringIO()
    call_command("evaluate_methods", "--system", "elo", "--from", "2024-06-01", "--to", "2024-08-31", stdout=out)
    assert "2024-06-01 to 2024-08-31" in out.getvalue()
    assert not AccuracyReport.objects.exists()


@pytest.mark.parametrize("arguments, message", [
    (["--system", "nope"], "No rating system “nope”"),
    (["--from", "2024-13-01"], "is not a date"),
    (["--from", "2024-06-01", "--to", "2024-05-01"], "is after --to"),
])
def test_bad_command_input_is_refused(db, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("evaluate_methods", *arguments, stdout=io.StringIO())


def test_each_run_refreshes_the_stored_report(league):
    from ratings import services
    from ratings.models import Trigger
    from ratings.tasks import recalculate

    elo = RatingSystem.objects.get(slug="elo")
    run = services.recalculation_request(system=elo, trigger=Trigger.MANUAL, since=None, enqueue=False)
    recalculate.apply(args=[run.pk])
    stored = AccuracyReport.objects.get(system=elo)
    assert stored.run_id == run.pk and stored.figures == accuracy_report_compute(system=elo)
    assert not AccuracyRefreshRequest.objects.exists()  # refreshed at once (no broker): nothing owed


def test_the_accuracy_page_shows_the_latest_parameter_search(league, client):
    call_command("tune_methods", "--system", "elo", "--split", "2024-09-01", stdout=io.StringIO())
    page = client.get("/about/accuracy/").content.decode()
    assert 'id="parameter-search-elo"' in page and "K scale" in page


def test_the_recalculate_command_refreshes_the_report_of_every_system_it_ran(league):
    call_command("recalculate", stdout=io.StringIO())
    stored = {report.system.slug: report for report in AccuracyReport.objects.select_related("system", "run")}
    assert set(stored) == set(RatingSystem.objects.filter(active=True).values_list("slug", flat=True))
    assert all(report.run.system_id == report.system_id and report.run.status == "succeeded" for report in stored.values())
    assert stored["elo"].figures == accuracy_report_compute(system=RatingSystem.objects.get(slug="elo"))
    assert not AccuracyRefreshRequest.objects.exists()
