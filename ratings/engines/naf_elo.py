"""NAF Elo ("Coach Rating", CR): one rating per (coach, race, variant), updated after every game.

P = 1 / (10^((Ropp − R)/150) + 1); new = old + K·(S − P), kept to 0.01 (half away from zero);
K = 2·√min(N, non_major_max), majors always 2·√60. Games are applied one at a time in
(played_at, game_id) order across events.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from datetime import date, datetime, time, timedelta
from functools import partial
from itertools import repeat
from operator import truediv

from .common import (
    AWAY,
    HOME,
    CalculationRow,
    CountingRule,
    GameRecord,
    OutOfOrder,
    PeriodSummary,
    build_many,
    check_fields,
    config_error,
    config_slugs,
    round_half_away,
    run_in_order,
)

ELO_SCALE = 150.0
_ONE_DAY = timedelta(days=1)


def win_probability(rating: float, opponent: float) -> float:
    """P that a coach rated `rating` beats one rated `opponent`: 1 / (10^((opp − r)/150) + 1)."""
    return 1.0 / (10.0 ** ((opponent - rating) / ELO_SCALE) + 1.0)


def k_value(
    naf_coaches: int,
    *,
    major: bool,
    non_major_max: int = 32,
    round_k: bool = False,
    major_coaches: int = 60,
) -> float:
    """K = 2·√min(N, non_major_max); a major counts as `major_coaches` whatever its size.

    With `round_k` K is rounded half away from zero to an integer, as the federation's old code did.
    """
    if naf_coaches < 0:
        raise ValueError(f"naf_coaches must not be negative, got {naf_coaches!r}")
    coaches = major_coaches if major else min(naf_coaches, non_major_max)
    k = 2.0 * math.sqrt(coaches)
    return round_half_away(k) if round_k else k


def rating_after(r0: float, rt: float) -> float:
    """The CR after a game from its calculation row: R0 + Rt kept to 0.01, half away from zero."""
    return round_half_away(r0 + rt, 2)


def update(rating: float, opponent: float, score: float, k: float) -> float:
    """The new CR after one game: rating + k·(score − P), rounded to 0.01 half away from zero."""
    return rating_after(rating, k * (score - win_probability(rating, opponent)))


def game_change(r0: float, rt: float) -> float:
    """A game's change of CR: the difference of the ratings kept to 0.01 (Rt is unrounded)."""
    return rating_after(r0, rt) - r0


_config_error = partial(config_error, "EloConfig")


_slugs = partial(config_slugs, "EloConfig")


@dataclass(frozen=True)
class EloConfig:
    """Parameters of a NAF Elo rating system (validated on construction)."""

    start_rating: float = 150.0
    non_major_max: int = 32
    major_coaches: int = 60
    round_k: bool = False
    conceder_loses: bool = False
    per_race: bool = True
    variants: tuple[str, ...] | None = None  # None: every variant
    excluded_races: tuple[str, ...] = ()

    def __post_init__(self):
        value = self.start_rating
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (is_number and math.isfinite(value)):
            raise _config_error("start_rating", value, "a finite number")
        for name in ("non_major_max", "major_coaches"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000:
                raise _config_error(name, value, "an integer from 1 to 10000")
        for name in ("round_k", "conceder_loses", "per_race"):
            if not isinstance(getattr(self, name), bool):
                raise _config_error(name, getattr(self, name), "true or false")
        object.__setattr__(self, "start_rating", float(self.start_rating))
        object.__setattr__(self, "variants", _slugs("variants", self.variants, allow_none=True))
        object.__setattr__(
            self, "excluded_races", _slugs("excluded_races", self.excluded_races, allow_none=False)
        )

    @classmethod
    def from_params(cls, params: dict) -> EloConfig:
        """Build from stored parameters; unknown keys and bad values raise ValueError naming
        them."""
        check_fields(cls, params)
        return cls(**params)

    def as_params(self) -> dict:
        """The parameters as plain data (lists for tuples), the inverse of from_params."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


@dataclass
class EventTally:
    """Running totals of one event while it may still receive games.

    `totals` maps a rating key to [rl, rn, nt, games_played, wt, wet, rtt, sum of Rc, is_start,
    the day of its last counted game here].
    """

    label: str
    end: date  # event_end, or the date of its last game if that is later or there is none
    totals: dict = field(default_factory=dict)
    dirty: bool = True  # changed since its summaries were last handed out


@dataclass
class EloState:
    """Everything needed to continue a history: ratings, the last game applied, open events."""

    ratings: dict = field(default_factory=dict)  # (coach, race or None, variant) -> CR
    last_played: tuple | None = None  # (played_at, game_id) of the last game applied
    open_events: dict = field(default_factory=dict)  # event_id -> EventTally

    def copy(self) -> EloState:
        events = {
            event_id: EventTally(t.label, t.end, {k: list(v) for k, v in t.totals.items()}, t.dirty)
            for event_id, t in self.open_events.items()
        }
        return EloState(dict(self.ratings), self.last_played, events)


@dataclass
class EloResult:
    state: EloState
    rows: list  # list[CalculationRow]
    summaries: list  # list[PeriodSummary]


def _summaries(tally: EventTally) -> list[PeriodSummary]:
    tally.dirty = False
    rated = [(key, acc) for key, acc in tally.totals.items() if acc[2]]
    if not rated:
        return []
    keys, totals = zip(*rated)
    coaches, races, variants = zip(*keys)
    rl, rn, nt, played, wt, wet, rtt, rc_sum, is_start, last = zip(*totals)
    # in force from the key's last game here: events overlap, so a later event can end first
    return build_many(PeriodSummary, {
        "coach": coaches, "race": races, "variant": variants, "period": repeat(tally.label),
        "effective": last, "rl": rl, "rn": rn, "nt": nt, "games_played": played,
        "wt": wt, "wet": wet, "rtt": rtt, "rct": map(truediv, rc_sum, nt), "is_start": is_start,
    })


def _close_events(open_events: dict, before: date, summaries: list) -> None:
    """Hand out the summaries of events that ended before `before` and forget their totals."""
    ended = [event_id for event_id, tally in open_events.items() if tally.end < before]
    for event_id in ended:
        tally = open_events.pop(event_id)
        if tally.dirty:
            summaries.extend(_summaries(tally))


def current_ratings(state: EloState) -> dict:
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
    games, config: EloConfig, state: EloState | None = None, *, in_place: bool = False
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
    rows: list[CalculationRow] = []
    summaries: list[PeriodSummary] = []
    ratings = state.ratings
    open_events = state.open_events
    append = rows.append
    new_row = CalculationRow
    floor = math.floor
    start_rating = config.start_rating
    per_race = config.per_race
    conceder_loses = config.conceder_loses
    exclusion = CountingRule.of(config).exclusion
    if not games:
        return EloResult(state, rows, summaries)

    # sentinels: the first game passes the order check and starts a new day
    last_t, last_id = state.last_played or (games[0].played_at, games[0].game_id - 1)
    next_day = games[0].played_at
    day = None
    event_id = None
    label = ""
    totals: dict = {}
    k_for = (None, None)
    k = 0.0
    for g in games:
        t = g.played_at
        game_id = g.game_id
        if t <= last_t and (t < last_t or game_id <= last_id):
            if t == last_t and game_id == last_id:
                raise ValueError(f"game {game_id} was given twice (or is already in the state)")
            raise OutOfOrder
        last_t = t
        last_id = game_id
        if t >= next_day:
            day = t.date()
            next_day = datetime.combine(day + _ONE_DAY, time(), t.tzinfo)
            _close_events(open_events, day, summaries)
            event_id = None
        if g.event_id != event_id:
            event_id = g.event_id
            tally = open_events.get(event_id)
            if tally is None:
                end = g.event_end if g.event_end is not None and g.event_end > day else day
                tally = open_events[event_id] = EventTally(f"event:{event_id}", end)
            elif day > tally.end:
                tally.end = day
            tally.dirty = True
            label = tally.label
            totals = tally.totals

        home = g.home
        away = g.away
        variant = g.variant
        home_race = g.home_race
        away_race = g.away_race
        if per_race:
            home_key = (home, home_race, variant)
            away_key = (away, away_race, variant)
        else:
            home_key = (home, None, variant)
            away_key = (away, None, variant)
        reason = exclusion(g)
        score = g.home_score
        if reason is not None:
            append(new_row(game_id, HOME, home, home_key[1], variant, away, away_race, t, label,
                           score, False, reason))
            sides = [home_key]
            if away is not None:
                append(new_row(game_id, AWAY, away, away_key[1], variant, home, home_race, t, label,
                               1.0 - score, False, reason))
                sides.append(away_key)
            for key in sides:
                acc = totals.get(key)
                if acc is None:
                    totals[key] = [None, None, 0, 1, 0.0, 0.0, 0.0, 0.0, False, None]
                else:
                    acc[3] += 1
            continue

        if conceder_loses and g.conceded_by is not None:
            score = 0.0 if g.conceded_by == HOME else 1.0
        if g.event_coaches != k_for[0] or g.major != k_for[1]:
            k_for = (g.event_coaches, g.major)
            k = k_value(
                g.event_coaches, major=g.major, non_major_max=config.non_major_max,
                round_k=config.round_k, major_coaches=config.major_coaches,
            )
        r_home = ratings.get(home_key)
        home_new = r_home is None
        if home_new:
            r_home = start_rating
        r_away = ratings.get(away_key)
        away_new = r_away is None
        if away_new:
            r_away = start_rating
        p_home = 1.0 / (10.0 ** ((r_away - r_home) / 150.0) + 1.0)
        p_away = 1.0 / (10.0 ** ((r_home - r_away) / 150.0) + 1.0)
        away_score = 1.0 - score
        rt_home = k * (score - p_home)
        rt_away = k * (away_score - p_away)
        # round_half_away(x, 2) inlined for the usual positive ratings (same arithmetic)
        x = (r_home + rt_home) * 100.0
        n_home = floor(x + 0.5 + 1e-9) / 100.0 if x >= 0.0 else round_half_away(r_home + rt_home, 2)
        x = (r_away + rt_away) * 100.0
        n_away = floor(x + 0.5 + 1e-9) / 100.0 if x >= 0.0 else round_half_away(r_away + rt_away, 2)
        ratings[home_key] = n_home
        ratings[away_key] = n_away
        append(new_row(game_id, HOME, home, home_key[1], variant, away, away_race, t, label,
                       score, True, None, r_home, r_away, p_home, k, rt_home))
        append(new_row(game_id, AWAY, away, away_key[1], variant, home, home_race, t, label,
                       away_score, True, None, r_away, r_home, p_away, k, rt_away))

        acc = totals.get(home_key)
        if acc is None:
            totals[home_key] = [r_home, n_home, 1, 1, score, p_home, rt_home, r_away, home_new, day]
        else:
            if not acc[2]:
                acc[0] = r_home
                acc[8] = home_new
            acc[1] = n_home
            acc[2] += 1
            acc[3] += 1
            acc[4] += score
            acc[5] += p_home
            acc[6] += rt_home
            acc[7] += r_away
            acc[9] = day
        acc = totals.get(away_key)
        if acc is None:
            totals[away_key] = [r_away, n_away, 1, 1, away_score, p_away, rt_away, r_home, away_new, day]
        else:
            if not acc[2]:
                acc[0] = r_away
                acc[8] = away_new
            acc[1] = n_away
            acc[2] += 1
            acc[3] += 1
            acc[4] += away_score
            acc[5] += p_away
            acc[6] += rt_away
            acc[7] += r_home
            acc[9] = day

    state.last_played = (last_t, last_id)
    for tally in open_events.values():
        if tally.dirty:
            summaries.extend(_summaries(tally))
    return EloResult(state, rows, summaries)
