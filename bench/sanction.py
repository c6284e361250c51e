"""Sanction benchmark on the demo (SQLite, no broker: the runs go on in-process after the answer):
a staff sanction of a weekend event, from the POST until the rankings, the coach pages and the
breakdowns show it. Prints figures; asserts nothing.

    .venv/bin/python bench/sanction.py                          # the demo's size (seed_demo's defaults)
    .venv/bin/python bench/sanction.py --coaches 200 --events 30   # a smoke run

The demo is seeded into a SQLite file of its own (`--database`, default a temporary one), as
`make demo` does without the FUMBBL open play (never rated) and recalculated; then a weekend event
(Saturday and Sunday before today, 32 of the demo's coaches, five rounds) is recorded, submitted,
and sanctioned by a staff account through the staff page (POST /staff/events/<id>/sanction/) with
Django's test client. Timed: the answer, the runs after it (every active system, in this process's
thread after the response, as `runserver` carries them out), and the first asking of the ranking (by a
participant's name), his coach page and breakdown (each must differ from its answer before the sanction). The
statistics refresh the sanction also hands to the thread, after the runs, is printed apart.

Target (issue 35, on a 2-core machine): the sanction to rankings, coach pages and breakdowns
updated within 2 s.
"""
from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import reference  # noqa: E402

TARGET_SECONDS = 2.0


def setup(database: str) -> None:
    """Django on the SQLite file `database`, the base settings, no broker and each process's own cache."""
    for name in ("CELERY_BROKER_URL", "REDIS_URL", "CACHE_URL"):
        os.environ.pop(name, None)
    os.environ.update(
        DATABASE_URL=f"sqlite:///{database}", DJANGO_SETTINGS_MODULE="ratingsite.settings.base",
        SECRET_KEY=os.environ.get("SECRET_KEY") or secrets.token_urlsafe(48), ALLOWED_HOSTS="testserver", DEBUG="false",
        LOG_LEVEL="WARNING",
    )
    import django

    django.setup()


def weekend_event(coaches: int):
    """A submitted weekend event (the Saturday and Sunday before today): `coaches` of the demo's
    rated coaches, five rounds, three on Saturday and two on Sunday."""
    from django.utils import timezone

    from ratings.models import CurrentRating
    from tournaments.models import Coach, Event, EventStatus, Game, Race, Round, Variant
    from tournaments.services import game_record

    today = timezone.localdate()
    saturday = today - dt.timedelta(days=(today.weekday() - 5) % 7 or 7)
    sunday = saturday + dt.timedelta(days=1)
    event = Event.objects.create(
        name="Bench weekend", variant=Variant.objects.get(slug="blood-bowl-2020"), start_date=saturday, end_date=sunday,
        country="NL", city="Utrecht", status=EventStatus.SUBMITTED,
    )
    races = list(Race.objects.filter(slug__in=("human", "orc", "dwarf", "skaven")))
    rated = CurrentRating.objects.filter(system__slug="elo", variant__slug="blood-bowl-2020").values("coach_id")
    players = list(Coach.objects.filter(pk__in=rated).order_by("number")[:coaches])
    for number in range(1, 6):
        day = saturday if number <= 3 else sunday
        start = dt.time(8 + 2 * number)
        round_ = Round.objects.create(event=event, number=number, date=day, start_time=start)
        at = dt.datetime.combine(day, start, tzinfo=dt.UTC)
        shift = number * 7 % len(players)
        order = players[shift:] + players[:shift]
        for table in range(len(order) // 2):
            game_record(game=Game(
                round=round_, event=event, home_coach=order[2 * table], home_race=races[table % len(races)],
                away_coach=order[2 * table + 1], away_race=races[(table + 1) % len(races)],
                home_touchdowns=(table + number) % 3, away_touchdowns=(table * number) % 2, played_at=at,
            ))
    return event, players[0]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--coaches", type=int, default=2000, help="demo coaches (seed_demo's default 2000)")
    parser.add_argument("--events", type=int, default=320, help="demo events (seed_demo's default 320)")
    parser.add_argument("--players", type=int, default=32, help="coaches at the weekend event (default 32)")
    parser.add_argument("--database", help="the SQLite file (default: a temporary one, removed after)")
    args = parser.parse_args(argv)

    folder = None
    if args.database is None:
        folder = tempfile.TemporaryDirectory(prefix="ratingsite-bench-sanction-")
        args.database = os.path.join(folder.name, "demo.sqlite3")
    setup(args.database)
    from django.core.management import call_command
    from django.test import Client

    from ratings.models import CalculationRow, RecalculationRun, RunStatus
    from ratingsite.after_response import after_response_wait
    from tests.roles import staff

    began = time.perf_counter()
    quiet = io.StringIO()
    call_command("migrate", verbosity=0)
    call_command("seed_demo", "--coaches", str(args.coaches), "--events", str(args.events), stdout=quiet)
    call_command("recalculate", stdout=quiet)
    event, coach = weekend_event(args.players)
    games = event.games.count()
    print(f"demo: {args.coaches:,} coaches, {args.events:,} events seeded and recalculated in "
          f"{time.perf_counter() - began:.0f} s; {CalculationRow.objects.count():,} calculation rows; weekend event "
          f"{event.start_date} to {event.end_date}, {games} games, submitted")
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(reference(database=False), flush=True)  # figures from two machines compare only beside these

    client, visitor = Client(), Client()
    client.force_login(staff("bench-staff"))
    pages = [
        ("ranking", f"/rankings/elo/?variant=blood-bowl-2020&name={coach.number}"),
        ("coach page", f"/coaches/{coach.number}/"),
        ("breakdown", f"/coaches/{coach.number}/breakdown/elo/?variant=blood-bowl-2020"),
    ]
    # each page read once before, as visitors have: the page cache holds the old answers
    before = {path: visitor.get(path).content for _, path in pages}
    runs_before = RecalculationRun.objects.count()
    running = RecalculationRun.objects.filter(status__in=(RunStatus.QUEUED, RunStatus.RUNNING))

    started = time.perf_counter()
    answer = client.post(f"/staff/events/{event.pk}/sanction/", {"note": "bench"})
    answered = time.perf_counter()
    while running.exists():  # the runs go on in the thread after the answer, then the statistics refresh
        time.sleep(0.01)
    ran = time.perf_counter()
    shown = []
    for name, path in pages:
        response = visitor.get(path)
        shown.append((name, path, response.status_code, response.content != before[path], time.perf_counter()))
    done = time.perf_counter()
    after_response_wait()
    refreshed = time.perf_counter()

    runs = list(RecalculationRun.objects.order_by("pk")[runs_before:])
    event_rows = CalculationRow.objects.filter(game__event=event).count()
    print(f"\nsanction answered {answer.status_code} in {(answered - started) * 1000:.0f} ms; its runs done "
          f"{ran - answered:.2f} s ({', '.join(f'{run.system.slug} {run.status} {run.duration or 0:.2f} s' for run in runs)}); "
          f"{event_rows:,} calculation rows for the event's games; the statistics refresh after them ended "
          f"{refreshed - ran:.2f} s after the runs (untimed: the pages measured do not read it)")
    previous = ran
    for name, path, status, changed, at in shown:
        note = "" if changed else "  (NOT UPDATED: the same answer as before the sanction)"
        print(f"  {name:<11} {path:<60} {status}  {(at - previous) * 1000:6.0f} ms{note}")
        previous = at
    total = done - started
    failed = [run for run in runs if run.status != RunStatus.SUCCEEDED]
    updated = all(changed for *_, changed, _ in shown) and event_rows > 0 and not failed
    verdict = ("ok" if total <= TARGET_SECONDS else "OVER") if updated else "NOT UPDATED"
    print(f"sanction to rankings, coach page and breakdown updated: {total:.2f} s (target <= {TARGET_SECONDS:.0f} s, "
          f"issue 35): {verdict}; load average {os.getloadavg()[0]:.2f}")
    if folder is not None:
        folder.cleanup()


if __name__ == "__main__":
    main()
