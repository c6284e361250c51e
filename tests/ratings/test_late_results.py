"""KNSB: a result reported after the list that would have rated it was out goes into the next list,
with the ratings of the list in force when it was played (spec section 4), and the Rl-limitering
occurs as the spec's check says; a recalculation from scratch gives the lists the incremental runs
gave, because the reported dates decide where each game goes."""
import datetime as dt

import pytest
from django.utils import timezone

from assurance.verification import verify_system
from rating_engines.common import Reason
from rating_engines.knsb import expected_score
from ratings import services
from ratings.models import (
    CalculationRow,
    CurrentRating,
    PeriodSummary,
    Publication,
    PublishedEntry,
    RatingListEntry,
    RatingSystem,
    RecalculationRun,
    RunStatus,
    Trigger,
)
from ratings.selectors.breakdown import LATE_TEXT
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tournaments import services as record
from tournaments.models import EventStatus, Game

pytestmark = pytest.mark.django_db

JANUARY, LATE_GAME, FEBRUARY = dt.date(2024, 1, 13), dt.date(2024, 1, 20), dt.date(2024, 2, 17)


@pytest.fixture
def clock(monkeypatch):
    """Sets the day the services take as today (the day a sanction reports its games on)."""
    return lambda day: monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: day)


def queued(*, knsb_only: bool = True):
    runs = RecalculationRun.objects.filter(status=RunStatus.QUEUED).order_by("pk")
    return list(runs.filter(system__slug="knsb") if knsb_only else runs)


def carry_out(*, today, together: bool = False):
    """Carry out the KNSB runs the services queued (from the dates they chose), as of `today`;
    `together`: every system's at once, the games read once for all of them."""
    if together:
        services.recalculation_execute_many([r.pk for r in queued(knsb_only=False)], today=today)
    for waiting in queued():
        services.recalculation_execute(run_id=waiting.pk, today=today)


def settle_other_systems(today):
    """Carry out the other systems' runs: an event cannot change while one waits."""
    for waiting in set(queued(knsb_only=False)) - set(queued()):
        services.recalculation_execute(run_id=waiting.pk, today=today)


def from_scratch(*, today):
    system = RatingSystem.objects.get(slug="knsb")
    request = services.recalculation_request(system=system, trigger=Trigger.MANUAL, since=None, enqueue=False)
    return services.recalculation_execute(run_id=request.pk, today=today)


def sanctioned_event(name, day, pairs, *, clock, reported, django_capture_on_commit_callbacks):
    """An event of one game per round (home, away, score), sanctioned on `reported`; its runs are left queued."""
    event = EventFactory(name=name, start_date=day, end_date=day, status=EventStatus.SUBMITTED)
    for number, (home, away, score) in enumerate(pairs, start=1):
        play(RoundFactory(event=event, number=number, date=day), home, away, score, home_race="human", away_race="orc")
    clock(reported)
    with django_capture_on_commit_callbacks(execute=False):
        record.event_sanction(event=event, actor=None)
    return event


@pytest.fixture
def coaches():
    """Anna 1650, Bert 1800, Cees and Dirk 1750 on the imported list, all on 100 games (k 25)."""
    anna, bert, cees, dirk = CoachFactory.create_batch(4)
    knsb = RatingSystem.objects.get(slug="knsb")
    knsb.parameters = {**knsb.parameters, "initial_list": [
        [anna.number, 1650, 100], [bert.number, 1800, 100], [cees.number, 1750, 100], [dirk.number, 1750, 100],
    ]}
    knsb.save()
    return anna, bert, cees, dirk


def rows_of(coach, period):
    return list(CalculationRow.objects.filter(system__slug="knsb", coach=coach, period=period).order_by("played_at"))


def summary(coach, period):
    return PeriodSummary.objects.get(system__slug="knsb", coach=coach, period=period)


def published_entries(publication):
    return sorted(PublishedEntry.objects.filter(publication=publication).values_list("coach_number", "value", "nv", "rank", "games"))


def stored():
    """Every KNSB row, summary and list entry."""
    return (
        sorted(CalculationRow.objects.filter(system__slug="knsb").values_list(
            "game_id", "side", "period", "r0", "rc", "we", "k", "rt", "wx", "counted", "reason", "list_date", "depot_date")),
        sorted(PeriodSummary.objects.filter(system__slug="knsb").values_list(
            "coach_id", "period", "rl", "rn", "nt", "games_played", "wt", "wet", "rtt", "lpr", "limitation", "nv")),
        sorted(RatingListEntry.objects.filter(system__slug="knsb").values_list(
            "rating_list__date", "coach_id", "value", "nv", "rank", "change", "games_counted", "games_played")),
    )


@pytest.fixture(params=["knsb alone", "every system at once"])
def history(request, coaches, clock, django_capture_on_commit_callbacks):
    """Anna draws Bert thirty times in January and reaches 1800 (the list of 1 February, out on
    5 February, limits her to her LPR); a January draw with Cees is sanctioned on 10 February, after
    that list; she draws Dirk in February, on time. Each step runs as the site would: the last from
    the checkpoint of 1 February, for KNSB alone or with the other systems (the games read once)."""
    anna, bert, cees, dirk = coaches
    sanctioned_event("Marathon", JANUARY, [(anna, bert, (1, 1))] * 30, clock=clock, reported=JANUARY,
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 2, 5))
    sanctioned_event("Late Cup", LATE_GAME, [(anna, cees, (0, 0))], clock=clock, reported=dt.date(2024, 2, 10),
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 2, 10))
    sanctioned_event("February Cup", FEBRUARY, [(anna, dirk, (2, 2))], clock=clock, reported=dt.date(2024, 2, 18),
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 3, 5), together=request.param == "every system at once")
    settle_other_systems(dt.date(2024, 3, 5))
    return coaches


def test_the_list_after_the_late_report_rates_it_with_the_older_lists_r0_and_limits_to_rl(history):
    anna, _, cees, dirk = history
    assert summary(anna, "2024-02-01").rn == 1800  # thirty draws against 1800: LPR 1800
    late, on_time = rows_of(anna, "2024-03-01")
    assert (late.opponent_id, late.played_at.date(), late.list_date, late.r0, late.rc, late.k, late.counted) == (
        cees.pk, LATE_GAME, dt.date(2024, 1, 1), 1650, 1750, 25, True)
    assert (on_time.opponent_id, on_time.list_date, on_time.r0, on_time.rc, on_time.k) == (
        dirk.pk, dt.date(2024, 2, 1), 1800, 1750, 25)
    march = summary(anna, "2024-03-01")  # the spec's check: Rtt +1.6843, LPR 1750, Rn 1800 (Rl-limitering)
    assert (march.rl, round(march.rtt, 4), march.lpr, march.rn, march.limitation, march.nt) == (1800, 1.6843, 1750, 1800, "rl", 2)
    assert not CalculationRow.objects.filter(system__slug="knsb", game__event__name="Late Cup", period="2024-02-01").exists()


def test_the_list_out_before_the_late_report_is_kept_as_computed_and_published(coaches, clock, django_capture_on_commit_callbacks):
    anna, bert, cees, _ = coaches
    sanctioned_event("Marathon", JANUARY, [(anna, bert, (1, 1))] * 30, clock=clock, reported=JANUARY,
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 2, 5))
    february = stored()
    publication = Publication.objects.get(system__slug="knsb", date=dt.date(2024, 2, 1))
    entries = published_entries(publication)
    sanctioned_event("Late Cup", LATE_GAME, [(anna, cees, (0, 0))], clock=clock, reported=dt.date(2024, 2, 10),
                     django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    carry_out(today=dt.date(2024, 2, 10))
    assert stored() == february  # no row yet: the game waits for the list of 1 March
    assert published_entries(publication) == entries
    assert Game.objects.get(event__name="Late Cup").reported_on == dt.date(2024, 2, 10)


def test_a_recalculation_from_scratch_gives_the_lists_of_the_incremental_runs(history):
    last = RecalculationRun.objects.filter(system__slug="knsb").latest("pk")
    assert last.recomputed_from == dt.date(2024, 2, 1)  # it took the late game, played before, from the checkpoint on
    incremental = stored()
    assert verify_system(RatingSystem.objects.get(slug="knsb"), today=dt.date(2024, 3, 5)).count == 0
    assert from_scratch(today=dt.date(2024, 3, 5)).recomputed_from is None
    assert stored() == incremental


def test_a_game_reported_by_its_events_end_is_on_time_however_long_the_event_ran(coaches, clock, django_capture_on_commit_callbacks):
    """History loaded in bulk counts as reported at its event's end: its games go in the lists of their months."""
    anna, bert, _, _ = coaches
    event = EventFactory(name="Long League", start_date=JANUARY, end_date=FEBRUARY, status=EventStatus.SANCTIONED)
    play(RoundFactory(event=event, number=1, date=JANUARY), anna, bert, (1, 0), home_race="human", away_race="orc")
    play(RoundFactory(event=event, number=2, date=FEBRUARY), anna, bert, (0, 1), home_race="human", away_race="orc")
    Game.objects.filter(event=event).update(reported_on=FEBRUARY)
    from_scratch(today=dt.date(2024, 3, 5))
    assert [r.period for r in CalculationRow.objects.filter(system__slug="knsb", coach=anna).order_by("played_at")] == [
        "2024-02-01", "2024-03-01"]


def test_the_breakdown_shows_a_late_games_date_of_play_its_report_and_why_it_is_in_this_list(client, history):
    anna, _, cees, _ = history
    page = client.get(f"/coaches/{anna.number}/breakdown/knsb/?period=2024-03-01")
    assert page.status_code == 200
    items = {item.row.opponent_id: item for item in page.context["breakdown"].rows}
    late, on_time = items[cees.pk], next(item for key, item in items.items() if key != cees.pk)
    assert (late.late, on_time.late) == (1, None)
    assert (1, LATE_TEXT) in page.context["breakdown"].footnotes
    text = page.content.decode()
    assert "2024-01-20 <span class=\"depot-date\">reported 2024-02-10</span>" in text
    assert LATE_TEXT in text


@pytest.fixture
def corrected(history, clock, django_capture_on_commit_callbacks):
    """On 10 March, after the list of 1 March rated it as a draw, Anna's 2-2 with Dirk becomes a 3-2 win."""
    clock(dt.date(2024, 3, 10))
    game = Game.objects.get(event__name="February Cup")
    with django_capture_on_commit_callbacks(execute=False):
        record.game_correct(game=game, actor=None, home_touchdowns=3)
    before = stored()
    carry_out(today=dt.date(2024, 4, 3))
    settle_other_systems(dt.date(2024, 4, 3))
    return history, before, game


def test_a_correction_after_the_list_goes_forward_as_a_row_taking_the_old_result_back_and_one_with_the_new(corrected):
    (anna, _, _, dirk), before, game = corrected
    march = [r for r in stored()[0] if r[2] <= "2024-03-01"]
    assert march == [r for r in before[0] if r[2] <= "2024-03-01"]  # the list of 1 March keeps the draw
    taken_back, new = rows_of(anna, "2024-04-01")
    we = expected_score(50)
    assert (taken_back.game_id, taken_back.w, taken_back.counted, taken_back.reason, taken_back.r0, taken_back.rc,
            taken_back.k, taken_back.list_date) == (game.pk, 0.5, False, Reason.REVERSED, 1800, 1750, 25, dt.date(2024, 2, 1))
    assert taken_back.rt == pytest.approx(-25 * (0.5 - we), abs=1e-12)
    assert (new.game_id, new.w, new.counted, new.reason, new.r0, new.rc, new.k) == (game.pk, 1.0, True, "", 1800, 1750, 25)
    assert new.rt == pytest.approx(25 * (1 - we), abs=1e-12)
    april = summary(anna, "2024-04-01")  # Rtt: +12.5, both rows; Nt 1 (the new result); Nv unchanged
    assert (april.rl, round(april.rtt, 9), april.rn, april.nt, april.nv, april.limitation) == (1800, 12.5, 1813, 1, 100, "none")
    dirks = summary(dirk, "2024-04-01")
    assert (round(dirks.rtt, 9), dirks.rn) == (-12.5, dirks.rl - 12)  # round(Rl − 12.5): half away from zero
    assert CurrentRating.objects.get(system__slug="knsb", coach=anna).games == 32  # 30 + 2: the draw became a win


def test_a_recalculation_from_scratch_keeps_the_correction_where_the_incremental_run_put_it(corrected):
    incremental = stored()
    assert verify_system(RatingSystem.objects.get(slug="knsb"), today=dt.date(2024, 4, 3)).count == 0
    from_scratch(today=dt.date(2024, 4, 3))
    assert stored() == incremental


def test_a_correction_before_the_list_is_out_replaces_the_result_in_place(history, clock, django_capture_on_commit_callbacks):
    anna, _, _, _ = history
    clock(dt.date(2024, 2, 28))  # the Late Cup's 0-0 becomes 1-0 before the list of 1 March rates it
    with django_capture_on_commit_callbacks(execute=False):
        record.game_correct(game=Game.objects.get(event__name="Late Cup"), actor=None, home_touchdowns=1)
    carry_out(today=dt.date(2024, 3, 5))
    rows = rows_of(anna, "2024-03-01")
    assert [(r.w, r.counted, r.reason) for r in rows] == [(1.0, True, ""), (0.5, True, "")]
    assert not CalculationRow.objects.filter(system__slug="knsb", reason=Reason.REVERSED).exists()


def every_figure(slug):
    """Every stored row, summary, list entry and current rating of a system."""
    system = RatingSystem.objects.get(slug=slug)
    return (
        sorted(CalculationRow.objects.filter(system=system).values_list(
            "game_id", "side", "period", "r0", "rc", "we", "k", "rt", "counted", "reason")),
        sorted(PeriodSummary.objects.filter(system=system).values_list("coach_id", "race_id", "period", "rl", "rn", "nt", "mu", "phi")),
        sorted(RatingListEntry.objects.filter(system=system).values_list("rating_list__date", "coach_id", "race_id", "value", "rank")),
        sorted(CurrentRating.objects.filter(system=system).values_list("coach_id", "race_id", "value", "rank", "games")),
    )


def test_from_scratch_every_system_gives_the_live_ratings_of_the_incremental_runs(corrected):
    slugs = list(RatingSystem.objects.filter(active=True).values_list("slug", flat=True))
    assert not queued(knsb_only=False)
    incremental = {slug: every_figure(slug) for slug in slugs}
    for slug in slugs:
        request = services.recalculation_request(system=RatingSystem.objects.get(slug=slug), trigger=Trigger.MANUAL, enqueue=False)
        assert services.recalculation_execute(run_id=request.pk, today=dt.date(2024, 4, 3)).recomputed_from is None
    assert {slug: every_figure(slug) for slug in slugs} == incremental
