"""Glicko-2 by rating periods: NAF Glicko (per race, monthly), Global Glicko (pooled, two-weekly).

Glickman's algorithm as revised in 2022 (volatility by the Illinois method). Values are kept on
the rating scale (mu around 1500, phi 350 for a new rating); the algorithm works on the internal
scale mu~ = (mu − 1500)/173.7178, phi~ = phi/173.7178.

Within a period every rating key that played is updated once, with all its games, against the
opponents' ratings at the start of the period. A key that did not play decays,
phi² + (173.7178·sigma)² per idle period, capped; the decay is applied lazily, when the key next
plays or is read, from the index of the last period applied to it.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, fields
from datetime import date, datetime, time, timedelta
from functools import partial
from itertools import repeat
from operator import attrgetter

import numpy as np

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
    paused_gc,
    run_in_order,
)

SCALE = 173.7178
CENTER = 1500.0
CONVERGENCE = 1e-6  # Glickman's epsilon for the volatility iteration
MAX_ITERATIONS = 100  # each loop of the volatility iteration; far above the usual 5 to 10
PERIODS = ("month", "two_weeks", "event")
_G_FACTOR = 3.0 / (math.pi * math.pi)
_NEW = -(1 << 62)  # `last` of a key created in a period that has not closed yet
_ONE_DAY = timedelta(days=1)
_ROW_FIELDS = attrgetter(
    "game_id", "played_at", "variant", "home", "away", "home_race", "away_race"
)


class VolatilityNotConverged(ArithmeticError):
    """The Illinois iteration for the new volatility did not converge within MAX_ITERATIONS."""


@dataclass(frozen=True, slots=True)
class GlickoRating:
    """A Glicko-2 rating on the rating scale."""

    mu: float = 1500.0
    phi: float = 350.0
    sigma: float = 0.06


def g_factor(phi: float) -> float:
    """Glickman's g(phi) for a rating-scale phi: how much an opponent's uncertainty damps a game."""
    phi = phi / SCALE
    return 1.0 / math.sqrt(1.0 + phi * phi * _G_FACTOR)


def display_value(rating: GlickoRating, multiplier: float = 2.5) -> float:
    """The ranking value mu − multiplier·phi."""
    return rating.mu - multiplier * rating.phi


def _volatility(sigma: float, phi2: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of Glicko-2 (2022 revision): the new volatility by the Illinois method."""
    a = math.log(sigma * sigma)
    tau2 = tau * tau
    d2 = delta * delta

    def f(x):
        ex = math.exp(x)
        w = phi2 + v + ex
        return ex * (d2 - phi2 - v - ex) / (2.0 * w * w) - (x - a) / tau2

    big_a = a
    if d2 > phi2 + v:
        big_b = math.log(d2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0.0:
            k += 1
            if k > MAX_ITERATIONS:
                raise VolatilityNotConverged(f"no lower bracket after {MAX_ITERATIONS} steps")
        big_b = a - k * tau
    f_a = f(big_a)
    f_b = f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= CONVERGENCE:
            return math.exp(big_a / 2.0)
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        # `<=` (2022 revision): an exact root f(C) = 0 ends the loop instead of cycling on it
        if f_c * f_b <= 0.0:
            big_a = big_b
            f_a = f_b
        else:
            f_a = f_a / 2.0
        big_b = big_c
        f_b = f_c
    if abs(big_b - big_a) <= CONVERGENCE:
        return math.exp(big_a / 2.0)
    raise VolatilityNotConverged(
        f"volatility not converged after {MAX_ITERATIONS} iterations "
        f"(sigma={sigma!r}, phi²={phi2!r}, v={v!r}, delta={delta!r}, tau={tau!r})"
    )


def rate(player: GlickoRating, results, *, tau: float = 0.2) -> GlickoRating:
    """The player's rating after one period with `results`: (opponent GlickoRating, score) pairs.

    Opponents are taken at their start-of-period ratings. With no results only phi grows (step 6).
    Raises VolatilityNotConverged rather than loop.
    """
    mu = (player.mu - CENTER) / SCALE
    phi = player.phi / SCALE
    sigma = player.sigma
    if not results:
        return GlickoRating(player.mu, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    inv_v = 0.0
    dsum = 0.0
    for opponent, score in results:
        mu_j = (opponent.mu - CENTER) / SCALE
        phi_j = opponent.phi / SCALE
        g = 1.0 / math.sqrt(1.0 + phi_j * phi_j * _G_FACTOR)
        e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
        inv_v += g * g * e * (1.0 - e)
        dsum += g * (score - e)
    v = 1.0 / inv_v
    sigma_new = _volatility(sigma, phi * phi, v, v * dsum, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * dsum
    return GlickoRating(mu_new * SCALE + CENTER, phi_new * SCALE, sigma_new)


def decay(player: GlickoRating, *, periods: int = 1, phi_cap: float | None = 350.0) -> GlickoRating:
    """The rating after `periods` idle periods: phi² grows by (173.7178·sigma)² each, capped.

    Closed form of `periods` single steps: the cap is monotone, so min(phi² + n·s², cap²) equals
    applying min(phi² + s², cap²) n times.
    """
    if periods < 0:
        raise ValueError(f"periods must not be negative, got {periods!r}")
    if periods == 0:
        return player
    step = SCALE * player.sigma
    phi2 = player.phi * player.phi + periods * (step * step)
    if phi_cap is not None:
        phi2 = min(phi2, phi_cap * phi_cap)
    return GlickoRating(float(player.mu), math.sqrt(phi2), player.sigma)


def initial_for_new_race(
    existing_ratings, *, mu0: float = 1500.0, phi0: float = 350.0, sigma0: float = 0.06
) -> GlickoRating:
    """Start rating of a coach's new race: with at least two existing ratings (median mu, max phi,
    sigma0), otherwise (mu0, phi0, sigma0)."""
    existing = list(existing_ratings)
    if len(existing) < 2:
        return GlickoRating(mu0, phi0, sigma0)
    return GlickoRating(
        float(statistics.median(r.mu for r in existing)), max(r.phi for r in existing), sigma0
    )


_config_error = partial(config_error, "GlickoConfig")


_slugs = partial(config_slugs, "GlickoConfig")


def _number(name: str, value, low: float, high: float, *, low_open: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _config_error(name, value, "a finite number")
    if value > high or value < low or (low_open and value == low):
        bound = f"{'above' if low_open else 'at least'} {low} and at most {high}"
        raise _config_error(name, value, bound)
    return float(value)


GLOBAL_DEFAULTS = {
    "per_race": False,
    "period": "two_weeks",
    "excluded_races": ("goblin", "halfling", "ogre"),
}


@dataclass(frozen=True)
class GlickoConfig:
    """Parameters of a Glicko rating system (validated on construction). Defaults: NAF Glicko."""

    mu0: float = 1500.0
    phi0: float = 350.0
    sigma0: float = 0.06
    tau: float = 0.2
    per_race: bool = True
    period: str = "month"  # month | two_weeks | event
    period_anchor: date = date(2000, 1, 3)  # two_weeks: the Monday periods are counted from
    value_phi_multiplier: float = 2.5  # ranking value mu − multiplier·phi
    inactive_phi: float = 100.0  # above this phi a rating keeps its value but gets no rank
    phi_cap: float | None = None  # idle decay cap; None: phi0
    cross_race_start: bool = True
    excluded_races: tuple[str, ...] = ()
    variants: tuple[str, ...] | None = None  # None: every variant

    def __post_init__(self):
        def put(name, value):
            object.__setattr__(self, name, value)

        put("mu0", _number("mu0", self.mu0, -10_000.0, 10_000.0, low_open=False))
        put("phi0", _number("phi0", self.phi0, 0.0, 2_000.0, low_open=True))
        put("sigma0", _number("sigma0", self.sigma0, 0.0, 1.0, low_open=True))
        put("tau", _number("tau", self.tau, 0.0, 5.0, low_open=True))
        put("value_phi_multiplier",
            _number("value_phi_multiplier", self.value_phi_multiplier, 0.0, 10.0, low_open=False))
        put("inactive_phi", _number("inactive_phi", self.inactive_phi, 0.0, 2_000.0, low_open=True))
        if self.phi_cap is not None:
            put("phi_cap", _number("phi_cap", self.phi_cap, 0.0, 2_000.0, low_open=True))
        for name in ("per_race", "cross_race_start"):
            if not isinstance(getattr(self, name), bool):
                raise _config_error(name, getattr(self, name), "true or false")
        if self.period not in PERIODS:
            raise _config_error("period", self.period, "one of " + ", ".join(PERIODS))
        anchor = self.period_anchor
        if isinstance(anchor, str):
            try:
                anchor = date.fromisoformat(anchor)
            except ValueError:
                raise _config_error("period_anchor", anchor, "a date YYYY-MM-DD") from None
        if not isinstance(anchor, date) or isinstance(anchor, datetime) or anchor.weekday() != 0:
            raise _config_error("period_anchor", self.period_anchor, "a Monday")
        put("period_anchor", anchor)
        put("excluded_races", _slugs("excluded_races", self.excluded_races, allow_none=False))
        put("variants", _slugs("variants", self.variants, allow_none=True))

    @classmethod
    def from_params(cls, params: dict) -> GlickoConfig:
        """Build from stored parameters; unknown keys and bad values raise ValueError naming
        them."""
        check_fields(cls, params)
        return cls(**params)

    @classmethod
    def global_defaults(cls, **overrides) -> GlickoConfig:
        """Global Glicko: pooled races, two-week periods, Goblin, Halfling, Ogre games excluded."""
        params = {**GLOBAL_DEFAULTS, **overrides}
        check_fields(cls, params)
        return cls(**params)

    def as_params(self) -> dict:
        """The parameters as plain data (lists for tuples, ISO date), the inverse of from_params."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        out["period_anchor"] = self.period_anchor.isoformat()
        return out

    @property
    def decay_cap(self) -> float:
        return self.phi0 if self.phi_cap is None else self.phi_cap

    def value(self, rating: GlickoRating) -> float:
        """The ranking value of a rating, mu − value_phi_multiplier·phi."""
        return rating.mu - self.value_phi_multiplier * rating.phi

    def is_active(self, rating: GlickoRating) -> bool:
        """Whether the rating is ranked (phi at most inactive_phi)."""
        return rating.phi <= self.inactive_phi


@dataclass
class OpenPeriod:
    """A rating period that has games but has not been rated yet (carried in the state)."""

    label: str
    index: int | None  # calendar periods: their number; event periods get one when they close
    end: date  # last day of the period (event: event_end, or its last game's date if later)
    seq: int  # opening order: periods ending the same day close in this order
    keys: list = field(default_factory=list)  # key numbers in order of their first game here
    local: dict = field(default_factory=dict)  # key -> position in `keys`
    home: list = field(default_factory=list)  # counted games: position of the home key
    away: list = field(default_factory=list)
    score: list = field(default_factory=list)  # counted games: home score
    counted: list = field(default_factory=list)  # counted GameRecords in order of play
    excluded: list = field(default_factory=list)  # (counted games before it, GameRecord, reason)
    excluded_played: dict = field(default_factory=dict)  # key -> rows not counted

    def copy(self) -> OpenPeriod:
        return OpenPeriod(
            self.label, self.index, self.end, self.seq, list(self.keys), dict(self.local),
            list(self.home), list(self.away), list(self.score), list(self.counted),
            list(self.excluded), dict(self.excluded_played),
        )


def _empty() -> np.ndarray:
    return np.zeros(0)


@dataclass(eq=False)
class GlickoState:
    """Everything needed to continue a history.

    Key number i is keys[i]; its rating is (mu[i], phi[i], sigma[i]) as rated at the end of period
    last[i] (the arrays keep spare room at the end).
    """

    keys: list = field(default_factory=list)  # (coach, race or None, variant)
    key_index: dict = field(default_factory=dict)  # key -> key number
    coach_keys: dict = field(default_factory=dict)  # (coach, variant) -> tuple of key numbers
    mu: np.ndarray = field(default_factory=_empty)
    phi: np.ndarray = field(default_factory=_empty)
    sigma: np.ndarray = field(default_factory=_empty)
    last: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    open_periods: dict = field(default_factory=dict)  # label -> OpenPeriod
    periods_closed: int = 0
    periods_opened: int = 0
    last_played: tuple | None = None  # (played_at, game_id) of the last game taken in

    def copy(self) -> GlickoState:
        n = len(self.keys)
        return GlickoState(
            list(self.keys), dict(self.key_index), dict(self.coach_keys),
            self.mu[:n].copy(), self.phi[:n].copy(), self.sigma[:n].copy(), self.last[:n].copy(),
            {label: p.copy() for label, p in self.open_periods.items()},
            self.periods_closed, self.periods_opened, self.last_played,
        )

    def __eq__(self, other):
        if not isinstance(other, GlickoState):
            return NotImplemented
        n = len(self.keys)
        return (
            self.keys == other.keys
            and self.key_index == other.key_index
            and self.coach_keys == other.coach_keys
            and len(other.keys) == n
            and all(
                np.array_equal(getattr(self, a)[:n], getattr(other, a)[:n])
                for a in ("mu", "phi", "sigma", "last")
            )
            and self.open_periods == other.open_periods
            and (self.periods_closed, self.periods_opened, self.last_played)
            == (other.periods_closed, other.periods_opened, other.last_played)
        )

    @classmethod
    def from_ratings(cls, ratings: dict, *, period_index: int) -> GlickoState:
        """A state holding `ratings` (key -> GlickoRating) as rated at the end of period
        `period_index` (calendar_period's index; for event periods, the number closed minus one),
        e.g. an imported list."""
        state = cls()
        for key, rating in ratings.items():
            number = state._add_key(tuple(key), rating)
            state.last[number] = period_index
        state.periods_closed = period_index + 1
        return state

    def stored_rating(self, key) -> GlickoRating | None:
        """The key's rating as of the last period applied to it (no idle decay), or None."""
        i = self.key_index.get(key)
        if i is None:
            return None
        return GlickoRating(float(self.mu[i]), float(self.phi[i]), float(self.sigma[i]))

    def _add_key(self, key, rating: GlickoRating) -> int:
        n = len(self.keys)
        if n == len(self.mu):
            size = max(1024, 2 * n)
            for name in ("mu", "phi", "sigma", "last"):
                old = getattr(self, name)
                grown = np.zeros(size, dtype=old.dtype)
                grown[:n] = old[:n]
                setattr(self, name, grown)
        self.keys.append(key)
        self.key_index[key] = n
        coach = (key[0], key[2])
        self.coach_keys[coach] = self.coach_keys.get(coach, ()) + (n,)
        self.mu[n] = rating.mu
        self.phi[n] = rating.phi
        self.sigma[n] = rating.sigma
        self.last[n] = _NEW
        return n


@dataclass
class GlickoResult:
    state: GlickoState
    rows: list  # list[CalculationRow]
    summaries: list  # list[PeriodSummary]


def calendar_period(day: date, config: GlickoConfig) -> tuple[int, str, date]:
    """(index, label, last day) of the month or two-week period holding `day`."""
    if config.period == "month":
        index = day.year * 12 + day.month - 1
        following = date(day.year + day.month // 12, day.month % 12 + 1, 1)
        return index, f"{day.year:04d}-{day.month:02d}", following - _ONE_DAY
    if config.period == "two_weeks":
        index = (day - config.period_anchor).days // 14
        start = config.period_anchor + timedelta(days=14 * index)
        return index, start.isoformat(), start + timedelta(days=13)
    raise ValueError("event periods are not calendar periods")


def decayed_phi(phi, sigma, periods, cap):
    """Vector form of `decay`: phi after `periods` idle periods (unchanged where periods is 0)."""
    step = SCALE * sigma
    grown = np.sqrt(np.minimum(phi * phi + periods * (step * step), cap * cap))
    return np.where(periods > 0, grown, phi)


def _volatility_many(sigma, phi2, v, delta, tau):
    """`_volatility` over arrays, each entry iterated until it converges (same arithmetic)."""
    a = np.log(sigma * sigma)
    tau2 = tau * tau
    d2 = delta * delta

    def f(x, at):
        ex = np.exp(x)
        p2 = phi2[at]
        vv = v[at]
        w = p2 + vv + ex
        return ex * (d2[at] - p2 - vv - ex) / (2.0 * w * w) - (x - a[at]) / tau2

    big_a = a.copy()
    big_b = np.empty_like(a)
    wide = d2 > phi2 + v
    big_b[wide] = np.log(d2[wide] - phi2[wide] - v[wide])
    pending = np.flatnonzero(~wide)
    k = 1
    while pending.size:
        below = f(a[pending] - k * tau, pending) < 0.0
        done = pending[~below]
        big_b[done] = a[done] - k * tau
        pending = pending[below]
        k += 1
        if k > MAX_ITERATIONS and pending.size:
            raise VolatilityNotConverged(f"no lower bracket after {MAX_ITERATIONS} steps")
    everything = np.arange(a.size)
    f_a = f(big_a, everything)
    f_b = f(big_b, everything)
    active = np.flatnonzero(np.abs(big_b - big_a) > CONVERGENCE)
    steps = 0
    while active.size:
        if steps == MAX_ITERATIONS:
            raise VolatilityNotConverged(
                f"volatility not converged after {MAX_ITERATIONS} iterations for "
                f"{active.size} rating(s)"
            )
        xa = big_a[active]
        xb = big_b[active]
        fa = f_a[active]
        fb = f_b[active]
        xc = xa + (xa - xb) * fa / (fb - fa)
        fc = f(xc, active)
        swap = fc * fb <= 0.0
        big_a[active] = np.where(swap, xb, xa)
        f_a[active] = np.where(swap, fb, fa / 2.0)
        big_b[active] = xc
        f_b[active] = fc
        active = active[np.abs(xc - big_a[active]) > CONVERGENCE]
        steps += 1
    return np.exp(big_a / 2.0)


def _close(state: GlickoState, config: GlickoConfig, period: OpenPeriod, rows, summaries) -> None:
    """Rate one period: every key that played, once, against start-of-period ratings."""
    index = state.periods_closed if period.index is None else period.index
    state.periods_closed += 1
    counted = period.counted
    if not counted:
        rows.extend(_with_excluded([], period.excluded, config.per_race, period.label))
        return
    n_games = len(counted)
    local_keys = np.array(period.keys, dtype=np.intp)
    n_keys = local_keys.size
    last = state.last[local_keys]
    idle = np.where(last == _NEW, 0, index - last - 1)
    mu_start = state.mu[local_keys]
    sigma = state.sigma[local_keys]
    phi_start = decayed_phi(state.phi[local_keys], sigma, idle, config.decay_cap)

    # one entry per side, home then away for each game, so sums run in order of play
    home = np.array(period.home, dtype=np.intp)
    away = np.array(period.away, dtype=np.intp)
    home_score = np.array(period.score, dtype=float)
    player = np.empty(2 * n_games, dtype=np.intp)
    opponent = np.empty(2 * n_games, dtype=np.intp)
    score = np.empty(2 * n_games)
    player[0::2] = home
    player[1::2] = away
    opponent[0::2] = away
    opponent[1::2] = home
    score[0::2] = home_score
    score[1::2] = 1.0 - home_score

    mu = (mu_start - CENTER) / SCALE
    phi = phi_start / SCALE
    g_key = 1.0 / np.sqrt(1.0 + phi * phi * _G_FACTOR)
    g = g_key[opponent]
    e = 1.0 / (1.0 + np.exp(-g * (mu[player] - mu[opponent])))
    inv_v = np.bincount(player, weights=g * g * e * (1.0 - e), minlength=n_keys)
    dsum = np.bincount(player, weights=g * (score - e), minlength=n_keys)
    v = 1.0 / inv_v
    sigma_new = _volatility_many(sigma, phi * phi, v, v * dsum, config.tau)
    phi_star = np.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / np.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * dsum
    phi_new_p = phi_new[player]
    rt = phi_new_p * phi_new_p * (g * (score - e)) * SCALE
    mu_after = mu_new * SCALE + CENTER
    phi_after = phi_new * SCALE

    label = period.label
    per_race = config.per_race
    game_ids, played_at, variants, homes, aways, home_races, away_races = zip(
        *map(_ROW_FIELDS, counted)
    )
    # per-key values shared by the rows (one float object per key, not one per row)
    mu_of = mu_start.tolist().__getitem__
    phi_of = phi_start.tolist().__getitem__
    g_of = g_key.tolist().__getitem__
    sides = []
    for side, first, coach, race, opponent_coach, opponent_race, mine, theirs, w in (
        (HOME, 0, homes, home_races, aways, away_races, period.home, period.away, period.score),
        (AWAY, 1, aways, away_races, homes, home_races, period.away, period.home,
         score[1::2].tolist()),
    ):
        sides.append(build_many(CalculationRow, {
            "game_id": game_ids, "side": repeat(side), "coach": coach,
            "race": race if per_race else repeat(None), "variant": variants,
            "opponent": opponent_coach, "opponent_race": opponent_race, "played_at": played_at,
            "period": repeat(label), "w": w, "counted": repeat(True),
            "r0": map(mu_of, mine), "rc": map(mu_of, theirs), "we": e[first::2].tolist(),
            "rt": rt[first::2].tolist(), "opponent_phi": map(phi_of, theirs),
            "g": map(g_of, theirs),
        }))
    both = [None] * (2 * n_games)
    both[0::2] = sides[0]
    both[1::2] = sides[1]
    rows.extend(_with_excluded(both, period.excluded, per_race, label))

    nt = np.bincount(player, minlength=n_keys)
    played = nt.tolist()
    if period.excluded_played:
        for i, number in enumerate(period.keys):
            played[i] += period.excluded_played.get(state.keys[number], 0)
    multiplier = config.value_phi_multiplier
    coaches, races, variants = zip(*[state.keys[number] for number in period.keys])
    summaries.extend(build_many(PeriodSummary, {
        "coach": coaches, "race": races, "variant": variants, "period": repeat(label),
        "effective": repeat(period.end + _ONE_DAY),
        "rl": (mu_start - multiplier * phi_start).tolist(),
        "rn": (mu_after - multiplier * phi_after).tolist(),
        "nt": nt.tolist(), "games_played": played,
        "wt": np.bincount(player, weights=score, minlength=n_keys).tolist(),
        "wet": np.bincount(player, weights=e, minlength=n_keys).tolist(),
        "rtt": np.bincount(player, weights=rt, minlength=n_keys).tolist(),
        "rct": (np.bincount(player, weights=mu_start[opponent], minlength=n_keys) / nt).tolist(),
        "mu": mu_after.tolist(), "phi": phi_after.tolist(), "sigma": sigma_new.tolist(),
        "mu_before": mu_start.tolist(), "phi_before": phi_start.tolist(),
        "sigma_before": sigma.tolist(), "is_start": (last == _NEW).tolist(),
    }))
    state.mu[local_keys] = mu_after
    state.phi[local_keys] = phi_after
    state.sigma[local_keys] = sigma_new
    state.last[local_keys] = index


def _with_excluded(counted_rows: list, excluded: list, per_race: bool, label: str) -> list:
    """The period's rows in order of play: the excluded games' rows put back among the counted."""
    if not excluded:
        return counted_rows
    out = []
    done = 0
    for position, game, reason in excluded:
        out.extend(counted_rows[2 * done:2 * position])
        done = position
        out.append(CalculationRow(
            game.game_id, HOME, game.home, game.home_race if per_race else None, game.variant,
            game.away, game.away_race, game.played_at, label, game.home_score, False, reason,
        ))
        if game.away is not None:
            out.append(CalculationRow(
                game.game_id, AWAY, game.away, game.away_race if per_race else None, game.variant,
                game.home, game.home_race, game.played_at, label, 1.0 - game.home_score, False,
                reason,
            ))
    out.extend(counted_rows[2 * done:])
    return out


def _close_ended(state: GlickoState, config: GlickoConfig, before: date, rows, summaries) -> None:
    ended = [p for p in state.open_periods.values() if p.end < before]
    ended.sort(key=lambda p: (p.end, p.seq))
    for period in ended:
        del state.open_periods[period.label]
        _close(state, config, period, rows, summaries)


def close_periods(
    state: GlickoState, config: GlickoConfig, until: date, *, in_place: bool = False
) -> GlickoResult:
    """Rate every open period that ended before `until` (the list "as of" `until` needs them).

    The given state is not modified. With until=date.max this rates the running period too, which
    gives its provisional figures (keep the returned state only if the period is really over).
    """
    rows: list = []
    summaries: list = []
    if not any(p.end < until for p in state.open_periods.values()):
        return GlickoResult(state, rows, summaries)
    with paused_gc():
        state = state if in_place else state.copy()
        _close_ended(state, config, until, rows, summaries)
    return GlickoResult(state, rows, summaries)


def ratings_as_of(state: GlickoState, config: GlickoConfig, as_of: date) -> dict:
    """Every rated key's GlickoRating in the list "as of" `as_of`: the periods that ended before
    it, with idle decay up to the last of them. Open periods that ended before `as_of` must be
    closed first (ValueError); keys first rated in a period still open are left out."""
    if any(p.end < as_of for p in state.open_periods.values()):
        raise ValueError(f"close the periods that ended before {as_of} first (close_periods)")
    if config.period == "event":
        latest = state.periods_closed - 1
    else:
        latest = calendar_period(as_of, config)[0] - 1
    n = len(state.keys)
    last = state.last[:n]
    rated = last != _NEW
    if np.any(last[rated] > latest):
        raise ValueError(f"the state holds periods after {as_of}")
    idle = np.where(rated, latest - last, 0)
    phi = decayed_phi(state.phi[:n], state.sigma[:n], idle, config.decay_cap).tolist()
    mu = state.mu[:n].tolist()
    sigma = state.sigma[:n].tolist()
    return {
        key: GlickoRating(mu[i], phi[i], sigma[i])
        for i, key in enumerate(state.keys)
        if rated[i]
    }


def run_history(
    games, config: GlickoConfig, state: GlickoState | None = None, *, in_place: bool = False
) -> GlickoResult:
    """Take in `games` (any order; taken in (played_at, game_id) order) after `state`.

    A period is rated when the first game dated after its end arrives (or by close_periods);
    rows and summaries come out then, so a period still open at the end of the run stays in the
    returned state (the given state is not modified, unless `in_place`: then it is updated and
    returned). Summaries: one per key that played counted games in the period. Games must come
    after `state.last_played` (ValueError otherwise).
    """
    start = GlickoState() if state is None else state
    return run_in_order(lambda ordered, copy: _run(ordered, config, copy), list(games), start, in_place=in_place)


def _new_rating(state: GlickoState, config: GlickoConfig, key, index: int) -> GlickoRating:
    """Start rating of a new key; cross-race from the coach's other ratings as they stand now."""
    existing = state.coach_keys.get((key[0], key[2])) if config.cross_race_start else None
    if not existing or len(existing) < 2 or key[1] is None:
        return GlickoRating(config.mu0, config.phi0, config.sigma0)
    numbers = np.array(existing, dtype=np.intp)
    last = state.last[numbers]
    idle = np.where(last == _NEW, 0, index - last - 1)
    phi = decayed_phi(state.phi[numbers], state.sigma[numbers], idle, config.decay_cap)
    mu = state.mu[numbers]
    return initial_for_new_race(
        [GlickoRating(m, p, 0.0) for m, p in zip(mu.tolist(), phi.tolist())],
        mu0=config.mu0, phi0=config.phi0, sigma0=config.sigma0,
    )


def _run(games: list[GameRecord], config: GlickoConfig, state: GlickoState) -> GlickoResult:
    rows: list[CalculationRow] = []
    summaries: list[PeriodSummary] = []
    key_index = state.key_index
    open_periods = state.open_periods
    per_race = config.per_race
    by_event = config.period == "event"
    exclusion = CountingRule.of(config).exclusion

    if not games:
        return GlickoResult(state, rows, summaries)
    # sentinels: the first game passes the order check and starts a new day
    last_t, last_id = state.last_played or (games[0].played_at, games[0].game_id - 1)
    next_day = games[0].played_at
    day = None
    period = None
    event_id = None
    index = 0
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
            _close_ended(state, config, day, rows, summaries)
            period = None
        if period is None or (by_event and g.event_id != event_id):
            if by_event:
                event_id = g.event_id
                label = f"event:{event_id}"
                period = open_periods.get(label)
                if period is None:
                    end = g.event_end if g.event_end is not None and g.event_end > day else day
                    period = OpenPeriod(label, None, end, state.periods_opened)
                elif day > period.end:
                    period.end = day
                index = state.periods_closed
            else:
                index, label, end = calendar_period(day, config)
                period = open_periods.get(label)
                if period is None:
                    period = OpenPeriod(label, index, end, state.periods_opened)
            if label not in open_periods:
                open_periods[label] = period
                state.periods_opened += 1
            local = period.local
            local_keys = period.keys
            home_l = period.home
            away_l = period.away
            score_l = period.score
            counted_l = period.counted
            excluded_l = period.excluded
            excluded_played = period.excluded_played

        away = g.away
        variant = g.variant
        home_race = g.home_race
        away_race = g.away_race
        if per_race:
            home_key = (g.home, home_race, variant)
            away_key = (away, away_race, variant)
        else:
            home_key = (g.home, None, variant)
            away_key = (away, None, variant)
        reason = exclusion(g)
        if reason is not None:
            excluded_l.append((len(counted_l), g, reason))
            excluded_played[home_key] = excluded_played.get(home_key, 0) + 1
            if away is not None:
                excluded_played[away_key] = excluded_played.get(away_key, 0) + 1
            continue

        h = local.get(home_key)
        if h is None:
            number = key_index.get(home_key)
            if number is None:
                number = state._add_key(home_key, _new_rating(state, config, home_key, index))
            h = local[home_key] = len(local_keys)
            local_keys.append(number)
        a = local.get(away_key)
        if a is None:
            number = key_index.get(away_key)
            if number is None:
                number = state._add_key(away_key, _new_rating(state, config, away_key, index))
            a = local[away_key] = len(local_keys)
            local_keys.append(number)
        home_l.append(h)
        away_l.append(a)
        score_l.append(g.home_score)
        counted_l.append(g)

    state.last_played = (last_t, last_id)
    return GlickoResult(state, rows, summaries)


# --- one game of a period, as a breakdown shows it -------------------------------------------------


def expected_score(mu: float, opponent: GlickoRating) -> float:
    """Glickman's E: the expected score of a player at `mu` against `opponent` (rating scale)."""
    return 1.0 / (1.0 + math.exp(-g_factor(opponent.phi) * (mu - opponent.mu) / SCALE))


def game_change(mu: float, phi_after: float, opponent: GlickoRating, score: float) -> float:
    """One game's share of the period's change in mu, φ'²·g·(s − E), on the rating scale (the
    shares of a period's games add up to mu' − mu)."""
    share = (phi_after / SCALE) ** 2 * SCALE
    return share * g_factor(opponent.phi) * (score - expected_score(mu, opponent))
