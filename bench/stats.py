"""Benchmark of the statistics pages over a synthetic federation history.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ratingsite .venv/bin/python bench/stats.py
    ... bench/stats.py --games 100000 --repeat 10
    ... bench/stats.py --keepdb        # reuse the loaded database of an earlier run with the same --games
    (or `python -m bench.stats ...`)

Loads `bench.engines.synthetic_history` (1,000,000 games by default) into a database of its own
(Django's test database for DATABASE_URL: `test_<name>`) with bulk writes (COPY on PostgreSQL):
coaches, events with countries and cities, rounds, games, game sides, awards, and monthly rating
lists for the busiest keys. Then refreshes the statistics summaries and requests every statistics
page, with and without filters, through Django's test client. Prints p50, p95 and max per page,
and the queries each made, beside the machine reference (bench.machine) and the load average.
Asserts nothing.

Targets: none set by an issue for these pages in figures (the page benchmark's p95 of 100 ms at
8 clients, bench/pages.py, is for the ranking, coach, breakdown and event pages).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter, defaultdict
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

# Run as a script (`python bench/stats.py`), Python puts bench/ first on the path, not the project:
# bench/stats.py would then shadow the `stats` app, and bench/csv.py the standard csv module.
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

# Where events are held: (country, city, latitude, longitude, weight).
PLACES = [
    ("GB", "London", 51.51, -0.13, 9), ("GB", "Nottingham", 52.95, -1.15, 6), ("GB", "Manchester", 53.48, -2.24, 4),
    ("US", "Chicago", 41.88, -87.63, 5), ("US", "Atlanta", 33.75, -84.39, 3), ("US", "Seattle", 47.61, -122.33, 2),
    ("FR", "Paris", 48.86, 2.35, 5), ("FR", "Lyon", 45.76, 4.84, 3), ("DE", "Berlin", 52.52, 13.40, 4),
    ("DE", "Cologne", 50.94, 6.96, 3), ("IT", "Rome", 41.90, 12.50, 4), ("IT", "Turin", 45.07, 7.69, 2),
    ("ES", "Madrid", 40.42, -3.70, 4), ("ES", "Barcelona", 41.39, 2.17, 3), ("NL", "Utrecht", 52.09, 5.12, 3),
    ("NL", "Amsterdam", 52.37, 4.90, 2), ("BE", "Ghent", 51.05, 3.72, 2), ("DK", "Copenhagen", 55.68, 12.57, 2),
    ("SE", "Stockholm", 59.33, 18.07, 2), ("NO", "Oslo", 59.91, 10.75, 1), ("FI", "Helsinki", 60.17, 24.94, 1),
    ("PL", "Warsaw", 52.23, 21.01, 2), ("CZ", "Prague", 50.08, 14.44, 1), ("AT", "Vienna", 48.21, 16.37, 1),
    ("CH", "Zurich", 47.38, 8.54, 1), ("PT", "Lisbon", 38.72, -9.14, 1), ("GR", "Athens", 37.98, 23.73, 1),
    ("AU", "Melbourne", -37.81, 144.96, 3), ("AU", "Sydney", -33.87, 151.21, 2), ("NZ", "Auckland", -36.85, 174.76, 1),
    ("CA", "Toronto", 43.65, -79.38, 2), ("JP", "Tokyo", 35.68, 139.69, 1), ("BR", "São Paulo", -23.55, -46.63, 1),
    ("IE", "Dublin", 53.35, -6.26, 1), ("MT", "Valletta", None, None, 1),
]
NATIONALITIES = ["GB", "US", "FR", "DE", "IT", "ES", "NL", "BE", "DK", "SE", "AU", "CA", "PL", "NO"]
AWARD_CATEGORIES = ["Winner", "Runner-up", "Best painted", "Most touchdowns", "Most casualties", "Best stunty"]


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings.test")
    import django

    django.setup()


def _copy_or_bulk(model, columns: list[str], rows) -> None:
    """Write rows (tuples in `columns` order, primary key first) with COPY on PostgreSQL, else bulk_create."""
    from django.db import connection

    if connection.vendor == "postgresql":
        quote = connection.ops.quote_name
        names = ", ".join(quote(model._meta.get_field(c).column) for c in columns)
        with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {quote(model._meta.db_table)} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        return
    batch = []
    attnames = [model._meta.get_field(c).attname for c in columns]
    for row in rows:
        batch.append(model(**dict(zip(attnames, row))))
        if len(batch) == 5000:
            model.objects.bulk_create(batch)
            batch = []
    model.objects.bulk_create(batch)


def load(n_games: int, seed: int) -> dict:
    """Write the synthetic history; returns the coach numbers and race slugs the pages are asked about."""
    from django.core.management.color import no_style
    from django.db import connection, transaction

    from bench.engines import synthetic_history
    from ratings.models import RatingList, RatingListEntry, RatingSystem
    from tournaments.models import Award, Coach, Event, Game, GameSide, Race, Round, Variant

    started = time.perf_counter()
    games = synthetic_history(n_games=n_games, seed=seed)
    print(f"generated {len(games):,} games in {time.perf_counter() - started:.1f} s", flush=True)
    rng = random.Random(seed)
    races = dict(Race.objects.values_list("slug", "id"))
    variants = dict(Variant.objects.values_list("slug", "id"))
    coach_numbers = sorted({g.home for g in games} | {g.away for g in games})
    utc = UTC

    events: dict[int, dict] = {}
    round_of: dict[tuple[int, datetime], int] = {}
    for g in games:
        event = events.setdefault(g.event_id, {"first": g.played_at, "variant": g.variant, "major": g.major,
                                               "end": g.event_end, "rounds": []})
        if (g.event_id, g.played_at) not in round_of:
            event["rounds"].append(g.played_at)
            round_of[g.event_id, g.played_at] = len(round_of) + 1
    weights = [p[4] for p in PLACES]
    if connection.vendor == "postgresql":
        # The generated rows are consistent by construction: skip the per-row foreign-key triggers.
        with connection.cursor() as cursor:
            cursor.execute("SET session_replication_role = replica")
    with transaction.atomic():
        _copy_or_bulk(Coach, ["id", "number", "name", "nationality"], (
            (number + 1, number + 1, f"Coach {number + 1}", rng.choice(NATIONALITIES)) for number in coach_numbers
        ))
        event_rows = []
        for event_id, e in sorted(events.items()):
            country, city, lat, lon, _ = rng.choices(PLACES, weights)[0]
            start = e["first"].date()
            e["sanctioned"] = rng.random() < 0.9
            event_rows.append((
                event_id, f"Event {event_id}", variants[e["variant"]], start, max(start, e["end"] or start), country, city,
                Decimal(f"{lat:.5f}") if lat is not None else None, Decimal(f"{lon:.5f}") if lon is not None else None,
                e["major"], "sanctioned" if e["sanctioned"] else "rejected", datetime.now(utc), datetime.now(utc),
            ))
        _copy_or_bulk(Event, ["id", "name", "variant", "start_date", "end_date", "country", "city", "latitude",
                              "longitude", "is_major", "status", "created_at", "updated_at"], event_rows)
        _copy_or_bulk(Round, ["id", "event", "number", "date"], (
            (round_of[event_id, at], event_id, number, at.date())
            for event_id, e in sorted(events.items()) for number, at in enumerate(e["rounds"], start=1)
        ))
        _copy_or_bulk(Game, ["id", "round", "event", "home_coach", "home_race", "away_coach", "away_race",
                             "home_touchdowns", "away_touchdowns", "home_casualties", "away_casualties", "kind",
                             "played_at"], (
            (g.game_id, round_of[g.event_id, g.played_at], g.event_id, g.home + 1, races[g.home_race], g.away + 1,
             races[g.away_race], *_touchdowns(g.home_score, g.game_id), 0, 0, "played", g.played_at.replace(tzinfo=utc))
            for g in games
        ))
        score = {1.0: Decimal("1"), 0.5: Decimal("0.5"), 0.0: Decimal("0")}

        def sides():
            for g in games:
                home_td, away_td = _touchdowns(g.home_score, g.game_id)
                common = (round_of[g.event_id, g.played_at], g.event_id)
                at = g.played_at.replace(tzinfo=utc)
                yield (2 * g.game_id - 1, g.game_id, "home", *common, g.home + 1, races[g.home_race], g.away + 1,
                       races[g.away_race], home_td, away_td, 0, 0, score[g.home_score], at)
                yield (2 * g.game_id, g.game_id, "away", *common, g.away + 1, races[g.away_race], g.home + 1,
                       races[g.home_race], away_td, home_td, 0, 0, score[1.0 - g.home_score], at)

        _copy_or_bulk(GameSide, ["id", "game", "side", "round", "event", "coach", "race", "opponent", "opponent_race",
                                 "touchdowns_for", "touchdowns_against", "casualties_for", "casualties_against",
                                 "score", "played_at"], sides())
        attendees = defaultdict(set)
        for g in games:
            attendees[g.event_id].update((g.home + 1, g.away + 1))
        award_rows, award_id = [], 0
        for event_id, coaches in sorted(attendees.items()):
            for category in rng.sample(AWARD_CATEGORIES, 3):
                award_id += 1
                award_rows.append((award_id, event_id, category, rng.choice(sorted(coaches))))
        _copy_or_bulk(Award, ["id", "event", "category", "coach"], award_rows)

        busiest = Counter()
        for g in games:
            busiest[g.home + 1, races[g.home_race], variants[g.variant]] += 1
            busiest[g.away + 1, races[g.away_race], variants[g.variant]] += 1
        keys = [key for key, _ in busiest.most_common(2000)]
        elo = RatingSystem.objects.get(slug="elo")
        first, last = games[0].played_at.date(), games[-1].played_at.date()
        months = []
        year, month = first.year, first.month
        while (year, month) <= (last.year, last.month):
            months.append(date(year, month, 1))
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        lists = RatingList.objects.bulk_create(RatingList(system=elo, date=day, rated=len(keys)) for day in months)
        values = {key: 150.0 for key in keys}

        def entries():
            entry_id = 0
            for rating_list in lists:
                for key in keys:
                    values[key] += rng.uniform(-3, 3.2)
                ranked = sorted(keys, key=lambda k: -values[k])
                for rank, (coach, race, variant) in enumerate(ranked, start=1):
                    entry_id += 1
                    yield (entry_id, rating_list.pk, elo.pk, coach, race, variant, round(values[coach, race, variant], 2),
                           10, rank, rank, 1, 1)

        _copy_or_bulk(RatingListEntry, ["id", "rating_list", "system", "coach", "race", "variant", "value", "games",
                                        "rank", "overall_rank", "games_counted", "games_played"], entries())
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), [Coach, Event, Round, Game, GameSide, Award, RatingListEntry]):
            cursor.execute(sql)
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = DEFAULT")
            cursor.execute("ANALYZE")
    print(f"loaded in {time.perf_counter() - started:.1f} s", flush=True)


def _touchdowns(home_score: float, game_id: int) -> tuple[int, int]:
    low = game_id % 3
    if home_score == 1.0:
        return low + 1, low
    if home_score == 0.0:
        return low, low + 1
    return low, low


def subjects() -> dict:
    """The coaches and race the filtered pages are asked about: the busiest ones."""
    from django.db.models import Count

    from tournaments.models import Coach, GameSide

    busiest = list(
        GameSide.objects.values("coach").annotate(n=Count("id")).order_by("-n").values_list("coach", flat=True)[:8]
    )
    numbers = dict(Coach.objects.filter(pk__in=busiest).values_list("pk", "number"))
    coach = numbers[busiest[0]]
    race = GameSide.objects.filter(coach_id=busiest[0]).values("race__slug").annotate(n=Count("id")).order_by("-n")[0]["race__slug"]
    return {"coach": coach, "race": race, "eight": [numbers[pk] for pk in busiest]}


def pages(s: dict) -> list[tuple[str, str]]:
    eight = "&".join(f"coach={n}" for n in s["eight"])
    return [
        ("index", "/stats/"),
        ("games", "/stats/games/"),
        ("games: variant+country", "/stats/games/?variant=blood-bowl-2020&country=GB"),
        ("games: race", "/stats/games/?race=wood-elf"),
        ("games: coach", f"/stats/games/?coach={s['coach']}"),
        ("games: year, page 50", "/stats/games/?year=2015&page=50"),
        ("download: games csv (busiest coach)", f"/stats/games/?coach={s['coach']}&_export=csv"),
        ("win ratios", "/stats/win-ratios/"),
        ("win ratios: race", "/stats/win-ratios/?race=wood-elf"),
        ("win ratios: country+year", "/stats/win-ratios/?country=GB&year=2019"),
        ("win ratios: by ratio, 20+ games", "/stats/win-ratios/?min_games=20&coach-sort=-ratio"),
        ("race grid", "/stats/race-grid/"),
        ("race grid: variant", "/stats/race-grid/?variant=sevens"),
        ("race grid: coach", f"/stats/race-grid/?coach={s['coach']}"),
        ("rank over time", f"/stats/rank-over-time/?coach={s['coach']}&race={s['race']}&system=elo"),
        ("head-to-head (8)", f"/stats/head-to-head/?{eight}"),
        ("differentials", f"/stats/differentials/?coach={s['coach']}"),
        ("top", "/stats/top/"),
        ("top: country+nationality", "/stats/top/?country=GB&nationality=US"),
        ("awards", "/stats/awards/"),
        ("legends", "/stats/legends/"),
        ("map", "/stats/map/"),
        ("map: year", "/stats/map/?year=2015&variant=blood-bowl-2020"),
    ]


def measure(repeat: int) -> None:
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    s = subjects()
    print(f"\n{'page':34} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'queries':>8}  status")
    for name, url in pages(s):
        times, status = [], None
        for attempt in range(repeat + 2):
            reset_queries()
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                response = client.get(url)
                if getattr(response, "streaming", False):
                    b"".join(response.streaming_content)
                elapsed = (time.perf_counter() - started) * 1000
            status = response.status_code
            if attempt >= 2:  # two warm-ups
                times.append(elapsed)
        times.sort()
        p95 = times[min(len(times) - 1, max(0, round(0.95 * len(times) + 0.5) - 1))]
        print(f"{name:34} {times[len(times) // 2]:8.1f} {p95:8.1f} {times[-1]:8.1f} {len(queries):8d}  {status}", flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=20, help="timed requests per page (after two warm-ups)")
    parser.add_argument("--keepdb", action="store_true", help="keep the bench database, and reuse it when it holds --games games")
    args = parser.parse_args(argv)
    _setup_django()

    from django.db import connection

    from stats.services import summaries_refresh
    from tournaments.models import Game

    if connection.vendor != "postgresql":
        print("note: DATABASE_URL is not PostgreSQL; the figures are for", connection.vendor, file=sys.stderr)
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=args.keepdb, serialize=False)
    try:
        present = Game.objects.count()
        if present != args.games:
            if present:
                print(f"the kept database holds {present:,} games, not {args.games:,}: run without --keepdb once", file=sys.stderr)
                sys.exit(2)
            load(args.games, args.seed)
            refresh = summaries_refresh()
            print(f"summaries refreshed in {refresh.duration:.1f} s ({refresh.games:,} games)", flush=True)
        from bench.machine import reference

        print(f"load average {os.getloadavg()[0]:.2f}")
        print(reference(database=connection.vendor == "postgresql"), flush=True)  # compare machines beside these
        measure(args.repeat)
        print(f"load average {os.getloadavg()[0]:.2f}")
    finally:
        if not args.keepdb:
            connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
