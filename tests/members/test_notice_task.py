"""A run's notices are the members' task (members.tasks.notices_for_run), sent by name once the run
commits: recorded once per run, mailed after, each member's e-mail once; a mail server that fails
loses nothing and fails no run; their words are written when read, in the reader's language."""
import datetime as dt
import importlib
import os
import smtplib
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from django.apps import apps
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.locmem import EmailBackend as LocmemBackend
from django.test import Client
from django.utils import timezone, translation
from django.utils.html import escape
from pytest import approx

from members import services
from members.models import Notice, NoticeKind, NoticeRun
from members.tasks import dispatch_owed_notices, notices_for_run
from ratings.models import RatingSystem, RecalculationRun
from ratingsite.celery import app as celery_app
from tests.members.conftest import another_game
from tests.roles import member

pytestmark = pytest.mark.django_db

migration = importlib.import_module("members.migrations.0002_notices_worded_when_read")

FOLLOWED = "Bert Smith's NAF Elo rating (Orc, Blood Bowl 2020) is now 150.03 (was 148.59)"


class RefusingBackend(BaseEmailBackend):
    """A mail server that is down."""

    def send_messages(self, messages):
        raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")


class SecondRefusedBackend(LocmemBackend):
    """A mail server that takes the first message of a connection and drops the line on the second."""

    def open(self):
        self.taken = 0
        return super().open()

    def send_messages(self, messages):
        self.taken = getattr(self, "taken", 0) + 1
        if self.taken > 1:
            raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
        return super().send_messages(messages)


def elo_run_ids() -> list[int]:
    return list(RecalculationRun.objects.filter(system__slug="elo").order_by("pk").values_list("pk", flat=True))


@pytest.fixture
def followed(pair, mia, recalculate):
    """Mia follows Bert and wants e-mail; Bert then wins a game: the next elo run moves his rating."""
    recalculate("elo")
    services.follow_add(member=mia, coach=pair["bert"])
    services.preferences_update(member=mia, email_notices=True, system_ids=[])
    another_game(pair["bert"], pair["anna"])
    mail.outbox.clear()
    return pair


def test_with_a_broker_the_runs_commit_sends_the_task_and_the_run_records_no_notice(followed, mia, recalculate, monkeypatch):
    messages = []
    celery_app.conf.task_always_eager = False  # a broker: tests/conftest.py's tasks_in_process puts it back
    monkeypatch.setattr(services, "sent", lambda message, owed: messages.append((message.task, message.args)) or True)
    recalculate("elo")
    run_id = elo_run_ids()[-1]
    assert messages == [("members.tasks.notices_for_run", (run_id,))]
    assert not Notice.objects.filter(run_id=run_id).exists() and mail.outbox == []
    owed = NoticeRun.objects.get(run_id=run_id)
    assert (owed.system_id, owed.enqueued_at is not None, owed.noticed_at) == (RatingSystem.objects.get(slug="elo").pk, True, None)

    assert notices_for_run.apply(args=[run_id]).get() == "mailed"  # the worker's delivery

    [notice] = Notice.objects.filter(run_id=run_id)
    assert (notice.member, notice.kind, notice.coach, notice.title) == (mia, NoticeKind.FOLLOWED_RATING, followed["bert"], FOLLOWED)
    assert [m.to for m in mail.outbox] == [["mia@example.org"]]


def test_a_broker_that_does_not_take_the_task_leaves_it_owed_for_the_dispatcher(followed, mia, recalculate, monkeypatch):
    broker = {"up": False, "sent": []}

    def sending(message, owed):
        if broker["up"]:
            broker["sent"].append(message.args[0])
        return broker["up"]

    celery_app.conf.task_always_eager = False  # a broker: tests/conftest.py's tasks_in_process puts it back
    monkeypatch.setattr(services, "sent", sending)
    recalculate("elo")
    run_id = elo_run_ids()[-1]
    assert NoticeRun.objects.get(run_id=run_id).enqueued_at is None and broker["sent"] == []
    assert dispatch_owed_notices() == 0  # younger than a commit may take: its sender may be at it still
    NoticeRun.objects.update(created_at=timezone.now() - dt.timedelta(minutes=1))
    broker["up"] = True
    assert dispatch_owed_notices() == 1
    assert dispatch_owed_notices() == 0  # sent once
    assert broker["sent"] == [run_id]


def test_the_task_records_the_notices_with_what_they_are_about_and_mails_them(followed, mia, recalculate):
    max_ = member("max")
    services.follow_add(member=max_, coach=followed["bert"])  # wants no e-mail
    recalculate("elo")
    run_id = elo_run_ids()[-1]
    notices = {n.member.username: n for n in Notice.objects.filter(run_id=run_id).select_related("member", "system", "coach")}
    assert set(notices) == {"mia", "max"}
    mia_notice = notices["mia"]
    assert (mia_notice.params, mia_notice.before, mia_notice.after) == (
        {"race": "Orc", "variant": "Blood Bowl 2020"}, approx(148.59), approx(150.03))
    assert (mia_notice.fallback_title, mia_notice.path, mia_notice.title) == ("", "/coaches/102/", FOLLOWED)
    assert (mia_notice.email_wanted, mia_notice.emailed_at is not None) == (True, True)
    assert (notices["max"].email_wanted, notices["max"].emailed_at) == (False, None)
    [message] = mail.outbox
    assert message.to == ["mia@example.org"] and message.subject == "Rating notices"
    assert f"- {FOLLOWED}\n  http://127.0.0.1:8000/coaches/102/" in message.body
    owed = NoticeRun.objects.get(run_id=run_id)
    assert (owed.noticed_at is not None, owed.mailed_at is not None, owed.mail_attempts, owed.mail_error) == (True, True, 1, "")


def test_running_the_task_twice_records_and_mails_nothing_twice(followed, mia, recalculate):
    recalculate("elo")
    run_id = elo_run_ids()[-1]
    recorded = list(Notice.objects.order_by("pk").values_list("pk", "member", "kind", "after"))
    assert Notice.objects.filter(run_id=run_id).count() == 1 and len(mail.outbox) == 1
    assert notices_for_run.apply(args=[run_id]).get() == "mailed"
    NoticeRun.objects.filter(run_id=run_id).update(mailed_at=None)  # as if the first delivery died after mailing its members
    services.notices_for_run(run_id=run_id)
    services.notices_request(run_id=run_id, system_id=RatingSystem.objects.get(slug="elo").pk, published=[])  # the signal again
    assert list(Notice.objects.order_by("pk").values_list("pk", "member", "kind", "after")) == recorded
    assert len(mail.outbox) == 1
    assert NoticeRun.objects.filter(run_id=run_id).count() == 1
    assert notices_for_run.apply(args=[987654]).get() == "missing"


def test_a_mail_server_that_fails_keeps_the_notices_and_the_mail_is_sent_later(followed, mia, recalculate, settings):
    settings.EMAIL_BACKEND = "tests.members.test_notice_task.RefusingBackend"
    recalculate("elo")  # raises nothing
    run_id = elo_run_ids()[-1]
    [notice] = Notice.objects.filter(run_id=run_id)
    assert (notice.title, notice.emailed_at) == (FOLLOWED, None)
    owed = NoticeRun.objects.get(run_id=run_id)
    assert (owed.mailed_at, owed.mail_attempts) == (None, 1)
    assert owed.mail_error == "SMTPServerDisconnected: Connection unexpectedly closed"
    assert FOLLOWED in Client().get(
        f"/members/feed/{services.preferences_get(member=mia).feed_token}/").content.decode()

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert dispatch_owed_notices() == 0  # tried again once the resend bound has passed, not every minute
    long_ago = timezone.now() - settings.RECALCULATION_RESEND_AFTER - dt.timedelta(seconds=1)
    NoticeRun.objects.update(created_at=long_ago, enqueued_at=long_ago)
    assert dispatch_owed_notices() == 1
    assert [m.to for m in mail.outbox] == [["mia@example.org"]] and FOLLOWED in mail.outbox[0].body
    owed.refresh_from_db()
    assert (owed.mailed_at is not None, owed.mail_error) == (True, "")
    NoticeRun.objects.update(enqueued_at=timezone.now() - settings.RECALCULATION_RESEND_AFTER - dt.timedelta(seconds=1))
    assert dispatch_owed_notices() == 0 and len(mail.outbox) == 1


def test_a_mail_server_that_drops_the_line_midway_mails_each_member_once(followed, mia, recalculate, settings):
    max_ = member("max")
    services.follow_add(member=max_, coach=followed["bert"])
    services.preferences_update(member=max_, email_notices=True, system_ids=[])
    settings.EMAIL_BACKEND = "tests.members.test_notice_task.SecondRefusedBackend"
    recalculate("elo")
    run_id = elo_run_ids()[-1]
    assert [m.to for m in mail.outbox] == [["mia@example.org"]]
    assert list(Notice.objects.filter(run_id=run_id, emailed_at=None).values_list("member__username", flat=True)) == ["max"]
    services.notices_for_run(run_id=run_id)  # the dispatcher's next delivery
    assert [m.to for m in mail.outbox] == [["mia@example.org"], ["max@example.org"]]


def test_a_delivery_that_finds_another_one_mailing_the_run_sends_nothing(followed, mia, recalculate, settings, monkeypatch):
    settings.EMAIL_BACKEND = "tests.members.test_notice_task.RefusingBackend"
    recalculate("elo")
    run_id = elo_run_ids()[-1]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    stale = NoticeRun.objects.get(run_id=run_id)  # read by a second delivery as the first one claims its try
    NoticeRun.objects.filter(run_id=run_id).update(mail_attempts=2)
    monkeypatch.setattr(services, "notices_record_once", lambda run_id: stale)
    assert services.notices_for_run(run_id=run_id).mail_attempts == 2
    assert mail.outbox == [] and Notice.objects.get(run_id=run_id).emailed_at is None


def test_a_mail_server_that_never_returns_is_given_up_on_and_left_visible(followed, mia, recalculate, settings):
    settings.EMAIL_BACKEND = "tests.members.test_notice_task.RefusingBackend"
    recalculate("elo")
    run_id = elo_run_ids()[-1]
    for _ in range(services.MAIL_ATTEMPTS - 1):
        services.notices_for_run(run_id=run_id)
    owed = NoticeRun.objects.get(run_id=run_id)
    assert (owed.mail_attempts, owed.mailed_at) == (services.MAIL_ATTEMPTS, None)
    assert owed.mail_error == "SMTPServerDisconnected: Connection unexpectedly closed"
    long_ago = timezone.now() - settings.RECALCULATION_RESEND_AFTER - dt.timedelta(seconds=1)
    NoticeRun.objects.update(created_at=long_ago, enqueued_at=long_ago)
    assert dispatch_owed_notices() == 0
    assert Notice.objects.filter(run_id=run_id).count() == 1


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_a_sanction_answers_and_its_notices_follow_after_the_response(client, settings, held_thread):
    from tests.factories import CoachFactory, EventFactory, RoundFactory, play
    from tests.roles import staff
    from tournaments.models import EventStatus

    settings.EMAIL_BACKEND = "tests.members.test_notice_task.RefusingBackend"
    anna, bert = CoachFactory(number=101, name="Anna Jansen"), CoachFactory(number=102, name="Bert Smith")
    event = EventFactory(name="Dutch Open", start_date=dt.date(2024, 3, 2), status=EventStatus.SUBMITTED)
    play(RoundFactory(event=event, number=1), anna, bert, (2, 1))
    mia = member("mia")
    services.follow_add(member=mia, coach=bert)
    services.preferences_update(member=mia, email_notices=True, system_ids=[])
    client.force_login(staff("sam"))

    response = client.post(f"/staff/events/{event.pk}/sanction/", {"note": "In order"})

    assert response.status_code == 302 and not Notice.objects.exists()
    held_thread.carry_out()  # the runs, after the response: each one's notices with it, the mail server down
    systems = set(RatingSystem.objects.filter(active=True).exclude(slug="knsb").values_list("name", flat=True))
    assert {n.system.name for n in Notice.objects.filter(member=mia, kind="followed")} == systems  # two games: no KNSB rating
    assert set(NoticeRun.objects.values_list("mail_attempts", flat=True)) == {1}
    client.force_login(mia)
    assert client.get("/members/me/").status_code == 200


# --- in the reader's language ----------------------------------------------------------------------


def test_the_feed_and_page_at_nl_word_the_notices_in_dutch(pair, mia, recalculate):
    recalculate("elo", today=dt.date(2024, 4, 15))
    Notice.objects.all().delete()  # April's list
    services.follow_add(member=mia, coach=pair["bert"])
    another_game(pair["bert"], pair["anna"])
    recalculate("elo", today=dt.date(2024, 5, 15))  # Bert's game of 4 May, and the list of May
    token = services.preferences_get(member=mia).feed_token
    feed = ET.fromstring(Client().get(f"/nl/members/feed/{token}/").content)
    atom = "{http://www.w3.org/2005/Atom}"
    entries = {entry.find(f"{atom}title").text: entry for entry in feed.findall(f"{atom}entry")}
    followed_nl = "De NAF Elo-rating van Bert Smith (Orc, Blood Bowl 2020) is nu 150,03 (was 148,59)"
    listed_nl = "NAF Elo: de lijst van mei 2024 is gepubliceerd, 2 coaches met een rating"
    assert set(entries) == {followed_nl, listed_nl}
    assert entries[followed_nl].find(f"{atom}summary").text == f"{followed_nl}: een verandering van +1,44."
    assert entries[followed_nl].find(f"{atom}link").get("href") == "http://testserver/nl/coaches/102/"
    assert feed.find(f"{atom}title").text == "Ratingmeldingen voor mia"
    english = ET.fromstring(Client().get(f"/members/feed/{token}/").content)
    assert {entry.find(f"{atom}title").text for entry in english.findall(f"{atom}entry")} == {
        FOLLOWED, "NAF Elo: the list of May 2024 is published, 2 coaches rated"}
    client = Client()
    client.force_login(mia)
    page = client.get("/nl/members/me/").content.decode()
    assert f'<a href="/nl/coaches/102/">{followed_nl}</a>' in page and f'<a href="/nl/lists/elo/2024-05/">{listed_nl}</a>' in page
    assert f'<a href="/coaches/102/">{escape(FOLLOWED)}</a>' in client.get("/members/me/").content.decode()


def test_a_members_own_rating_is_worded_in_either_language(pair, mia, recalculate):
    pair["anna"].user = mia
    pair["anna"].save(update_fields=["user"])
    recalculate("knsb", "elo")
    notice = Notice.objects.select_related("system").get(member=mia, kind="own", system__slug="elo")
    assert notice.title == "Your NAF Elo rating (Human, Blood Bowl 2020) is now 151.41 (new)"
    with translation.override("nl"):
        assert notice.title == "Uw NAF Elo-rating (Human, Blood Bowl 2020) is nu 151,41 (nieuw)"
        assert notice.text == notice.title


def test_a_notice_whose_params_cannot_be_worded_shows_its_kind_not_an_error(pair, mia):
    elo = RatingSystem.objects.get(slug="elo")
    notice = Notice.objects.create(member=mia, kind="list", system=elo, params={"rated": 3}, path="/lists/")
    assert notice.title == "a rating list was published"
    with translation.override("nl"):
        assert notice.title == "er is een ratinglijst gepubliceerd"
    client = Client()
    client.force_login(mia)
    assert client.get("/nl/members/me/").status_code == 200


def test_the_e_mail_is_english_even_from_a_dutch_page(followed, mia, recalculate):
    with translation.override("nl"):
        recalculate("elo")
    [message] = mail.outbox
    assert message.subject == "Rating notices" and f"- {FOLLOWED}\n" in message.body


# --- the notices recorded before, with English titles ----------------------------------------------


OLD_TITLES = [
    ("followed", FOLLOWED, {"race": "Orc", "variant": "Blood Bowl 2020"}),
    ("own", "Your KNSB rating (all races, Blood Bowl 2020) is now 1512 (new)", {"race": "", "variant": "Blood Bowl 2020"}),
    ("list", "NAF Elo: the list of April 2024 is published, 2 coaches rated", {"date": "2024-04-01", "rated": 2}),
    ("own", "Something else entirely", {}),
]


@pytest.mark.parametrize(("kind", "title", "params"), OLD_TITLES)
def test_an_old_english_title_is_read_into_what_it_says(kind, title, params):
    assert migration.parsed(kind, title) == params


def test_the_migration_words_old_notices_anew_and_keeps_what_it_cannot_read(pair, mia):
    elo = RatingSystem.objects.get(slug="elo")
    kept = dict(member=mia, system=elo, path="/coaches/102/")
    read = Notice.objects.create(**kept, kind="followed", coach=pair["bert"], before=148.59, after=150.03, title=OLD_TITLES[0][1])
    odd = Notice.objects.create(**kept, kind="own", coach=pair["anna"], title="Your rating moved (a title of an older release)")
    migration.params_from_titles(apps, None)
    read.refresh_from_db()
    odd.refresh_from_db()
    assert (read.params, read.fallback_title) == ({"race": "Orc", "variant": "Blood Bowl 2020"}, OLD_TITLES[0][1])
    with translation.override("nl"):
        assert read.title == "De NAF Elo-rating van Bert Smith (Orc, Blood Bowl 2020) is nu 150,03 (was 148,59)"
        assert odd.title == "Your rating moved (a title of an older release)"


def test_undoing_the_migration_gives_the_notices_recorded_since_their_english_titles(followed, mia, recalculate):
    recalculate("elo")
    migration.titles_from_params(apps, None)
    titles = {n.kind: n.fallback_title for n in Notice.objects.filter(member=mia)}
    assert titles == {"followed": FOLLOWED, "list": "NAF Elo: the list of September 2024 is published, 2 coaches rated"}


def test_the_dispatcher_runs_every_minute_and_the_task_is_registered_in_a_fresh_process():
    from django_celery_beat.models import PeriodicTask

    task = PeriodicTask.objects.get(task="members.tasks.dispatch_owed_notices")
    assert task.enabled and (task.interval.every, task.interval.period) == (1, "minutes")
    probe = "import django; django.setup()\nfrom celery import signature\nprint(signature('members.tasks.notices_for_run').type.name)"
    env = {k: v for k, v in os.environ.items() if k != "CELERY_BROKER_URL"} | {"DJANGO_SETTINGS_MODULE": "ratingsite.settings.test"}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["members.tasks.notices_for_run"]


# --- with a real worker on the real broker ---------------------------------------------------------


@pytest.fixture
def worker():
    from celery.contrib.testing.worker import start_worker

    celery_app.conf.task_always_eager = False
    celery_app.control.purge()
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as running:
        yield running


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_a_worker_takes_the_notices_of_a_committed_run_from_the_broker(worker, pair):
    from ratings import services as rating_services
    from ratings.models import Trigger
    from tests.reliability.test_worker_lost import wait_until

    mia = member("mia")
    services.follow_add(member=mia, coach=pair["bert"])
    services.preferences_update(member=mia, email_notices=True, system_ids=[])
    elo = RatingSystem.objects.get(slug="elo")
    run = rating_services.recalculation_request(system=elo, trigger=Trigger.MANUAL, enqueue=False)
    rating_services.recalculation_execute(run_id=run.pk, today=dt.date(2024, 4, 15))  # commits: its notices go to the broker
    owed = wait_until(lambda: NoticeRun.objects.filter(run_id=run.pk).exclude(mailed_at=None).first(), 60, "notices mailed by the worker")
    assert owed.enqueued_at is not None and owed.mail_attempts == 1
    titles = {n.title for n in Notice.objects.filter(member=mia, run_id=run.pk).select_related("system", "coach")}
    assert titles == {
        "Bert Smith's NAF Elo rating (Orc, Blood Bowl 2020) is now 148.59 (new)",
        "NAF Elo: the list of April 2024 is published, 2 coaches rated",
    }
    [message] = mail.outbox
    assert message.to == ["mia@example.org"] and all(title in message.body for title in titles)
