"""Published means frozen: a list is published by the run that first makes it on or after its date,
and no later run, backdated sanction, correction or merge rewrites it; its page and CSV say when
it was published. The live ratings still recompute (the computed lists change beside it)."""
import csv
import datetime as dt
import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.utils import timezone

from audit.models import Action, AuditRecord
from ratings import services
from ratings.models import (
    Publication,
    PublishedEntry,
    RatingList,
    RatingListEntry,
    RatingSystem,
    RecalculationRun,
    RunStatus,
    Trigger,
)
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import organiser, staff
from tests.web.conftest import TODAY, build_league, recalculate_all, table
from tests.web.test_rankings import csv_text
from tournaments import services as record
from tournaments.demo import generate_federation
from tournaments.models import Event, EventStatus

pytestmark = pytest.mark.django_db

FIGURES = ("coach_number", "coach_name", "nationality", "race_slug", "race_name", "variant_slug", "variant_name", "value", "mu",
           "phi", "nv", "games", "rank", "overall_rank", "change", "games_counted", "games_played")


@pytest.fixture
def league():
    data = build_league()
    recalculate_all()
    return data


def published(slug: str, day: str) -> list[tuple]:
    entries = PublishedEntry.objects.filter(publication__system__slug=slug, publication__date=day)
    return sorted(entries.values_list(*FIGURES))


def computed(slug: str, day: str) -> list[tuple]:
    entries = RatingListEntry.objects.filter(system__slug=slug, rating_list__date=day).select_related("coach", "race", "variant")
    return sorted(
        (e.coach.number, e.coach.name, e.coach.nationality or "", e.race.slug if e.race_id else "", e.race.name if e.race_id else "",
         e.variant.slug, e.variant.name, e.value, e.mu, e.phi, e.nv, e.games, e.rank, e.overall_rank, e.change, e.games_counted,
         e.games_played)
        for e in entries
    )


def every_publication() -> dict:
    return {(p.system.slug, p.date): (p.published_at, published(p.system.slug, p.date))
            for p in Publication.objects.select_related("system")}


def report_late(league, django_capture_on_commit_callbacks, *, execute: bool = False) -> None:
    """A backdated event: Anna beat Bert 3-0 in May, sanctioned now (its runs carried out at commit
    with `execute`), and every system recomputed from then as of the league's day."""
    late = EventFactory(name="Late Cup", start_date=dt.date(2024, 5, 18), status=EventStatus.SUBMITTED)
    play(RoundFactory(event=late, number=1), league["anna"], league["bert"], (3, 0), home_race="human", away_race="orc")
    with django_capture_on_commit_callbacks(execute=execute):
        record.event_sanction(event=late, actor=None)
    recalculate_all(trigger=Trigger.BACKDATED, since=dt.date(2024, 5, 18))


def assert_kept(before: dict) -> None:
    """Every publication of `before` is still there, exactly as it was (later lists may have been added)."""
    now = every_publication()
    assert {key: now.get(key) for key in before} == before


def test_every_list_a_run_makes_up_to_its_day_is_published_as_it_was_computed(league):
    lists = RatingList.objects.filter(date__lte=TODAY)
    assert lists.count() > 0
    assert Publication.objects.count() == lists.count()
    for rating_list in lists.select_related("system"):
        slug, day = rating_list.system.slug, rating_list.date
        publication = Publication.objects.get(system=rating_list.system, date=day)
        assert publication.edition == 1 and publication.published_by is None
        assert (publication.rated, publication.ranked, publication.starters, publication.complete) == (
            rating_list.rated, rating_list.ranked, rating_list.starters, rating_list.complete)
        assert published(slug, day) == computed(slug, day)


@pytest.mark.parametrize("returning", [True, False], ids=["rows-returned", "no-returning"])
def test_each_publication_is_digested_as_its_entries_are_stored(monkeypatch, returning):
    # no-returning: a database that gives no rows back from an INSERT (SQLite before 3.35) reads them back
    monkeypatch.setattr(services.publication, "_returns_rows", lambda: returning)
    build_league()
    recalculate_all()
    publications = list(Publication.objects.all())
    assert len(publications) == RatingList.objects.filter(date__lte=TODAY).count() > 0
    assert PublishedEntry.objects.count() == RatingListEntry.objects.filter(rating_list__date__lte=TODAY).count() > 0
    assert {p.pk: p.digest for p in publications} == {p.pk: services.publication_digest(p) for p in publications}


def test_a_later_run_publishes_only_the_new_list_and_leaves_the_others(league):
    before = every_publication()
    recalculate_all(today=dt.date(2024, 10, 3))  # the list of 1 October is made, and published
    after = every_publication()
    assert {key: after[key] for key in before} == before
    assert {day for _, day in set(after) - set(before)} == {dt.date(2024, 10, 1)}


def test_a_backdated_sanction_a_correction_and_a_merge_leave_every_published_list_as_it_was(league, django_capture_on_commit_callbacks):
    before = every_publication()
    july = computed("elo", dt.date(2024, 7, 1))
    report_late(league, django_capture_on_commit_callbacks, execute=True)  # its own runs too, as of the clock's day
    assert computed("elo", dt.date(2024, 7, 1)) != july  # the live list of July changed...
    assert_kept(before)  # ...the published one did not
    game = league["dutch"].games.order_by("id").first()
    with django_capture_on_commit_callbacks(execute=True):
        record.game_correct(game=game, actor=None, home_touchdowns=0, away_touchdowns=3)
    recalculate_all(trigger=Trigger.CORRECTED, since=dt.date(2024, 3, 2))
    assert_kept(before)


def test_a_merge_leaves_the_duplicates_published_entries_under_his_number_and_name_of_the_day(league, django_capture_on_commit_callbacks):
    duplicate = CoachFactory(number=190, name="Anna J.")
    second = EventFactory(name="Second Cup", start_date=dt.date(2024, 9, 21))
    play(RoundFactory(event=second, number=1), duplicate, league["cees"], (1, 0), home_race="human", away_race="human")
    october = dt.date(2024, 10, 3)
    recalculate_all(today=october)  # the list of 1 October holds the duplicate, and is published
    before = every_publication()
    assert any(entry[:2] == (190, "Anna J.") for entry in before[("elo", dt.date(2024, 10, 1))][1])
    with django_capture_on_commit_callbacks(execute=False):
        record.coach_merge(keep=league["anna"], duplicate=duplicate, actor=None)
    recalculate_all(trigger=Trigger.MERGE, since=dt.date(2024, 9, 21), today=october)
    assert every_publication() == before
    assert not any(e.coach.number == 190 for e in RatingListEntry.objects.filter(rating_list__date=dt.date(2024, 10, 1)))


def test_a_list_page_and_its_csv_show_the_list_as_published_and_say_when(client, league):
    publication = Publication.objects.get(system__slug="elo", date=dt.date(2024, 7, 1))
    Publication.objects.filter(pk=publication.pk).update(published_at=dt.datetime(2024, 7, 1, 4, 30, tzinfo=dt.UTC))
    # the computed list is changed behind the pages' back: they show the publication
    RatingListEntry.objects.filter(system__slug="elo", rating_list__date=dt.date(2024, 7, 1)).update(value=1.0)
    page = client.get("/lists/elo/2024-07/").content.decode()
    assert "Published 2024-07-01 04:30" in page
    ranking = client.get("/rankings/elo/2024-07/").content.decode()
    assert "Published 2024-07-01 04:30" in ranking and "as published 2024-07-01 04:30" in ranking
    header, *rows = list(csv.reader(io.StringIO(csv_text(client.get("/rankings/elo/2024-07/?_export=csv")))))
    assert header[-1] == "Published" and {row[-1] for row in rows} == {"2024-07-01 04:30"}
    values = {row[header.index("Number")]: row[header.index("Rating")] for row in rows}
    expected = {str(e.coach_number): f"{e.value:.2f}" for e in PublishedEntry.objects.filter(publication=publication)}
    assert values == expected and "1.00" not in values.values()
    filtered = client.get("/rankings/elo/2024-07/?country=NL&name=anna&race=human&_export=csv")
    header, *rows = list(csv.reader(io.StringIO(csv_text(filtered))))
    assert [row[header.index("Coach")] for row in rows] == ["Anna Jansen"]


def test_a_failed_run_publishes_nothing(league, monkeypatch):
    before = every_publication()
    elo = RatingSystem.objects.get(slug="elo")
    run = services.recalculation_request(system=elo, trigger=Trigger.MANUAL, enqueue=False)
    from ratings.services import execution

    def broken(*args, **kwargs):
        raise RuntimeError("the disk is full")
    monkeypatch.setattr(execution, "lists_publish_due", broken)
    with pytest.raises(RuntimeError):
        services.recalculation_execute(run_id=run.pk, today=dt.date(2024, 10, 3))
    assert every_publication() == before
    assert not RatingList.objects.filter(system=elo, date=dt.date(2024, 10, 1)).exists()  # the run's lists went with it


def export(*args: str) -> list[list[str]]:
    out = io.StringIO()
    call_command("export_ratings", *args, stdout=out, stderr=io.StringIO())  # as typed: parsed as the command line is
    return list(csv.reader(io.StringIO(out.getvalue())))


def ranked(rows: list[list[str]]) -> list[list[str]]:
    """The ranked rows (a list holds the ranked keys and the month's movers; an export as of a date, every key)."""
    return [row for row in rows[1:] if row[8]]


def test_export_ratings_published_gives_the_list_as_published_and_as_of_the_list_as_revised(league, django_capture_on_commit_callbacks):
    as_published = export("--published", "--system", "elo", "--as-of", "2024-08-15")  # the list in force then: 1 August
    assert as_published[0] == ["coach_number", "coach", "race", "variant", "rating", "mu", "phi", "sigma", "rank", "games"]
    assert ranked(as_published) == ranked(export("--system", "elo", "--as-of", "2024-08-01"))  # nothing reported late yet
    report_late(league, django_capture_on_commit_callbacks)
    assert export("--published", "--system", "elo", "--as-of", "2024-08-15") == as_published  # kept
    revised = export("--system", "elo", "--as-of", "2024-08-01")
    assert ranked(revised) != ranked(as_published)
    anna = {row[0]: row for row in revised[1:]}["101"]
    assert anna[-1] != {row[0]: row for row in as_published[1:]}["101"][-1]  # one game more, revised


def test_export_ratings_published_says_when_nothing_was_published(league):
    with pytest.raises(CommandError, match="has published no list dated on or before 2020-01-01"):
        export("--published", "--system", "elo", "--as-of", "2020-01-01")


def test_a_list_page_shows_the_revised_figures_beside_the_published_ones_and_why(client, league, django_capture_on_commit_callbacks):
    assert "Revised since publication" not in client.get("/lists/elo/2024-07/").content.decode()
    report_late(league, django_capture_on_commit_callbacks)
    page = client.get("/lists/elo/2024-07/")
    text = page.content.decode()
    assert "Revised since publication" in text
    reported = timezone.localdate()
    assert f"Late Cup: reported {reported:%Y-%m-%d}, after this list (1 game)" in text
    revisions = page.context["revisions"]
    publication = Publication.objects.get(system__slug="elo", date=dt.date(2024, 7, 1))
    published = {(e.coach_number, e.race_slug): e.value for e in PublishedEntry.objects.filter(publication=publication)}
    now = {(e.coach.number, e.race.slug): e.value for e in RatingListEntry.objects.filter(
        system__slug="elo", rating_list__date=dt.date(2024, 7, 1)).select_related("coach", "race")}
    differing = {key for key in published.keys() | now.keys() if round(published.get(key, -1), 2) != round(now.get(key, -1), 2)}
    assert revisions.total == len(differing) > 0
    assert {(r.coach_number, r.race.lower()) for r in revisions.rows} == {(n, race) for n, race in differing}
    anna = next(r for r in revisions.rows if r.coach_number == 101 and r.race == "Human")
    assert (anna.published, anna.revised) == (published[(101, "human")], now[(101, "human")])
    assert anna.revised > anna.published  # she won the late game
    # an earlier list, before the late game was played, has nothing to revise
    assert "Revised since publication" not in client.get("/lists/elo/2024-05/").content.decode()


def test_staff_publish_a_list_again_with_a_reason_and_the_earlier_edition_stays_at_its_own_address(client, league):
    first = published("elo", dt.date(2024, 7, 1))
    RatingListEntry.objects.filter(system__slug="elo", rating_list__date=dt.date(2024, 7, 1), coach__number=101).update(value=199.0)
    sam = staff("sam")
    client.force_login(sam)
    refused = client.post("/staff/lists/elo/2024-07/republish/", {"reason": "  ", "edition": "1"}, follow=True)
    assert "Give the reason for publishing this list again" in refused.content.decode()
    assert Publication.objects.filter(system__slug="elo", date=dt.date(2024, 7, 1)).count() == 1
    ruling = {"reason": "Ruling 2024/7: Anna's forfeit reversed", "edition": "1"}
    response = client.post("/staff/lists/elo/2024-07/republish/", ruling, follow=True)
    text = response.content.decode()
    assert "edition 1 stays readable at its own address" in text
    second = Publication.objects.get(system__slug="elo", date=dt.date(2024, 7, 1), edition=2)
    assert (second.published_by, second.reason) == (sam, "Ruling 2024/7: Anna's forfeit reversed")
    assert "edition 2: Ruling 2024/7: Anna&#x27;s forfeit reversed" in text
    assert published("elo", dt.date(2024, 7, 1)) != first  # the list page shows the new edition
    assert {e.value for e in PublishedEntry.objects.filter(publication=second, coach_number=101)} >= {199.0}
    old = client.get("/lists/elo/2024-07/edition/1/")
    assert old.status_code == 200 and old.context["publication"].edition == 1
    assert sorted(PublishedEntry.objects.filter(publication=old.context["publication"]).values_list(*FIGURES)) == first
    record = AuditRecord.objects.get(action=Action.LIST_REPUBLISH)
    assert (record.actor, record.note, record.before, record.after) == (
        sam, "Ruling 2024/7: Anna's forfeit reversed", {"edition": 1},
        {"edition": 2, "date": "2024-07-01", "digest": second.digest})
    assert second.digest == services.publication_digest(second) != Publication.objects.get(pk=old.context["publication"].pk).digest
    assert client.get("/lists/elo/2024-07/edition/3/").status_code == 404


def test_a_double_click_on_republish_makes_one_edition_and_both_requests_land_on_it(client, league):
    sam = staff("sam")
    client.force_login(sam)
    form = client.get("/lists/elo/2024-07/").content.decode()
    assert '<input type="hidden" name="edition" value="1">' in form
    posted = {"reason": "Ruling 2024/7", "edition": "1"}
    first = client.post("/staff/lists/elo/2024-07/republish/", posted, follow=True)
    again = client.post("/staff/lists/elo/2024-07/republish/", posted, follow=True)
    assert [p.edition for p in Publication.objects.filter(system__slug="elo", date=dt.date(2024, 7, 1)).order_by("edition")] == [1, 2]
    assert AuditRecord.objects.filter(action=Action.LIST_REPUBLISH).count() == 1
    assert "edition 1 stays readable at its own address" in first.content.decode()
    assert "edition 1 stays readable at its own address" in again.content.decode()
    assert '<input type="hidden" name="edition" value="2">' in again.content.decode()  # the next form publishes edition 3


def test_republishing_from_a_page_an_edition_behind_with_another_reason_is_refused_and_names_the_newer_edition(client, league):
    elo = RatingSystem.objects.get(slug="elo")
    sam, tess = staff("sam"), staff("tess")
    second = services.list_republish(system=elo, date=dt.date(2024, 7, 1), actor=sam, reason="Ruling 2024/7", edition=1)
    assert services.list_republish(system=elo, date=dt.date(2024, 7, 1), actor=sam, reason=" Ruling 2024/7 ", edition=1) == second
    with pytest.raises(ValidationError) as refused:
        services.list_republish(system=elo, date=dt.date(2024, 7, 1), actor=tess, reason="Ruling 2024/8", edition=1)
    assert refused.value.messages == [
        f"Edition 2 of this list was published meanwhile, at {timezone.localtime(second.published_at):%Y-%m-%d %H:%M}, by sam: "
        "“Ruling 2024/7”. Read it, then publish again from its page if the list still needs it."
    ]
    with pytest.raises(ValidationError) as unknown:
        services.list_republish(system=elo, date=dt.date(2024, 7, 1), actor=tess, reason="Ruling 2024/8", edition=5)
    assert unknown.value.messages == ["This list has no edition 5 yet: reload its page and publish again from there."]
    third = services.list_republish(system=elo, date=dt.date(2024, 7, 1), actor=tess, reason="Ruling 2024/8", edition=2)
    assert third.edition == 3
    assert Publication.objects.filter(system=elo, date=dt.date(2024, 7, 1)).count() == 3


def test_a_republish_form_without_its_edition_is_refused_and_publishes_nothing(client, league):
    client.force_login(staff("sam"))
    response = client.post("/staff/lists/elo/2024-07/republish/", {"reason": "Ruling"}, follow=True)
    assert "Reload the page of the list and publish again from there" in response.content.decode()
    assert Publication.objects.filter(edition__gt=1).count() == 0


def test_only_staff_may_publish_again_by_post_and_not_while_a_run_is_queued(client, league):
    assert client.post("/staff/lists/elo/2024-07/republish/", {"reason": "x"}).status_code in (302, 403)
    client.force_login(organiser("olga"))
    assert client.post("/staff/lists/elo/2024-07/republish/", {"reason": "x"}).status_code == 403
    client.force_login(staff("sam"))
    assert client.get("/staff/lists/elo/2024-07/republish/").status_code == 405
    services.recalculation_request(system=RatingSystem.objects.get(slug="elo"), trigger=Trigger.MANUAL, enqueue=False)
    queued = client.post("/staff/lists/elo/2024-07/republish/", {"reason": "Ruling", "edition": "1"}, follow=True)
    assert "NAF Elo is being recalculated: publish the list again once that run has finished." in queued.content.decode()
    assert client.post("/staff/lists/elo/1999-01/republish/", {"reason": "Ruling", "edition": "1"}, follow=True).status_code == 404
    assert Publication.objects.filter(edition__gt=1).count() == 0


def test_a_parameter_change_recomputes_the_live_ratings_and_leaves_the_published_lists(client, league, django_capture_on_commit_callbacks):
    before = every_publication()
    elo = RatingSystem.objects.get(slug="elo")
    with django_capture_on_commit_callbacks(execute=False):
        services.rating_system_update(system=elo, actor=staff("sam"), parameters={**elo.parameters, "start_rating": 200.0})
    recalculate_all(trigger=Trigger.PARAMETERS)
    assert_kept(before)
    assert computed("elo", dt.date(2024, 7, 1)) != published("elo", dt.date(2024, 7, 1))
    text = client.get("/lists/elo/2024-07/").content.decode()
    assert "Revised since publication" in text and "Rating system changed: NAF Elo" in text


def test_the_month_ranking_shows_a_revised_column_only_where_the_live_figures_differ(client, league, django_capture_on_commit_callbacks):
    assert "Revised" not in table(client.get("/rankings/elo/2024-07/"), "ranking")["header"]
    report_late(league, django_capture_on_commit_callbacks)
    found = table(client.get("/rankings/elo/2024-07/"), "ranking")
    header = found["header"]
    rows = {(cells[header.index("Number")], cells[header.index("Race")]): cells for _, cells in found["rows"]}
    publication = Publication.objects.get(system__slug="elo", date=dt.date(2024, 7, 1))
    now = {(str(e.coach.number), e.race.name): e.value for e in RatingListEntry.objects.filter(
        system__slug="elo", rating_list__date=dt.date(2024, 7, 1)).select_related("coach", "race")}
    for e in PublishedEntry.objects.filter(publication=publication):
        cells = rows[(str(e.coach_number), e.race_name)]
        assert cells[header.index("Rating")] == f"{e.value:.2f}"  # as published
        revised = now.get((str(e.coach_number), e.race_name))
        expected = "" if revised is not None and f"{revised:.2f}" == f"{e.value:.2f}" else (
            "no longer on it" if revised is None else f"{revised:.2f}")
        assert cells[header.index("Revised")] == expected
    assert rows[("101", "Human")][header.index("Revised")] != ""  # Anna won the late game
    csv_header = next(csv.reader(io.StringIO(csv_text(client.get("/rankings/elo/2024-07/?_export=csv")))))
    assert "Revised" not in csv_header  # the CSV is the list as published


def test_the_demo_reports_one_event_late_and_its_lists_show_the_revision_and_why(client):
    size = ["--coaches=120", "--events=30", "--today=2026-01-01"]  # seeded for a fixed day: the dates as drawn
    call_command("seed_demo", *size, stdout=io.StringIO())
    [source] = [e.source for e in generate_federation(seed=1, coaches=120, events=30).events if e.reported_late]
    late = Event.objects.get(source=source, status=EventStatus.SUBMITTED)
    after_demo = dt.date(2026, 1, 15)  # the demo seeded for 2026-01-01 ends on 2025-12-31
    recalculate_all(today=after_demo)
    out = io.StringIO()
    call_command("seed_demo", *size, "--report-late", stdout=out)
    assert f"sanctioned, reported late: {late.name}" in out.getvalue()
    assert Event.objects.get(pk=late.pk).status == EventStatus.SANCTIONED
    recalculate_all(today=after_demo)
    month = (late.end_date.replace(day=28) + dt.timedelta(days=4)).replace(day=1)  # the first list after it
    page = client.get(f"/lists/elo/{month:%Y-%m}/").content.decode()
    assert "Revised since publication" in page and f"{late.name}: reported {timezone.localdate():%Y-%m-%d}, after this list" in page
    again = io.StringIO()
    call_command("seed_demo", *size, "--report-late", stdout=again)
    assert "0 events reported late" in again.getvalue()  # done once


def test_verify_ratings_checks_every_edition_against_the_games_reported_before_it(league, django_capture_on_commit_callbacks, capsys):
    """A late event and a correction after the lists were published, then a list published again
    the same day: the live lists hold them, edition 1 does not, edition 2 does; each verifies
    against the games reported before its own publication."""
    report_late(league, django_capture_on_commit_callbacks)
    game = league["dutch"].games.order_by("id").first()
    with django_capture_on_commit_callbacks(execute=False):
        record.game_correct(game=game, actor=None, home_touchdowns=0, away_touchdowns=3)
    recalculate_all(trigger=Trigger.CORRECTED, since=dt.date(2024, 3, 2))
    for run in RecalculationRun.objects.filter(status=RunStatus.QUEUED):  # those of the clock's day: done as of the league's
        services.recalculation_cancel(run=run, actor=None)
    elo = RatingSystem.objects.get(slug="elo")
    second = services.list_republish(system=elo, date=dt.date(2024, 7, 1), actor=staff("sam"), reason="Ruling 2024/8", edition=1)
    first = Publication.objects.get(system=elo, date=dt.date(2024, 7, 1), edition=1)
    assert published("elo", dt.date(2024, 7, 1)) != sorted(PublishedEntry.objects.filter(publication=first).values_list(*FIGURES))
    assert second.digest == services.publication_digest(second)
    call_command("verify_ratings", "--today", TODAY.isoformat())
    out = capsys.readouterr().out
    for system in RatingSystem.objects.filter(active=True):
        assert f"{system.slug}: every stored figure matches a fresh recalculation" in out
    # edition 2 is what the games reported by today give, not what those before today give
    PublishedEntry.objects.filter(publication=second, coach_number=101).update(value=150.0)
    Publication.objects.filter(pk=second.pk).update(digest=services.publication_digest(second))
    with pytest.raises(CommandError, match="3 published figure"):  # the value, and two overall ranks it upsets
        call_command("verify_ratings", "--system", "elo", "--today", TODAY.isoformat())
    day = timezone.localdate() + dt.timedelta(days=1)
    assert (f"published list of 2024-07-01, edition 2 entry of coach 101 (human, blood-bowl-2020): value published 150, "
            f"the games reported before {day} give ") in capsys.readouterr().out


def test_verify_ratings_names_a_published_entry_the_games_do_not_give_and_the_one_they_do(league, capsys):
    # an entry's coach number changed after publication (its digest made again, so only the replay sees it)
    elo = RatingSystem.objects.get(slug="elo")
    publication = Publication.objects.filter(system=elo).order_by("date").first()
    entry = PublishedEntry.objects.filter(publication=publication).order_by("overall_rank", "coach_number").first()
    PublishedEntry.objects.filter(pk=entry.pk).update(coach_number=999)
    Publication.objects.filter(pk=publication.pk).update(digest=services.publication_digest(publication))
    with pytest.raises(CommandError, match="published figure"):
        call_command("verify_ratings", "--system", "elo", "--today", TODAY.isoformat())
    out = capsys.readouterr().out
    label = f"published list of {publication.date.isoformat()}"
    assert f"{label} entry of coach 999 ({entry.race_slug}, {entry.variant_slug}): published, but the games reported " in out
    assert f"{label} entry of coach {entry.coach_number} ({entry.race_slug}, {entry.variant_slug}): the games reported " in out
    assert "it, but it was not published" in out


def test_verify_ratings_says_which_publications_a_parameter_change_leaves_unreplayed(league, django_capture_on_commit_callbacks, capsys):
    elo = RatingSystem.objects.get(slug="elo")
    with django_capture_on_commit_callbacks(execute=False):
        services.rating_system_update(system=elo, actor=staff("sam"), parameters={**elo.parameters, "start_rating": 200.0})
    recalculate_all(trigger=Trigger.PARAMETERS)
    count = Publication.objects.filter(system=elo).count()
    call_command("verify_ratings", "--system", "elo", "--today", TODAY.isoformat())
    out = capsys.readouterr().out
    assert f"elo: {count} publication(s) made before the parameters changed on " in out
    assert "elo: every stored figure matches a fresh recalculation" in out


def test_verify_ratings_refuses_a_day_to_come():
    with pytest.raises(CommandError, match="is after today"):
        call_command("verify_ratings", "--today", (timezone.localdate() + dt.timedelta(days=1)).isoformat())


def test_verify_ratings_says_which_publications_a_merge_leaves_unreplayed(league, django_capture_on_commit_callbacks, capsys):
    duplicate = CoachFactory(number=190, name="Anna J.")
    second = EventFactory(name="Second Cup", start_date=dt.date(2024, 9, 21))
    play(RoundFactory(event=second, number=1), duplicate, league["cees"], (1, 0), home_race="human", away_race="human")
    october = dt.date(2024, 10, 3)
    recalculate_all(today=october)
    with django_capture_on_commit_callbacks(execute=False):
        record.coach_merge(keep=league["anna"], duplicate=duplicate, actor=None)
    recalculate_all(trigger=Trigger.MERGE, since=dt.date(2024, 9, 21), today=october)
    count = Publication.objects.filter(system__slug="elo").count()
    # the list of 1 October ranks coach 190, who has no game under his number now: not a difference
    assert PublishedEntry.objects.filter(publication__date=dt.date(2024, 10, 1), coach_number=190, rank__isnull=False).exists()
    call_command("verify_ratings", "--today", october.isoformat())
    out = capsys.readouterr().out
    assert f"elo: {count} publication(s) made before a coach merge on " in out
    assert "elo: every stored figure matches a fresh recalculation" in out


def test_the_migration_digests_the_publications_made_before_digests(league):
    from importlib import import_module

    from django.apps import apps

    digests = dict(Publication.objects.values_list("pk", "digest"))
    assert all(len(d) == 64 for d in digests.values())
    Publication.objects.update(digest="")
    import_module("ratings.migrations.0022_publication_digest").digest_existing(apps, None)
    assert dict(Publication.objects.values_list("pk", "digest")) == digests
