"""What a KNSB history carries from one call to the next: the lists in force, the depots, the open month.

All plain data, picklable: recalculations store it as a checkpoint and resume from it.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ..common import CalculationRow, GameRecord, PeriodSummary, pickled_by_values
from .calculator import date_of_list
from .config import KnsbConfig

# A rated key's entry is a list, mutated in place by the list close: [rating, Nv, k, stamp, kid,
# table key, coach, history]. k is the k of the list in force; stamp and kid number the key within
# the open period; history is flat [list month, rating, Nv, ...] from the first list that rated it.
RATING, NV, K, STAMP, KID, TABLE, COACH, HISTORY = range(8)
Entry = list[Any]
TableKey = tuple[str | None, str]  # (race or None when pooled, variant): a rating table
Table = dict[int, Entry]  # coach -> entry
DepotKey = tuple[TableKey, int]  # (table key, coach): an unrated key
Taken = list[Any]  # [Rt taken back, games taken back] of a key's corrections in the open period


@pickled_by_values
@dataclass(slots=True)
class DepotEntry:
    """One side of a game in an unrated key's depot (never changed once made)."""

    game: GameRecord
    side: str
    rc: float  # the opponent's rating on the list in force, or the bootstrap rating
    w: float
    list_month: int  # the list in force when it was played
    depot_month: int  # the list at which it entered the depot
    played_month: int
    bootstrap: bool  # rc is the bootstrap rating


@dataclass
class _Period:
    """The games of the month still running, waiting for its list.

    Rows are made as games arrive; the list fills in Rt and Wx of counted rows and turns depot
    rows into start-rating rows.
    """

    rows: list[CalculationRow] = field(default_factory=list)  # every row of the period, in order of play
    counted_rows: list[CalculationRow] = field(default_factory=list)  # the counted ones, in the order of `counted`
    counted: list[float] = field(default_factory=list)  # flat: COUNTED_COLUMNS per counted row
    keys: list[Entry] = field(default_factory=list)  # entries of rated keys with games, by kid
    extra_played: dict[int, int] = field(default_factory=dict)  # kid -> uncounted games
    depot_touched: dict[DepotKey, None] = field(default_factory=dict)  # (table key, coach) -> None, in order
    deposit_rows: dict[tuple[int, str], CalculationRow] = field(default_factory=dict)  # (game_id, side) -> its depot row
    reversed: dict[int, Taken] = field(default_factory=dict)  # kid -> [Rt taken back, games taken back] (corrections)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("reversed", {})  # checkpoints from before corrections went forward


COUNTED_COLUMNS = ("kid", "rc", "w", "we", "rt")  # of one counted row in _Period.counted


@dataclass
class KnsbState:
    """Everything needed to continue a history (plain data; picklable)."""

    config: KnsbConfig
    list_month: int | None = None  # month number (calculator.month_number) of the list in force
    first_month: int | None = None
    ratings: dict[TableKey, Table] = field(default_factory=dict)  # (race or None, variant) -> {coach: entry}
    depot: dict[DepotKey, list[DepotEntry]] = field(default_factory=dict)  # ((race or None, variant), coach) -> [DepotEntry]
    expiry: dict[int, list[DepotKey]] = field(default_factory=dict)  # list month -> [((race, variant), coach)] to check
    birth_years: dict[int, int] = field(default_factory=dict)  # coach -> year
    # every game of a key still unrated, counted or not: (table key, coach) -> {month played: games},
    # for the Gt of its start rating (seed 004: every game from the month of the oldest one used)
    unrated_games: dict[DepotKey, dict[int, int]] = field(default_factory=dict)
    stamp: int = 0
    period: _Period = field(default_factory=_Period)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # checkpoints stored before depot entries had names hold plain tuples
        for key, games in self.depot.items():
            if games and isinstance(games[0], tuple):
                self.depot[key] = [DepotEntry(*d) for d in games]

    @property
    def list_date(self) -> date | None:
        """The date of the list in force (None before the first game)."""
        return None if self.list_month is None else date_of_list(self.list_month)

    @property
    def next_list_date(self) -> date | None:
        """The date of the list that will rate the month still running."""
        return None if self.list_month is None else date_of_list(self.list_month + 1)

    def rating(self, coach: int, variant: str, race: str | None = None) -> tuple[float, int] | None:
        """(rating, Nv) of a key on the list in force, or None while unrated."""
        entry = self.ratings.get((race, variant), {}).get(coach)
        if entry is not None:
            return entry[RATING], entry[NV]
        for number, rating, games, _ in self.config.initial_list:
            if number == coach and self.list_month is not None:
                return rating, min(self.config.nv_cap, games)
        return None

    def copy(self) -> KnsbState:
        copied: KnsbState = pickle.loads(pickle.dumps(self, pickle.HIGHEST_PROTOCOL))
        return copied


@dataclass
class KnsbResult:
    state: KnsbState
    rows: list[CalculationRow]
    summaries: list[PeriodSummary]
    lists: list[date]  # the lists made in this call, oldest first
