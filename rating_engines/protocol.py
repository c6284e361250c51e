"""What the replay asks of an engine. Each method's package implements `Engine` as a module (KNSB
also `LateResults`); rating_engines.methods holds the three, and mypy checks them against these."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Protocol, TypeVar, runtime_checkable

from .common import CalculationRow, GameRecord, PeriodSummary

ConfigT = TypeVar("ConfigT", contravariant=True)
StateT = TypeVar("StateT")
StateT_co = TypeVar("StateT_co", covariant=True)


class EngineResult(Protocol[StateT_co]):
    """A run's state after it, and the rows and summaries it handed out."""

    @property
    def state(self) -> StateT_co: ...

    @property
    def rows(self) -> Sequence[CalculationRow]: ...

    @property
    def summaries(self) -> Sequence[PeriodSummary]: ...


@runtime_checkable
class Engine(Protocol[ConfigT, StateT]):
    """A rating method over plain data: games in, rows, summaries and a state to resume from out."""

    def run_history(
        self, games: list[GameRecord], config: ConfigT, state: StateT | None = None, *, in_place: bool = False
    ) -> EngineResult[StateT]:
        """Rate `games` after `state` (None: from nothing); the state is updated only if `in_place`."""
        ...

    def close_periods(self, state: StateT, config: ConfigT, until: date, *, in_place: bool = False) -> EngineResult[StateT]:
        """Close every period (or list) that ended before `until`."""
        ...

    def current_ratings(self, state: StateT) -> Mapping[Any, float] | None:
        """Every key's rating after its last game where the method rates after every game (NAF
        Elo), else None (the ratings change when a period or list closes)."""
        ...


@runtime_checkable
class LateResults(Engine[ConfigT, StateT], Protocol[ConfigT, StateT]):
    """An engine that rates a result reported late in a later list than its month of play (KNSB)."""

    def late_month(self, game: GameRecord) -> int | None:
        """The month (year·12 + month − 1) whose list rates `game` when it came late, else None:
        always None for a game reported by its event's end, or not at all (the replay looks only
        at the others, RecordColumns.reported_after_event)."""
        ...

    def placements(self, game: GameRecord) -> Sequence[tuple[int | None, GameRecord]]:
        """The records a run rates for a corrected `game`, each with the month whose list rates it."""
        ...
