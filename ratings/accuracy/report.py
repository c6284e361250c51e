"""The accuracy report of a rating system: its stored predictions (each counted row's We, known
before its game) against the results, with two baselines, the draw model and the splits."""
from __future__ import annotations

import datetime as dt

import numpy as np
from django.db import connection
from django.utils import timezone

from ratings.accuracy import metrics
from ratings.bulk import fetch_binary
from ratings.engines.common import Reason
from ratings.models import AccuracyReport, CalculationRow, RatingSystem, RecalculationRun, RunStatus
from ratingsite import page_cache
from tournaments.models import PUBLIC_STATUSES, Event, Game, Variant

# which figures each predictor gets, and how the page names them
PREDICTORS = (("method", "The rating system"), ("race_table", "Race against race"), ("even", "0.5 for every game"))


def _fetch(sql: str, params: list) -> np.ndarray:
    """The rows of a query of numbers as a 2-D float array (binary rows on PostgreSQL)."""
    if connection.vendor == "postgresql":
        found = fetch_binary(sql.replace("%%", "%"), params)
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            found = cursor.fetchall()
    return np.array(found, dtype=float).reshape(len(found), -1)


def _window(column: str, start: dt.date | None, end: dt.date | None) -> tuple[str, list]:
    sql, params = "", []
    for bound, operator in ((start, ">="), (end, "<")):
        if bound is not None:
            sql += f" AND {column} {operator} %s"
            day = bound if operator == ">=" else bound + dt.timedelta(days=1)
            params.append(dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC))
    return sql, params


def played_games(start: dt.date | None = None, end: dt.date | None = None) -> np.ndarray:
    """The public games played in the window, sorted by id, as rows of numbers: id, seconds since
    1970 and year of play, variant, major, home and away race (0: none). Read once for every system."""
    game, event = Game._meta.db_table, Event._meta.db_table
    postgres = connection.vendor == "postgresql"
    seconds = "extract(epoch from g.played_at)::float8" if postgres else "CAST(strftime('%%s', g.played_at) AS REAL)"
    year = "extract(year from g.played_at)::int" if postgres else "CAST(strftime('%%Y', g.played_at) AS INTEGER)"
    major = "e.is_major::int" if postgres else "e.is_major"
    within, params = _window("g.played_at", start, end)
    return _fetch(
        f"SELECT g.id, {seconds}, {year}, e.variant_id, {major}, g.home_race_id, coalesce(g.away_race_id, 0)"
        f" FROM {game} g JOIN {event} e ON e.id = g.event_id"
        f" WHERE e.status IN ({', '.join(['%s'] * len(PUBLIC_STATUSES))}){within} ORDER BY g.id",
        [*PUBLIC_STATUSES, *params],
    )


def _rows(system: RatingSystem, start: dt.date | None, end: dt.date | None, games: np.ndarray | None):
    """Per game: its first prediction (the We of its first counted row, home side first) and its
    result as it stands (that side's last counted row's W: a correction's), with what the splits need."""
    if games is None:
        games = played_games(start, end)
    within, params = _window("played_at", start, end)
    home = "(side = 'home')::int" if connection.vendor == "postgresql" else "(side = 'home')"
    rows = _fetch(
        f"SELECT game_id, {home}, id, we, w FROM {CalculationRow._meta.db_table}"
        f" WHERE system_id = %s AND counted AND we IS NOT NULL AND reason <> %s{within}",
        [system.pk, Reason.REVERSED, *params],
    )
    if not len(rows) or not len(games):
        return None
    game, home, pk, we, w = rows.T
    home = home.astype(bool)
    order = np.lexsort((pk, ~home, game))  # per game the home side first, each side's rows oldest first
    g, h = game[order], home[order]
    side_first = np.flatnonzero(np.r_[True, (g[1:] != g[:-1]) | (h[1:] != h[:-1])])
    side_last = np.r_[side_first[1:] - 1, len(order) - 1]
    keep = np.r_[True, g[side_first][1:] != g[side_first][:-1]]  # each game's first side
    pick, result_at = order[side_first[keep]], order[side_last[keep]]
    at = np.minimum(np.searchsorted(games[:, 0], game[pick]), len(games) - 1)
    public = games[at, 0] == game[pick]  # a game of an event no longer public leaves the report
    pick, result_at, at = pick[public], result_at[public], at[public]
    if not len(pick):
        return None
    _, seconds, year, variant, major, home_race, away_race = games[at].T
    side_home = home[pick]
    return {
        "expected": we[pick], "score": w[result_at], "time": seconds, "year": year.astype(np.int64),
        "variant": variant.astype(np.int64), "major": major.astype(bool),
        "race": np.where(side_home, home_race, away_race).astype(np.int64),
        "opponent_race": np.where(side_home, away_race, home_race).astype(np.int64),
    }


def _figures(predictions: dict[str, np.ndarray], draws: dict[str, np.ndarray], score: np.ndarray, chosen) -> dict:
    out = {}
    for name, expected in predictions.items():
        p, s = expected[chosen], score[chosen]
        share, decisive = metrics.favourite_share(p, s)
        out[name] = {
            "log_loss": metrics.score_log_loss(p, s), "brier": metrics.brier_score(p, s),
            "favourite_share": share, "decisive": decisive,
            "outcome_log_loss": metrics.outcome_log_loss(p, draws[name][chosen], s),
        }
    return out


def accuracy_report_compute(
    *, system: RatingSystem, start: dt.date | None = None, end: dt.date | None = None, games: np.ndarray | None = None,
) -> dict:
    """The report of one system over its counted games played from `start` to `end` (inclusive;
    None: every game), as plain data (JSON). `games`: played_games() of the same window, read once
    for several systems."""
    report = {"system": system.slug, "name": system.name, "from": start and start.isoformat(),
              "to": end and end.isoformat(), "games": 0}
    data = _rows(system, start, end, games)
    if data is None:
        return report
    score, times = data["score"], data["time"]
    predictions = {
        "method": data["expected"],
        "race_table": metrics.race_table_expected(data["race"], data["opponent_race"], times, score),
        "even": np.full(len(score), 0.5),
    }
    draws = {name: metrics.draw_rate_expected(p, times, score) for name, p in predictions.items()}
    every = np.ones(len(score), dtype=bool)
    names = dict(Variant.objects.filter(pk__in=np.unique(data["variant"]).tolist()).values_list("pk", "name"))
    splits = {
        "variant": [(names.get(v, str(v)), data["variant"] == v) for v in np.unique(data["variant"]).tolist()],
        "year": [(str(y), data["year"] == y) for y in np.unique(data["year"]).tolist()],
        "major": [(label, data["major"] == flag) for label, flag in (("Majors", True), ("Other events", False))
                  if (data["major"] == flag).any()],
    }
    report.update(
        games=int(len(score)),
        first=dt.datetime.fromtimestamp(times.min(), dt.UTC).date().isoformat(),
        last=dt.datetime.fromtimestamp(times.max(), dt.UTC).date().isoformat(),
        draws=float(np.mean(score == 0.5)),
        overall=_figures(predictions, draws, score, every),
        calibration=metrics.calibration(predictions["method"], score),
        splits={
            kind: [{"label": label, "games": int(chosen.sum()), **_figures(predictions, draws, score, chosen)}
                   for label, chosen in groups]
            for kind, groups in splits.items()
        },
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


def accuracy_report_refresh(*, system: RatingSystem, games: np.ndarray | None = None) -> AccuracyReport:
    """Compute the system's report over every counted game and store it (one per system).
    `games`: played_games(), read once for several systems."""
    figures = accuracy_report_compute(system=system, games=games)
    last_run = RecalculationRun.objects.filter(system=system, status=RunStatus.SUCCEEDED).order_by("-finished_at").first()
    report, _ = AccuracyReport.objects.update_or_create(
        system=system, defaults={"computed_at": timezone.now(), "run": last_run, "figures": figures},
    )
    page_cache.bump_on_commit()  # the accuracy page shows it once it commits
    return report


def accuracy_reports() -> list[AccuracyReport]:
    """The stored reports of the active systems, in display order."""
    return list(AccuracyReport.objects.filter(system__active=True).select_related("system")
                .order_by("system__display_order", "system__name"))
