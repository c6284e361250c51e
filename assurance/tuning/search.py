"""A parameter search over one rating system: plain data in, figures out; no Django, nothing written.

For each value of a small grid the system's engine replays the whole record in memory through the
site's own replay (`ratings.replay.replay`, as a recalculation does), and every counted side's
expected score (the engine's We, computed before its game) is scored against its result. The value
with the lowest log loss over the tuning window is chosen, and reported over the later evaluation
window, which the choice never saw. A replay is sequential: a game of the evaluation window is
predicted from the ratings of the games before it, and from nothing after.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any

import numpy as np

from assurance.accuracy.metrics import score_log_loss
from rating_engines.common import GameRecord
from rating_engines.glicko import GlickoConfig
from rating_engines.knsb import SIGMA, KnsbConfig
from rating_engines.naf_elo import EloConfig
from ratings.replay import Ledger, ListRules, replay

# Each method's parameter, searched over the same grid in every system of the method: the spec's
# value in it, others either side (Glickman suggests τ from 0.3 to 1.2; lower suits a steady pool).
PARAMETERS = {EloConfig: "k_scale", GlickoConfig: "tau", KnsbConfig: "sigma"}
GRIDS = {
    "k_scale": (0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0),
    "tau": (0.05, 0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0, 1.2),
    "sigma": tuple(SIGMA * factor for factor in (0.5, 0.625, 0.75, 0.875, 1.0, 1.125, 1.25, 1.5, 2.0)),
}
EVALUATION_YEARS = 2
# Tuning log losses closer than this are one figure (τ on a short record moves them by 1e-9): the
# value nearest the configured one is kept rather than one that only rounding prefers.
TIE = 1e-6


class WindowError(ValueError):
    """Windows that cannot be searched (empty, or in the wrong order): the message says which."""


@dataclass(frozen=True)
class Setup:
    """What replaying one rating system takes: its engine module and configuration, how its lists
    rank, and whether it rates races apart."""

    module: Any
    config: Any
    rules: ListRules
    per_race: bool

    @property
    def parameter(self) -> str:
        return PARAMETERS[type(self.config)]

    @property
    def configured(self) -> float:
        return getattr(self.config, self.parameter)

    def with_value(self, value: float) -> Setup:
        """The same system with its searched parameter at `value` (validated by the configuration)."""
        return replace(self, config=replace(self.config, **{self.parameter: value}))


@dataclass(frozen=True)
class Windows:
    """By date of play: the tuning window from `tuning_from` (None: the first game) to the day
    before `split`, the evaluation window from `split` to `evaluation_to`, the record's last game."""

    tuning_from: dt.date | None
    split: dt.date
    evaluation_to: dt.date


def years_before(day: dt.date, years: int) -> dt.date:
    """The same day `years` earlier (28 February for a 29th that year has not)."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def windows_for(last_played: dt.date, *, split: dt.date | None = None, since: dt.date | None = None) -> Windows:
    """The windows of a record whose last game is on `last_played`; by default the evaluation
    window is its last two years and the tuning window everything before. WindowError if the
    dates given leave a window empty."""
    split = split or years_before(last_played, EVALUATION_YEARS)
    if split > last_played:
        raise WindowError(f"the split {split} is after the record's last game ({last_played}): the evaluation window is empty")
    if since is not None and since >= split:
        raise WindowError(f"the tuning window must start before the split ({since} is not before {split})")
    return Windows(tuning_from=since, split=split, evaluation_to=last_played)


@dataclass
class Predictions:
    """Every counted side of every rated game, in the order rated: the game, its day of play (an
    ordinal), the expected score the engine gave that side before the game, and its score."""

    game: np.ndarray
    day: np.ndarray
    expected: np.ndarray
    score: np.ndarray

    def tuning(self, windows: Windows) -> np.ndarray:
        """Which predictions fall in the tuning window."""
        first = windows.tuning_from.toordinal() if windows.tuning_from else np.iinfo(np.int64).min
        return (self.day >= first) & (self.day < windows.split.toordinal())

    def evaluation(self, windows: Windows) -> np.ndarray:
        """Which predictions fall in the evaluation window."""
        return (self.day >= windows.split.toordinal()) & (self.day <= windows.evaluation_to.toordinal())

    def log_loss(self, where: np.ndarray) -> float:
        return score_log_loss(self.expected[where], self.score[where])


# a prediction's columns: how each is read from a calculation row, and its type
_COLUMNS = (
    (attrgetter("game_id"), np.int64), (lambda row: row.played_at.toordinal(), np.int64),
    (attrgetter("we"), np.float64), (attrgetter("w"), np.float64),
)


def predictions(setup: Setup, games: list[GameRecord], *, until: dt.date) -> Predictions:
    """Replay `games` (the whole record, in rating order) through the system's engine up to `until`
    in memory, as a recalculation does, and keep each counted row's expected score and score."""
    columns: list[list[np.ndarray]] = [[] for _ in _COLUMNS]
    for chunk in replay(
        setup.module, setup.config, games, Ledger(), start=None, until=until, rules=setup.rules,
        per_race=setup.per_race, complete=lambda day: False,
    ):
        rows = [row for row in chunk.rows if row.counted and row.we is not None]
        # a month's rows as arrays at once: a long record's rows kept as objects would not fit beside its games
        for column, (read, kind) in zip(columns, _COLUMNS):
            column.append(np.fromiter(map(read, rows), dtype=kind, count=len(rows)))
    game, day, expected, score = (
        np.concatenate(column) if column else np.zeros(0, dtype=kind) for column, (_, kind) in zip(columns, _COLUMNS)
    )
    return Predictions(game=game, day=day, expected=expected, score=score)


@dataclass(frozen=True)
class GridPoint:
    """One value of the grid and its log loss in each window."""

    value: float
    tuning: float
    evaluation: float


@dataclass
class SearchResult:
    """One system's search: its windows (with the dates and number of the games scored in each),
    the grid's log losses, the configured value and the best one (lowest tuning log loss)."""

    parameter: str
    configured: float
    best: float
    grid: list[GridPoint]
    windows: Windows
    tuning_first: dt.date
    tuning_games: int
    evaluation_games: int


def search(setup: Setup, games: list[GameRecord], *, windows: Windows, until: dt.date, grid=None) -> SearchResult:
    """Replay the record once per value of the grid (the method's, with the configured value added)
    and choose the value with the lowest log loss over the tuning window; ties (within TIE) go to
    the value nearest the configured one. WindowError if a window holds no counted game."""
    configured = setup.configured
    values = sorted({*(GRIDS[setup.parameter] if grid is None else grid), configured})
    first = predictions(setup, games, until=until)  # the configured value first: it says whether the windows hold games
    tuning, evaluation = first.tuning(windows), first.evaluation(windows)
    if not tuning.any():
        since = f" from {windows.tuning_from}" if windows.tuning_from else ""
        raise WindowError(f"no counted game before the split ({windows.split}){since} to tune on: choose a later split")
    if not evaluation.any():
        raise WindowError(f"no counted game rated from the split ({windows.split}) to {windows.evaluation_to} to evaluate on")
    points = []
    for value in values:
        scored = first if value == configured else predictions(setup.with_value(value), games, until=until)
        points.append(GridPoint(value, scored.log_loss(scored.tuning(windows)), scored.log_loss(scored.evaluation(windows))))
    lowest = min(point.tuning for point in points)
    best = min((point for point in points if point.tuning <= lowest + TIE), key=lambda point: abs(point.value - configured)).value
    return SearchResult(
        parameter=setup.parameter, configured=configured, best=best, grid=points, windows=windows,
        tuning_first=dt.date.fromordinal(int(first.day[tuning].min())),
        tuning_games=len(np.unique(first.game[tuning])), evaluation_games=len(np.unique(first.game[evaluation])),
    )
