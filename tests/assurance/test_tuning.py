"""The parameter search (issue 19, item 3): the site's engines replayed in memory per grid value,
tuned on one window and reported on a later one, stored, printed and shown; nothing configured changes."""
import dataclasses
import datetime as dt
import io
import math
import random

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.template.loader import render_to_string

from assurance.accuracy.metrics import score_log_loss
from assurance.tuning.search import GRIDS, Setup, WindowError, Windows, predictions, search, windows_for
from assurance.tuning.selectors import parameter_search_latest
from assurance.tuning.services import parameter_search_run
from assurance.verification import verify_system
from rating_engines import glicko, knsb, naf_elo
from rating_engines.common import GameRecord
from ratings import services
from ratings.models import CalculationRow, RatingSystem, Trigger
from ratings.replay import ListRules
from ratingsite.formatting import fixed
from tests.factories import CoachFactory
from tests.ratings.conftest import TODAY, add_event

ELO = Setup(naf_elo, naf_elo.EloConfig(), ListRules(glicko=False), per_race=True)
SETUPS = {
    "elo": ELO,
    "glicko": Setup(glicko, glicko.GlickoConfig(), ListRules(glicko=True), per_race=True),
    "global-glicko": Setup(glicko, glicko.GlickoConfig.global_defaults(), ListRules(glicko=True, period_days=14), per_race=False),
    "knsb": Setup(knsb, knsb.KnsbConfig(), ListRules(glicko=False), per_race=False),
}
FIRST_DAY = dt.date(2021, 1, 2)
RACES = ("human", "orc")  # each coach plays one race, so has one rating in every system


def weekly_events(weeks: int, coaches: int, per_event: int, result, *, seed: int = 19) -> list[GameRecord]:
    """One event a week of `per_event` coaches drawn from `coaches`, three rounds of random pairings;
    `result(home, away, rng)` gives each game's home score (and may remember it)."""
    rng = random.Random(seed)
    games = []
    for week in range(weeks):
        day = FIRST_DAY + dt.timedelta(weeks=week)
        present = rng.sample(range(1, coaches + 1), per_event)
        for round_number in range(3):
            rng.shuffle(present)
            for table in range(0, per_event, 2):
                home, away = present[table], present[table + 1]
                games.append(GameRecord(
                    game_id=len(games) + 1, played_at=dt.datetime.combine(day, dt.time(10 + 2 * round_number, table)),
                    event_id=week + 1, variant="blood-bowl-2020", home=home, home_race=RACES[home % 2], away=away,
                    away_race=RACES[away % 2],
                    home_score=result(home, away, rng), event_coaches=per_event, event_end=day,
                ))
    return games


def hidden_skill(coaches: int, *, seed: int = 7):
    """Results decided by a hidden skill per coach, about one game in five a draw."""
    skill = np.random.default_rng(seed).normal(0.0, 1.0, coaches + 1)

    def result(home, away, rng):
        p = 1.0 / (1.0 + math.exp(skill[away] - skill[home]))
        u = rng.random()
        return 1.0 if u < p - 0.1 else 0.0 if u > p + 0.1 else 0.5
    return result


# --- the K scale -------------------------------------------------------------------------------

def test_a_k_scale_of_one_gives_the_spec_k_and_its_worked_example_to_the_bit():
    # the spec's 4-coach event: K = 4; round 1 W–X 2-1 → 152.00 / 148.00
    game = GameRecord(1, dt.datetime(2024, 3, 2, 10), 1, "blood-bowl-2020", 1, "human", 2, "orc", 1.0, event_coaches=4)
    home, away = naf_elo.run_history([game], naf_elo.EloConfig(k_scale=1.0)).rows
    assert (home.k, home.rt, away.rt) == (4.0, 2.0, -2.0)
    assert naf_elo.k_value(20, major=False, k_scale=1.0) == 2 * math.sqrt(20) == 8.94427190999916


def test_a_k_scale_multiplies_k_before_round_k_rounds_it():
    game = GameRecord(1, dt.datetime(2024, 3, 2, 10), 1, "blood-bowl-2020", 1, "human", 2, "orc", 1.0, event_coaches=4)
    home, _ = naf_elo.run_history([game], naf_elo.EloConfig(k_scale=1.5)).rows
    assert (home.k, home.rt) == (6.0, 3.0)
    assert naf_elo.k_value(20, major=False, round_k=True, k_scale=1.5) == 13.0  # 13.416 rounded


@pytest.mark.parametrize("value", [0, -1.0, 10.5, float("nan"), True, "2"])
def test_a_k_scale_out_of_range_is_named(value):
    with pytest.raises(ValueError, match="EloConfig.k_scale"):
        naf_elo.EloConfig.from_params({"k_scale": value})


# --- the windows ---------------------------------------------------------------------------------

def test_by_default_the_evaluation_window_is_the_last_two_years():
    assert windows_for(dt.date(2022, 6, 6)) == Windows(tuning_from=None, split=dt.date(2020, 6, 6), evaluation_to=dt.date(2022, 6, 6))
    assert windows_for(dt.date(2024, 2, 29)).split == dt.date(2022, 2, 28)


@pytest.mark.parametrize("split, since, message", [
    (dt.date(2022, 6, 7), None, "after the record's last game"),
    (dt.date(2022, 5, 1), dt.date(2022, 5, 1), "must start before the split"),
])
def test_windows_that_cannot_be_searched_say_why(split, since, message):
    with pytest.raises(WindowError, match=message):
        windows_for(dt.date(2022, 6, 6), split=split, since=since)


# --- the search ----------------------------------------------------------------------------------

def test_the_search_finds_the_k_scale_that_generated_the_games():
    # Results drawn from NAF Elo itself at K scale 3 (K = 24 for 16 coaches): its own ratings are the
    # true probabilities, which no other K scale beats on average.
    truth = naf_elo.EloConfig(k_scale=3.0)
    k = naf_elo.k_value(16, major=False, k_scale=truth.k_scale)
    ratings: dict = {}
    truths = []

    def result(home, away, rng):
        r_home, r_away = ratings.get(home, 150.0), ratings.get(away, 150.0)
        p = naf_elo.win_probability(r_home, r_away)
        truths.append(p)
        draw = min(0.2, 2 * min(p, 1 - p))  # E[S] = p
        u = rng.random()
        score = 1.0 if u < p - draw / 2 else 0.0 if u > p + draw / 2 else 0.5
        ratings[home], ratings[away] = naf_elo.update(r_home, r_away, score, k), naf_elo.update(r_away, r_home, 1 - score, k)
        return score

    games = weekly_events(150, 40, 16, result)
    found = search(ELO, games, windows=windows_for(games[-1].played_at.date(), split=dt.date(2022, 7, 1)),
                   until=dt.date(2024, 1, 1))
    assert found.best in (2.0, 3.0, 4.0)
    assert [point.value for point in found.grid] == list(GRIDS["k_scale"])
    # the truth also predicts the later window better than the spec's K
    by_value = {point.value: point for point in found.grid}
    assert by_value[3.0].evaluation < by_value[1.0].evaluation
    # the games replayed at the truth give the generator's own probabilities (two rows a game, home first)
    replayed = predictions(dataclasses.replace(ELO, config=truth), games, until=dt.date(2024, 1, 1))
    assert replayed.expected[0::2].tolist() == truths


def test_the_search_reports_each_window_of_the_configured_and_the_best_value():
    games = weekly_events(60, 24, 12, hidden_skill(24))
    windows = windows_for(games[-1].played_at.date(), split=dt.date(2021, 9, 1), since=dt.date(2021, 2, 1))
    until = dt.date(2022, 6, 1)
    found = search(ELO, games, windows=windows, until=until, grid=(0.5, 2.0))
    # the configured value is always searched, beside the grid given
    assert [point.value for point in found.grid] == [0.5, 1.0, 2.0]
    scored = predictions(ELO, games, until=until)
    day = scored.day
    tuning = (day >= dt.date(2021, 2, 1).toordinal()) & (day < dt.date(2021, 9, 1).toordinal())
    evaluation = day >= dt.date(2021, 9, 1).toordinal()
    configured = found.grid[1]
    assert configured.tuning == score_log_loss(scored.expected[tuning], scored.score[tuning])
    assert configured.evaluation == score_log_loss(scored.expected[evaluation], scored.score[evaluation])
    assert found.best == min(found.grid, key=lambda point: point.tuning).value
    # a week's event is 18 games: February to August 2021 has 30 weekly events (6 Feb .. 28 Aug)
    assert (found.tuning_first, found.tuning_games) == (dt.date(2021, 2, 6), 30 * 18)
    assert found.evaluation_games == 60 * 18 - len({g.game_id for g in games if g.played_at.date() < dt.date(2021, 9, 1)})


def test_log_losses_that_differ_only_by_rounding_keep_the_configured_value():
    # three months of games: τ reaches the predictions only through the volatility of the first two
    # periods, a few 1e-11 of log loss, which is no reason to move τ from its configured 0.2
    games = weekly_events(12, 16, 8, hidden_skill(16))
    last = games[-1].played_at.date()
    found = search(SETUPS["glicko"], games, windows=windows_for(last, split=last - dt.timedelta(days=14)), until=dt.date(2022, 1, 1))
    losses = [point.tuning for point in found.grid]
    assert len(set(losses)) > 1 and max(losses) - min(losses) < 1e-9
    assert found.best == 0.2


def test_a_search_with_an_empty_tuning_window_says_so():
    games = weekly_events(4, 8, 8, hidden_skill(8))
    with pytest.raises(WindowError, match="no counted game before the split"):
        search(ELO, games, windows=Windows(None, FIRST_DAY, games[-1].played_at.date()), until=dt.date(2022, 1, 1))


@pytest.mark.parametrize("slug", list(SETUPS))
def test_changing_a_result_in_the_evaluation_window_never_changes_a_prediction_made_before_it(slug):
    setup = SETUPS[slug]
    games = weekly_events(40, 16, 8, hidden_skill(16))
    until = dt.date(2022, 1, 1)
    before = predictions(setup, games, until=until)
    # a game some weeks into the evaluation window, its result turned round
    changed = next(g for g in games if g.played_at.date() >= dt.date(2021, 8, 1) and g.home_score != 0.5)
    games[changed.game_id - 1] = dataclasses.replace(changed, home_score=1.0 - changed.home_score)
    after = predictions(setup, games, until=until)
    assert (before.game == changed.game_id).any()
    # its own expected scores, and those of every game played before it, are as they were
    assert made_before(after, changed.game_id) == made_before(before, changed.game_id)
    # ... while later ones move: the result is used, but only after its game
    assert sorted(zip(after.game.tolist(), after.expected.tolist())) != sorted(zip(before.game.tolist(), before.expected.tolist()))


def made_before(scored, game_id):
    """(game, expected score) of every prediction of games up to `game_id` (ids follow the order of play)."""
    return sorted((g, e) for g, e in zip(scored.game.tolist(), scored.expected.tolist()) if g <= game_id)


# --- over the record -----------------------------------------------------------------------------

SKILL = (3, 1, 4, 1, 5, 9, 2, 6)  # a hidden skill per coach: the stronger wins, equal ones draw
PAIRINGS = ([(0, 1), (2, 3), (4, 5), (6, 7)], [(0, 2), (1, 3), (4, 6), (5, 7)], [(0, 3), (1, 2), (4, 7), (5, 6)])


def monthly_record(first=dt.date(2022, 3, 5), months=30):
    """Eight coaches, one sanctioned event a month of two rounds (8 games), results by SKILL with an
    upset in every fifth game; and an event submitted but not sanctioned, which is never read."""
    coaches = [CoachFactory() for _ in SKILL]
    day = first
    for month in range(months):
        rounds = [PAIRINGS[(month + r) % 3] for r in range(2)]
        results = [[(h, a, upset((1, 0) if SKILL[h] > SKILL[a] else (0, 1) if SKILL[h] < SKILL[a] else (1, 1), month + i))
                    for i, (h, a) in enumerate(pairs)] for pairs in rounds]
        add_event(coaches, day, results)
        day = (day.replace(day=1) + dt.timedelta(days=32)).replace(day=5)
    add_event(coaches, dt.date(2024, 6, 12), [[(0, 1, (3, 0))]], status="submitted")
    return coaches


def upset(score, n):
    return score[::-1] if n % 5 == 4 else score


def recalculate(slug):
    system = RatingSystem.objects.get(slug=slug)
    queued = services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
    services.recalculation_execute(run_id=queued.pk, today=TODAY)
    return system


@pytest.mark.django_db
def test_a_system_at_another_k_scale_rates_with_it_and_verifies():
    monthly_record(months=3)
    RatingSystem.objects.filter(slug="elo").update(parameters={"k_scale": 2.0})
    system = recalculate("elo")
    assert set(CalculationRow.objects.filter(system=system, counted=True).values_list("k", flat=True)) == {2.0 * 2 * math.sqrt(8)}
    assert verify_system(system, today=TODAY).count == 0


@pytest.mark.django_db
def test_an_empty_record_has_nothing_to_search():
    with pytest.raises(CommandError, match="no game of a sanctioned event"):
        call_command("tune_methods", stdout=io.StringIO(), stderr=io.StringIO())


@pytest.mark.django_db
def test_the_page_shows_the_latest_search_of_each_system_with_both_windows_and_the_grid():
    monthly_record(months=8)
    elo = RatingSystem.objects.get(slug="elo")
    parameter_search_run(systems=[elo], split=dt.date(2022, 7, 1), today=TODAY)
    latest, = parameter_search_run(systems=[elo], split=dt.date(2022, 8, 1), today=TODAY)
    assert parameter_search_latest() == [latest]
    html = render_to_string("about/_parameter_search.html", {"parameter_search": parameter_search_latest()})
    assert "2022-03-05 to 2022-07-31, 40 games" in html
    assert "2022-08-01 to 2022-10-05, 24 games" in html
    for point in latest.grid:
        assert f'<th scope="row" class="num">{fixed(point["value"], 2)}</th><td class="num">{fixed(point["tuning"], 4)}</td>' in html
    assert "reported on the later evaluation window" in html
    assert "No parameter search has been stored yet" in render_to_string("about/_parameter_search.html", {"parameter_search": []})
