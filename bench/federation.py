"""Load a synthetic federation history (bench.engines.synthetic_history) into the site's tables.

Shared by the page, statistics and recalculation benchmarks. Writes with COPY on PostgreSQL.
"""
from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/ratingsite_bench"


def fresh_database(url: str = DEFAULT_URL) -> None:
    """Drop and recreate the benchmark database, then migrate it (in a subprocess, before django.setup)."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    migrate(url)


def migrate(url: str = DEFAULT_URL) -> None:
    """Bring the benchmark database to the code's schema (in a subprocess, before django.setup):
    a database an earlier run loaded may predate a migration."""
    env = dict(os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="ratingsite.settings.base")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)


def setup_django(url: str = DEFAULT_URL) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings.base")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def load_history(games, *, first_number: int = 1) -> dict:
    """Write coaches, events, rounds, games and game sides for `games` (GameRecords in order).

    Engine coach numbers become federation numbers; event ids are kept. Returns counts.
    """
    from django.db import connection

    from ratings.bulk import bulk_insert
    from tournaments.models import Coach, Event, Game, GameSide, Race, Round, Variant

    races = dict(Race.objects.values_list("slug", "id"))
    variants = dict(Variant.objects.values_list("slug", "id"))
    countries = ["NL", "GB", "DE", "FR", "IT", "ES", "US", "BE", "SE", "DK", "AU", "CA", "PL", "FI", "NO"]
    coach_numbers = sorted({g.home for g in games} | {g.away for g in games if g.away is not None})
    # the names as Coach.save() derives them (COPY bypasses it): the public name and the search keys
    bulk_insert(Coach, ["id", "number", "name", "nationality", "search_name", "public_name", "public_search_name"], (
        (n + first_number, n + first_number, f"Coach {n + first_number}", countries[n % len(countries)],
         f"coach {n + first_number}", f"Coach {n + first_number}", f"coach {n + first_number}") for n in coach_numbers
    ))
    events: dict[int, list] = {}
    for g in games:
        ev = events.get(g.event_id)
        if ev is None:
            events[g.event_id] = [g.played_at.date(), g.event_end or g.played_at.date(), g.variant, g.major]
        else:
            ev[1] = max(ev[1], g.played_at.date())
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)  # bulk_insert takes naive UTC
    bulk_insert(Event, ["id", "name", "variant", "start_date", "end_date", "country", "city", "is_major", "status",
                        "created_at", "updated_at"], (
        (eid, f"{'Major' if major else 'Event'} {eid}", variants[variant], start, end, countries[eid % len(countries)],
         f"City {eid % 97}", major, "sanctioned", now, now)
        for eid, (start, end, variant, major) in events.items()
    ))
    round_rows = []
    last_round: dict = defaultdict(lambda: (None, 0))
    for g in games:
        at, number = last_round[g.event_id]
        if at != g.played_at:
            number += 1
            last_round[g.event_id] = (g.played_at, number)
            round_rows.append((len(round_rows) + 1, g.event_id, number, g.played_at.date(), g.played_at.time()))
    bulk_insert(Round, ["id", "event", "number", "date", "start_time"], round_rows)
    game_rows, side_rows = [], []
    number_at = {(event_id, dt.datetime.combine(day, start)): rid for rid, event_id, _, day, start in round_rows}
    for g in games:
        rid = number_at[(g.event_id, g.played_at)]
        home_td, away_td = (1, 0) if g.home_score == 1.0 else (0, 1) if g.home_score == 0.0 else (1, 1)
        at = g.played_at  # naive UTC, as bulk_insert takes it
        hc, ac = g.home + first_number, g.away + first_number
        hr, ar = races[g.home_race], races[g.away_race]
        reported = events[g.event_id][1]  # history loaded in bulk: reported at its event's end
        game_rows.append((g.game_id, rid, g.event_id, hc, hr, ac, ar, home_td, away_td, 0, 0, "played", at, reported))
        side_rows.append((g.game_id, "home", rid, g.event_id, hc, hr, ac, ar, home_td, away_td, 0, 0, g.home_score, at))
        side_rows.append((g.game_id, "away", rid, g.event_id, ac, ar, hc, hr, away_td, home_td, 0, 0, 1.0 - g.home_score, at))
    bulk_insert(Game, ["id", "round", "event", "home_coach", "home_race", "away_coach", "away_race", "home_touchdowns",
                       "away_touchdowns", "home_casualties", "away_casualties", "kind", "played_at", "reported_on"], game_rows)
    bulk_insert(GameSide, ["game", "side", "round", "event", "coach", "race", "opponent", "opponent_race",
                           "touchdowns_for", "touchdowns_against", "casualties_for", "casualties_against", "score",
                           "played_at"], side_rows)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for table in ("tournaments_coach", "tournaments_event", "tournaments_round", "tournaments_game", "tournaments_gameside"):
                cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
            # as a bulk load should end: statistics, and the visibility map index-only scans rely on
            # (autovacuum would set it too, minutes later); VACUUM cannot run inside a transaction
            cursor.execute("ANALYZE" if connection.in_atomic_block else "VACUUM (ANALYZE)")
    return {"coaches": len(coach_numbers), "events": len(events), "rounds": len(round_rows), "games": len(game_rows)}
