"""What a Glicko history carries from one call to the next: the rating keys and their ratings,
and the periods that have games but are not rated yet."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, NamedTuple

import numpy as np

from ..common import CalculationRow, GameRecord, PeriodSummary
from .calculator import GlickoRating

RatingKey = tuple[int, str | None, str]  # (coach, race or None when races are pooled, variant)
NEW = -(1 << 62)  # `last` of a key created in a period that has not closed yet


class ExcludedGame(NamedTuple):
    """A game of an open period that does not count, kept for its rows."""

    position: int  # counted games of the period before it
    game: GameRecord
    reason: str


@dataclass
class OpenPeriod:
    """A rating period that has games but has not been rated yet (carried in the state)."""

    label: str
    index: int | None  # calendar periods: their number; event periods get one when they close
    end: date  # last day of the period (event: event_end, or its last game's date if later)
    seq: int  # opening order: periods ending the same day close in this order
    keys: list[int] = field(default_factory=list)  # key numbers in order of their first game here
    local: dict[RatingKey, int] = field(default_factory=dict)  # key -> position in `keys`
    home: list[int] = field(default_factory=list)  # counted games: position of the home key
    away: list[int] = field(default_factory=list)
    score: list[float] = field(default_factory=list)  # counted games: home score
    counted: list[GameRecord] = field(default_factory=list)  # counted games in order of play
    excluded: list[ExcludedGame] = field(default_factory=list)
    excluded_played: dict[RatingKey, int] = field(default_factory=dict)  # key -> rows not counted

    def copy(self) -> OpenPeriod:
        return OpenPeriod(
            self.label, self.index, self.end, self.seq, list(self.keys), dict(self.local),
            list(self.home), list(self.away), list(self.score), list(self.counted),
            list(self.excluded), dict(self.excluded_played),
        )


def _empty() -> np.ndarray:
    return np.zeros(0)


def _empty_periods() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


_ARRAYS = ("mu", "phi", "sigma", "last")


@dataclass(eq=False)
class GlickoState:
    """Everything needed to continue a history.

    Key number i is keys[i]; its rating is (mu[i], phi[i], sigma[i]) as rated at the end of period
    last[i] (NEW: not rated yet; the arrays keep spare room at the end).
    """

    keys: list[RatingKey] = field(default_factory=list)
    key_index: dict[RatingKey, int] = field(default_factory=dict)  # key -> key number
    coach_keys: dict[tuple[int, str], tuple[int, ...]] = field(default_factory=dict)  # (coach, variant) -> key numbers
    mu: np.ndarray = field(default_factory=_empty)
    phi: np.ndarray = field(default_factory=_empty)
    sigma: np.ndarray = field(default_factory=_empty)
    last: np.ndarray = field(default_factory=_empty_periods)
    open_periods: dict[str, OpenPeriod] = field(default_factory=dict)  # label -> OpenPeriod
    periods_closed: int = 0
    periods_opened: int = 0
    last_played: tuple[datetime, int] | None = None  # (played_at, game_id) of the last game taken in

    def copy(self) -> GlickoState:
        n = len(self.keys)
        return GlickoState(
            list(self.keys), dict(self.key_index), dict(self.coach_keys),
            self.mu[:n].copy(), self.phi[:n].copy(), self.sigma[:n].copy(), self.last[:n].copy(),
            {label: p.copy() for label, p in self.open_periods.items()},
            self.periods_closed, self.periods_opened, self.last_played,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GlickoState):
            return NotImplemented
        n = len(self.keys)
        return (
            self.keys == other.keys
            and self.key_index == other.key_index
            and self.coach_keys == other.coach_keys
            and len(other.keys) == n
            and all(np.array_equal(getattr(self, a)[:n], getattr(other, a)[:n]) for a in _ARRAYS)
            and self.open_periods == other.open_periods
            and (self.periods_closed, self.periods_opened, self.last_played)
            == (other.periods_closed, other.periods_opened, other.last_played)
        )

    @classmethod
    def from_ratings(cls, ratings: Mapping[Any, GlickoRating], *, period_index: int) -> GlickoState:
        """A state holding `ratings` (key -> GlickoRating) as rated at the end of period
        `period_index` (calendar_period's index; for event periods, the number closed minus one),
        e.g. an imported list."""
        state = cls()
        for key, rating in ratings.items():
            number = state.add_key(tuple(key), rating)
            state.last[number] = period_index
        state.periods_closed = period_index + 1
        return state

    def stored_rating(self, key: RatingKey) -> GlickoRating | None:
        """The key's rating as of the last period applied to it (no idle decay), or None."""
        i = self.key_index.get(key)
        if i is None:
            return None
        return GlickoRating(float(self.mu[i]), float(self.phi[i]), float(self.sigma[i]))

    def add_key(self, key: RatingKey, rating: GlickoRating) -> int:
        """Number a new key starting at `rating` (not rated yet: last is NEW)."""
        n = len(self.keys)
        if n == len(self.mu):
            self._grow(max(1024, 2 * n))
        self.keys.append(key)
        self.key_index[key] = n
        coach, _, variant = key
        self.coach_keys[coach, variant] = self.coach_keys.get((coach, variant), ()) + (n,)
        self.mu[n] = rating.mu
        self.phi[n] = rating.phi
        self.sigma[n] = rating.sigma
        self.last[n] = NEW
        return n

    def _grow(self, size: int) -> None:
        n = len(self.keys)
        for name in _ARRAYS:
            old = getattr(self, name)
            grown = np.zeros(size, dtype=old.dtype)
            grown[:n] = old[:n]
            setattr(self, name, grown)


@dataclass
class GlickoResult:
    state: GlickoState
    rows: list[CalculationRow]
    summaries: list[PeriodSummary]
