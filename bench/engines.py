"""Benchmark of the rating engines over a synthetic federation history.

    .venv/bin/python bench/engines.py                 # 1,000,000 games
    .venv/bin/python bench/engines.py --games 100000  # smaller (or: python -m bench.engines ...)

Each method runs in turn in this process over the same games: wall and CPU seconds, games per
second, and the peak resident memory the run added on top of the games (the kernel's high-water
mark is reset before each run). Prints figures beside the machine reference (bench.machine) and
the load average; asserts nothing.

Targets (issue 35, on a 2-core machine, at --games 1000000): each engine, its rows included, at
least 20x the games/s of the PyPI glicko2 package in the same run (KNSB at least 10x), and within
3x of a bare compiled loop of the same update.

`synthetic_history(n_games=..., seed=...)` is importable for other benchmarks.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
import time
from collections import defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import numpy as np

# Run as a script (`python bench/engines.py`), Python puts bench/ first on the path, not the project.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.machine import reference  # noqa: E402
from rating_engines import glicko, naf_elo  # noqa: E402
from rating_engines.common import GameRecord, paused_gc  # noqa: E402
from rating_engines.glicko import compiled as glicko_compiled  # noqa: E402
from rating_engines.knsb import compiled as knsb_compiled  # noqa: E402
from rating_engines.knsb.calculator import erf_scale  # noqa: E402
from rating_engines.naf_elo import compiled  # noqa: E402

RACES = [
    "amazon", "black-orc", "chaos-chosen", "chaos-dwarf", "chaos-renegade", "dark-elf", "dwarf",
    "elf-union", "gnome", "goblin", "halfling", "high-elf", "human", "imperial-nobility", "khorne",
    "lizardmen", "necromantic-horror", "norse", "nurgle", "ogre", "old-world-alliance", "orc",
    "shambling-undead", "skaven", "slann", "snotling", "tomb-kings", "underworld-denizens",
    "vampire", "wood-elf",
]
VARIANTS = ["blood-bowl-2020", "sevens"]
ROUND_HOURS = (9, 11, 13, 15, 17)  # start times of the rounds of one tournament day


def synthetic_history(n_games: int = 1_000_000, seed: int = 2024, *, years: int = 20,
                      first_day: date = date(2005, 1, 1)) -> list[GameRecord]:
    """A deterministic federation history of `n_games` games in (played_at, game_id) order.

    Scaled from the full size: a pool of 30,000 coaches and about 12,000 events (8 to 120
    coaches, Swiss pairings, 3 to 6 rounds over one or two days) spread over `years` years.
    Coaches have a hidden strength, a career window, an activity weight and a favourite race;
    about one game in five is a draw.
    """
    rng = np.random.default_rng(seed)
    share = n_games / 1_000_000
    n_coaches = max(16, round(30_000 * share))
    n_events = max(1, round(12_000 * share))
    span = years * 365

    strength = rng.normal(0.0, 0.8, n_coaches)
    activity = rng.pareto(2.0, n_coaches) + 0.2
    career_start = rng.uniform(-0.2 * span, span, n_coaches)
    career_end = career_start + (rng.exponential(0.3, n_coaches) + 0.05) * span
    race_weights = rng.uniform(0.3, 1.0, len(RACES))
    race_weights /= race_weights.sum()
    favourite = rng.choice(len(RACES), n_coaches, p=race_weights)
    other_race = rng.choice(len(RACES), n_coaches, p=race_weights)

    sizes = []
    rounds = []
    total = 0
    while total < n_games:
        size = min(8 + int(112 * rng.random() ** 3.15), n_coaches)  # a small pool cannot fill a big event
        size -= size % 2
        n_rounds = 3 + (size > 24) + (size > 56) + int(rng.integers(0, 2))
        sizes.append(size)
        rounds.append(n_rounds)
        total += size // 2 * n_rounds
        if len(sizes) >= n_events and total >= n_games:
            break
    days = np.sort(rng.integers(0, span, len(sizes)))

    pending = []  # (played_at, event order, table, ...) before game ids are given out
    for event, (size, n_rounds, day) in enumerate(zip(sizes, rounds, days.tolist())):
        active = np.flatnonzero((career_start <= day) & (day <= career_end))
        if active.size < size:
            active = np.arange(n_coaches)
        weights = np.cumsum(activity[active])
        chosen: list[int] = []
        seen = set()
        while len(chosen) < size:
            draws = np.searchsorted(weights, rng.random(2 * size) * weights[-1])
            for c in active[np.minimum(draws, active.size - 1)].tolist():
                if c not in seen:
                    seen.add(c)
                    chosen.append(c)
                    if len(chosen) == size:
                        break
        coaches = np.array(chosen)
        races = np.where(rng.random(size) < 0.8, favourite[coaches], other_race[coaches])
        variant = VARIANTS[1] if rng.random() < 0.1 else VARIANTS[0]
        major = size >= 60 and rng.random() < 0.1
        two_days = n_rounds > 3
        start = first_day + timedelta(days=day)
        event_end = start + timedelta(days=1 if two_days else 0)
        points = np.zeros(size)
        for rnd in range(n_rounds):
            order = np.lexsort((rng.random(size), -points))
            home, away = order[0::2], order[1::2]
            p_home = 1.0 / (1.0 + np.exp(strength[coaches[away]] - strength[coaches[home]]))
            u = rng.random(size // 2)
            result = np.where(u < p_home - 0.1, 1.0, np.where(u > p_home + 0.1, 0.0, 0.5))
            points[home] += result
            points[away] += 1.0 - result
            on_day = start + timedelta(days=1) if two_days and rnd >= (n_rounds + 1) // 2 else start
            hour = ROUND_HOURS[rnd if on_day == start else rnd - (n_rounds + 1) // 2]
            played_at = datetime(on_day.year, on_day.month, on_day.day, hour)
            for table, (h, a, r) in enumerate(zip(home.tolist(), away.tolist(), result.tolist())):
                pending.append((played_at, event, table, int(coaches[h]), RACES[races[h]],
                                int(coaches[a]), RACES[races[a]], r, variant, size, major,
                                event_end))
    pending.sort(key=lambda p: (p[0], p[1], p[2]))
    del pending[n_games:]
    with paused_gc():
        return [
            GameRecord(
                game_id=game_id, played_at=p[0], event_id=p[1] + 1, variant=p[8], home=p[3],
                home_race=p[4], away=p[5], away_race=p[6], home_score=p[7], event_coaches=p[9],
                major=p[10], event_end=p[11],
            )
            for game_id, p in enumerate(pending, start=1)
        ]


def _knsb_runner():
    try:
        knsb = importlib.import_module("rating_engines.knsb")
        config = knsb.KnsbConfig()
    except Exception as error:  # another helper writes it; absent or broken means skipped
        return None, f"{type(error).__name__}: {error}"
    return (lambda games: knsb.run_history(games, config)), None


def _pypi_glicko2(games):
    """The PyPI `glicko2` package over the same monthly periods, per race, as it must be used:
    eagerly, every known player updated or decayed at the end of every month."""
    import glicko2 as pypi

    pypi.Player._tau = 0.2
    players: dict = {}
    by_month = defaultdict(list)
    for g in games:
        if g.away is not None:
            by_month[(g.played_at.year, g.played_at.month)].append(g)
    updates = 0
    for month in sorted(by_month):
        results = defaultdict(lambda: ([], [], []))
        for g in by_month[month]:
            home = (g.home, g.home_race, g.variant)
            away = (g.away, g.away_race, g.variant)
            for key in (home, away):
                if key not in players:
                    players[key] = pypi.Player()
            results[home][0].append(players[away].rating)
            results[home][1].append(players[away].rd)
            results[home][2].append(g.home_score)
            results[away][0].append(players[home].rating)
            results[away][1].append(players[home].rd)
            results[away][2].append(1.0 - g.home_score)
        for key, player in players.items():
            if key in results:
                player.update_player(*results[key])
                updates += 1
            else:
                player.did_not_compete()
    return updates


def _rss_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _measure(run, games) -> dict:
    """Run `run(games)` here; return its seconds and the peak memory it added.

    In-process, as the recalculation service runs an engine: the kernel's peak-RSS mark is reset
    first (/proc/self/clear_refs), so VmHWM afterwards is this run's peak.
    """
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        pass  # not Linux: the peak then covers the whole process
    base = _rss_kib("VmRSS")
    began = time.perf_counter()
    cpu = time.process_time()
    try:
        result = run(games)
    except Exception as error:  # report and go on to the next method
        return {"error": f"{type(error).__name__}: {error}"}
    figures = {
        "seconds": time.perf_counter() - began,
        "cpu": time.process_time() - cpu,
        "peak_mib": _rss_kib("VmHWM") / 1024,
        "added_mib": (_rss_kib("VmHWM") - base) / 1024,
        "rows": len(getattr(result, "rows", ()) or ()),
        "summaries": len(getattr(result, "summaries", ()) or ()),
    }
    del result
    gc.collect()
    return figures


def _row_cost(n: int) -> float:
    """Seconds to build `n` CalculationRows and nothing else: the floor under every engine."""
    from rating_engines.common import CalculationRow

    played_at = datetime(2020, 1, 1)
    with paused_gc():
        began = time.perf_counter()
        rows = [CalculationRow(i, "home", 1, "orc", "v", 2, "elf", played_at, "p", 1.0, True, None,
                               150.0, 150.0, 0.5, 8.9, 0.3) for i in range(n)]
        seconds = time.perf_counter() - began
    del rows
    return seconds


def _line(name, figures, n_games, target="") -> str:
    if "error" in figures:
        return f"{name:<34} failed: {figures['error']}"
    return (f"{name:<34}{figures['seconds']:>8.2f}{figures['cpu']:>8.2f}"
            f"{n_games / figures['seconds']:>11,.0f}{figures['rows']:>11,}"
            f"{figures['summaries']:>10,}"
            f"{figures['added_mib']:>8.0f}{figures['peak_mib']:>8.0f}  {target}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--skip-pypi", action="store_true", help="leave out the PyPI glicko2 run")
    args = parser.parse_args(argv)

    began = time.perf_counter()
    games = synthetic_history(n_games=args.games, seed=args.seed)
    n = len(games)
    coaches = len({g.home for g in games} | {g.away for g in games})
    events = len({g.event_id for g in games})
    print(f"synthetic history: {n:,} games, {coaches:,} coaches, {events:,} events, "
          f"{games[0].played_at:%Y-%m-%d} to {games[-1].played_at:%Y-%m-%d} "
          f"(generated in {time.perf_counter() - began:.1f} s; process RSS with the games "
          f"{_rss_kib('VmRSS') / 1024:.0f} MiB)")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(reference(database=False))
    scale = n / 1_000_000

    methods = [
        ("naf_elo (per race)", lambda gs: naf_elo.run_history(gs, naf_elo.EloConfig()),
         f"target <= {2 * scale:.2f} s"),
        ("glicko (per race, monthly)", lambda gs: _closed(gs, glicko.GlickoConfig()),
         f"target <= {3 * scale:.2f} s"),
        ("global glicko (two-weekly)",
         lambda gs: _closed(gs, glicko.GlickoConfig.global_defaults()),
         f"target <= {3 * scale:.2f} s"),
    ]
    # NAF Elo compiled (rating_engines/naf_elo/compiled.py): compiled or loaded before timing, the
    # games read into columns once; "columns" keeps its rows as columns, "rows" builds run_history's
    elo = naf_elo.EloConfig()
    compile_seconds, _ = _timed(compiled.warm_up)
    read_seconds, columns = _timed(compiled.columns_of, games, elo)
    bare = _bare_inputs(columns, elo)
    methods += [
        ("naf_elo compiled (columns)", lambda gs: _row_columns(compiled.run_columns(columns, elo)), ""),
        ("naf_elo compiled (rows)", lambda gs: _as_objects(compiled.run_history(gs, elo)), ""),
        ("bare compiled Elo loop", lambda gs: _bare_run(bare), "no rows"),
    ]
    # Glicko compiled (rating_engines/glicko/compiled.py) per race and Global Glicko, the same way;
    # "rows" is run_history and close_periods, as the Python lines above
    glicko_compile_seconds, _ = _timed(glicko_compiled.warm_up)
    glicko_read = {}
    bare_of = {"naf_elo compiled (columns)": "bare compiled Elo loop",
               "naf_elo compiled (rows)": "bare compiled Elo loop"}
    for label, config in (("glicko", glicko.GlickoConfig()), ("global glicko", glicko.GlickoConfig.global_defaults())):
        glicko_read[label], glicko_columns = _timed(glicko_compiled.columns_of, games, config)
        bare_glicko = _glicko_bare_inputs(glicko_columns, config)
        methods += [
            (f"{label} compiled (columns)",
             lambda gs, c=glicko_columns, cf=config: _glicko_row_columns(glicko_compiled.run_columns(c, cf, glicko.GlickoState())),
             ""),
            (f"{label} compiled (rows)", lambda gs, cf=config: _closed(gs, cf, glicko_compiled), ""),
            (f"bare compiled {label} loop", lambda gs, b=bare_glicko: _glicko_bare_run(b), "no rows"),
        ]
        bare_of[f"{label} compiled (columns)"] = bare_of[f"{label} compiled (rows)"] = f"bare compiled {label} loop"
    knsb_run, knsb_error = _knsb_runner()
    if knsb_run is not None:
        methods.append(("knsb (KnsbConfig())", knsb_run, ""))
    # KNSB compiled (rating_engines/knsb/compiled.py), the same way: every list made, the last
    # month's too, for "columns"; run_history (the last month left open) for "rows"
    knsb_config = knsb_compiled.KnsbConfig()
    knsb_compile_seconds, _ = _timed(knsb_compiled.warm_up)
    knsb_read_seconds, knsb_columns = _timed(knsb_compiled.columns_of, games, knsb_config)
    bare_knsb = _knsb_bare_inputs(knsb_columns, knsb_config)
    methods += [
        ("knsb compiled (columns)", lambda gs: _knsb_row_columns(knsb_compiled.run_columns(knsb_columns, knsb_config)),
         ""),
        ("knsb compiled (rows)", lambda gs: knsb_compiled.run_history(gs, knsb_config), ""),
        ("bare compiled KNSB loop", lambda gs: _knsb_bare_run(bare_knsb), "no rows"),
    ]
    bare_of["knsb compiled (columns)"] = bare_of["knsb compiled (rows)"] = "bare compiled KNSB loop"
    print(f"\n{'method':<34}{'wall s':>8}{'cpu s':>8}{'games/s':>11}{'rows':>11}{'summaries':>10}"
          f"{'+MiB':>8}{'peakMiB':>8}")
    speeds = {}
    for name, run, target in methods:
        figures = _measure(run, games)
        speeds[name] = figures.get("seconds")
        print(_line(name, figures, n, target), flush=True)
    if knsb_run is None:
        print(f"{'knsb':<34} skipped: {knsb_error}")
    if not args.skip_pypi:
        figures = _measure(_pypi_glicko2, games)
        print(_line("PyPI glicko2 (monthly)", figures, n), flush=True)
        if "error" not in figures:
            print()
            for name, seconds in speeds.items():
                if seconds and not name.startswith("bare"):
                    least = 10 if name.startswith("knsb") else 20
                    ratio = figures["seconds"] / seconds
                    print(f"{name} runs at {ratio:.1f}x the games/s of the PyPI package "
                          f"(target >= {least}x): {'ok' if ratio >= least else 'UNDER'}")
    for name, bare_name in bare_of.items():
        bare_seconds = speeds.get(bare_name)
        if bare_seconds and speeds.get(name):
            ratio = speeds[name] / bare_seconds
            print(f"{name} takes {ratio:.1f}x the time of the {bare_name} "
                  f"(target within 3x): {'ok' if ratio <= 3 else 'OVER'}")
    print(f"naf_elo compiled: kernels compiled or loaded from the cache in {compile_seconds:.2f} s, "
          f"the games read into columns in {read_seconds:.2f} s (neither counted above)")
    print(f"glicko compiled: kernels compiled or loaded from the cache in {glicko_compile_seconds:.2f} s, "
          "the games read into columns in "
          + ", ".join(f"{seconds:.2f} s ({label})" for label, seconds in glicko_read.items())
          + " (neither counted above)")
    print(f"knsb compiled: kernels compiled or loaded from the cache in {knsb_compile_seconds:.2f} s, "
          f"the games read into columns in {knsb_read_seconds:.2f} s (neither counted above)")
    print(f"floor: building {2 * n:,} CalculationRows and nothing else takes "
          f"{_row_cost(2 * n):.2f} s; peak memory target 1024 MiB; load average {os.getloadavg()[0]:.2f}")


def _timed(run, *args):
    began = time.perf_counter()
    result = run(*args)
    return time.perf_counter() - began, result


def _as_objects(result):
    """run_history's result with its rows as CalculationRow objects (the compiled path hands them out as columns)."""
    return SimpleNamespace(rows=list(result.rows), summaries=result.summaries, state=result.state)


def _row_columns(out):
    """The compiled run's output, counted as its rows (two a game, one a bye) and summaries."""
    n_rows = len(out.games) + int((out.games.away_key >= 0).sum())
    return SimpleNamespace(rows=range(n_rows), summaries=range(len(out.summary_slots)), out=out)


def _bare_inputs(columns, config):
    """The bare loop's arrays: keys, S and K a game (every synthetic game counts), start ratings."""
    major = columns.major
    n = np.where(major, config.major_coaches, np.minimum(columns.coaches, config.non_major_max))
    k = 2.0 * np.sqrt(n) * config.k_scale  # k_value's arithmetic, elementwise
    ratings = np.full(len(columns.keys), config.start_rating)
    return columns.home_key, columns.away_key, columns.home_score, k, ratings


def _bare_run(bare):
    *games, start = bare
    ratings = start.copy()
    compiled.final_ratings(*games, ratings)
    return SimpleNamespace(ratings=ratings)


def _glicko_row_columns(out):
    """The compiled Glicko run's output, counted as its rows (two a game, one a bye) and summaries."""
    c = out.columns
    n_rows = len(c) + int((c.away_key >= 0).sum())
    return SimpleNamespace(rows=range(n_rows), summaries=range(len(out.summary_ints)), out=out)


def _glicko_bare_inputs(columns, config):
    """The bare Glicko loop's arrays: the counted games' periods, keys and scores; start ratings."""
    counts = columns.counts
    n = len(columns.keys)
    start = (np.full(n, config.mu0), np.full(n, config.phi0), np.full(n, config.sigma0),
             np.full(n, glicko.state.NEW, dtype=np.int64))
    return (columns.period[counts], columns.home_key[counts], columns.away_key[counts],
            columns.home_score[counts], start, config.tau, config.decay_cap)


def _glicko_bare_run(bare):
    period, home, away, score, start, tau, cap = bare
    mu, phi, sigma, last = (column.copy() for column in start)
    glicko_compiled.final_ratings(period, home, away, score, mu, phi, sigma, last, tau, cap)
    return SimpleNamespace(mu=mu)


def _knsb_row_columns(result):
    """The compiled KNSB run's output, counted as its rows (two a game, one a bye, one more for a
    depot game at a later list) and summaries."""
    out, _ = result
    c = out.columns
    n_rows = len(c) + int((c.away_key >= 0).sum()) + len(out.extra_depot)
    return SimpleNamespace(rows=range(n_rows), summaries=range(len(out.summary_ints)), out=out)


def _knsb_bare_inputs(columns, config):
    """The bare KNSB loop's arrays: the counted games' months, keys and scores; every key rated
    from the start (the bootstrap rating, Nv as a start rating from a full depot)."""
    counts = columns.code == knsb_compiled._COUNTS
    n = len(columns.keys)
    start = (np.full(n, config.bootstrap_rating), np.full(n, config.depot_min_games, dtype=np.int64))
    return (columns.month[counts], columns.home_key[counts], columns.away_key[counts], columns.home_score[counts],
            start, config)


def _knsb_bare_run(bare):
    month, home, away, score, start, config = bare
    rating, nv = (column.copy() for column in start)
    knsb_compiled.final_ratings(month, home, away, score, rating, nv, erf_scale(config.sigma), config.sigma,
                                config.nv_cap, knsb_compiled._P_GRID, knsb_compiled._Z_GRID, knsb_compiled._PHI_COEFS)
    return SimpleNamespace(rating=rating)


def _closed(games, config, engine=glicko):
    """run_history, then rate the last open period too, so every game has its rows."""
    result = engine.run_history(games, config)
    tail = engine.close_periods(result.state, config, date.max)
    result.rows.extend(tail.rows)
    result.summaries.extend(tail.summaries)
    return result


if __name__ == "__main__":
    main()
