"""No request fails because background work is running: the embedded default (SQLite, tasks in the
server's after-response thread) in a process of its own, on a database file, with a run and then the
statistics refresh each taking longer than SQLite's own 5 s wait, while staff correct a result and an
organiser submits an event. The correction waits its turn behind the run's transaction; the submit
goes through at once, the refresh holding the write lock only to copy its tables in."""
import json
import os
import subprocess
import sys

import pytest

from ratingsite.settings.base import BASE_DIR
from tests.reliability.test_broker_outage import ONE_AT_A_TIME

pytestmark = [ONE_AT_A_TIME, pytest.mark.slow]

HOLD = 7  # seconds each piece of background work keeps the write lock: longer than SQLite's default wait

SITE = """
import datetime as dt, json, sys, threading, time, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)

from django.test import Client
from ratings import services
from ratings.models import RatingSystem, RecalculationRun, RunStatus
from ratings.services import execution
from assurance.verification import verify_system
from ratingsite import after_response
from stats import services as stats_services
from stats.models import SummaryRefresh
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.ratings.conftest import add_event
from tests.roles import organiser, staff
from tournaments.models import Event, EventStatus, Game

HOLD = float(sys.argv[1])
first_of_month = dt.date.today().replace(day=1)
coaches = CoachFactory.create_batch(4)
early = add_event(coaches, first_of_month - dt.timedelta(days=90), [[(0, 1, (2, 0)), (2, 3, (1, 1))]])
for run in services.recalculation_request_all(trigger="manual"):
    services.recalculation_execute(run_id=run.pk)
submitted = add_event(coaches, first_of_month - dt.timedelta(days=60), [[(0, 2, (1, 0)), (1, 3, (0, 2))]], status="submitted")
olga = organiser("olga")
draft = EventFactory(name="Olga's draft", start_date=first_of_month - dt.timedelta(days=30), status=EventStatus.DRAFT, organiser=olga)
play(RoundFactory(event=draft, number=1, date=draft.start_date), coaches[0], coaches[3], (1, 0))

held = {"run": threading.Event(), "refresh": threading.Event()}


def holding(name, real):
    def hold(*args, **kwargs):
        result = real(*args, **kwargs)
        if not held[name].is_set():
            held[name].set()
            time.sleep(HOLD)  # inside the work's transaction: the write lock stays taken
        return result
    return hold


execution._Output.add = holding("run", execution._Output.add)
stats_services._roll_up = holding("refresh", stats_services._roll_up)

staff_client, organiser_client = Client(raise_request_exception=False), Client(raise_request_exception=False)
staff_client.force_login(staff("sam"))
organiser_client.force_login(olga)
outcome = {"sanction": staff_client.post(f"/staff/events/{submitted.pk}/sanction/", {"note": "In order"}).status_code}

assert held["run"].wait(60), "no run began"
game = early.games.order_by("pk").first()
began = time.monotonic()
outcome["correction"] = staff_client.post(f"/staff/events/{early.pk}/correct/", {
    "game": game.pk, "home_touchdowns": 0, "away_touchdowns": 3, "home_casualties": 0, "away_casualties": 0,
    "conceded_by": "", "kind": game.kind, "note": "The score sheet says 0-3",
}).status_code
outcome["correction_waited"] = time.monotonic() - began

assert held["refresh"].wait(60), "no statistics refresh began"
began = time.monotonic()
outcome["submit"] = organiser_client.post(f"/organiser/events/{draft.pk}/submit/").status_code
outcome["submit_waited"] = time.monotonic() - began

assert after_response.after_response_wait(timeout=120), "the background work did not finish"
outcome["runs"] = sorted(RecalculationRun.objects.values_list("status", flat=True))
outcome["systems"] = RatingSystem.objects.filter(active=True).count()
outcome["score"] = list(Game.objects.filter(pk=game.pk).values_list("home_touchdowns", "away_touchdowns").get())
outcome["draft"] = Event.objects.get(pk=draft.pk).status
outcome["refreshes"] = SummaryRefresh.objects.count()
outcome["mismatches"] = sum(verify_system(system).count for system in RatingSystem.objects.filter(active=True))
# the refresh built beside the tables and copied in gives the figures one built in place gives
from django.db import transaction
from stats.services import SUMMARIES
def summaries():
    return {model.__name__: sorted(map(repr, model.objects.values_list(*[f.attname for f in model._meta.fields if f.name != "id"])))
            for model in SUMMARIES}
beside = summaries()
with transaction.atomic():
    stats_services.summaries_refresh()
outcome["same_figures"] = beside == summaries() and all(beside.values())
print(json.dumps(outcome))
"""


def test_a_write_waits_its_turn_behind_a_run_and_a_statistics_refresh_in_the_background_thread(tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in {"CELERY_BROKER_URL", "REDIS_URL", "CACHE_URL"}}
    env.update(DJANGO_SETTINGS_MODULE="ratingsite.settings.test", DATABASE_URL=f"sqlite:///{tmp_path / 'site.sqlite3'}")
    done = subprocess.run([sys.executable, "-c", SITE, str(HOLD)], env=env, cwd=BASE_DIR, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    # each answered as it should (redirects to the next page), having waited for the lock, not failed on it
    assert (outcome["sanction"], outcome["correction"], outcome["submit"]) == (302, 302, 302), done.stderr[-3000:]
    assert outcome["correction_waited"] > 1  # a run's work is one transaction: the correction waited for it
    assert outcome["submit_waited"] < 2  # the refresh builds its tables beside, holding the lock only to copy them in
    systems = outcome["systems"]
    assert outcome["runs"] == ["succeeded"] * (3 * systems)  # the first ratings, the sanction's, the correction's
    assert outcome["score"] == [0, 3]
    assert outcome["draft"] == "submitted"
    assert outcome["refreshes"] == 2  # after the sanction and after the correction; none for the submit
    assert outcome["mismatches"] == 0
    assert outcome["same_figures"] is True

