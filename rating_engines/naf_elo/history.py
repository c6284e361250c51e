"""The fast path: a NAF Elo history applied game by game, with its calculation rows and the
summaries of its events.

The calculator's arithmetic is written out inline here (a function call per game side costs a
tenth of the run), but for keeping the CR to 0.01: that is the one rule, common.round_half_away.
tests/engines/test_naf_elo_fast_path.py holds the runner equal to the calculator.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime, time, timedelta
from itertools import islice
from operator import attrgetter, lt

from ..common import (
    AWAY,
    HOME,
    CalculationRow,
    CountingRule,
    GameRecord,
    OutOfOrder,
    PeriodSummary,
    round_half_away,
    run_in_order,
)
from .calculator import ELO_SCALE, home_score
from .config import EloConfig
from .state import (
    GAMES_PLAYED,
    IS_START,
    LAST_DAY,
    NT,
    RC_SUM,
    RL,
    RN,
    RTT,
    WET,
    WT,
    EloResult,
    EloState,
    EventTally,
    KeyTotals,
    RatingKey,
    close_ended_events,
    event_summaries,
    uncounted_totals,
)

_ONE_DAY = timedelta(days=1)
_in_play_order = attrgetter("played_at", "game_id")


def current_ratings(state: EloState) -> dict[RatingKey, float]:
    """Every key's CR after its last game (key -> CR), whichever event that game belongs to."""
    return state.ratings


def close_periods(state: EloState, config: EloConfig, until: date, *, in_place: bool = False) -> EloResult:
    """NAF Elo has no rating periods: every game already counts. Forgets the running totals of
    events that ended before `until` (their summaries were handed out by run_history)."""
    ended = [event_id for event_id, tally in state.open_events.items() if tally.end < until]
    if ended:
        state = state if in_place else state.copy()
        for event_id in ended:
            del state.open_events[event_id]
    return EloResult(state, [], [])


def run_history(
    games: Iterable[GameRecord], config: EloConfig, state: EloState | None = None, *, in_place: bool = False
) -> EloResult:
    """Apply `games` (any order; applied in (played_at, game_id) order) after `state`.

    Returns the new state (the given one is not modified), two calculation rows per game (one for a
    bye) and one summary per rating key per event touched by these games. Rows of counted games hold
    Rt = k·(W − We) unrounded; the state keeps the rating rounded to 0.01 after every game, so Rn
    can differ from Rl + Rtt by the roundings.

    With `in_place` the given state itself is updated (and returned): a caller that replays a
    long history chunk by chunk saves a copy per chunk.

    An event's summaries are final once a game dated after its end arrives; an event still open
    at the end of the run is summarised as it stands and summarised again, cumulatively, by the
    run that continues it. Games must come after `state.last_played` (ValueError otherwise).
    """
    start = EloState() if state is None else state
    return run_in_order(lambda ordered, copy: _run(ordered, config, copy), list(games), start, in_place=in_place)


def _run(games: list[GameRecord], config: EloConfig, state: EloState) -> EloResult:
    """Apply `games`, taken to be in play order (OutOfOrder if not), to `state` itself."""
    rows: list[CalculationRow] = []
    summaries: list[PeriodSummary] = []
    if games:
        _apply_games(games, config, state, rows, summaries)
        for tally in state.open_events.values():
            if tally.dirty:
                summaries.extend(event_summaries(tally))
    return EloResult(state, rows, summaries)


def _apply_games(
    games: list[GameRecord], config: EloConfig, state: EloState, rows: list[CalculationRow], summaries: list[PeriodSummary]
) -> None:
    """The hot loop: every game's rows, ratings and event totals. Rare cases (a new day, another
    event, a game that does not count, a conceded game) go to the named steps below."""
    ratings = state.ratings
    open_events = state.open_events
    append = rows.append
    new_row = CalculationRow
    keep = round_half_away
    start_rating = config.start_rating
    per_race = config.per_race
    conceder_loses = config.conceder_loses
    exclusion = CountingRule.of(config).exclusion
    k_of = config.k
    scale = ELO_SCALE

    _check_play_order(games, state.last_played)
    day, next_day = date.min, games[0].played_at  # sentinels: the first game starts a new day
    event_id: int | None = None
    label = ""
    totals: dict[RatingKey, KeyTotals] = {}
    k_coaches: int | None = None
    k_major: bool | None = None
    k = 0.0
    rated_home_race: str | None
    rated_away_race: str | None
    for g in games:
        t = g.played_at
        if t >= next_day:
            day, next_day = _new_day(t, open_events, summaries)
            event_id = None
        if g.event_id != event_id:
            event_id = g.event_id
            tally = _event_tally(open_events, g, day)
            label = tally.label
            totals = tally.totals
        reason = exclusion(g)
        if reason is not None:
            _record_excluded(g, reason, per_race, label, totals, append)
            continue

        home = g.home
        away = g.away
        assert away is not None  # a game that counts has two sides
        variant = g.variant
        home_race = g.home_race
        away_race = g.away_race
        if per_race:
            rated_home_race = home_race
            rated_away_race = away_race
        else:
            rated_home_race = rated_away_race = None
        home_key = (home, rated_home_race, variant)
        away_key = (away, rated_away_race, variant)
        score = g.home_score
        if g.conceded_by is not None:
            score = home_score(score, g.conceded_by, conceder_loses=conceder_loses)
        if g.event_coaches != k_coaches or g.major != k_major:
            k_coaches = g.event_coaches
            k_major = g.major
            k = k_of(k_coaches, major=k_major)
        r_home = ratings.get(home_key, start_rating)
        r_away = ratings.get(away_key, start_rating)
        # win_probability and rating_change written out; the CR kept by the one round_half_away
        p_home = 1.0 / (10.0 ** ((r_away - r_home) / scale) + 1.0)
        p_away = 1.0 / (10.0 ** ((r_home - r_away) / scale) + 1.0)
        away_score = 1.0 - score
        rt_home = k * (score - p_home)
        rt_away = k * (away_score - p_away)
        n_home = keep(r_home + rt_home, 2)
        n_away = keep(r_away + rt_away, 2)
        # positional: keyword arguments make building a row four times as slow
        append(new_row(g.game_id, HOME, home, rated_home_race, variant, away, away_race, t, label,
                       score, True, None, r_home, r_away, p_home, k, rt_home))
        append(new_row(g.game_id, AWAY, away, rated_away_race, variant, home, home_race, t, label,
                       away_score, True, None, r_away, r_home, p_away, k, rt_away))

        # each side's totals (new ones listed in the order RL .. LAST_DAY) before its new CR is
        # stored, so that a key not yet in `ratings` is one starting here
        key_totals = totals.get(home_key)
        if key_totals is None:
            totals[home_key] = [r_home, n_home, 1, 1, score, p_home, rt_home, r_away, home_key not in ratings, day]
        else:
            if not key_totals[NT]:
                key_totals[RL] = r_home
                key_totals[IS_START] = home_key not in ratings
            key_totals[RN] = n_home
            key_totals[NT] += 1
            key_totals[GAMES_PLAYED] += 1
            key_totals[WT] += score
            key_totals[WET] += p_home
            key_totals[RTT] += rt_home
            key_totals[RC_SUM] += r_away
            key_totals[LAST_DAY] = day
        key_totals = totals.get(away_key)
        if key_totals is None:
            totals[away_key] = [r_away, n_away, 1, 1, away_score, p_away, rt_away, r_home, away_key not in ratings, day]
        else:
            if not key_totals[NT]:
                key_totals[RL] = r_away
                key_totals[IS_START] = away_key not in ratings
            key_totals[RN] = n_away
            key_totals[NT] += 1
            key_totals[GAMES_PLAYED] += 1
            key_totals[WT] += away_score
            key_totals[WET] += p_away
            key_totals[RTT] += rt_away
            key_totals[RC_SUM] += r_home
            key_totals[LAST_DAY] = day
        ratings[home_key] = n_home
        ratings[away_key] = n_away
    state.last_played = _in_play_order(games[-1])


def _check_play_order(games: list[GameRecord], last_played: tuple[datetime, int] | None) -> None:
    """Nothing if `games` follow `last_played` and one another in (played_at, game_id) order; else
    ValueError for the first game given twice (or already in the state), OutOfOrder for one too early."""
    order = list(map(_in_play_order, games))
    if last_played is not None:
        order.insert(0, last_played)
    if all(map(lt, order, islice(order, 1, None))):
        return
    for before, after in zip(order, islice(order, 1, None)):
        if after == before:
            _, game_id = after
            raise ValueError(f"game {game_id} was given twice (or is already in the state)")
        if after < before:
            raise OutOfOrder


def _new_day(t: datetime, open_events: dict[int, EventTally], summaries: list[PeriodSummary]) -> tuple[date, datetime]:
    """The day of `t` and the start of the next, after handing out the events ended before it."""
    day = t.date()
    close_ended_events(open_events, day, summaries)
    return day, datetime.combine(day + _ONE_DAY, time(), t.tzinfo)


def _event_tally(open_events: dict[int, EventTally], game: GameRecord, day: date) -> EventTally:
    """The running totals of `game`'s event, opened by its first game (or its first since the event
    was closed), to end on its event_end or on `day` if that is later or there is none.

    An open event's end never moves: one that ended before `day` was closed when the day began."""
    tally = open_events.get(game.event_id)
    if tally is None:
        end = game.event_end if game.event_end is not None and game.event_end > day else day
        tally = open_events[game.event_id] = EventTally(f"event:{game.event_id}", end)
    tally.dirty = True
    return tally


def _record_excluded(
    game: GameRecord, reason: str, per_race: bool, label: str, totals: dict[RatingKey, KeyTotals],
    append: Callable[[CalculationRow], None],
) -> None:
    """The rows of a game that does not count (one for a bye); it adds to each side's games played."""
    home_race = game.home_race if per_race else None
    away_race = game.away_race if per_race else None
    append(CalculationRow(game.game_id, HOME, game.home, home_race, game.variant, game.away, game.away_race,
                          game.played_at, label, game.home_score, False, reason))
    sides = [(game.home, home_race, game.variant)]
    if game.away is not None:
        append(CalculationRow(game.game_id, AWAY, game.away, away_race, game.variant, game.home, game.home_race,
                              game.played_at, label, 1.0 - game.home_score, False, reason))
        sides.append((game.away, away_race, game.variant))
    for key in sides:
        key_totals = totals.get(key)
        if key_totals is None:
            totals[key] = uncounted_totals()
        else:
            key_totals[GAMES_PLAYED] += 1
