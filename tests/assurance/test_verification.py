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
    RatingList,
    RatingListEntry,
    RatingSystem,
    Trigger,
)
from ratings.services import publication_digest
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.ratings.conftest import add_event
from tournaments import services as record

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


@pytest.fixture
def published(db):
    return publishing_federation(monthly=False)


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


def test_every_publication_has_the_digest_of_its_entries(published):
    publications = Publication.objects.all()
    assert publications.count() >= 4 * 5
    for publication in publications:
        assert len(publication.digest) == 64
        assert publication.digest == publication_digest(publication)
    for slug in SYSTEMS:
        found, lines = published_lines(slug)
        assert found.published == 0, lines


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_published_value_raised_by_one_is_named(published, capsys, slug):
    entry = a_published_entry(slug)
    PublishedEntry.objects.filter(pk=entry.pk).update(value=entry.value + 1)
    with pytest.raises(CommandError, match="published figure"):
        call_command("verify_ratings", "--system", slug)
    out = capsys.readouterr().out
    named = f"published list of 2025-01-01 entry of coach {entry.coach_number} ({entry.race_slug or 'all races'}, "
    assert "published list of 2025-01-01: digest stored" in out
    # caught without the digest too: by the replay of the games reported before its publication
    redigest(entry.publication)
    found, lines = published_lines(slug)
    assert any(line.startswith(named) and f"value published {entry.value + 1:.10g}, the games reported before " in line
               and f"give {entry.value:.10g}" in line for line in lines), lines


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_published_rank_changed_by_one_is_caught_by_the_rank_check(published, slug):
    entry = a_published_entry(slug)
    PublishedEntry.objects.filter(pk=entry.pk).update(rank=entry.rank + 1)
    redigest(entry.publication)  # the digest cannot see it: the ranks must
    found, lines = published_lines(slug, replayed=False)
    assert found.replayed == 0
    assert any(f"entry of coach {entry.coach_number} (" in line and f"rank published {entry.rank + 1}, its value " in line
               and f"among the list's ranked entries gives {entry.rank}" in line for line in lines), lines


def test_a_glicko_entry_ranked_above_the_inactive_limit_is_named(published):
    entry = a_published_entry("glicko")
    PublishedEntry.objects.filter(pk=entry.pk).update(phi=350.0)
    redigest(entry.publication)
    found, lines = published_lines("glicko", replayed=False)
    assert any(f"entry of coach {entry.coach_number} (" in line and "its phi 350 is above the inactive limit 300" in line
               for line in lines), lines


def test_a_tampered_digest_is_named(published, capsys):
    publication = Publication.objects.get(system__slug="elo", date=dt.date(2024, 5, 1))
    Publication.objects.filter(pk=publication.pk).update(digest="0" * 64)
    with pytest.raises(CommandError, match="1 published figure"):
        call_command("verify_ratings", "--system", "elo")
    out = capsys.readouterr().out
    assert f"published list of 2024-05-01: digest stored {'0' * 64}, its entries and counts as stored now give " \
           f"{publication.digest}" in out


def test_a_list_with_a_late_report_still_verifies(published, capsys, django_capture_on_commit_callbacks):
    """A backdated event sanctioned after the lists were published: the live lists are revised, the
    published ones keep their figures, which are those of the games reported before."""
    coaches = published
    late = add_event(coaches, dt.date(2024, 3, 20), [[(0, 7, (3, 0)), (1, 6, (2, 0))]], status="submitted")
    with django_capture_on_commit_callbacks():
        record.event_sanction(event=late, actor=None)
    for slug in SYSTEMS:
        recalculate(slug)
    published = PublishedEntry.objects.get(publication__system__slug="elo", publication__date=dt.date(2024, 4, 1),
                                           coach_number=coaches[0].number)
    live = RatingListEntry.objects.get(system__slug="elo", rating_list__date=dt.date(2024, 4, 1), coach=coaches[0])
    assert live.value > published.value  # revised live, kept as published
    call_command("verify_ratings")
    out = capsys.readouterr().out
    for slug in SYSTEMS:
        assert f"{slug}: every stored figure matches a fresh recalculation" in out


def test_history_loaded_after_the_lists_were_published_was_not_in_them(published):
    """Games loaded in bulk count as reported at their event's end, before lists published since:
    a list holds only the games on record when it was computed (Publication.newest_game)."""
    from tournaments.models import Game

    newest = Game.objects.order_by("-pk").values_list("pk", flat=True).first()
    assert set(Publication.objects.values_list("newest_game", flat=True)) == {newest}
    add_event(published, dt.date(2024, 3, 20), [[(0, 7, (3, 0)), (1, 6, (2, 0))]])  # sanctioned, reported 2024-03-20
    for slug in SYSTEMS:
        recalculate(slug)
        found, lines = published_lines(slug)
        assert found.published == 0, lines
    elo = RatingSystem.objects.get(slug="elo")
    Publication.objects.filter(system=elo).update(newest_game=None)  # unknown: the report dates alone judge
    found, lines = published_lines("elo")
    assert found.published > 0 and any("the games reported before" in line for line in lines), lines


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


@pytest.mark.parametrize("slug", ["elo", "knsb"])
def test_a_ranked_entry_without_a_game_in_the_inactive_months_is_named(published, slug):
    entry = a_published_entry(slug)
    idle = CoachFactory()  # no game: the inactive rule gives him no rank
    PublishedEntry.objects.filter(pk=entry.pk).update(coach_number=idle.number)
    redigest(entry.publication)
    found, lines = published_lines(slug, replayed=False)
    assert lines == [
        f"published list of 2025-01-01 entry of coach {idle.number} ({entry.race_slug or 'all races'}, "
        f"{entry.variant_slug}): ranked {entry.rank}, but the key has no counted game in the 24 months before the list "
        "(from 2023-01-01): the inactive rule gives no rank"]


def test_lists_dated_after_the_day_verified_are_checked_by_their_own_replay(published, monkeypatch):
    """Verified as of an earlier day (`verify_ratings --today`), the live replay draws no list after
    it: the publications dated later are replayed up to their own date, as each on its own is."""
    system = RatingSystem.objects.get(slug="elo")
    replays = counted_replays(monkeypatch)
    shared = verify_system(system, today=dt.date(2024, 9, 15), limit=50)
    assert [start for _, start in replays] == [dt.date(2024, 9, 1)]  # the last list the live replay drew
    each_on_its_own(monkeypatch)
    alone = verify_system(system, today=dt.date(2024, 9, 15), limit=50)
    assert (shared.published, shared.first_published) == (alone.published, alone.first_published)
    assert shared.published == 0, shared.first_published


@pytest.fixture
def published_monthly(db):
    return publishing_federation(monthly=True)


def test_monthly_publications_are_checked_by_the_live_replay(published_monthly, monkeypatch):
    """A list a month, each with the games entered by then: each agrees with the live record on the
    games played before its date, so the verification's own replay of the live record checks them
    all, those published complete and now stored as movements drawn both ways (a replay each, from
    the first game, made the check of a federation's two hundred lists quadratic)."""
    elo = RatingSystem.objects.get(slug="elo")
    newest = sorted(set(Publication.objects.filter(system=elo).values_list("newest_game", flat=True)))
    assert len(newest) >= 6  # the first six lists each knew fewer games than the next
    early = Publication.objects.get(system=elo, date=dt.date(2024, 3, 1))
    assert early.complete and not RatingList.objects.get(system=elo, date=early.date).complete
    replays = counted_replays(monkeypatch)
    for slug in SYSTEMS:
        found, lines = published_lines(slug)
        assert found.published == 0, lines
        assert replays == [], slug
    # a figure changed on the list of February, one of the early groups, is named by the live replay
    entry = PublishedEntry.objects.filter(publication__system=elo, publication__date=dt.date(2024, 2, 1),
                                          rank__isnull=False).select_related("publication").first()
    PublishedEntry.objects.filter(pk=entry.pk).update(value=entry.value + 1)
    redigest(entry.publication)
    found, lines = published_lines("elo")
    assert replays == []
    assert any(f"published list of 2024-02-01 entry of coach {entry.coach_number} " in line
               and f"value published {entry.value + 1:.10g}, the games reported before " in line for line in lines), lines
    each_on_its_own(monkeypatch)
    alone, alone_lines = published_lines("elo")
    assert (alone.published, alone_lines) == (found.published, lines)
    assert len(replays) >= 6 and all(start is None for _, start in replays)


@pytest.mark.parametrize("reported", [dt.date(2026, 1, 6), dt.date(2026, 1, 5)])
@pytest.mark.parametrize("slug", SYSTEMS)
def test_lists_before_a_late_report_are_checked_by_the_live_replay(published, monkeypatch, slug, reported):
    """Every list published at once, then a June game reported a day later: the live replay checks
    the lists up to June (their record is the live one before their date), and one replay of the
    record as published, resumed from the live replay's state on 1 June, checks the others. A
    figure tampered on each side is named, and every finding is a replay per group's. Reported the
    day they were published, the game may have come before them: lists that differ are checked
    again with it, those checked by the live replay too."""
    from tournaments.models import Game

    Publication.objects.update(published_at=dt.datetime(2026, 1, 5, 12, tzinfo=dt.UTC))
    late = add_event(published, dt.date(2024, 6, 20), [[(0, 7, (3, 0)), (1, 6, (2, 0))]])
    Game.objects.filter(event=late).update(reported_on=reported)
    recalculate(slug)
    system = RatingSystem.objects.get(slug=slug)
    tampered = []
    for day in (dt.date(2024, 6, 1), dt.date(2024, 7, 1)):
        entry = PublishedEntry.objects.filter(publication__system=system, publication__date=day, value__isnull=False,
                                              ).select_related("publication").order_by("coach_number", "race_slug").first()
        PublishedEntry.objects.filter(pk=entry.pk).update(value=entry.value + 1)
        redigest(entry.publication)
        tampered.append(f"published list of {day} entry of coach {entry.coach_number} ")
    replays = counted_replays(monkeypatch)
    found, lines = published_lines(slug)
    assert [start for _, start in replays][:1] == [dt.date(2024, 6, 1)]
    given, _ = replays[0]
    late_games = set(Game.objects.filter(event=late).values_list("pk", flat=True))
    assert given and not late_games & {g.game_id for g in given}
    assert min(g.played_at for g in given) >= dt.datetime(2024, 6, 1)
    for named in tampered:
        assert any(line.startswith(named) and "value published" in line for line in lines), (named, lines)
    each_on_its_own(monkeypatch)
    replays.clear()
    alone, alone_lines = published_lines(slug)
    assert (found.published, lines) == (alone.published, alone_lines)
    assert [start for _, start in replays] == [None] * (1 if reported.day == 6 else 2)


@pytest.mark.parametrize("came_late", ["reported", "entered"])
@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_list_whose_record_lacked_a_late_result_is_checked_as_a_replay_of_its_own_would(
    published_monthly, monkeypatch, slug, came_late,
):
    """Each list published the day after its date; a March game that came late for the April and May
    lists, reported in May (every list's newest game after it) or entered after them (reported in
    March); a tampered April figure. The lists from June on hold the game, the April and May ones do
    not: those two are checked by one replay of their record, resumed from the live replay's state
    on 1 March, the others by the live replay, and every finding is a replay per list's."""
    from tournaments.models import Game

    for publication in Publication.objects.all():
        Publication.objects.filter(pk=publication.pk).update(
            published_at=dt.datetime.combine(publication.date + dt.timedelta(days=1), dt.time(12), tzinfo=dt.UTC))
    late = add_event(published_monthly, dt.date(2024, 3, 20), [[(0, 7, (3, 0)), (1, 6, (2, 0))]])
    # in the lists from June on (which show differences of their own: they were computed without it)
    newest = Game.objects.order_by("-pk").values_list("pk", flat=True).first()
    if came_late == "reported":
        Game.objects.filter(event=late).update(reported_on=dt.date(2024, 5, 10))
        Publication.objects.update(newest_game=newest)
    else:
        Game.objects.filter(event=late).update(reported_on=dt.date(2024, 3, 21))
        Publication.objects.filter(date__gte=dt.date(2024, 6, 1)).update(newest_game=newest)
    system = RatingSystem.objects.get(slug=slug)
    entry = PublishedEntry.objects.filter(publication__system=system, publication__date=dt.date(2024, 4, 1),
                                          rank__isnull=False).select_related("publication").first()
    PublishedEntry.objects.filter(pk=entry.pk).update(value=entry.value + 1)
    redigest(entry.publication)
    replays = counted_replays(monkeypatch)
    found, lines = published_lines(slug)
    shared = list(replays)
    replays.clear()
    each_on_its_own(monkeypatch)
    alone, alone_lines = published_lines(slug)
    assert (found.published, lines) == (alone.published, alone_lines)
    assert any(f"published list of 2024-04-01 entry of coach {entry.coach_number} " in line for line in lines), lines
    # one replay without the late game (for April and May), from March on; alone, one from the first game a group
    late_games = set(Game.objects.filter(event=late).values_list("pk", flat=True))
    [(record, start)] = shared
    assert start == dt.date(2024, 3, 1) and not late_games & {g.game_id for g in record}
    assert record and min(g.played_at for g in record) >= dt.datetime(2024, 3, 1)
    assert len(replays) >= 2 and all(start is None for _, start in replays)


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
