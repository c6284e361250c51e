"""A coach's privacy: a pseudonym or a hidden profile everywhere the public looks, the copy of his
data, and his erasure (grace period, cancelled by a login, carried out, replayed after a restore)."""
import csv
import datetime as dt
import io
import json
import re

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from audit.models import Action, AuditRecord
from ratings.models import Publication, PublishedEntry
from stats.services import summaries_refresh
from tests.roles import PASSWORD, member, staff
from tests.web.conftest import build_league, recalculate_all
from tournaments import privacy
from tournaments.models import ANONYMOUS_LABEL, Coach, CoachErasure, Visibility, coach_label

ANNA = "Anna Jansen"


@pytest.fixture
def league(db):
    data = build_league()
    recalculate_all()
    summaries_refresh()
    return data


def _text(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode("utf-8-sig")
    return response.content.decode()


def _publicly_shown(client, league) -> dict[str, str]:
    """Every public page, download and export that names Anna (coach 101), by what it is."""
    pages = {
        "ranking": "/rankings/elo/", "ranking csv": "/rankings/elo/?_export=csv", "coach page": "/coaches/101/",
        "opponent's page": "/coaches/102/", "breakdown": "/coaches/101/breakdown/elo/",
        "opponent's breakdown": "/coaches/102/breakdown/elo/", "event page": f"/events/{league['dutch'].pk}/",
        "coach search": "/coaches/?q=Anna", "directory": "/coaches/", "stats games": "/stats/games/",
        "stats games csv": "/stats/games/?_export=csv", "stats win ratios csv": "/stats/win-ratios/?_export=csv&_table=coaches",
        "stats top csv": "/stats/top/?_export=csv&_table=games", "stats awards csv": "/stats/awards/?_export=csv&_table=coaches",
        "head to head": "/stats/head-to-head/?coach=101&coach=102", "differentials": "/stats/differentials/?coach=101",
        "rank over time": "/stats/rank-over-time/?coach=101&system=elo",
    }
    shown = {what: _text(client.get(url)) for what, url in pages.items()}
    publication = Publication.objects.filter(system__slug="elo").order_by("-date").first()
    shown["published list csv"] = _text(client.get(f"/rankings/elo/{publication.date:%Y-%m}/?_export=csv"))
    for name, args in (("export_ratings", []), ("export_ratings published", ["--published"])):
        out = io.StringIO()
        call_command("export_ratings", *args, system="elo", stdout=out)
        shown[name] = out.getvalue()
    return shown


def test_the_label_is_stable_per_coach_and_not_the_id():
    assert coach_label(7) == coach_label(7)
    assert coach_label(7) != coach_label(8)
    assert coach_label(7).startswith(f"{ANONYMOUS_LABEL} ") and len(coach_label(7)) == len(ANONYMOUS_LABEL) + 7


@pytest.mark.parametrize("visibility, pseudonym", [(Visibility.PSEUDONYM, "The Red Baron"), (Visibility.HIDDEN, "")])
def test_a_pseudonym_or_a_hidden_profile_replaces_the_name_everywhere_public(client, league, visibility, pseudonym):
    anna, sam = league["anna"], staff()
    assert ANNA in _publicly_shown(client, league)["ranking"]  # before: the name
    privacy.coach_privacy_set(coach=anna, visibility=visibility, pseudonym=pseudonym, actor=sam)
    anna.refresh_from_db()
    shown_as = pseudonym or coach_label(anna.pk)
    assert anna.public_name == shown_as
    shown = _publicly_shown(client, league)
    assert [what for what, text in shown.items() if ANNA in text or "Jansen" in text] == []
    for what in ("ranking", "ranking csv", "coach page", "breakdown", "opponent's breakdown", "event page", "stats games csv",
                 "stats top csv", "export_ratings", "published list csv", "export_ratings published", "head to head"):
        assert shown_as in shown[what], what
    # her games are still rated: her row is in the ranking, under the name shown
    assert [line for line in shown["export_ratings"].splitlines() if line.startswith(f"101,{shown_as},")]
    # staff pages show the real name
    staff_client = Client()
    staff_client.force_login(sam)
    assert ANNA in staff_client.get(f"/staff/coaches/{anna.number}/privacy/").content.decode()


def _csv_row(text: str, number: str) -> dict[str, str]:
    rows = list(csv.DictReader(io.StringIO(text)))
    return next(row for row in rows if number in row.values())


def test_a_hidden_coach_shows_no_nationality_and_no_membership_on_any_public_page(client, league):
    anna = league["anna"]
    anna.member_since = dt.date(2019, 4, 1)
    anna.save(update_fields=["member_since"])
    coach_page = client.get("/coaches/101/").content.decode()
    assert "Netherlands" in coach_page and "Member since 2019." in coach_page  # before: shown
    assert _csv_row(_text(client.get("/rankings/elo/?_export=csv")), "101")["Nat."] == "NL"
    assert ANNA in _text(client.get("/stats/top/?nationality=NL&_export=csv&_table=games"))
    assert set(PublishedEntry.objects.filter(coach_number=101).values_list("nationality", flat=True)) == {"NL"}
    privacy.coach_privacy_set(coach=anna, visibility=Visibility.HIDDEN, actor=None)
    label = coach_label(anna.pk)
    coach_page = client.get("/coaches/101/").content.decode()
    assert label in coach_page
    # the year in what the page shows (its links hold database ids, 2019 among them once a worker's sequences reach it)
    assert "Netherlands" not in coach_page and "Member since" not in coach_page and "2019" not in _shown(coach_page)
    ranking = _csv_row(_text(client.get("/rankings/elo/?_export=csv")), label)
    assert (ranking["Number"], ranking["Nat."]) == ("101", "")
    assert '<abbr title="Netherlands">NL</abbr>' not in _row_of(client.get("/rankings/elo/").content.decode(), label)
    # no country finds her, nor does it show in the directory beside her label
    assert label not in client.get("/rankings/elo/?country=NL").content.decode()
    assert label in client.get("/rankings/elo/").content.decode()
    assert label not in client.get("/coaches/?country=NL").content.decode()
    assert "Netherlands" not in _row_of(client.get(f"/coaches/?q={label.split()[-1]}").content.decode(), label)
    top = _csv_row(_text(client.get("/stats/top/?_export=csv&_table=games")), label)
    assert top["Nationality"] == ""
    assert label not in _text(client.get("/stats/top/?nationality=NL&_export=csv&_table=games"))
    # the lists published before and after the choice: her label alone, and their figures as published
    publication = Publication.objects.filter(system__slug="elo").order_by("-date").first()
    published = _csv_row(_text(client.get(f"/rankings/elo/{publication.date:%Y-%m}/?_export=csv")), label)
    assert (published["Number"], published["Nat."]) == ("101", "")
    recalculate_all(dt.date(2024, 11, 15))
    assert set(PublishedEntry.objects.filter(coach_number=101).values_list("nationality", flat=True)) == {""}
    call_command("verify_ratings", "--today", "2024-11-15", stdout=io.StringIO())  # raises on any difference
    # shown again: her nationality is back on the lists
    privacy.coach_privacy_set(coach=anna, visibility=Visibility.PUBLIC, actor=None)
    assert set(PublishedEntry.objects.filter(coach_number=101).values_list("nationality", flat=True)) == {"NL"}


def test_a_pseudonym_keeps_the_nationality_but_not_the_name(client, league):
    anna = league["anna"]
    privacy.coach_privacy_set(coach=anna, visibility=Visibility.PSEUDONYM, pseudonym="Red Baron", actor=None)
    assert "Netherlands" in client.get("/coaches/101/").content.decode()
    row = _csv_row(_text(client.get("/rankings/elo/?_export=csv")), "Red Baron")
    assert (row["Number"], row["Nat."]) == ("101", "NL")
    assert "Red Baron" in client.get("/rankings/elo/?country=NL").content.decode()


def _shown(html: str) -> str:
    """The text of `html` without its tags (and their attributes: links, ids)."""
    return re.sub(r"<[^>]*>", " ", html)


def _row_of(html: str, text: str) -> str:
    """The table row of `html` that holds `text`."""
    return next(row for row in html.split("<tr") if text in row)


def test_a_list_published_after_the_choice_names_the_coach_as_he_chose(league):
    privacy.coach_privacy_set(coach=league["anna"], visibility=Visibility.PSEUDONYM, pseudonym="Red Baron", actor=None)
    before = Publication.objects.count()
    recalculate_all(dt.date(2024, 11, 15))
    assert Publication.objects.count() > before
    assert set(PublishedEntry.objects.filter(coach_number=101).values_list("coach_name", flat=True)) == {"Red Baron"}


def test_a_hidden_coach_is_found_by_his_label_not_his_name(client, league):
    anna = league["anna"]
    privacy.coach_privacy_set(coach=anna, visibility=Visibility.HIDDEN, actor=staff())
    label = coach_label(anna.pk)
    assert ANNA not in client.get("/coaches/?q=Anna").content.decode()
    assert "/coaches/101/" not in client.get("/coaches/?q=Jansen").content.decode()
    assert "/coaches/101/" in client.get(f"/coaches/?q={label.split()[-1]}").content.decode()
    assert client.get("/coaches/?q=101")["Location"] == "/coaches/101/"  # the number is no personal name
    assert "/coaches/101/" not in client.get("/rankings/elo/?name=Jansen").content.decode()
    response = client.get("/stats/head-to-head/?coach=Anna+Jansen&coach=102")
    assert response.status_code == 400 and "No coach is called “Anna Jansen”" in response.content.decode()


def test_the_cached_page_is_not_served_with_the_old_name(client, league, django_capture_on_commit_callbacks):
    assert ANNA in client.get("/rankings/elo/").content.decode()  # cached now
    with django_capture_on_commit_callbacks(execute=True):
        privacy.coach_privacy_set(coach=league["anna"], visibility=Visibility.PSEUDONYM, pseudonym="Red Baron", actor=staff())
    html = client.get("/rankings/elo/").content.decode()
    assert ANNA not in html and "Red Baron" in html


def test_a_privacy_change_is_audited_without_the_names(league):
    sam = staff()
    privacy.coach_privacy_set(coach=league["anna"], visibility=Visibility.PSEUDONYM, pseudonym="Red Baron", actor=sam)
    record = AuditRecord.objects.get(action=Action.COACH_PRIVACY)
    assert (record.actor, record.coach_id, record.before, record.after) == (
        sam, league["anna"].pk, {"visibility": "public"}, {"visibility": "pseudonym"})


def test_a_pseudonym_may_not_pose_as_a_label_or_another_coach(league):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="label"):
        privacy.coach_privacy_set(coach=league["anna"], visibility=Visibility.PSEUDONYM, pseudonym="Anonymous coach 1234", actor=None)
    with pytest.raises(ValidationError, match="Another coach"):
        privacy.coach_privacy_set(coach=league["anna"], visibility=Visibility.PSEUDONYM, pseudonym="bert smith", actor=None)


def test_the_staff_page_sets_the_privacy_and_gives_the_data(league):
    sam = staff()
    client = Client()
    client.force_login(sam)
    response = client.post("/staff/coaches/101/privacy/", {"action": "privacy", "visibility": "hidden", "pseudonym": ""})
    assert response.status_code == 302
    assert Coach.objects.get(number=101).visibility == Visibility.HIDDEN
    data = json.loads(b"".join([client.get("/staff/coaches/101/data/").content]))
    assert data["coach"]["name"] == ANNA and data["coach"]["visibility"] == "hidden"
    assert Client().get("/staff/coaches/101/privacy/").status_code == 302  # to the login


def test_the_data_export_holds_the_record_the_account_the_games_and_the_ratings(league):
    anna = league["anna"]
    mia = member("mia")
    anna.user = mia
    anna.save(update_fields=["user"])
    out = io.StringIO()
    call_command("export_member_data", "--coach", "101", stdout=out)
    data = json.loads(out.getvalue())
    assert (data["coach"]["number"], data["coach"]["name"], data["coach"]["visibility"]) == (101, ANNA, "public")
    assert data["coach"]["nationality"] == "NL"
    assert data["account"]["username"] == "mia" and data["account"]["email"] == "mia@example.org"
    assert {e["event"] for e in data["events"]} >= {"Dutch Open", "Utrecht Cup", "Summer League"}
    first = data["games"][0]
    assert (first["opponent"], first["opponent_number"], first["touchdowns_for"], first["score"]) == ("Bert Smith", 102, 2, "1.0")
    assert {(a["event"], a["category"]) for a in data["awards"]} == {("Dutch Open", "Most touchdowns")}
    assert {r["system"] for r in data["ratings"]} >= {"elo", "glicko", "knsb"}
    assert AuditRecord.objects.filter(action=Action.COACH_EXPORT, coach=anna).count() == 1


def test_an_erasure_waits_thirty_days(league):
    anna, now = league["anna"], timezone.now()
    privacy.coach_erasure_request(coach=anna, actor=staff(), now=now)
    assert privacy.coaches_erase_due(now=now + dt.timedelta(days=29, hours=23)) == []
    assert Coach.objects.get(pk=anna.pk).name == ANNA
    assert privacy.coaches_erase_due(now=now + dt.timedelta(days=30)) == [101]
    assert Coach.objects.get(pk=anna.pk).name == coach_label(anna.pk)


def test_a_login_of_the_member_cancels_the_erasure(league):
    anna, mia = league["anna"], member("mia")
    anna.user = mia
    anna.save(update_fields=["user"])
    privacy.coach_erasure_request(coach=anna, actor=mia)
    assert Client().post("/accounts/login/", {"username": "mia", "password": PASSWORD}).status_code == 302
    assert Coach.objects.get(pk=anna.pk).erasure_requested_at is None
    assert privacy.coaches_erase_due(now=timezone.now() + dt.timedelta(days=31)) == []
    record = AuditRecord.objects.get(action=Action.COACH_ERASURE_CANCEL)
    assert (record.actor, record.note) == (mia, "cancelled by the member's login")


def test_the_staff_cancel_an_erasure(league):
    sam = staff()
    client = Client()
    client.force_login(sam)
    client.post("/staff/coaches/101/privacy/", {"action": "request_erasure"})
    assert Coach.objects.get(number=101).erasure_requested_at is not None
    client.post("/staff/coaches/101/privacy/", {"action": "cancel_erasure"})
    assert Coach.objects.get(number=101).erasure_requested_at is None


def test_an_erasure_keeps_every_figure_and_verify_ratings_passes(client, league, django_capture_on_commit_callbacks):
    anna, mia = league["anna"], member("mia")
    anna.user, anna.birth_year, anna.member_since = mia, 1980, dt.date(2010, 1, 1)
    anna.save()
    figures = sorted(PublishedEntry.objects.filter(coach_number=101).values_list("publication_id", "value", "rank"))
    bert_breakdown = client.get("/coaches/102/breakdown/elo/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        privacy.coach_erasure_request(coach=anna, actor=mia, now=timezone.now() - dt.timedelta(days=30))
        assert privacy.coaches_erase_due() == [101]
    anna.refresh_from_db()
    label = coach_label(anna.pk)
    assert (anna.name, anna.public_name, anna.nationality) == (label, label, "")
    assert (anna.birth_year, anna.member_since, anna.user) == (None, None, None)
    mia.refresh_from_db()
    assert (mia.username, mia.email, mia.is_active, mia.has_usable_password()) == (f"erased-{mia.pk}", "", False, False)
    assert CoachErasure.objects.get().coach_id == anna.pk
    assert sorted(PublishedEntry.objects.filter(coach_number=101).values_list("publication_id", "value", "rank")) == figures
    assert set(PublishedEntry.objects.filter(coach_number=101).values_list("coach_name", flat=True)) == {label}
    assert not AuditRecord.objects.filter(coach=anna, object_repr__contains="Jansen").exists()
    # Bert's breakdown shows the same figures, Anna under her label
    assert client.get("/coaches/102/breakdown/elo/").content.decode() == bert_breakdown.replace(ANNA, label)
    out = io.StringIO()
    call_command("verify_ratings", "--today", "2024-09-15", stdout=out)  # raises on any difference
    assert ANNA not in _text(client.get("/rankings/elo/?_export=csv"))


def test_replaying_the_erasure_log_erases_again_what_a_restore_brought_back(league, tmp_path, settings, django_capture_on_commit_callbacks):
    settings.ERASURE_LOG_FILE = str(tmp_path / "erasures.jsonl")
    anna = league["anna"]
    restored = {f: getattr(anna, f) for f in ("name", "nationality", "visibility", "pseudonym")}
    with django_capture_on_commit_callbacks(execute=True):
        privacy.coach_erase(coach=anna, actor=None)
    assert json.loads((tmp_path / "erasures.jsonl").read_text()) == {"coach_id": anna.pk, "erased_on": timezone.localdate().isoformat()}
    # the backup of the day before: the old name back, and the database's log without the erasure
    Coach.objects.filter(pk=anna.pk).update(erased_at=None, **restored)
    Coach.objects.get(pk=anna.pk).save()
    CoachErasure.objects.all().delete()
    assert Coach.objects.get(pk=anna.pk).public_name == ANNA
    out = io.StringIO()
    call_command("replay_erasures", stdout=out)
    anna.refresh_from_db()
    assert (anna.name, anna.public_name, anna.nationality) == (coach_label(anna.pk), coach_label(anna.pk), "")
    assert "numbers 101" in out.getvalue()
    assert CoachErasure.objects.filter(coach_id=anna.pk).exists()
    out = io.StringIO()
    call_command("replay_erasures", stdout=out)
    assert "nothing to erase again" in out.getvalue()


def test_the_privacy_page_says_what_is_public_why_and_the_rights(client, db):
    html = client.get("/about/privacy/").content.decode()
    for text in ("Article 6(1)(f)", "Article 6(1)(b)", "Access", "Erasure", "Objection", "30 days", "How long"):
        assert text in html
    assert 'href="/about/privacy/"' in client.get("/").content.decode()
