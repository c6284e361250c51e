"""The accuracy report of a rating system: its stored predictions (each counted row's We, known
before its game) against the results, with two baselines, the draw model and the splits."""
from __future__ import annotations

import datetime as dt
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from django.db import connection, connections
from django.utils import timezone
from django.utils.translation import gettext_noop

from assurance.accuracy import metrics
from rating_engines.common import HOME, Reason
from ratings.bulk import fetch_columns
from ratings.models import AccuracyRefreshRequest, AccuracyReport, CalculationRow, RatingSystem, RecalculationRun, RunStatus
from ratingsite import page_cache
from tournaments.models import PUBLIC_STATUSES, Event, Game, Variant

# which figures each predictor gets, and how the page names them
PREDICTORS = (
    ("method", gettext_noop("The rating system")), ("race_table", gettext_noop("Race against race")),
    ("even", gettext_noop("0.5 for every game")),
)


def _until(column: str, end: dt.date | None) -> tuple[str, list]:
    """The condition that `column` falls on or before the day `end` (None: none)."""
    if end is None:
        return "", []
    return f" AND {column} < %s", [dt.datetime.combine(end + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)]


@dataclass(frozen=True)
class PlayedGames:
    """The public games played up to the end of a window, in order of play (time, then id), as
    columns: id, seconds since 1970, year, variant, major, home and away race (0: none). Those
    before its start are what the baselines and the draw model learn from first. Read once for
    every system."""

    columns: dict[str, np.ndarray]
    start: dt.date | None = None
    end: dt.date | None = None

    def __len__(self) -> int:
        return len(self.columns["id"])

    def positions(self, game_ids: np.ndarray) -> np.ndarray:
        """Where each game is in the order of play (-1: not a public game of the window)."""
        low, table = self._table
        at = game_ids - low
        inside = (at >= 0) & (at < len(table))
        return np.where(inside, table[np.where(inside, at, 0)], -1) if len(table) else np.full(len(game_ids), -1)

    @cached_property
    def _table(self) -> tuple[int, np.ndarray]:
        """Position by id less the lowest: ids are numbered in a row, so a table the size of their
        span, looked up in a few milliseconds for a million games (a search takes a hundred)."""
        ids = self.columns["id"]
        if not len(ids):
            return 0, np.zeros(0, dtype=np.int64)
        low = int(ids.min())
        table = np.full(int(ids.max()) - low + 1, -1, dtype=np.int64)
        table[ids - low] = np.arange(len(ids))
        return low, table


def played_games(start: dt.date | None = None, end: dt.date | None = None) -> PlayedGames:
    """The public games played up to `end` (inclusive; None: every game), for a window from `start`."""
    game, event = Game._meta.db_table, Event._meta.db_table
    within, params = _until("g.played_at", end)
    columns = fetch_columns(
        [("id", "i", "g.id"), ("seconds", "t", "g.played_at"), ("variant", "i", "e.variant_id"), ("major", "b", "e.is_major"),
         ("home_race", "i", "g.home_race_id"), ("away_race", "i", "coalesce(g.away_race_id, 0)")],
        f"{game} g JOIN {event} e ON e.id = g.event_id WHERE e.status IN ({', '.join(['%s'] * len(PUBLIC_STATUSES))}){within}",
        [*PUBLIC_STATUSES, *params],
    )
    order = np.lexsort((columns["id"], columns["seconds"]))
    columns = {name: column[order] for name, column in columns.items()}
    columns["year"] = columns["seconds"].astype(np.int64).astype("datetime64[s]").astype("datetime64[Y]").astype(np.int64) + 1970
    return PlayedGames(columns, start, end)


def _counted_sql(system: RatingSystem, end: dt.date | None) -> tuple[str, list]:
    within, params = _until("played_at", end)
    return (f"{CalculationRow._meta.db_table} WHERE system_id = %s AND side = %s AND counted AND we IS NOT NULL"
            f" AND reason <> %s{within}", [system.pk, HOME, Reason.REVERSED, *params])


def counted_rows(system: RatingSystem, end: dt.date | None = None) -> dict[str, np.ndarray]:
    """The home side's counted rows with a We of the games played up to `end`: game, We, W (a
    counted game has such a row for each side; one side is the game's prediction)."""
    tables, params = _counted_sql(system, end)
    return fetch_columns([("game", "i", "game_id"), ("we", "f", "we"), ("w", "f", "w")], tables, params)


def _per_game(system: RatingSystem, games: PlayedGames, rows: dict[str, np.ndarray]) -> dict[str, np.ndarray] | None:
    """Per public game the system counted, in order of play: its prediction and its result as it
    stands, with what the splits need. A KNSB result corrected after a list had rated it has a
    second counted row: the game counts once, with the We of its first row (the prediction made
    before it) and the W of its last (the corrected result); its REVERSED row predicts nothing."""
    at = games.positions(rows["game"])
    public = at >= 0  # a game of an event no longer public leaves the report
    at, we, w = at[public], rows["we"][public], rows["w"][public]
    if not len(at):
        return None
    twice = np.bincount(at, minlength=len(games)) > 1
    if twice.any():  # a few games: their rows again, in the order written
        again = games.columns["id"][twice].tolist()
        postgres = connection.vendor == "postgresql"
        tables, params = _counted_sql(system, games.end)
        among = "= ANY(%s)" if postgres else f"IN ({', '.join(['%s'] * len(again))})"
        later = fetch_columns([("game", "i", "game_id"), ("id", "i", "id"), ("we", "f", "we"), ("w", "f", "w")],
                      f"{tables} AND game_id {among}", [*params, *([again] if postgres else again)])
        order = np.lexsort((later["id"], later["game"]))
        game = later["game"][order]
        first = np.r_[True, game[1:] != game[:-1]]
        last = np.r_[first[1:], True]
        keep = ~twice[at]
        at = np.r_[at[keep], games.positions(game[first])]
        we, w = np.r_[we[keep], later["we"][order][first]], np.r_[w[keep], later["w"][order][last]]
    chosen = np.zeros(len(games), dtype=bool)
    chosen[at] = True
    expected, score = np.empty(len(games)), np.empty(len(games))
    expected[at], score[at] = we, w
    out = {name: column[chosen] for name, column in games.columns.items()}
    out.update(expected=expected[chosen], score=score[chosen])
    return out


def _each_report(systems: list[RatingSystem], start: dt.date | None, end: dt.date | None) -> list[dict]:
    """Each system's report, the games read once. On PostgreSQL outside a transaction every system
    goes on a connection and thread of its own (most of the time is the database scanning a
    system's rows, and NumPy lets go of the interpreter), so the work spreads over every core."""
    def report(system: RatingSystem, games: Future) -> dict:
        rows = counted_rows(system, end)
        return _report(system, start, end, _per_game(system, games.result(), rows))

    if connection.vendor != "postgresql" or connection.in_atomic_block:  # a transaction's rows are its own
        games = Future()
        games.set_result(played_games(start, end))
        return [report(system, games) for system in systems]
    with ThreadPoolExecutor(max_workers=max(1, min(len(systems), os.cpu_count() or 2))) as pool:
        games = pool.submit(_on_own_connection, played_games, start, end)  # first: every report waits for it
        reports = [pool.submit(_on_own_connection, report, system, games) for system in systems]
        return [found.result() for found in reports]


def _on_own_connection(read, *args):
    try:
        return read(*args)
    finally:
        connections.close_all()  # this thread's own


def _codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values in order, and each game's index among them (few distinct values: a
    lookup table rather than a sort of a million)."""
    low = int(values.min())
    present = np.bincount(values - low)
    distinct = np.flatnonzero(present)
    index = np.zeros(len(present), dtype=np.int64)
    index[distinct] = np.arange(len(distinct))
    return distinct + low, index[values - low]


def accuracy_report_compute(*, system: RatingSystem, start: dt.date | None = None, end: dt.date | None = None) -> dict:
    """The report of one system over its counted games played from `start` to `end` (inclusive;
    None: every game), as plain data (JSON)."""
    return accuracy_reports_compute(systems=[system], start=start, end=end)[0]


def accuracy_reports_compute(*, systems: list[RatingSystem], start: dt.date | None = None, end: dt.date | None = None) -> list[dict]:
    """The report of each system (accuracy_report_compute), the games read once for all."""
    return _each_report(systems, start, end)


def _report(system: RatingSystem, start: dt.date | None, end: dt.date | None, data: dict[str, np.ndarray] | None) -> dict:
    report = {"system": system.slug, "name": system.name, "from": start and start.isoformat(),
              "to": end and end.isoformat(), "games": 0}
    if data is None:
        return report
    score, times = data["score"], data["seconds"]
    predictions = {
        "method": data["expected"],
        "race_table": metrics.race_table_expected(data["home_race"], data["away_race"], times, score),
        "even": np.full(len(score), 0.5),
    }
    draws = {name: metrics.draw_rate_expected(p, times, score) for name, p in predictions.items()}
    if start is not None:  # the window's games, the baselines having learnt from every earlier one
        inside = times >= dt.datetime.combine(start, dt.time(), tzinfo=dt.UTC).timestamp()
        if not inside.any():
            return report
        data = {name: column[inside] for name, column in data.items()}
        predictions = {name: p[inside] for name, p in predictions.items()}
        draws = {name: d[inside] for name, d in draws.items()}
        score, times = data["score"], data["seconds"]
    variants, variant = _codes(data["variant"])
    years, year = _codes(data["year"])
    # every measure sums over cells of variant × year × major; each split adds up cells
    cell = (variant * len(years) + year) * 2 + (~data["major"]).astype(np.int64)
    shape = (len(metrics.TERMS), len(variants), len(years), 2)
    sums = {name: metrics.cell_sums(p, draws[name], score, cell, 2 * len(variants) * len(years)).reshape(shape)
            for name, p in predictions.items()}
    names = dict(Variant.objects.filter(pk__in=variants.tolist()).values_list("pk", "name"))
    splits = {
        "variant": ([names.get(v, str(v)) for v in variants.tolist()], (2, 3)),
        "year": ([str(y) for y in years.tolist()], (1, 3)),
        "major": ([gettext_noop("Majors"), gettext_noop("Other events")], (1, 2)),
    }

    def split(labels: list[str], axes: tuple[int, int]) -> list[dict]:
        added = {name: cells.sum(axis=axes) for name, cells in sums.items()}
        counts = added["method"][0]
        return [{"label": label, "games": int(counts[g]), **{name: metrics.figures(a[:, g]) for name, a in added.items()}}
                for g, label in enumerate(labels) if counts[g]]

    report.update(
        games=int(len(score)),
        first=dt.datetime.fromtimestamp(times[0], dt.UTC).date().isoformat(),
        last=dt.datetime.fromtimestamp(times[-1], dt.UTC).date().isoformat(),
        draws=float(np.mean(score == 0.5)),
        overall={name: metrics.figures(cells.sum(axis=(1, 2, 3))) for name, cells in sums.items()},
        calibration=metrics.calibration(predictions["method"], score),
        splits={kind: split(labels, axes) for kind, (labels, axes) in splits.items()},
    )
    return _plain(report)


def _plain(value):
    """JSON as stored: a figure that does not exist (no decisive game, say) is None, not NaN."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, float) and value != value:
        return None
    return value


def accuracy_report_refresh(*, system: RatingSystem) -> AccuracyReport:
    """Compute the system's report over every counted game and store it (one per system)."""
    return accuracy_reports_refresh(systems=[system])[0]


def accuracy_reports_refresh(*, systems: list[RatingSystem]) -> list[AccuracyReport]:
    """Compute each system's report over every counted game and store it, the games read once; the
    refreshes owed to those systems when it began are answered (by id: a request made since may
    stand for a run it did not read, and the clocks of the machines that wrote them may differ)."""
    answered = list(AccuracyRefreshRequest.objects.filter(system__in=systems).values_list("pk", flat=True))
    stored = []
    for system, figures in zip(systems, accuracy_reports_compute(systems=systems)):
        last_run = RecalculationRun.objects.filter(system=system, status=RunStatus.SUCCEEDED).order_by("-finished_at").first()
        report, _ = AccuracyReport.objects.update_or_create(
            system=system, defaults={"computed_at": timezone.now(), "run": last_run, "figures": figures},
        )
        stored.append(report)
    AccuracyRefreshRequest.objects.filter(pk__in=answered).delete()
    page_cache.bump_on_commit()  # the accuracy page shows them once they commit
    return stored


def accuracy_reports() -> list[AccuracyReport]:
    """The stored reports of the active systems, in display order."""
    return list(AccuracyReport.objects.filter(system__active=True).select_related("system")
                .order_by("system__display_order", "system__name"))
