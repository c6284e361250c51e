"""The fast history runner: games in order of play, gathered into rating periods, each period
rated at once over arrays (batch.py) when it is over, with its calculation rows and summaries.

Within a period every rating key that played is updated once, with all its games, against the
opponents' ratings at the start of the period. A key that did not play decays (decayed_phi); the
decay is applied lazily, when the key next plays or is read, from the index of the last period
applied to it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime, time, timedelta
from functools import partial
from itertools import repeat
from operator import attrgetter
from typing import NamedTuple

import numpy as np

from ..common import (
    AWAY,
    HOME,
    CalculationRow,
    CountingRule,
    GameRecord,
    OutOfOrder,
    PeriodSummary,
    build_many,
    paused_gc,
    run_in_order,
)
from .batch import PeriodUpdate, Sides, rate_period
from .calculator import GlickoRating, decayed_phi, initial_for_new_race
from .config import GlickoConfig, calendar_period
from .state import NEW, ExcludedGame, GlickoResult, GlickoState, OpenPeriod, RatingKey

_ONE_DAY = timedelta(days=1)
# one period's step over arrays: batch.rate_period, or the compiled path's (compiled.rate_period)
RatePeriod = Callable[[np.ndarray, np.ndarray, np.ndarray, Sides, float], PeriodUpdate]
_ROW_FIELDS = attrgetter("game_id", "played_at", "variant", "home", "away", "home_race", "away_race")


def run_history(
    games: Iterable[GameRecord], config: GlickoConfig, state: GlickoState | None = None, *, in_place: bool = False
) -> GlickoResult:
    """Take in `games` (any order; taken in (played_at, game_id) order) after `state`.

    A period is rated when the first game dated after its end arrives (or by close_periods);
    rows and summaries come out then, so a period still open at the end of the run stays in the
    returned state (the given state is not modified, unless `in_place`: then it is updated and
    returned). Summaries: one per key that played counted games in the period. Games must come
    after `state.last_played` (ValueError otherwise).
    """
    start = GlickoState() if state is None else state
    return run_in_order(partial(_run, config=config), list(games), start, in_place=in_place)


def close_periods(
    state: GlickoState, config: GlickoConfig, until: date, *, in_place: bool = False
) -> GlickoResult:
    """Rate every open period that ended before `until` (the list "as of" `until` needs them).

    The given state is not modified. With until=date.max this rates the running period too, which
    gives its provisional figures (keep the returned state only if the period is really over).
    """
    if not any(p.end < until for p in state.open_periods.values()):
        return GlickoResult(state, [], [])
    with paused_gc():
        result = GlickoResult(state if in_place else state.copy(), [], [])
        _close_ended(result, config, until)
    return result


def current_ratings(state: GlickoState) -> None:
    """None: Glicko ratings change when a period is rated, not after each game (the replay reads
    them from the period summaries)."""
    return None


def ratings_as_of(state: GlickoState, config: GlickoConfig, as_of: date) -> dict[RatingKey, GlickoRating]:
    """Every rated key's GlickoRating in the list "as of" `as_of`: the periods that ended before
    it, with idle decay up to the last of them. Open periods that ended before `as_of` must be
    closed first (ValueError); keys first rated in a period still open are left out."""
    if any(p.end < as_of for p in state.open_periods.values()):
        raise ValueError(f"close the periods that ended before {as_of} first (close_periods)")
    if config.period == "event":
        latest = state.periods_closed - 1
    else:
        latest = calendar_period(as_of, config).number - 1
    n = len(state.keys)
    last = state.last[:n]
    rated = last != NEW
    if np.any(last[rated] > latest):
        raise ValueError(f"the state holds periods after {as_of}")
    idle = np.where(rated, latest - last, 0)
    phi = decayed_phi(state.phi[:n], state.sigma[:n], idle, config.decay_cap).tolist()
    mu = state.mu[:n].tolist()
    sigma = state.sigma[:n].tolist()
    return {key: GlickoRating(mu[i], phi[i], sigma[i]) for i, key in enumerate(state.keys) if rated[i]}


# --- taking games in ------------------------------------------------------------------------------


def _run(
    games: list[GameRecord], state: GlickoState, *, config: GlickoConfig, rate: RatePeriod = rate_period
) -> GlickoResult:
    """Take the games (in play order) into their open periods, rating each period that ends."""
    result = GlickoResult(state, [], [])
    if not games:
        return result
    per_race = config.per_race
    by_event = config.period == "event"
    exclusion = CountingRule.of(config).exclusion
    # sentinels: the first game passes the order check and starts a new day
    last_t, last_id = state.last_played or (games[0].played_at, games[0].game_id - 1)
    next_day = games[0].played_at
    day = next_day.date()
    period = None
    event_id = None
    for g in games:
        t = g.played_at
        if t <= last_t and (t < last_t or g.game_id <= last_id):
            raise _out_of_order(g, last_t, last_id)
        last_t = t
        last_id = g.game_id
        if t >= next_day:
            day = t.date()
            next_day = datetime.combine(day + _ONE_DAY, time(), t.tzinfo)
            _close_ended(result, config, day, rate)
            period = None
        if period is None or (by_event and g.event_id != event_id):
            period, index = _period_of(state, config, g, day)
            event_id = g.event_id
            local = period.local
            home_of_game = period.home
            away_of_game = period.away
            home_score = period.score
            counted = period.counted
        reason = exclusion(g)
        if reason is not None:
            _exclude(period, g, reason, per_race)
            continue
        away = g.away
        assert away is not None  # a game without one has a reason (CountingRule)
        variant = g.variant
        if per_race:
            home_key: RatingKey = (g.home, g.home_race, variant)
            away_key: RatingKey = (away, g.away_race, variant)
        else:
            home_key = (g.home, None, variant)
            away_key = (away, None, variant)
        h = local.get(home_key)
        if h is None:
            h = _enter(state, config, period, home_key, index)
        a = local.get(away_key)
        if a is None:
            a = _enter(state, config, period, away_key, index)
        home_of_game.append(h)
        away_of_game.append(a)
        home_score.append(g.home_score)
        counted.append(g)
    state.last_played = (last_t, last_id)
    return result


def _out_of_order(game: GameRecord, last_t: datetime, last_id: int) -> Exception:
    """What a game before the state's last one raises: ValueError when it is that very game."""
    if game.played_at == last_t and game.game_id == last_id:
        return ValueError(f"game {game.game_id} was given twice (or is already in the state)")
    return OutOfOrder()


def _period_of(state: GlickoState, config: GlickoConfig, game: GameRecord, day: date) -> tuple[OpenPeriod, int]:
    """The open period of a game played on `day` (opened if need be), and the period index its new
    keys' start ratings are taken at."""
    if config.period == "event":
        period = _event_period(state, game, day)
        index = state.periods_closed
    else:
        index, label, end = calendar_period(day, config)
        found = state.open_periods.get(label)
        period = OpenPeriod(label, index, end, state.periods_opened) if found is None else found
    if period.label not in state.open_periods:
        state.open_periods[period.label] = period
        state.periods_opened += 1
    return period, index


def _event_period(state: GlickoState, game: GameRecord, day: date) -> OpenPeriod:
    """The event's open period; it ends on the event's last day, or on its last game's day if later."""
    label = f"event:{game.event_id}"
    period = state.open_periods.get(label)
    if period is None:
        end = game.event_end if game.event_end is not None and game.event_end > day else day
        return OpenPeriod(label, None, end, state.periods_opened)
    if day > period.end:
        period.end = day
    return period


def _exclude(period: OpenPeriod, game: GameRecord, reason: str, per_race: bool) -> None:
    """Keep a game that does not count for its rows, and count it in its keys' games played."""
    period.excluded.append(ExcludedGame(len(period.counted), game, reason))
    played = period.excluded_played
    home_key = (game.home, game.home_race if per_race else None, game.variant)
    played[home_key] = played.get(home_key, 0) + 1
    if game.away is not None:
        away_key = (game.away, game.away_race if per_race else None, game.variant)
        played[away_key] = played.get(away_key, 0) + 1


def _enter(state: GlickoState, config: GlickoConfig, period: OpenPeriod, key: RatingKey, index: int) -> int:
    """The key's position in the period, where it plays its first game (numbered if new)."""
    number = state.key_index.get(key)
    if number is None:
        number = state.add_key(key, _start_rating(state, config, key, index))
    position = period.local[key] = len(period.keys)
    period.keys.append(number)
    return position


def _start_rating(state: GlickoState, config: GlickoConfig, key: RatingKey, index: int) -> GlickoRating:
    """Start rating of a new key; cross-race from the coach's other ratings as they stand now."""
    coach, race, variant = key
    existing = state.coach_keys.get((coach, variant)) if config.cross_race_start else None
    if not existing or len(existing) < 2 or race is None:
        return GlickoRating(config.mu0, config.phi0, config.sigma0)
    now = _ratings_at(state, np.array(existing, dtype=np.intp), index, config.decay_cap)
    return initial_for_new_race(
        [GlickoRating(m, p, 0.0) for m, p in zip(now.mu.tolist(), now.phi.tolist())],
        mu0=config.mu0, phi0=config.phi0, sigma0=config.sigma0,
    )


# --- rating a period ------------------------------------------------------------------------------


class StartRatings(NamedTuple):
    """Keys' ratings at the start of a period (idle decay applied), arrays over the keys."""

    mu: np.ndarray
    phi: np.ndarray
    sigma: np.ndarray
    new: np.ndarray  # not rated before


def _ratings_at(state: GlickoState, numbers: np.ndarray, index: int, cap: float) -> StartRatings:
    """The keys' ratings at the start of period `index`: decayed for each idle period since their
    last (a key not rated yet keeps its start rating)."""
    last = state.last[numbers]
    new = last == NEW
    idle = np.where(new, 0, index - last - 1)
    sigma = state.sigma[numbers]
    return StartRatings(state.mu[numbers], decayed_phi(state.phi[numbers], sigma, idle, cap), sigma, new)


def _close_ended(result: GlickoResult, config: GlickoConfig, before: date, rate: RatePeriod = rate_period) -> None:
    """Rate the open periods that ended before `before`, in order of their end, then of opening."""
    state = result.state
    ended = sorted((p for p in state.open_periods.values() if p.end < before), key=attrgetter("end", "seq"))
    for period in ended:
        del state.open_periods[period.label]
        _close(result, config, period, rate)


def _close(result: GlickoResult, config: GlickoConfig, period: OpenPeriod, rate: RatePeriod = rate_period) -> None:
    """Rate one period: every key that played, once, against start-of-period ratings."""
    state = result.state
    index = state.periods_closed if period.index is None else period.index
    state.periods_closed += 1
    if not period.counted:
        result.rows.extend(_with_excluded([], period, config.per_race))
        return
    numbers = np.array(period.keys, dtype=np.intp)
    start = _ratings_at(state, numbers, index, config.decay_cap)
    sides = Sides.of(period.home, period.away, period.score)
    update = rate(start.mu, start.phi, start.sigma, sides, config.tau)
    counted_rows = _counted_rows(period, config.per_race, start, sides, update)
    result.rows.extend(_with_excluded(counted_rows, period, config.per_race))
    result.summaries.extend(_summaries(state, config, period, start, sides, update))
    state.mu[numbers] = update.mu
    state.phi[numbers] = update.phi
    state.sigma[numbers] = update.sigma
    state.last[numbers] = index


def _counted_rows(
    period: OpenPeriod, per_race: bool, start: StartRatings, sides: Sides, update: PeriodUpdate
) -> list[CalculationRow]:
    """The rows of the period's counted games in order of play: each game's home row, then its away row."""
    game_ids, played_at, variants, homes, aways, home_races, away_races = zip(*map(_ROW_FIELDS, period.counted))
    shared = {
        "game_id": game_ids, "variant": variants, "played_at": played_at, "period": repeat(period.label),
        "counted": repeat(True),
    }
    # per-key values shared by the rows (one float object per key, not one per row)
    mu_of = start.mu.tolist().__getitem__
    phi_of = start.phi.tolist().__getitem__
    g_of = update.g.tolist().__getitem__

    def side_rows(
        side: str, first: int, *, coach: Iterable[int], race: Iterable[str | None], opponent: Iterable[int | None],
        opponent_race: Iterable[str | None], mine: Iterable[int], theirs: Iterable[int], w: Iterable[float],
    ) -> list[CalculationRow]:
        return build_many(CalculationRow, {
            **shared, "side": repeat(side), "coach": coach, "race": race if per_race else repeat(None),
            "opponent": opponent, "opponent_race": opponent_race, "w": w,
            "r0": map(mu_of, mine), "rc": map(mu_of, theirs), "we": update.expected[first::2].tolist(),
            "rt": update.change[first::2].tolist(), "opponent_phi": map(phi_of, theirs), "g": map(g_of, theirs),
        })

    home = side_rows(HOME, 0, coach=homes, race=home_races, opponent=aways, opponent_race=away_races,
                     mine=period.home, theirs=period.away, w=period.score)
    away = side_rows(AWAY, 1, coach=aways, race=away_races, opponent=homes, opponent_race=home_races,
                     mine=period.away, theirs=period.home, w=sides.score[1::2].tolist())
    rows = home + away
    rows[0::2] = home
    rows[1::2] = away
    return rows


def _with_excluded(counted_rows: list[CalculationRow], period: OpenPeriod, per_race: bool) -> list[CalculationRow]:
    """The period's rows in order of play: the excluded games' rows put back among the counted."""
    if not period.excluded:
        return counted_rows
    out = []
    done = 0
    for position, game, reason in period.excluded:
        out.extend(counted_rows[2 * done:2 * position])
        done = position
        out.extend(_excluded_rows(game, reason, per_race, period.label))
    out.extend(counted_rows[2 * done:])
    return out


def _excluded_rows(game: GameRecord, reason: str, per_race: bool, label: str) -> list[CalculationRow]:
    """A game that does not count: a row for each side it has."""
    rows = [CalculationRow(
        game.game_id, HOME, game.home, game.home_race if per_race else None, game.variant,
        game.away, game.away_race, game.played_at, label, game.home_score, False, reason,
    )]
    if game.away is not None:
        rows.append(CalculationRow(
            game.game_id, AWAY, game.away, game.away_race if per_race else None, game.variant,
            game.home, game.home_race, game.played_at, label, 1.0 - game.home_score, False, reason,
        ))
    return rows


def _summaries(
    state: GlickoState, config: GlickoConfig, period: OpenPeriod, start: StartRatings, sides: Sides,
    update: PeriodUpdate,
) -> list[PeriodSummary]:
    """One summary per key that played counted games in the period, in order of their first game."""
    player = sides.player
    n_keys = start.mu.size

    def total(weights: np.ndarray) -> np.ndarray:
        return np.bincount(player, weights=weights, minlength=n_keys)

    nt = np.bincount(player, minlength=n_keys)
    played = nt.tolist()
    if period.excluded_played:
        for i, number in enumerate(period.keys):
            played[i] += period.excluded_played.get(state.keys[number], 0)
    multiplier = config.value_phi_multiplier
    coaches, races, variants = zip(*[state.keys[number] for number in period.keys])
    return build_many(PeriodSummary, {
        "coach": coaches, "race": races, "variant": variants, "period": repeat(period.label),
        "effective": repeat(period.end + _ONE_DAY),
        "rl": (start.mu - multiplier * start.phi).tolist(),
        "rn": (update.mu - multiplier * update.phi).tolist(),
        "nt": nt.tolist(), "games_played": played,
        "wt": total(sides.score).tolist(), "wet": total(update.expected).tolist(), "rtt": total(update.change).tolist(),
        "rct": (total(start.mu[sides.opponent]) / nt).tolist(),
        "mu": update.mu.tolist(), "phi": update.phi.tolist(), "sigma": update.sigma.tolist(),
        "mu_before": start.mu.tolist(), "phi_before": start.phi.tolist(), "sigma_before": start.sigma.tolist(),
        "is_start": start.new.tolist(),
    })
