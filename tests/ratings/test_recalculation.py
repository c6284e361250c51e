"""Recalculation: recompute forward from stored state, every figure stored, all or nothing."""
import datetime as dt
import pickle

import lz4.frame
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from assurance.verification import verify_system
from rating_engines.common import Correction, GameRecord, RecordColumns
from ratings import services
from ratings.models import (
    CalculationRow,
    CurrentRating,
    CurrentSnapshot,
    EngineCheckpoint,
    PeriodSummary,
    RatingList,
    RatingListEntry,
    RatingSystem,
    RecalculationRun,
    ReplayTail,
    RunStatus,
    Trigger,
)
from ratings.replay import boundaries, months_between
from ratings.services import execution, storage, workers
from tests.factories import CoachFactory
from tests.ratings.conftest import TODAY, add_event
from tournaments import services as record

pytestmark = pytest.mark.django_db


def run(slug, since=None, today=TODAY):
    system = RatingSystem.objects.get(slug=slug)
    queued = services.recalculation_request(system=system, trigger=Trigger.MANUAL, since=since, enqueue=False)
    return services.recalculation_execute(run_id=queued.pk, today=today)


def queued_runs(slugs, since=None) -> list[int]:
    """A queued manual run of each system, as the command queues them."""
    return [
        services.recalculation_request(system=RatingSystem.objects.get(slug=slug), trigger=Trigger.MANUAL, since=since, enqueue=False).pk
        for slug in slugs
    ]


def current(slug):
    return {
        (c.coach.name, c.race.slug if c.race else None): (round(c.value, 2), c.rank, c.games)
        for c in CurrentRating.objects.filter(system__slug=slug).select_related("coach", "race")
    }


def everything(slug):
    """A fingerprint of every stored figure of a system."""
    system = RatingSystem.objects.get(slug=slug)
    return (
        sorted(CalculationRow.objects.filter(system=system).values_list(
            "game_id", "side", "r0", "rc", "we", "k", "rt", "counted", "reason"
        )),
        sorted(PeriodSummary.objects.filter(system=system).values_list("coach_id", "period", "rl", "rn", "nt", "mu", "phi")),
        sorted(CurrentRating.objects.filter(system=system).values_list("coach_id", "race_id", "value", "rank", "games")),
        sorted(RatingList.objects.filter(system=system).values_list("date", "rated", "ranked")),
    )


def test_four_systems_exist_after_migrate_with_the_spec_defaults():
    systems = {s.slug: s for s in RatingSystem.objects.all()}
    assert set(systems) == {"elo", "glicko", "global-glicko", "knsb"}
    assert (systems["elo"].method, systems["elo"].per_race) == ("naf_elo", True)
    assert (systems["glicko"].method, systems["glicko"].parameters) == ("glicko", {"period": "month"})
    assert systems["global-glicko"].per_race is False
    assert sorted(systems["global-glicko"].excluded_races.values_list("slug", flat=True)) == ["goblin", "halfling", "ogre"]
    assert (systems["knsb"].method, systems["knsb"].per_race) == ("knsb", False)


def test_elo_recalculation_reproduces_the_four_coach_example(four_coach_event):
    finished = run("elo")
    assert finished.status == RunStatus.SUCCEEDED
    assert finished.games_processed == 4
    ratings = current("elo")
    # Everyone new at 150, K = 4. Round 1: W 152.00, X 148.00, Y = Z = 150.00.
    # Round 2: W (152) loses to Y (150): P_W = 0.507675 → 149.97 / 152.03; X (148) beats Z (150) → 150.03 / 147.97.
    assert ratings == {
        ("W", "human"): (149.97, 2, 2), ("X", "orc"): (150.03, 1, 2),
        ("Y", "human"): (152.03, 1, 2), ("Z", "orc"): (147.97, 2, 2),
    }
    rows = CalculationRow.objects.filter(system__slug="elo", counted=True)
    assert rows.count() == 8
    assert {round(r.k, 6) for r in rows} == {4.0}


def test_open_play_keeps_a_footnoted_row_and_counts_for_no_one_and_a_private_event_has_no_row():
    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date(2024, 3, 2), [[(0, 1, (1, 0))]], status="open_play")
    add_event(coaches, dt.date(2024, 3, 9), [[(0, 1, (1, 0))]], status="submitted")
    run("elo")
    rows = list(CalculationRow.objects.filter(system__slug="elo").values_list("counted", "reason", "game__event__status"))
    assert rows == [(False, "event_not_sanctioned", "open_play"), (False, "event_not_sanctioned", "open_play")]
    assert CurrentRating.objects.filter(system__slug="elo").count() == 0


def test_monthly_lists_are_published_on_the_first_with_ranks_and_starters():
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date(2024, 3, 2), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    run("elo")
    lists = list(RatingList.objects.filter(system__slug="elo").order_by("date"))
    assert [rating_list.date for rating_list in lists] == [dt.date(2024, m, 1) for m in range(4, 10)]
    april = lists[0]
    assert (april.rated, april.ranked, april.starters) == (4, 4, 4)
    top = april.entries.order_by("rank").first()
    assert (top.coach_id, top.rank) == (coaches[0].pk, 1)


def test_a_backdated_event_gives_exactly_what_a_full_recompute_gives():
    coaches = CoachFactory.create_batch(6)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1))]])
    add_event(coaches, dt.date(2024, 6, 8), [[(0, 2, (1, 0)), (1, 3, (0, 2)), (4, 5, (1, 1))]])
    for slug in ("elo", "glicko", "global-glicko", "knsb"):
        run(slug)
    late = add_event(coaches, dt.date(2024, 4, 13), [[(0, 5, (0, 3)), (1, 4, (1, 0)), (2, 3, (2, 2))]], status="submitted")
    record.event_sanction(event=late, actor=None)
    incremental = {}
    for slug in ("elo", "glicko", "global-glicko", "knsb"):
        finished = run(slug, since=dt.date(2024, 4, 13))
        assert finished.recomputed_from == dt.date(2024, 4, 1)  # the quarter's checkpoint
        incremental[slug] = everything(slug)
        assert verify_system(RatingSystem.objects.get(slug=slug), today=TODAY).count == 0
    for slug in ("elo", "glicko", "global-glicko", "knsb"):
        run(slug)
        assert everything(slug) == incremental[slug]


def test_sanctioning_an_event_through_the_service_changes_the_rankings(django_capture_on_commit_callbacks):
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date(2024, 3, 2), [[(0, 1, (2, 0)), (2, 3, (1, 0))]])
    run("elo", today=dt.date.today())
    before = current("elo")
    event = add_event(coaches, dt.date(2024, 4, 6), [[(0, 1, (0, 3)), (2, 3, (1, 0))]], status="submitted")
    with django_capture_on_commit_callbacks(execute=True):
        record.event_sanction(event=event, actor=None)
    runs = RecalculationRun.objects.filter(trigger=Trigger.SANCTIONED)
    assert runs.count() == 4
    assert set(runs.values_list("status", flat=True)) == {RunStatus.SUCCEEDED}
    after = current("elo")
    assert after[(coaches[0].name, "human")][0] < before[(coaches[0].name, "human")][0]
    assert after[(coaches[0].name, "human")][2] == 2


def test_a_recalculation_made_to_fail_midway_leaves_everything_as_before(monkeypatch):
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    add_event(coaches, dt.date(2024, 5, 11), [[(0, 2, (1, 0)), (1, 3, (0, 2))]])
    run("elo")
    stored = everything("elo")
    checkpoints = list(EngineCheckpoint.objects.values_list("as_of", flat=True))

    def failing(*args, **kwargs):  # summaries and list entries written, current ratings next
        raise RuntimeError("disk full")

    monkeypatch.setattr(storage, "_replace_current", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        run("elo")
    failed = RecalculationRun.objects.order_by("-id").first()
    assert failed.status == RunStatus.FAILED
    assert "disk full" in failed.error
    assert everything("elo") == stored
    assert list(EngineCheckpoint.objects.values_list("as_of", flat=True)) == checkpoints


@pytest.mark.postgresql
def test_a_full_run_on_postgresql_swaps_in_fresh_partitions_and_a_failed_swap_keeps_the_old_ones(monkeypatch):
    from django.db import connection

    from ratings import partitions

    assert partitions.partitioned()
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    add_event(coaches, dt.date(2024, 5, 11), [[(0, 2, (1, 0)), (1, 3, (0, 2))]])
    system = RatingSystem.objects.get(slug="elo")

    def held(model) -> tuple[int, int]:
        """(rows in the system's own partition, rows of the system left in the default one)"""
        table = model._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*) FROM {partitions.partition_name(model, system.pk)}")
            own = cursor.fetchone()[0]
            cursor.execute(f"SELECT count(*) FROM {table}_default WHERE system_id = %s", [system.pk])
            return own, cursor.fetchone()[0]

    run("elo")
    assert held(CalculationRow) == (8, 0)
    assert held(PeriodSummary) == (PeriodSummary.objects.filter(system=system).count(), 0)
    with connection.cursor() as cursor:  # written frozen: every page all-visible, none to write again
        cursor.execute("SELECT relname, relpages, relallvisible FROM pg_class WHERE relname = ANY(%s)",
                       [[partitions.partition_name(model, system.pk) for model in partitions.PARTITIONED]])
        pages = cursor.fetchall()
    assert len(pages) == 3 and all(total > 0 and visible == total for _, total, visible in pages), pages
    stored = everything("elo")
    real = partitions.FreshPartitions.swap

    def swap_then_fail(self):
        real(self)
        raise RuntimeError("connection lost")

    monkeypatch.setattr(partitions.FreshPartitions, "swap", swap_then_fail)
    with pytest.raises(RuntimeError, match="connection lost"):
        run("elo")
    assert everything("elo") == stored
    assert held(CalculationRow) == (8, 0)
    with connection.cursor() as cursor:  # the failed run's fresh tables are gone
        cursor.execute("SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname LIKE %s", [f"ratings_%_s{system.pk}\\_r%"])
        assert cursor.fetchone()[0] == 0
    monkeypatch.setattr(partitions.FreshPartitions, "swap", real)
    add_event(coaches, dt.date(2024, 6, 8), [[(0, 3, (1, 1))]])
    run("elo", since=dt.date(2024, 6, 8))  # a partial run writes through the parent into the same partition
    assert held(CalculationRow) == (10, 0)
    assert verify_system(system, today=TODAY).count == 0


@pytest.mark.postgresql
def test_a_partial_run_rewrites_only_the_current_ratings_that_changed_and_distrusts_a_stale_snapshot():
    coaches = CoachFactory.create_batch(6)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1))]])
    run("elo")
    ratings = CurrentRating.objects.filter(system__slug="elo")
    assert CurrentSnapshot.objects.get(system__slug="elo").rows == ratings.count() == 6

    def stored():
        return {
            (r.coach_id, r.race.slug): (r.pk, *(getattr(r, name) for name in storage.CURRENT_FIELDS[4:]))
            for r in ratings.select_related("race")
        }

    def places():
        with connection.cursor() as cursor:
            cursor.execute("SELECT id, ctid::text FROM ratings_currentrating")
            return dict(cursor.fetchall())

    def updates():  # this transaction's updates of the current ratings, and of them those that touched no index
        with connection.cursor() as cursor:
            cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = 'ratings_currentrating'")
            return cursor.fetchone()

    before, placed, updated = stored(), places(), updates()
    add_event(coaches, dt.date(2024, 6, 8), [[(0, 2, (1, 0))]])
    run("elo", since=dt.date(2024, 6, 8))
    after, moved = stored(), places()
    changed = {k for k in before if before[k][1:] != after[k][1:]}
    value, rank = (1 + storage.CURRENT_FIELDS[4:].index(name) for name in ("value", "rank"))
    # the value the same, and ranked before and after (the generated `ranked`, indexed, the same)
    ranks_only = {k for k in changed if before[k][value] == after[k][value] and (before[k][rank] is None) == (after[k][rank] is None)}
    assert (coaches[0].pk, "human") in changed and (coaches[0].pk, "human") not in ranks_only
    assert len(ranks_only) >= 2
    assert after.keys() - before.keys() == {(coaches[2].pk, "orc")}
    assert all(after[c][0] == before[c][0] for c in before)  # each stored key keeps its row ...
    assert all(moved[before[c][0]] == placed[before[c][0]] for c in before if c not in changed)  # ... untouched
    assert all(moved[before[c][0]] != placed[before[c][0]] for c in changed)  # ... or updated
    # an update of the ranks alone touches no index (no index holds a rank): a HOT update
    assert tuple(b - a for a, b in zip(updated, updates())) == (len(changed), len(ranks_only))
    assert verify_system(RatingSystem.objects.get(slug="elo"), today=TODAY).count == 0

    ratings.filter(coach=coaches[5]).delete()  # as a merge does: the snapshot no longer describes the stored rows
    run("elo", since=dt.date(2024, 6, 8))
    assert stored().keys() == after.keys()
    assert verify_system(RatingSystem.objects.get(slug="elo"), today=TODAY).count == 0


def one_game_rated(slug):
    """Two coaches, one game between them on 2 March 2024, rated in `slug`: (the coaches, its current ratings)."""
    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date(2024, 3, 2), [[(0, 1, (2, 0))]])
    run(slug)
    return coaches, CurrentRating.objects.filter(system__slug=slug)


@pytest.mark.postgresql
def test_a_key_taken_for_stored_but_deleted_by_hand_is_written_again():
    coaches, ratings = one_game_rated("elo")
    first = ratings.get(coach=coaches[0])
    values = ratings.filter(pk=first.pk).values_list(*storage.CURRENT_FIELDS).get()
    first.delete()
    moved = (*values[:10], 7, 7, *values[12:])  # rank and overall rank
    other = ratings.filter(coach=coaches[1]).values_list(*storage.CURRENT_FIELDS).get()
    assert storage._update_current(first.system_id, [moved, other]) == 2
    assert ratings.filter(coach=coaches[0]).values_list(*storage.CURRENT_FIELDS).get() == moved
    assert ratings.count() == 2


@pytest.mark.postgresql
def test_a_full_run_removes_a_pooled_key_stored_twice():
    coaches, ratings = one_game_rated("global-glicko")
    stored = everything("global-glicko")
    twin = ratings.get(coach=coaches[0])
    twin.pk = None  # the unique constraint lets a key whose race is none be stored twice
    twin.save()
    assert ratings.count() == 3
    run("global-glicko")
    assert ratings.count() == 2
    assert everything("global-glicko") == stored


def test_running_the_same_run_twice_changes_nothing():
    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date(2024, 3, 2), [[(0, 1, (2, 0))]])
    finished = run("elo")
    stored = everything("elo")
    again = services.recalculation_execute(run_id=finished.pk, today=TODAY)
    assert (again.status, again.finished_at) == (RunStatus.SUCCEEDED, finished.finished_at)
    assert everything("elo") == stored


def test_verify_ratings_reports_a_tampered_row_and_exits_non_zero(capsys):
    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date(2024, 3, 2), [[(0, 1, (2, 0))]])
    run("elo", today=dt.date.today())
    call_command("verify_ratings", "--system", "elo")
    assert "every stored figure matches" in capsys.readouterr().out
    CalculationRow.objects.filter(system__slug="elo", side="home").update(rt=9.99)
    with pytest.raises(CommandError, match="1 difference"):
        call_command("verify_ratings", "--system", "elo")
    assert "rt recomputed" in capsys.readouterr().out


def test_changing_a_systems_parameters_is_validated_and_recomputes(django_capture_on_commit_callbacks):
    system = RatingSystem.objects.get(slug="elo")
    with pytest.raises(Exception, match="bogus"):
        services.rating_system_update(system=system, actor=None, parameters={"bogus": 1})
    system.refresh_from_db()
    assert system.parameters == {}
    with django_capture_on_commit_callbacks(execute=True):
        services.rating_system_update(system=system, actor=None, parameters={"round_k": True})
    assert RecalculationRun.objects.filter(trigger=Trigger.PARAMETERS, status=RunStatus.SUCCEEDED).count() == 1


def test_export_ratings_prints_the_ranking_as_csv_now_and_as_of_a_date(capsys):
    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date(2024, 3, 2), [[(0, 1, (2, 0))]])
    add_event(coaches, dt.date(2024, 5, 4), [[(0, 1, (0, 1))]])
    run("elo", today=dt.date.today())
    call_command("export_ratings", "--system", "elo")
    now = capsys.readouterr().out.splitlines()
    assert now[0] == "coach_number,coach,race,variant,rating,mu,phi,sigma,rank,games"
    # Two events of one game each, K = 2·√2: a win takes 150 to 151.41, then a loss to the coach on 148.59
    # (P = 0.5432) to 149.97. Nothing counted in the last 24 months: no rank today.
    first = coaches[0]
    assert f"{first.number},{first.name},Human,Blood Bowl 2020,149.97,,,,,2" in now
    call_command("export_ratings", "--system", "elo", "--as-of", "2024-04-01", "--variant", "Blood Bowl 2020")
    april = capsys.readouterr().out.splitlines()
    assert f"{first.number},{first.name},Human,Blood Bowl 2020,151.41,,,,1,1" in april
    with pytest.raises(CommandError, match="Unknown rating system 'nope'"):
        call_command("export_ratings", "--system", "nope")


def test_complete_lists_and_checkpoints_are_kept_on_their_dates():
    today = dt.date(2026, 11, 30)
    complete, keep = services.complete_list(today), services.checkpoint_dates(today)
    assert complete(dt.date(2009, 1, 1)) and not keep(dt.date(2009, 1, 1))
    assert complete(dt.date(2021, 1, 1)) and not keep(dt.date(2021, 1, 1))
    assert complete(dt.date(2024, 1, 1)) and not keep(dt.date(2024, 1, 1))
    assert complete(dt.date(2025, 1, 1)) and keep(dt.date(2025, 1, 1))  # 1 January of the last two years
    assert not complete(dt.date(2025, 9, 1)) and not keep(dt.date(2025, 9, 1))
    assert complete(dt.date(2025, 10, 1)) and keep(dt.date(2025, 10, 1))
    # within the year: the last three month starts, and quarter starts before them
    assert complete(dt.date(2026, 6, 1)) and not keep(dt.date(2026, 6, 1))
    assert complete(dt.date(2026, 7, 1)) and keep(dt.date(2026, 7, 1))
    assert [day.month for day in (dt.date(2026, m, 1) for m in range(1, 12)) if keep(day)] == [1, 4, 7, 8, 9, 10, 11]
    assert complete(dt.date(2026, 11, 1)) and keep(dt.date(2026, 11, 1))


@pytest.mark.parametrize("slug", ["elo", "glicko", "knsb"])
def test_a_checkpoint_written_while_the_engines_were_ratings_engines_still_resumes(slug):
    """Checkpoints stored before the engines left the ratings app name their classes
    ratings.engines.*: a run resumes from them and gives the figures a fresh run gives."""
    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    add_event(coaches, dt.date(2024, 5, 11), [[(0, 2, (1, 0)), (1, 3, (0, 2))]])
    add_event(coaches, dt.date(2024, 8, 10), [[(0, 3, (1, 1)), (1, 2, (2, 1))]])
    run(slug)
    fresh = everything(slug)
    checkpoints = EngineCheckpoint.objects.filter(system__slug=slug, as_of__lte=dt.date(2024, 8, 1))
    assert checkpoints.exists()
    for checkpoint in checkpoints:
        ledger = pickle.loads(lz4.frame.decompress(bytes(checkpoint.state)))
        old = pickle.dumps(ledger, protocol=2).replace(b"rating_engines.", b"ratings.engines.")  # names as text
        assert b"ratings.engines." in old
        checkpoint.state = lz4.frame.compress(old)
        checkpoint.save(update_fields=["state"])
    assert run(slug, since=dt.date(2024, 8, 1)).status == RunStatus.SUCCEEDED
    assert everything(slug) == fresh


@pytest.mark.parametrize("today", [dt.date(2025, 1, 1), *boundaries(dt.date(2025, 1, 1), dt.date(2025, 12, 1))])
def test_a_correction_within_the_complete_lists_replays_at_most_two_months_before_its_own(today):
    """Lists of the last 13 months are complete; a correction in any of them replays from a
    checkpoint at most two months before its own month (on 2025-01-01 one of December 2023 from
    2023-10-01, not from 1 January 2023), and no quarter start older than that is kept."""
    keep = services.checkpoint_dates(today)
    days = [dt.date(2022, 1, 1), *boundaries(dt.date(2022, 1, 1), today)]
    kept = [day for day in days if keep(day)]
    for day in days:
        if months_between(day, today) <= execution.RECENT_MONTHS:
            assert months_between(max(d for d in kept if d <= day), day) <= 2, day
    quarters = [day for day in kept if day.month != 1]
    assert months_between(quarters[0], today) <= execution.RECENT_MONTHS + 2


def test_the_command_reads_the_games_once_for_every_system_and_gives_what_separate_runs_give(monkeypatch, capsys):
    coaches = CoachFactory.create_batch(6)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1))]])
    add_event(coaches, dt.date(2024, 6, 8), [[(0, 2, (1, 0)), (1, 3, (0, 2)), (4, 5, (1, 1))]])
    separate = {}
    for slug in ("elo", "glicko", "global-glicko", "knsb"):
        run(slug, today=dt.date.today())
        separate[slug] = everything(slug)
    from ratings import selectors

    reads = []
    real = selectors.history.record_columns  # every read of the games goes through it
    counting = lambda **kw: reads.append(kw) or real(**kw)  # noqa: E731
    monkeypatch.setattr(selectors.history, "record_columns", counting)
    call_command("recalculate")
    assert len(reads) == 1
    printed = capsys.readouterr().out
    assert all(f"{slug}: run" in printed and "succeeded" in printed for slug in ("elo", "glicko", "knsb"))
    for slug in separate:
        assert everything(slug) == separate[slug]
        assert "games read once" in RecalculationRun.objects.filter(system__slug=slug).latest("id").log


def test_games_read_before_another_run_finished_are_read_again(monkeypatch):
    from ratings import selectors

    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    system = RatingSystem.objects.get(slug="elo")
    history = selectors.game_history([system], None)
    assert (history.start, len(history.games)) == (None, 2)
    assert [g.game_id for g in history.since(dt.date(2024, 2, 1))] == []
    add_event(coaches, dt.date(2024, 5, 11), [[(0, 2, (1, 0))]])
    run("elo")  # finishes after the history was read: it may have seen games the history has not
    queued = services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
    finished = services.recalculation_execute(run_id=queued.pk, today=TODAY, history=history)
    assert finished.games_processed == 3
    assert "games read once" not in finished.log


@pytest.mark.django_db(transaction=True)
def test_runs_of_several_systems_two_at_a_time_give_what_one_at_a_time_gives():
    from django.db import connection

    coaches = CoachFactory.create_batch(6)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1))]])
    add_event(coaches, dt.date(2024, 6, 8), [[(0, 2, (1, 0)), (1, 3, (0, 2)), (4, 5, (1, 1))]])
    slugs = ("elo", "glicko", "global-glicko", "knsb")

    one_at_a_time = services.recalculation_execute_many(queued_runs(slugs), today=TODAY, jobs=1)
    alone = {slug: everything(slug) for slug in slugs}
    together = services.recalculation_execute_many(queued_runs(slugs), today=TODAY, jobs=2)
    assert [str(run) for run in together if isinstance(run, Exception)] == []
    assert [run.system.slug for run in one_at_a_time] == [run.system.slug for run in together] == list(slugs)
    assert {run.status for run in together} == {RunStatus.SUCCEEDED}
    assert {slug: everything(slug) for slug in slugs} == alone
    if connection.vendor == "postgresql":  # processes, each with a connection of its own
        assert len({run.log for run in together}) == 4


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_runs_whose_games_cannot_be_read_are_recorded_as_failed_and_nothing_changes(monkeypatch):
    from ratings import selectors

    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0))]])
    run("elo")
    before = everything("elo")
    run_ids = queued_runs(("elo", "glicko"))

    def unreadable(**kwargs):
        raise RuntimeError("the games table is gone")

    monkeypatch.setattr(selectors.history, "record_columns", unreadable)
    with pytest.raises(RuntimeError, match="the games table is gone"):
        services.recalculation_execute_many(run_ids, today=TODAY, jobs=2)
    failed = RecalculationRun.objects.filter(pk__in=run_ids)
    assert {r.status for r in failed} == {RunStatus.FAILED}
    assert all("the games table is gone" in r.error for r in failed)
    assert everything("elo") == before


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_run_whose_process_dies_is_recorded_as_failed_and_the_others_still_succeed(monkeypatch):
    import os
    import signal

    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0))]])
    run_ids = queued_runs(("elo", "glicko"))
    real = services.recalculation_execute

    def killed_on_elo(*, run_id, **kwargs):
        if run_id == run_ids[0]:
            os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's out-of-memory killer would
        return real(run_id=run_id, **kwargs)

    monkeypatch.setattr(execution, "recalculation_execute", killed_on_elo)
    elo, glicko = services.recalculation_execute_many(run_ids, today=TODAY, jobs=2)
    assert isinstance(elo, services.RecalculationFailed) and "ended abnormally" in str(elo)
    assert RecalculationRun.objects.get(pk=run_ids[0]).status == RunStatus.FAILED
    assert glicko.status == RunStatus.SUCCEEDED
    assert CurrentRating.objects.filter(system__slug="glicko").count() == 2
    assert not CurrentRating.objects.filter(system__slug="elo").exists()


def test_runs_carried_out_together_start_with_the_longest_expected():
    from django.utils import timezone

    systems = {slug: RatingSystem.objects.get(slug=slug) for slug in ("elo", "glicko", "global-glicko", "knsb")}
    finished = timezone.now()
    # the last full runs: knsb took longest, then elo; glicko's only full run is older than a partial one
    for slug, since, seconds, age in [
        ("elo", None, 29.0, 1), ("glicko", None, 27.0, 2), ("glicko", dt.date(2024, 6, 1), 1.0, 1),
        ("knsb", None, 31.5, 1), ("knsb", None, 10.0, 5),
    ]:
        RecalculationRun.objects.create(
            system=systems[slug], trigger=Trigger.MANUAL, from_date=since, status=RunStatus.SUCCEEDED, duration=seconds,
            finished_at=finished - dt.timedelta(hours=age),
        )
    RecalculationRun.objects.create(system=systems["elo"], trigger=Trigger.MANUAL, status=RunStatus.FAILED, duration=99.0)
    full = [RecalculationRun.objects.create(system=system, trigger=Trigger.MANUAL) for system in systems.values()]
    assert [RecalculationRun.objects.get(pk=pk).system.slug for pk in workers._longest_first(full)] == [
        "knsb", "elo", "glicko", "global-glicko",  # never run: last
    ]
    partial = RecalculationRun.objects.create(system=systems["glicko"], trigger=Trigger.MANUAL, from_date=dt.date(2024, 6, 1))
    other = RecalculationRun.objects.create(system=systems["elo"], trigger=Trigger.MANUAL, from_date=dt.date(2024, 7, 1))
    # the same date's run (1 s) for glicko; elo has none from 1 July, so its last run (29 s)
    assert workers._longest_first([partial, other]) == [other.pk, partial.pk]


def test_a_swap_builds_indexes_without_parallel_workers_only_while_other_runs_go_on():
    from ratings import partitions

    elo, glicko = RatingSystem.objects.get(slug="elo"), RatingSystem.objects.get(slug="glicko")
    own = RecalculationRun.objects.create(system=elo, trigger=Trigger.MANUAL, status=RunStatus.RUNNING)
    fresh = partitions.FreshPartitions(elo.pk, own.pk)
    assert not fresh._others_running()  # alone: PostgreSQL's workers may help on the idle cores
    RecalculationRun.objects.create(system=glicko, trigger=Trigger.MANUAL, status=RunStatus.SUCCEEDED)
    assert not fresh._others_running()
    RecalculationRun.objects.create(system=glicko, trigger=Trigger.MANUAL, status=RunStatus.RUNNING)
    assert fresh._others_running()


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_a_run_whose_earlier_attempt_lost_its_process_starts_again_on_fresh_tables():
    from ratings import partitions

    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0))]])
    elo = RatingSystem.objects.get(slug="elo")
    queued = services.recalculation_request(system=elo, trigger=Trigger.MANUAL, enqueue=False)
    RecalculationRun.objects.filter(pk=queued.pk).update(status=RunStatus.RUNNING)
    partitions.FreshPartitions(elo.pk, queued.pk).create()  # what the lost attempt left
    assert services.recalculation_execute(run_id=queued.pk, today=TODAY).status == RunStatus.SUCCEEDED
    assert CurrentRating.objects.filter(system=elo).count() == 2


def test_a_run_that_cannot_begin_is_recorded_as_failed(monkeypatch):
    from ratings import partitions

    def broken(self):
        raise RuntimeError("no room for the fresh tables")

    monkeypatch.setattr(partitions, "partitioned", lambda: True)
    monkeypatch.setattr(partitions.FreshPartitions, "create", broken)
    queued = services.recalculation_request(system=RatingSystem.objects.get(slug="elo"), trigger=Trigger.MANUAL, enqueue=False)
    with pytest.raises(RuntimeError):
        services.recalculation_execute(run_id=queued.pk, today=TODAY)
    queued.refresh_from_db()
    assert queued.status == RunStatus.FAILED and "no room for the fresh tables" in queued.error


def test_a_knsb_imported_list_names_coaches_by_number_and_one_added_later_replays_from_the_start():
    coaches = CoachFactory.create_batch(2)
    knsb = RatingSystem.objects.get(slug="knsb")
    knsb.parameters = {
        **knsb.parameters,
        "initial_list": [[coaches[0].number, 1800, 40], [coaches[1].number, 1700, 40], [999999, 1600, 40]],
    }
    knsb.save()
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0))]])
    add_event(coaches, dt.date(2024, 6, 8), [[(0, 1, (0, 1))]])
    run("knsb")
    first = CalculationRow.objects.filter(system=knsb, coach=coaches[0]).order_by("played_at").first()
    assert (first.r0, first.rc, first.counted) == (1800.0, 1700.0, True)  # rated from the imported list
    CoachFactory(number=999999)  # the listed coach joins the record: the engine's configuration changes
    finished = run("knsb", since=dt.date(2024, 6, 8))
    assert finished.status == RunStatus.SUCCEEDED and finished.recomputed_from is None
    assert "made with other parameters" in finished.log
    assert verify_system(knsb, today=TODAY).count == 0


def test_the_command_records_who_asked(capsys):
    from django.contrib.auth.models import User

    sam = User.objects.create_user("sam")
    call_command("recalculate", system="elo", user="sam")
    run = RecalculationRun.objects.get(system__slug="elo")
    assert run.requested_by == sam and run.trigger == Trigger.MANUAL
    assert run.reason.startswith("requested from the command line (manage.py recalculate by ")
    with pytest.raises(CommandError, match="There is no account 'nobody'"):
        call_command("recalculate", system="elo", user="nobody")
    assert RecalculationRun.objects.count() == 1


def test_the_command_can_hand_its_runs_to_the_workers_as_one_group(monkeypatch, capsys):
    from ratings.services import requests

    sent = []
    monkeypatch.setattr(requests, "group", lambda tasks: type("Sent", (), {"apply_async": lambda self: sent.append(
        [task.args[0] for task in tasks])})())
    call_command("recalculate", "--enqueue", since=dt.date(2024, 1, 1))
    runs = list(RecalculationRun.objects.order_by("pk"))
    assert sent == [[run.pk for run in runs]] and len(runs) == RatingSystem.objects.filter(active=True).count()
    assert {run.status for run in runs} == {RunStatus.QUEUED}  # the workers carry them out
    assert f"elo: run {runs[0].pk} queued from 2024-01-01" in capsys.readouterr().out


def test_a_run_logs_its_start_end_and_duration_and_a_failure(caplog, monkeypatch):
    import logging

    coaches = CoachFactory.create_batch(2)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0))]])
    with caplog.at_level(logging.INFO, logger="ratings"):
        finished = run("elo")
    messages = [r.getMessage() for r in caplog.records if r.name == "ratings.services.execution"]
    assert messages[0] == f"run {finished.pk} of elo started, from the first game (manual)"
    assert messages[-1] == f"run {finished.pk} of elo succeeded in {finished.duration:.1f} s: 1 games, {finished.rows_written} rows"
    caplog.clear()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(execution, "_recalculate", broken)
    with caplog.at_level(logging.INFO, logger="ratings"), pytest.raises(RuntimeError):
        run("elo")
    failed = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(failed) == 1 and " of elo failed after " in failed[0].getMessage() and failed[0].exc_info


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_where_autovacuum_is_off_a_partial_run_vacuums_the_partitions_its_deletes_grew_past_its_threshold(monkeypatch):
    from django.db import connection

    from ratings import partitions

    coaches = CoachFactory.create_batch(10)
    games = [(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1)), (6, 7, (1, 0)), (8, 9, (2, 2))]
    for month in range(10):  # 2023-11 to 2024-08, before TODAY
        add_event(coaches, dt.date(2023 + (10 + month) // 12, (10 + month) % 12 + 1, 13), [games])
    table = partitions.partition_name(CalculationRow, RatingSystem.objects.get(slug="elo").pk)

    def stats() -> tuple[int, bool]:
        """(dead rows, vacuumed by hand) of the system's calculation rows, as the server counts them"""
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_force_next_flush()")
            cursor.execute("SELECT n_dead_tup, last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relname = %s", [table])
            return cursor.fetchone()

    monkeypatch.setattr(partitions, "autovacuum_on", lambda: False)  # as on the machines here
    run("elo")  # fresh partitions: nothing dead
    add_event(coaches, dt.date(2024, 8, 6), [games])  # before August's event: its rows change
    run("elo", since=dt.date(2024, 8, 6))  # the rows that changed: below 50 + 20 % of 110
    dead, vacuumed = stats()
    assert dead == 6 and not vacuumed  # the two draws between equals changed no one's rating
    monkeypatch.setattr(partitions, "autovacuum_on", lambda: True)
    run("elo", since=dt.date(2024, 1, 13))  # 90 rows replaced: its server's autovacuum would see to them
    assert stats() == (dead + 90, False)
    monkeypatch.setattr(partitions, "autovacuum_on", lambda: False)
    run("elo", since=dt.date(2024, 1, 13))
    assert stats() == (0, True)
    assert verify_system(RatingSystem.objects.get(slug="elo"), today=TODAY).count == 0


@pytest.mark.postgresql
@pytest.mark.django_db(transaction=True)
def test_runs_carried_out_together_vacuum_the_tables_all_systems_share_once_after_the_last():
    from django.db import connection

    coaches = CoachFactory.create_batch(6)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1))]])
    add_event(coaches, dt.date(2024, 6, 8), [[(0, 2, (1, 0)), (1, 3, (0, 2)), (4, 5, (1, 1))]])
    slugs = ("elo", "glicko", "global-glicko", "knsb")
    tables = [model._meta.db_table for model in (CurrentRating, CurrentSnapshot, EngineCheckpoint, ReplayTail)]

    def vacuums() -> dict[str, tuple[int, int]]:
        """(manual vacuums, dead rows) of each shared table, as the server counts them"""
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_force_next_flush()")
            cursor.execute("SELECT relname, vacuum_count, n_dead_tup FROM pg_stat_user_tables WHERE relname = ANY(%s)", [tables])
            return {name: (count, dead) for name, count, dead in cursor.fetchall()}

    run("elo")  # alone: its own vacuum
    before = vacuums()
    assert all(dead == 0 for _, dead in before.values())
    add_event(coaches, dt.date(2024, 6, 22), [[(0, 3, (2, 1)), (1, 4, (0, 0))]])
    for jobs in (2, 1):  # in processes, and one after the other
        # every system replaces current ratings and its snapshot
        done = services.recalculation_execute_many(queued_runs(slugs, since=dt.date(2024, 6, 22)), today=TODAY, jobs=jobs)
        assert {run.status for run in done} == {RunStatus.SUCCEEDED}
        after = vacuums()
        assert {name: (count - before[name][0], dead) for name, (count, dead) in after.items()} == dict.fromkeys(tables, (1, 0))
        before = after
    assert verify_system(RatingSystem.objects.get(slug="knsb"), today=TODAY).count == 0


@pytest.mark.postgresql
def test_a_window_of_games_reads_what_the_whole_record_holds_and_leaves_the_connections_planning_as_it_was():
    from django.db import connection

    from ratings.selectors import history

    coaches = CoachFactory.create_batch(4)
    add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
    late = add_event(coaches, dt.date(2024, 2, 10), [[(0, 2, (1, 0))]])
    add_event(coaches, dt.date(2024, 6, 8), [[(1, 3, (0, 2))]])
    late.games.update(reported_on=dt.date(2024, 6, 20))  # played in February, reported in June
    since = dt.datetime(2024, 6, 1)

    window = history.game_records(since=since, reported_since=since.date())

    whole = history.game_records()
    assert [g.game_id for g in window] == [g.game_id for g in whole if g.played_at >= since or g.game_id in
                                           set(late.games.values_list("id", flat=True))]
    assert len(window) == 2
    with connection.cursor() as cursor:
        cursor.execute("SHOW cursor_tuple_fraction")
        assert cursor.fetchone()[0] == "0.1"


def _as_recorded(game, coaches_in_event: int) -> GameRecord:
    """What the engines should read for `game`, from the ORM's objects: the reference for record_columns."""
    def score(home_td, away_td):
        return 1.0 if home_td > away_td else 0.0 if home_td < away_td else 0.5

    corrections = tuple(
        Correction(c.corrected_on, score(c.home_touchdowns, c.away_touchdowns), c.kind, c.reported_on)
        for c in game.corrections.order_by("id")
    )
    event, away_race = game.event, game.away_race
    return GameRecord(
        game.id, game.played_at.astimezone(dt.UTC).replace(tzinfo=None), event.id, event.variant.slug, game.home_coach_id,
        game.home_race.slug, game.away_coach_id, away_race.slug if away_race else None,
        score(game.home_touchdowns, game.away_touchdowns), coaches_in_event, event.is_major, event.status == "sanctioned",
        game.home_race.ranked, bool(away_race and away_race.ranked), game.kind, game.conceded_by, event.end_date,
        corrections[0].reported_on if corrections else game.reported_on, corrections,
    )


def test_the_games_read_as_columns_are_the_games_as_recorded_whole_and_in_a_window():
    from ratings.selectors import history
    from tests.factories import RoundFactory, play
    from tournaments.models import Game, GameCorrection, Race

    coaches = CoachFactory.create_batch(5)
    first = add_event(coaches, dt.date(2024, 1, 13), [[(0, 1, (2, 0)), (2, 3, (1, 1))], [(0, 2, (0, 1)), (1, 3, (3, 1))]])
    bye = play(RoundFactory(event=first, number=3, date=dt.date(2024, 1, 13)), coaches[4], None)
    add_event(coaches, dt.date(2024, 3, 2), [[(0, 4, (1, 0))]], status="open_play", races=("orc", "human"))
    late = add_event(coaches, dt.date(2024, 6, 8), [[(1, 4, (0, 2)), (0, 3, (1, 1))]])
    add_event(coaches, dt.date(2024, 7, 6), [[(1, 2, (0, 0))]], status="submitted")  # not public: never read
    unranked = Race.objects.create(slug="ogre-of-the-test", name="Ogre of the test", ranked=False)
    Game.objects.filter(pk=bye.pk).update(reported_on=None)
    Game.objects.filter(event=late).update(reported_on=dt.date(2024, 8, 2))
    conceded = Game.objects.filter(event=late).order_by("id").first()
    Game.objects.filter(pk=conceded.pk).update(conceded_by="away", away_race=unranked)
    corrected = Game.objects.filter(event=first).exclude(pk=bye.pk).order_by("id").last()
    for day, reported in ((dt.date(2024, 2, 1), dt.date(2024, 1, 14)), (dt.date(2024, 7, 20), dt.date(2024, 2, 1))):
        GameCorrection.objects.create(game=corrected, corrected_on=day, home_touchdowns=0, away_touchdowns=2, kind="played",
                                      reported_on=reported)
    Game.objects.filter(pk=corrected.pk).update(reported_on=dt.date(2024, 7, 20))  # as the correction service leaves it
    public = Game.objects.filter(event__status__in=["sanctioned", "open_play"]).order_by("played_at", "id")
    sides = {e: {c for g in public.filter(event=e) for c in (g.home_coach_id, g.away_coach_id) if c} for e in
             public.values_list("event_id", flat=True)}
    expected = [_as_recorded(g, len(sides[g.event_id])) for g in public.select_related("event__variant", "home_race", "away_race")]
    assert len(expected) == 8 and any(g.corrections for g in expected) and any(g.away is None for g in expected)

    whole = history.record_columns()
    assert list(whole) == expected == history.game_records()
    since = dt.datetime(2024, 6, 1)
    window = history.record_columns(since=since, reported_since=since.date())
    reported_since = [g for g in expected if g.played_at >= since or (g.corrections[-1].corrected_on if g.corrections
                                                                      else g.reported_on or dt.date.min) >= since.date()]
    assert [g.game_id for g in window] == [g.game_id for g in reported_since] and len(window) == 3
    assert list(window) == reported_since  # N of a window's events counted from their sides: the same figures
    from ratings.selectors import GameHistory

    for day in (dt.date(2024, 1, 14), since.date(), dt.date(2024, 7, 1)):
        for reported in (False, True):
            as_list = GameHistory(None, expected, timezone.now(), reported=True).since(day, reported=reported)
            as_columns = GameHistory(None, whole, timezone.now(), reported=True).since(day, reported=reported)
            assert isinstance(as_columns, RecordColumns) and list(as_columns) == as_list


def _month_with_an_event_at_its_end(coaches) -> None:
    """July and August events, then the run of all four systems as of TODAY (2024-09-15), then an
    event on 31 August: rated from the checkpoint of 1 August, its list of 1 September drawn again."""
    round_ = [(0, 1, (2, 0)), (2, 3, (1, 1)), (4, 5, (0, 1)), (6, 7, (1, 0))]
    add_event(coaches, dt.date(2024, 7, 13), [round_, [(0, 2, (1, 0)), (1, 3, (0, 0)), (4, 6, (2, 1)), (5, 7, (0, 2))]])
    add_event(coaches, dt.date(2024, 8, 10), [round_])
    for slug in ("elo", "glicko", "global-glicko", "knsb"):
        run(slug)
    add_event(coaches, dt.date(2024, 8, 31), [[(0, 1, (0, 1))]])


@pytest.mark.postgresql
@pytest.mark.parametrize("slug", ["elo", "glicko", "global-glicko", "knsb"])
def test_an_event_at_the_end_of_a_month_writes_what_a_full_run_writes(slug):
    coaches = CoachFactory.create_batch(8)
    _month_with_an_event_at_its_end(coaches)
    partial = run(slug, since=dt.date(2024, 8, 31))
    assert partial.recomputed_from == dt.date(2024, 8, 1)
    # its games all come after the last rated one (10 August): the run goes on from the state there
    assert "from the stored state at its last rated game" in partial.log
    assert partial.games_processed == 1
    after = everything(slug)
    assert verify_system(RatingSystem.objects.get(slug=slug), today=TODAY).count == 0
    full = run(slug)
    assert everything(slug) == after
    assert 0 < partial.rows_written < full.rows_written


@pytest.mark.postgresql
def test_an_event_at_the_end_of_a_month_rewrites_only_the_rows_it_changes():
    coaches = CoachFactory.create_batch(8)
    _month_with_an_event_at_its_end(coaches)
    elo = RatingSystem.objects.get(slug="elo")
    rows = dict(CalculationRow.objects.filter(system=elo).values_list("pk", "game__event__start_date"))
    september = RatingList.objects.get(system=elo, date=dt.date(2024, 9, 1))
    entries = dict(RatingListEntry.objects.filter(rating_list=september).values_list("coach_id", "pk"))

    def pks(model) -> set[int]:
        return set(model.objects.filter(system=elo).values_list("pk", flat=True))

    def current_ratings() -> dict[int, tuple]:
        return {pk: values for pk, *values in CurrentRating.objects.filter(system=elo).values_list("pk", *storage.CURRENT_FIELDS)}

    summaries, current = pks(PeriodSummary), current_ratings()
    partial = run("elo", since=dt.date(2024, 8, 31))

    after = dict(CalculationRow.objects.filter(system=elo).values_list("pk", "game__event__start_date"))
    # August's earlier games are rated as before: their rows stay; the new game's two are added
    assert after.keys() - rows.keys() == {pk for pk, day in after.items() if day == dt.date(2024, 8, 31)}
    assert len(after) == len(rows) + 2 and rows.keys() <= after.keys()
    assert RatingList.objects.get(system=elo, date=dt.date(2024, 9, 1)).pk == september.pk
    moved = {c.pk for c in coaches[:2]}  # the two who played: their entries change
    now = dict(RatingListEntry.objects.filter(rating_list=september).values_list("coach_id", "pk"))
    assert now.keys() == entries.keys() and all(now[c] != entries[c] for c in moved)
    kept = {c for c in entries if now[c] == entries[c]}
    assert kept and kept.isdisjoint(moved)
    # August's summaries stay but the new event's; written: what is new, and nothing else
    new_summaries, now_current = pks(PeriodSummary) - summaries, current_ratings()
    assert len(new_summaries) == 2 and summaries - pks(PeriodSummary) == set()
    assert now_current.keys() == current.keys()  # the same keys: each row updated in place or untouched
    updated = {pk for pk in current if now_current[pk] != current[pk]}
    assert {now_current[pk][1] for pk in updated} >= moved
    assert partial.rows_written == 2 + len(new_summaries) + len(entries) - len(kept) + len(updated)
