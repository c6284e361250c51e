"""A KNSB history: games in, lists out (run_history), and lists made without games (close_periods)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime

from ..common import GameRecord, paused_gc
from .calculator import month_number
from .config import KnsbConfig
from .games import GameIntake
from .run import OutOfOrder
from .state import KnsbResult, KnsbState

_LAST_MONTH = month_number(date.max)


def _in_play_order(game: GameRecord) -> tuple[datetime, int, bool]:
    return game.played_at, game.game_id, not game.reverses  # an old result taken back before the corrected one


def run_history(games: Iterable[GameRecord], config: KnsbConfig, state: KnsbState | None = None, *,
                birth_years: Mapping[int, int] | None = None, in_place: bool = False) -> KnsbResult:
    """Rate `games` (GameRecords; applied in (played_at, game_id) order) after `state`.

    Returns a new state (the given one is not modified, unless `in_place`), the rows and summaries of every list made
    along the way, and the dates of those lists. A list is made when the first game of a later
    month arrives; the month of the last game stays open in the state (see close_periods). A game
    from a month whose list is already made (a late game) is rated in the next list with R0, Rc
    and k from the list in force on its date of play.

    `birth_years` (coach -> year) adds to the state's; with config.junior_age a coach is a junior
    on a list whose year minus the birth year is at most junior_age.
    """
    games = games if isinstance(games, list) else list(games)
    with paused_gc():
        if in_place and state is not None:
            # the caller hands over its state: no copy to start again from, so games are put in order first
            return _run_sorted(games, state, config, birth_years)
        try:
            return _run(games, KnsbState(config) if state is None else state.copy(), config, birth_years)
        except OutOfOrder:
            return _run_sorted(games, KnsbState(config) if state is None else state.copy(), config, birth_years)


def _run(games: list[GameRecord], state: KnsbState, config: KnsbConfig, birth_years: Mapping[int, int] | None) -> KnsbResult:
    run = GameIntake(state, config, birth_years)
    run.ingest(games)
    return run.result()


def _run_sorted(games: list[GameRecord], state: KnsbState, config: KnsbConfig, birth_years: Mapping[int, int] | None) -> KnsbResult:
    try:
        return _run(sorted(games, key=_in_play_order), state, config, birth_years)
    except OutOfOrder:
        raise ValueError("the same game (played_at, game_id) was given twice") from None


def close_periods(state: KnsbState, config: KnsbConfig, until: date, *, in_place: bool = False) -> KnsbResult:
    """Make every list dated on or before `until` (each rates the month before it), games or not.

    The given state is not modified (unless `in_place`); a copy with the lists made is returned. A game
    played before the last list made is a late game for the next one. Passing state.next_list_date
    rates just the running month: its rows and summaries as they stand, as provisional.
    """
    if isinstance(until, datetime):
        until = until.date()
    with paused_gc():
        run = GameIntake(state if in_place else state.copy(), config, None)
        s = run.s
        if s.list_month is not None:
            last = min(month_number(until), _LAST_MONTH - 1)  # the list after stays datable
            while s.list_month < last:
                run.close()
    return run.result()


def current_ratings(state: KnsbState) -> None:
    """None: KNSB ratings change when a list is made, not after each game (the replay reads them
    from the list's summaries)."""
    return None
