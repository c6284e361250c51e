"""The parameter search over the stored record: the monthly record of test_tuning, built and
rated once for the module."""
import datetime as dt
import io

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assurance.accuracy.metrics import score_log_loss
from assurance.management.commands.tune_methods import describe
from assurance.tuning.search import GRIDS, Setup, predictions
from ratings import selectors
from ratings.configuration import engine_for, list_rules
from ratings.models import CalculationRow, ParameterSearch, RatingSystem
from tests.assurance.test_tuning import monthly_record, recalculate
from tests.ratings.conftest import TODAY
from tests.scopes import kept_for_the_module


@pytest.fixture(scope="module")
def record_module(django_db_setup, django_db_blocker):
    with kept_for_the_module(django_db_blocker):
        yield monthly_record()


@pytest.fixture
def record(record_module, db):
    return record_module


@pytest.mark.parametrize("slug", ["elo", "glicko", "global-glicko", "knsb"])
def test_the_replay_at_the_configured_parameters_gives_the_stored_expected_scores(record, slug):
    system = recalculate(slug)
    stored = sorted(CalculationRow.objects.filter(system=system, counted=True, we__isnull=False).values_list("game_id", "we"))
    module, config = engine_for(system)
    setup = Setup(module, config, list_rules(system, config), system.per_race)
    replayed = predictions(setup, selectors.games_from(None, reported=False), until=TODAY)
    assert len(stored) > 300
    assert sorted(zip(replayed.game.tolist(), replayed.expected.tolist())) == stored


def test_tune_methods_stores_the_search_prints_it_and_changes_no_system(record):
    elo = recalculate("elo")
    before = (list(RatingSystem.objects.values_list("slug", "parameters")), CalculationRow.objects.count())
    out = io.StringIO()
    call_command("tune_methods", "--system", "elo", "knsb", "--split", "2024-03-01", "--from", "2022-06-01",
                 stdout=out, stderr=io.StringIO())
    stored = list(ParameterSearch.objects.order_by("id"))
    assert out.getvalue() == "".join(describe(search) + "\n" for search in stored)
    elo_search, knsb_search = stored
    assert (elo_search.system.slug, elo_search.parameter, elo_search.configured) == ("elo", "k_scale", 1.0)
    assert (knsb_search.parameter, knsb_search.configured) == ("sigma", 2000 / 7)
    # June 2022 to February 2024 is 21 events, March to August 2024 six, of 8 games each
    assert (elo_search.tuning_from, elo_search.tuning_to, elo_search.tuning_games) == (dt.date(2022, 6, 5), dt.date(2024, 2, 29), 168)
    assert (elo_search.evaluation_from, elo_search.evaluation_to, elo_search.evaluation_games) == (
        dt.date(2024, 3, 1), dt.date(2024, 8, 5), 48)
    assert [point["value"] for point in elo_search.grid] == list(GRIDS["k_scale"])
    assert elo_search.best == min(elo_search.grid, key=lambda point: point["tuning"])["value"]
    # the configured value's figures are those of the recalculation's own stored rows
    rows = CalculationRow.objects.filter(system=elo, counted=True)
    for window, (first, last) in {"tuning": ((2022, 6, 1), (2024, 3, 1)), "evaluation": ((2024, 3, 1), (2024, 9, 1))}.items():
        we, w = zip(*rows.filter(played_at__gte=dt.datetime(*first, tzinfo=dt.UTC), played_at__lt=dt.datetime(*last, tzinfo=dt.UTC))
                    .values_list("we", "w"))
        assert elo_search.configured_point[window] == pytest.approx(score_log_loss(np.array(we), np.array(w)), abs=1e-12)
    assert (list(RatingSystem.objects.values_list("slug", "parameters")), CalculationRow.objects.count()) == before


def test_by_default_tune_methods_evaluates_on_the_last_two_years_of_every_active_system(record):
    RatingSystem.objects.filter(slug="global-glicko").update(active=False)
    call_command("tune_methods", stdout=io.StringIO(), stderr=io.StringIO())
    searches = {search.system.slug: search for search in ParameterSearch.objects.select_related("system")}
    assert set(searches) == {"elo", "glicko", "knsb"}
    assert {(s.evaluation_from, s.evaluation_to) for s in searches.values()} == {(dt.date(2022, 8, 5), dt.date(2024, 8, 5))}
    assert (searches["glicko"].parameter, [p["value"] for p in searches["glicko"].grid]) == ("tau", list(GRIDS["tau"]))
    # tuned on March to July 2022 (Elo: 5 events of 8 games)
    assert (searches["elo"].tuning_from, searches["elo"].tuning_games) == (dt.date(2022, 3, 5), 40)


@pytest.mark.parametrize("arguments, message", [
    (["--system", "elo", "nope"], "Unknown rating system(s) nope"),
    (["--split", "2024-13-01"], "'2024-13-01' is not a date YYYY-MM-DD"),
    (["--split", "2024-03-01", "--from", "2024-03-01"], "the tuning window must start before the split"),
    (["--split", "2024-08-06"], "the split 2024-08-06 is after the record's last game (2024-08-05)"),
    (["--split", "2022-03-05"], "no counted game before the split (2022-03-05) to tune on"),
])
def test_tune_methods_refuses_bad_input_and_stores_nothing(record, arguments, message):
    with pytest.raises(CommandError) as error:
        call_command("tune_methods", *arguments, stdout=io.StringIO(), stderr=io.StringIO())
    assert message in str(error.value)
    assert not ParameterSearch.objects.exists()
