"""verify_ratings: stored figures against a fresh recalculation, and against their own rows and formulas."""
import datetime as dt

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assurance.verification import verify_system
from ratings import replay as replay_module
from ratings import services
from ratings.models import (
    CalculationRow,
    CurrentRating,
    PeriodSummary,
    Publication,
    PublishedEntry,
    RatingSystem,
    Trigger,
)
from ratings.services import publication_digest
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.ratings.conftest import add_event

pytestmark = pytest.mark.django_db

SYSTEMS = ("elo", "glicko", "global-glicko", "knsb")
PAIRINGS = [
    [(0, 1, (2, 1)), (2, 3, (1, 1)), (4, 5, (0, 1)), (6, 7, (3, 0))],
    [(0, 2, (1, 0)), (1, 3, (0, 2)), (4, 6, (1, 1)), (5, 7, (2, 2))],
    [(0, 3, (0, 0)), (1, 2, (1, 0)), (4, 7, (2, 1)), (5, 6, (0, 3))],
]


def recalculate(slug, today=None):
    system = RatingSystem.objects.get(slug=slug)
    queued = services.recalculation_request(system=system, trigger=Trigger.MANUAL, enqueue=False)
    # the command verifies as of today unless told another day
    assert services.recalculation_execute(run_id=queued.pk, today=today or dt.date.today()).status == "succeeded"


@pytest.fixture
def federation():
    """Eight coaches, an event a month for half a year (KNSB start ratings at the April list, rated
    games after), every system recalculated."""
    coaches = CoachFactory.create_batch(8)
    for month in range(1, 7):
        add_event(coaches, dt.date(2024, month, 6), PAIRINGS[month % 2:month % 2 + 2])
    for slug in SYSTEMS:
        recalculate(slug)
    return coaches


def inconsistencies(slug):
    """What the stored figures say about themselves, without any replay."""
    return verify_system(RatingSystem.objects.get(slug=slug), replayed=False, limit=50)


def test_a_clean_recalculation_verifies_in_every_system(federation, capsys):
    call_command("verify_ratings")
    out = capsys.readouterr().out
    for slug in SYSTEMS:
        assert f"{slug}: every stored figure matches a fresh recalculation" in out
        assert inconsistencies(slug).count == 0
    # the federation has what the checks are about
    assert PeriodSummary.objects.filter(system__slug="knsb", is_start=True).exists()
    assert CalculationRow.objects.filter(system__slug="knsb", counted=True, we__isnull=False).exists()


def test_a_history_rated_as_of_its_own_day_verifies_as_of_that_day_only(capsys):
    """A benchmark's history ends on a "today" of its own (its runs were given that day): verified as
    of it (--today), it matches; verified as of the calendar's today, the replay goes on to today
    (more lists, deviations decayed further) and differs."""
    coaches = CoachFactory.create_batch(8)
    for month in range(1, 7):
        add_event(coaches, dt.date(2024, month, 6), PAIRINGS[month % 2:month % 2 + 2])
    own_day = dt.date(2024, 7, 15)
    for slug in SYSTEMS:
        recalculate(slug, today=own_day)
    call_command("verify_ratings", "--today", "2024-07-15")
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if "every stored figure" in line] == [
        f"{slug}: every stored figure matches a fresh recalculation" for slug in SYSTEMS
    ]
    with pytest.raises(CommandError, match="difference\\(s\\) between the stored ratings and a fresh recalculation"):
        call_command("verify_ratings")
    out = capsys.readouterr().out
    assert "every stored figure matches" not in out


def a_counted_row(slug):
    return CalculationRow.objects.filter(system__slug=slug, counted=True, we__isnull=False).order_by("played_at", "id")[5]


@pytest.mark.parametrize("slug", SYSTEMS)
@pytest.mark.parametrize("field, change", [("we", 0.25), ("rt", 1.5)])
def test_a_tampered_calculation_row_is_named(federation, capsys, slug, field, change):
    row = a_counted_row(slug)
    CalculationRow.objects.filter(pk=row.pk).update(**{field: getattr(row, field) + change})
    with pytest.raises(CommandError, match="disagree with their own rows or formula"):
        call_command("verify_ratings", "--system", slug)
    out = capsys.readouterr().out
    assert f"{field} recomputed" in out  # the replay differs
    found = inconsistencies(slug)  # and so do the stored figures among themselves
    assert found.count and found.replayed == 0
    assert any(f"calculation row (game {row.game_id}, {row.side}" in line and f"{field} stored" in line
               for line in found.first), found.first
    assert any(f"(game {row.game_id}, {row.side}" in line for line in out.splitlines() if "stored" in line)


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_stale_published_rating_is_named(federation, capsys, slug):
    rating = CurrentRating.objects.filter(system__slug=slug).select_related("coach").order_by("coach__number").first()
    CurrentRating.objects.filter(pk=rating.pk).update(value=rating.value - 3.21)
    with pytest.raises(CommandError, match="1 stored figure"):
        call_command("verify_ratings", "--system", slug)
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.strip().startswith("current rating of"))
    assert f"current rating of coach {rating.coach.number} " in line
    assert f"value stored {rating.value - 3.21:.10g}" in line


@pytest.mark.parametrize("slug, field, named", [
    ("elo", "rl", "its first counted row's R0"),
    ("knsb", "rl", "the key's previous summary (Rn)"),
    ("glicko", "mu_before", "the previous period's mu"),
    ("global-glicko", "mu_before", "the previous period's mu"),
])
def test_a_broken_chain_is_named(federation, capsys, slug, field, named):
    summary = PeriodSummary.objects.filter(system__slug=slug, is_start=False, nt__gt=0).order_by("effective", "id").last()
    PeriodSummary.objects.filter(pk=summary.pk).update(**{field: getattr(summary, field) + 7})
    with pytest.raises(CommandError, match="disagree with their own rows or formula"):
        call_command("verify_ratings", "--system", slug)
    out = capsys.readouterr().out
    assert any(line.strip().startswith(f"summary {summary.period} of coach ") and f"{field} stored" in line
               and named in line for line in out.splitlines()), out


def test_the_elo_rating_of_a_coach_in_two_overlapping_events_is_its_rating_after_its_last_game(monkeypatch, capsys):
    """The bug the replay comparison could not see: with the published rating taken from the last
    event summary emitted (not the rating after the key's last game), the recalculation and the
    replay agree with each other; the stored rows still say otherwise."""
    coaches = CoachFactory.create_batch(7)
    league = EventFactory(name="League", start_date=dt.date(2024, 5, 1), end_date=dt.date(2024, 7, 31))
    weekend = EventFactory(name="Weekend", start_date=dt.date(2024, 5, 20), end_date=dt.date(2024, 6, 3))
    for number, (event, day, home, away, score) in enumerate([
        (weekend, dt.date(2024, 5, 20), 0, 1, (0, 1)),
        (league, dt.date(2024, 5, 24), 0, 2, (0, 1)),
        (weekend, dt.date(2024, 5, 30), 0, 3, (1, 0)),
        (weekend, dt.date(2024, 6, 3), 0, 4, (1, 0)),
        (league, dt.date(2024, 6, 20), 5, 6, (1, 0)),  # the league goes on without coach 0
    ], start=1):
        play(RoundFactory(event=event, number=number, date=day), coaches[home], coaches[away], score,
             home_race="orc", away_race="human")
    recalculate("elo")
    call_command("verify_ratings", "--system", "elo")
    assert "elo: every stored figure matches a fresh recalculation" in capsys.readouterr().out

    original = replay_module.apply_chunk
    monkeypatch.setattr(replay_module, "apply_chunk", lambda board, rows, summaries, ratings=None: original(board, rows, summaries))
    recalculate("elo")  # stale: the league's summary (after game 2) is emitted after the weekend's last games
    with pytest.raises(CommandError) as raised:
        call_command("verify_ratings", "--system", "elo")
    assert "difference(s) between the stored ratings and a fresh recalculation" not in str(raised.value)
    out = capsys.readouterr().out
    stale = CurrentRating.objects.get(system__slug="elo", coach=coaches[0])
    last = CalculationRow.objects.filter(system__slug="elo", coach=coaches[0], counted=True).order_by("played_at").last()
    assert round(last.r0 + last.rt + 1e-9, 2) != stale.value
    assert (f"current rating of coach {coaches[0].number} (orc, blood-bowl-2020): value stored {stale.value:.10g}, the "
            f"rating after its last counted game (game {last.game_id} on 2024-06-03) gives "
            f"{round(last.r0 + last.rt + 1e-9, 2):.10g}") in out


# -- published lists: each on its own, independently of the live replay --

def publishing_federation(*, monthly: bool):
    """The federation with the Glicko systems ranking phi up to 300 (at 100 eight coaches' six
    events rank no one), every list up to today published: all at once, or (`monthly`) each
    month's once that month's event was in, as a live site publishes, every list with its own
    newest game (a group of its own for the check)."""
    for system in RatingSystem.objects.filter(method="glicko"):
        RatingSystem.objects.filter(pk=system.pk).update(parameters={**system.parameters, "inactive_phi": 300.0})
    coaches = CoachFactory.create_batch(8)
    for month in range(1, 7):
        add_event(coaches, dt.date(2024, month, 6), PAIRINGS[month % 2:month % 2 + 2])
        for slug in SYSTEMS if monthly else ():
            recalculate(slug, today=dt.date(2024, month + 1, 1))
    for slug in SYSTEMS:
        recalculate(slug)
    return coaches


def a_published_entry(slug):
    """A ranked entry of the January 2025 list as published (complete, as January lists are)."""
    return PublishedEntry.objects.filter(
        publication__system__slug=slug, publication__date=dt.date(2025, 1, 1), rank__isnull=False,
    ).select_related("publication").order_by("coach_number", "race_slug").first()


def redigest(publication):
    Publication.objects.filter(pk=publication.pk).update(digest=publication_digest(publication))


def published_lines(slug, *, replayed=True):
    found = verify_system(RatingSystem.objects.get(slug=slug), replayed=replayed, limit=50)
    return found, found.first_published


def counted_replays(monkeypatch):
    """The publications' own replays, as (the games given, the day resumed from: None from the first game)."""
    from assurance.verification import published as published_module

    replays = []
    original = published_module.replay

    def counted(*args, **kwargs):
        replays.append((args[2], kwargs["start"]))
        return original(*args, **kwargs)

    monkeypatch.setattr(published_module, "replay", counted)
    return replays


def each_on_its_own(monkeypatch):
    """A replay per group of publications, from the first game: no list served by another replay
    (the live one, or the latest record's), no state kept to resume from."""
    from assurance.verification import published as published_module

    monkeypatch.setattr(published_module, "_before", lambda first, day: False)
    monkeypatch.setattr(published_module, "_KEPT_STATES", 0)

def test_reported_before_keeps_the_result_in_force_then():
    from assurance.verification.published import reported_before
    from rating_engines.common import Correction, GameRecord

    game = GameRecord(1, dt.datetime(2024, 3, 2, 10), 1, "bb", 1, "orc", 2, "human", 1.0,
                      reported_on=dt.date(2024, 3, 5),
                      corrections=(Correction(dt.date(2024, 5, 2), 0.0, "played", dt.date(2024, 3, 5)),))
    assert reported_before([game], dt.date(2024, 3, 5)) == []
    (then,) = reported_before([game], dt.date(2024, 4, 1))
    assert (then.home_score, then.corrections) == (0.0, ())
    (now,) = reported_before([game], dt.date(2024, 5, 3))
    assert now is game


def test_one_replay_serves_a_list_unless_a_game_before_its_date_differs_in_its_record():
    """The rule itself, on plain records: a list is served by the replay of the latest record unless
    a game played before its date was reported, entered or corrected between its cutoff and the latest."""
    from types import SimpleNamespace

    from assurance.verification.published import _Arrivals, _served_by_one_replay
    from rating_engines.common import Correction, GameRecord

    def game(game_id, day, **more):
        return GameRecord(game_id, dt.datetime.combine(day, dt.time(10)), 1, "blood-bowl-2020", 1, "orc", 2, "elf", 1.0,
                          **more)

    def served(games, *lists):
        groups = {(i, newest): [SimpleNamespace(pk=i, date=day, edition=1, complete=True, newest_game=newest)]
                  for i, (day, cutoff, newest) in enumerate(lists)}
        cutoffs = {key: lists[key[0]][1] for key in groups}
        found, latest = _served_by_one_replay(groups, cutoffs, _Arrivals(games))
        return sorted(found), latest

    april = (dt.date(2024, 4, 1), dt.date(2024, 4, 2), None)
    july = (dt.date(2024, 7, 1), dt.date(2024, 7, 2), None)
    march_game = dt.date(2024, 3, 20)
    plain = [game(1, dt.date(2024, 1, 10)), game(2, march_game)]
    assert served(plain, april, july) == ([0, 1], (dt.date(2024, 7, 2), None))
    assert served(plain, july) == ([0], (dt.date(2024, 7, 2), None))  # one group: its own record is the latest
    corrected = [plain[0], game(2, march_game, corrections=(Correction(dt.date(2024, 5, 10), 0.0, "played", None),))]
    assert served(corrected, april, july)[0] == [1]  # April held the old result, July the new
    assert served(corrected, (dt.date(2024, 3, 1), dt.date(2024, 3, 2), None), july)[0] == [0, 1]  # before the game
    later = [plain[0], game(2, march_game, corrections=(Correction(dt.date(2024, 8, 1), 0.0, "played", None),))]
    assert served(later, april, july)[0] == [0, 1]  # corrected after both: the same result in both
    reported = [plain[0], game(2, march_game, reported_on=dt.date(2024, 5, 10))]
    assert served(reported, april, july)[0] == [1]
    entered = (dt.date(2024, 4, 1), dt.date(2024, 4, 2), 1)
    assert served(plain, entered, (dt.date(2024, 7, 1), dt.date(2024, 7, 2), 2)) == ([1], (dt.date(2024, 7, 2), 2))
