"""verify_ratings on published lists, each checked on its own, independently of the live replay:
every list up to today published at once. The federation is built and rated once for the module
(each test's changes roll back with it)."""
import datetime as dt

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assurance.verification import verify_system
from ratings.models import Publication, PublishedEntry, RatingListEntry, RatingSystem
from ratings.services import publication_digest
from tests.assurance.test_verification import (
    SYSTEMS,
    a_published_entry,
    counted_replays,
    each_on_its_own,
    published_lines,
    recalculate,
    redigest,
)
from tests.factories import CoachFactory
from tests.ratings.conftest import add_event
from tournaments import services as record

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("verification-published")]


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
