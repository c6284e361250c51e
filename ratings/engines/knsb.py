"""KNSB list rating (the Dutch chess federation's method) on monthly lists.

Lists are dated the 1st of each month; the list dated the 1st of month m rates the games played in
month m − 1. A game takes R0 and Rc from the list in force on its date of play (the latest list
dated on or before it, its "Lijstdatum").

    We = Φ((R0 − Rc)/σ), σ = 2000/7                 Rt = k·(W − We), Rtt = ΣRt
    LPR: Σ We(x − Rc) = Wt, rounded                  Rn = round(Rl + Rtt), kept between Rl and LPR
    Nv = min(100, Nv + Nt)                           unrated players: start rating from a depot

Rows (CalculationRow) and summaries (PeriodSummary) are handed out when a list is made, so rows of
the month still running are not in a result until a later game or close_periods makes its list.
Row period and summary period are the ISO date of the list that rated them.

Depot rows: an unrated player's game gets a row (counted=False, reason IN_DEPOT, or DEPOT_BOOTSTRAP
when Rc is the bootstrap rating) in the list at which it entered the depot, depot_date = that
list's date. When the depot yields a start rating, the list that makes it shows every depot game
used again, counted=True, with its depot_date (reason None, or DEPOT_BOOTSTRAP); a game that
entered the depot at that same list appears only there. A depot game that grows too old gets a
row (DEPOT_EXPIRED) in the list at which it expires. So a row is identified by (game_id, side,
period), not by (game_id, side). In a list's rows, those of older depot games come first.

The extra remise has no row: a summary with nt > 0 and wt 0 or nt has one (R0 = Rc = Rl, or Rct
for a start rating; We ½, Rt 0), and its Wx is wxt minus the Wx of the summary's rows. A start
rating's summary has rl None, wet and rtt 0 (there is no R0).
"""
from __future__ import annotations

import math
import pickle
from dataclasses import dataclass, field, fields
from datetime import date, datetime
from functools import cache, partial
from typing import NamedTuple

import numpy as np

from .common import (
    AWAY,
    HOME,
    PLAYED,
    CalculationRow,
    CountingRule,
    GameRecord,
    PeriodSummary,
    Reason,
    check_fields,
    config_error,
    config_slugs,
    paused_gc,
    round_half_away,
)

SIGMA = 2000.0 / 7.0
_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

LIMIT_NONE = "none"
LIMIT_LPR = "lpr"
LIMIT_RL = "rl"


# --- the formulas -------------------------------------------------------------------------------


def expected_score(diff: float, *, sigma: float = SIGMA, table: bool = False) -> float:
    """We for a rating difference R0 − Rc: Φ(diff/σ), the exact normal CDF (via math.erf).

    With `table` the value is rounded to 3 decimals as in the printed table: the better-rated
    side's value is rounded and the other side gets 1 minus it, so both sides still sum to 1.
    """
    if table:
        return _table_we(diff, 1.0 / (sigma * _SQRT2))
    return 0.5 * (1.0 + math.erf(diff * (1.0 / (sigma * _SQRT2))))


def _table_we(diff: float, c: float) -> float:
    p = round_half_away(0.5 * (1.0 + math.erf(abs(diff) * c)), 3)
    return p if diff >= 0 else 1.0 - p


def k_factor(rating: float, nv: int, *, junior: bool = False) -> float:
    """The development coefficient k for a rating resting on `nv` games.

    Nv < 75 (juniors 30): 216/√Nv. Otherwise 25 (juniors 40) up to 2100, falling linearly to 10
    at 2400 (25 − (R0 − 2100)/20; juniors 40 − (R0 − 2100)/10), 10 above. An unrated player has no
    k: Nv < 1 raises ValueError.
    """
    if nv < 1:
        raise ValueError(f"k_factor: Nv must be at least 1 (unrated players have no k), got {nv!r}")
    if nv < (30 if junior else 75):
        return 216.0 / math.sqrt(nv)
    if rating <= 2100:
        return 40.0 if junior else 25.0
    if rating >= 2400:
        return 10.0
    return 40.0 - (rating - 2100) / 10.0 if junior else 25.0 - (rating - 2100) / 20.0


def performance_rating(opponent_ratings, score: float, *, sigma: float = SIGMA) -> float:
    """The unrounded x with Σ We(x − Rc_i) = score.

    No extra remise is added here (the caller adds it); a score of 0 or of every game has no
    solution and raises ValueError.
    """
    rc = np.asarray(list(opponent_ratings), dtype=float)
    if rc.size == 0 or not 0.0 < score < rc.size:
        raise ValueError(
            f"performance_rating: score {score!r} over {rc.size} games has no solution "
            "(it must lie strictly between 0 and the number of games)"
        )
    kid = np.zeros(rc.size, dtype=np.intp)
    return float(_solve_lpr(kid, rc, np.array([float(score)]), 1, sigma)[0])


_LIMIT_NAMES = (LIMIT_NONE, LIMIT_LPR, LIMIT_RL)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """common.round_half_away to an integer, elementwise, with the same arithmetic."""
    return np.copysign(np.floor(np.abs(x) + 0.5 + 1e-9), x)


def _limit(rl: np.ndarray, lpr: np.ndarray, raw: np.ndarray, margin: float):
    """Keep `raw` between Rl and LPR (widened by `margin` on the LPR side), elementwise.

    Returns the kept values and which limit applied (codes into _LIMIT_NAMES). When Rl = LPR
    both limits are the LPR's.
    """
    up = rl < lpr
    down = rl > lpr
    low = np.where(up, rl, lpr - margin)
    high = np.where(down, rl, lpr + margin)
    above = raw > high
    below = raw < low
    kept = np.where(above, high, np.where(below, low, raw))
    code = np.where(above, np.where(down, 2, 1), np.where(below, np.where(up, 2, 1), 0))
    return kept, code


# --- the normal CDF over arrays --------------------------------------------------------------
# NumPy has no erf: Φ is tabulated as piecewise degree-7 polynomials interpolating math.erf at
# Chebyshev points on intervals of 1/32 (error below 1e-15; tests check it).

_PHI_STEP = 1.0 / 32.0
_PHI_TOP = 9.0  # Φ(9) is 1 to double precision
_PHI_DEGREE = 7
_PHI_INTERVALS = int(_PHI_TOP / _PHI_STEP)


def _phi_table() -> np.ndarray:
    from numpy.polynomial import chebyshev

    nodes = np.cos(np.pi * (np.arange(_PHI_DEGREE + 1) + 0.5) / (_PHI_DEGREE + 1))
    fits = []
    for i in range(_PHI_INTERVALS):
        z = ((i + 0.5) + nodes / 2.0) * _PHI_STEP
        fits.append(chebyshev.chebfit(nodes, [0.5 * math.erf(v / _SQRT2) for v in z.tolist()], _PHI_DEGREE))
    rows = _cheb2poly_columns(np.array(fits).T).T.tolist()
    rows.append([0.5] + [0.0] * _PHI_DEGREE)  # beyond _PHI_TOP
    return np.ascontiguousarray(np.array(rows).T)


def _cheb2poly_columns(c: np.ndarray) -> np.ndarray:
    """numpy's chebyshev.cheb2poly on every column at once, with the same operations in the same
    order (so the same bits): per column it costs a module import's worth of time."""
    def add(a, b):
        if len(a) < len(b):
            a, b = b, a
        out = a.copy()
        out[:len(b)] += b
        return out

    def mulx(a):
        out = np.zeros((len(a) + 1, a.shape[1]))
        out[1:] = a
        return out

    c0, c1 = c[-2][None], c[-1][None]
    for i in range(len(c) - 1, 1, -1):
        c0, c1 = add(c[i - 2][None], -c1), add(c0, mulx(c1) * 2)
    return add(c0, mulx(c1))


_PHI_COEFS = _phi_table()
# Φ⁻¹ by interpolation, only for the starting point of the LPR iteration
_Z_GRID = np.linspace(-8.0, 8.0, 3201)
_P_GRID = np.array([0.5 * (1.0 + math.erf(v / _SQRT2)) for v in _Z_GRID.tolist()])


def _phi(z: np.ndarray) -> np.ndarray:
    """Φ(z) elementwise."""
    a = np.abs(z)
    i = (a * (1.0 / _PHI_STEP)).astype(np.intp)
    np.minimum(i, _PHI_INTERVALS, out=i)
    u = a * (2.0 / _PHI_STEP) - (2 * i + 1)
    coefs = _PHI_COEFS
    p = coefs[_PHI_DEGREE].take(i)
    for d in range(_PHI_DEGREE - 1, -1, -1):
        p *= u
        p += coefs[d].take(i)
    np.copysign(p, z, out=p)
    p += 0.5
    return p


def _solve_lpr(kid: np.ndarray, rc: np.ndarray, target: np.ndarray, nkeys: int,
               sigma: float) -> np.ndarray:
    """For each key j with terms: the x with Σ_{kid_i = j} Φ((x − rc_i)/σ) = target_j, where
    0 < target_j < its number of terms. Keys without terms are NaN.

    Halley steps inside a shrinking bracket, bisection when a step leaves it. Each key iterates
    on its own terms only, so a key's answer does not depend on which other keys share the call.
    """
    inv = 1.0 / sigma
    count = np.bincount(kid, minlength=nkeys)
    x = np.full(nkeys, np.nan)
    active = np.flatnonzero(count)
    if active.size == 0:
        return x
    mean = np.bincount(kid, rc, nkeys) / np.maximum(count, 1)
    z0 = np.interp(target / np.maximum(count, 1), _P_GRID, _Z_GRID)
    sorted_rc = rc[np.argsort(kid, kind="stable")]
    # the weakest and strongest opponent of each key with terms: reduceat over the keys with
    # terms only, whose starts rise strictly (a key without any would cut its neighbour's short)
    starts = np.concatenate(([0], np.cumsum(count)[:-1]))[active]
    low, high = np.zeros(nkeys), np.zeros(nkeys)
    low[active] = np.minimum.reduceat(sorted_rc, starts)
    high[active] = np.maximum.reduceat(sorted_rc, starts)
    # every term lies between the ones against the weakest and the strongest opponent; the
    # margin covers the grid step of the interpolated Φ⁻¹
    low += sigma * (z0 - 0.01)
    high += sigma * (z0 + 0.01)
    x[active] = mean[active] + sigma * z0[active]
    term_kid, term_rc = kid, rc
    if active.size < nkeys:
        keep = np.zeros(nkeys, dtype=bool)
        keep[active] = True
        mask = keep[kid]
        term_kid, term_rc = kid[mask], rc[mask]
    for _ in range(200):
        z = (x[term_kid] - term_rc) * inv
        density = np.exp(-0.5 * z * z)
        f = np.bincount(term_kid, _phi(z), nkeys)[active] - target[active]
        d1 = np.bincount(term_kid, density, nkeys)[active] * (inv * _INV_SQRT_2PI)
        d2 = np.bincount(term_kid, z * density, nkeys)[active] * (-inv * inv * _INV_SQRT_2PI)
        xa = x[active]
        lo = np.where(f < 0.0, xa, low[active])
        hi = np.where(f > 0.0, xa, high[active])
        low[active] = lo
        high[active] = hi
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = f / d1
            step = newton / (1.0 - 0.5 * newton * d2 / d1)
        new = xa - step
        # a Halley step this small leaves an error far below 1e-9 (it may graze the bracket,
        # which was just moved to xa, by rounding)
        small = np.abs(step) <= 1e-3
        bisect = ~small & ~((new > lo) & (new < hi))  # also NaN and infinite steps
        new = np.where(bisect, 0.5 * (lo + hi), np.clip(new, lo, hi))
        new = np.where(f == 0.0, xa, new)
        done = (f == 0.0) | small | (hi - lo <= 1e-9)
        x[active] = new
        if done.all():
            return x
        keep = ~done
        active = active[keep]
        still = np.zeros(nkeys, dtype=bool)
        still[active] = True
        mask = still[term_kid]
        term_kid, term_rc = term_kid[mask], term_rc[mask]
    raise RuntimeError("LPR iteration did not converge")


@dataclass(slots=True)
class _Totals:
    """Per-key sums over counted games (lists indexed by key) and per-game Wx."""

    wx: list
    nt: list
    wt: list
    wet: list
    rtt: list
    rct: list
    lpr_exact: list
    lpr: list
    wxt: list
    extra: list  # True where an extra remise entered the LPR
    wx_extra: list
    rn: list | None  # with Rl: the new rating and the limit that applied
    limitation: list | None


def _settle(kid, rc, w, we, rt, nkeys: int, sigma: float, rl=None, margin: float = 0.0) -> _Totals:
    """Totals, LPR and Wx for the counted games of `nkeys` keys (arrays over games; Rt given).

    The extra remise (score ½) enters a key's LPR equation at 0 % or 100 %, against Rl
    (`rl[key]`), or against the key's Rct when `rl` is None (start rating). With `rl` also the
    new rating Rn = round(Rl + Rtt) kept between Rl and LPR.
    """
    nt = np.bincount(kid, minlength=nkeys)
    has = nt > 0
    wt = np.bincount(kid, w, nkeys)
    rtt = np.bincount(kid, rt, nkeys)
    rct = np.bincount(kid, rc, nkeys) / np.maximum(nt, 1)
    extra = has & ((wt == 0.0) | (wt == nt))
    extra_keys = np.flatnonzero(extra)
    rl = None if rl is None else np.asarray(rl, dtype=float)
    against = (rct if rl is None else rl)[extra_keys]
    x = _solve_lpr(np.concatenate((kid, extra_keys)), np.concatenate((rc, against)),
                   wt + 0.5 * extra, nkeys, sigma)
    lpr = _round_half_away(x)
    inv = 1.0 / sigma
    wx = _phi((lpr[kid] - rc) * inv)
    wx_extra = _phi((lpr[extra_keys] - against) * inv)
    wxt = np.bincount(kid, wx, nkeys)
    wxt[extra_keys] += wx_extra
    wx_by_key = np.full(nkeys, np.nan)
    wx_by_key[extra_keys] = wx_extra
    rn = limitation = None
    if rl is not None:
        kept, code = _limit(rl, lpr, _round_half_away(rl + rtt), margin)
        rn = kept.tolist()
        limitation = [_LIMIT_NAMES[c] for c in code.tolist()]
    return _Totals(
        wx.tolist(), nt.tolist(), wt.tolist(), np.bincount(kid, we, nkeys).tolist(),
        rtt.tolist(), rct.tolist(), x.tolist(), lpr.tolist(), wxt.tolist(), extra.tolist(),
        wx_by_key.tolist(), rn, limitation,
    )


# --- one period by hand ---------------------------------------------------------------------------


class PeriodGame(NamedTuple):
    """One game of a rating period: the player's R0 (None: Rl), the opponent's Rc, the score W,
    and the Nv of the list R0 comes from (None: the period's Nv)."""

    r0: float | None
    rc: float
    w: float
    nv: int | None = None


@dataclass(frozen=True, slots=True)
class PeriodRow:
    """One game of the period as the breakdown shows it."""

    r0: float
    rc: float
    w: float
    we: float
    k: float
    rt: float
    wx: float


@dataclass(frozen=True, slots=True)
class PeriodResult:
    """A player's whole list period: the game rows and the new-rating block."""

    rl: float
    rn: float
    nv: int  # Nv after the period
    limitation: str  # none, lpr, rl
    rows: tuple[PeriodRow, ...]
    nt: int
    wt: float
    wet: float
    rtt: float
    rct: float | None
    wxt: float | None
    lpr: float | None
    lpr_exact: float | None  # the unrounded solution of the LPR equation
    extra_remise: bool
    wx_extra: float | None  # Wx of the extra remise (in Wxt)

    @property
    def wt_percent(self) -> float | None:
        return 100.0 * self.wt / self.nt if self.nt else None


def _check_score(w: float) -> float:
    if not 0.0 <= w <= 1.0:
        raise ValueError(f"score W must lie between 0 and 1, got {w!r}")
    return float(w)


def rate_period(
    rl: float,
    nv: int,
    games,
    *,
    junior: bool = False,
    sigma: float = SIGMA,
    we_table: bool = False,
    lpr_margin: float = 0.0,
    nv_cap: int = 100,
) -> PeriodResult:
    """Rate one player's list period from `games` (PeriodGame or (r0, rc, w[, nv]) tuples).

    Each game's k comes from its own R0 and the Nv of the list R0 was taken from, so a late game
    keeps an older list's numbers. Rn = round(Rl + Rtt) half away from zero, kept between Rl and
    the LPR (plus or minus `lpr_margin` on the LPR side); Nv = min(nv_cap, Nv + Nt).
    """
    rl = float(rl)
    rows_in = [g if isinstance(g, PeriodGame) else PeriodGame(*g) for g in games]
    if not rows_in:
        return PeriodResult(rl, rl, nv, LIMIT_NONE, (), 0, 0.0, 0.0, 0.0, None, None, None, None,
                            False, None)
    r0 = [rl if g.r0 is None else float(g.r0) for g in rows_in]
    rc = [float(g.rc) for g in rows_in]
    w = [_check_score(g.w) for g in rows_in]
    k = [k_factor(r, nv if g.nv is None else g.nv, junior=junior) for r, g in zip(r0, rows_in)]
    we = [expected_score(a - b, sigma=sigma, table=we_table) for a, b in zip(r0, rc)]
    rt = [k_ * (w_ - we_) for k_, w_, we_ in zip(k, w, we)]
    t = _settle(np.zeros(len(rc), dtype=np.intp), np.array(rc), np.array(w), np.array(we),
                np.array(rt), 1, sigma, rl=[rl], margin=lpr_margin)
    rows = tuple(PeriodRow(*values) for values in zip(r0, rc, w, we, k, rt, t.wx))
    return PeriodResult(
        rl, t.rn[0], min(nv_cap, nv + len(rows)), t.limitation[0], rows, len(rows), t.wt[0],
        t.wet[0], t.rtt[0], t.rct[0], t.wxt[0], t.lpr[0], t.lpr_exact[0], t.extra[0],
        t.wx_extra[0] if t.extra[0] else None,
    )


class DepotGame(NamedTuple):
    """A game in an unrated player's depot: opponent's Rc, score W, and the date it was played."""

    rc: float
    w: float
    played_on: date | None = None


@dataclass(frozen=True, slots=True)
class StartRating:
    """A start rating Rs and the depot games it rests on (Wx per game, at Rs)."""

    rs: float
    nv: int
    games: tuple[DepotGame, ...]  # the games used
    wx: tuple[float, ...]
    nt: int
    wt: float
    rct: float
    wxt: float
    lpr_exact: float
    extra_remise: bool


def _month(d: date) -> int:
    return d.year * 12 + d.month - 1


_LAST_MONTH = _month(date.max)


@cache
def _list_date(month: int) -> date:
    return date(month // 12, month % 12 + 1, 1)


def start_rating(
    games,
    *,
    list_date: date | None = None,
    sigma: float = SIGMA,
    min_games: int = 6,
    months: int = 24,
    nv_cap: int = 100,
) -> StartRating | None:
    """The start rating from a depot (DepotGame or (rc, w[, played_on]) tuples), or None to wait.

    With `list_date`, games played before the month `months` months before the list's month are
    left out (expired). With at least `min_games` games left: Rs = LPR over them (extra remise at
    0 %/100 % against their Rct), rounded half away from zero, and Nv = their number (at most
    nv_cap).
    """
    kept = [g if isinstance(g, DepotGame) else DepotGame(*g) for g in games]
    if list_date is not None:
        oldest = _month(list_date) - months
        kept = [g for g in kept if g.played_on is None or _month(g.played_on) >= oldest]
    if not kept or len(kept) < min_games:
        return None
    n = len(kept)
    rc = np.array([float(g.rc) for g in kept])
    w = np.array([_check_score(g.w) for g in kept])
    t = _settle(np.zeros(n, dtype=np.intp), rc, w, np.zeros(n), np.zeros(n), 1, sigma)
    return StartRating(t.lpr[0], min(nv_cap, n), tuple(kept), tuple(t.wx), n, t.wt[0], t.rct[0],
                       t.wxt[0], t.lpr_exact[0], t.extra[0])


# --- configuration ------------------------------------------------------------------------------


_config_error = partial(config_error, "KnsbConfig")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


_slugs = partial(config_slugs, "KnsbConfig")


def _initial_list(value) -> tuple:
    expected = "a list of (coach number, rating, games[, birth year]) with games >= 1"
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise _config_error("initial_list", value, expected)
    entries = []
    seen = set()
    for entry in value:
        if isinstance(entry, (str, bytes)) or not isinstance(entry, (tuple, list)) \
                or len(entry) not in (3, 4):
            raise _config_error("initial_list", entry, expected)
        coach, rating, games = entry[:3]
        birth_year = entry[3] if len(entry) == 4 else None
        if not (_is_int(coach) and _is_number(rating) and _is_int(games) and games >= 1
                and (birth_year is None or _is_int(birth_year))):
            raise _config_error("initial_list", entry, expected)
        if coach in seen:
            raise _config_error("initial_list", entry, "each coach at most once")
        seen.add(coach)
        entries.append((coach, float(rating), games, birth_year))
    return tuple(entries)


@dataclass(frozen=True)
class KnsbConfig:
    """Parameters of a KNSB list rating system (validated on construction)."""

    per_race: bool = False
    variants: tuple[str, ...] | None = None  # None: every variant
    excluded_races: tuple[str, ...] = ()
    sigma: float = SIGMA
    we_table: bool = False  # We rounded to 3 decimals, as in the printed table
    lpr_margin: float = 0.0
    depot_min_games: int = 6
    depot_months: int = 24
    nv_cap: int = 100
    bootstrap_rating: float | None = 1500.0  # None: no bootstrap
    junior_age: int | None = 18  # juniors need a birth year (initial_list or birth_years)
    # imported list (coach, rating, games, birth year or None), in force from the first list
    initial_list: tuple = ()

    def __post_init__(self):
        for name in ("per_race", "we_table"):
            if not isinstance(getattr(self, name), bool):
                raise _config_error(name, getattr(self, name), "true or false")
        if not _is_number(self.sigma) or self.sigma <= 0:
            raise _config_error("sigma", self.sigma, "a number above 0")
        if not _is_number(self.lpr_margin) or self.lpr_margin < 0:
            raise _config_error("lpr_margin", self.lpr_margin, "a number from 0 up")
        for name, top in (("depot_min_games", 1000), ("depot_months", 1200), ("nv_cap", 10_000)):
            value = getattr(self, name)
            if not _is_int(value) or not 1 <= value <= top:
                raise _config_error(name, value, f"an integer from 1 to {top}")
        if self.bootstrap_rating is not None and not _is_number(self.bootstrap_rating):
            raise _config_error("bootstrap_rating", self.bootstrap_rating, "a number, or None")
        if self.junior_age is not None and not (_is_int(self.junior_age)
                                                and 0 <= self.junior_age <= 150):
            raise _config_error("junior_age", self.junior_age, "an age from 0 to 150, or None")
        set_ = object.__setattr__
        set_(self, "sigma", float(self.sigma))
        set_(self, "lpr_margin", float(self.lpr_margin))
        if self.bootstrap_rating is not None:
            set_(self, "bootstrap_rating", float(self.bootstrap_rating))
        set_(self, "variants", _slugs("variants", self.variants, allow_none=True))
        set_(self, "excluded_races",
             _slugs("excluded_races", self.excluded_races, allow_none=False))
        set_(self, "initial_list", _initial_list(self.initial_list))

    @classmethod
    def from_params(cls, params: dict) -> KnsbConfig:
        """Build from stored parameters (ValueError naming any unknown key or bad value)."""
        check_fields(cls, params)
        return cls(**params)

    def as_params(self) -> dict:
        """The parameters as plain data (lists for tuples), the inverse of from_params."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "initial_list":
                value = [list(entry) for entry in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


# --- the history ----------------------------------------------------------------------------------
# A rated key's entry is a list [rating, nv, k, stamp, kid, table key, coach, history]:
# k is the k of the list in force, stamp/kid number the key within the open period, and history
# is flat [list month, rating, nv, ...] from the first list at which the key was rated.
_RATING, _NV, _K, _STAMP, _KID, _TABLE, _COACH, _HISTORY = range(8)


@dataclass
class _Period:
    """The games of the month still running, waiting for its list.

    Rows are made as games arrive; the list fills in Rt and Wx of counted rows and turns depot
    rows into start-rating rows.
    """

    rows: list = field(default_factory=list)  # every row of the period, in order of play
    counted_rows: list = field(default_factory=list)  # the counted ones, in the order of `counted`
    counted: list = field(default_factory=list)  # flat: kid, rc, w, we, rt per counted row
    keys: list = field(default_factory=list)  # entries of rated keys with games, by kid
    extra_played: dict = field(default_factory=dict)  # kid -> uncounted games
    depot_touched: dict = field(default_factory=dict)  # (table key, coach) -> None, in order
    deposit_rows: dict = field(default_factory=dict)  # (game_id, side) -> its depot row


@dataclass
class KnsbState:
    """Everything needed to continue a history (plain data; picklable)."""

    config: KnsbConfig
    list_month: int | None = None  # month index (year·12 + month − 1) of the list in force
    first_month: int | None = None
    ratings: dict = field(default_factory=dict)  # (race or None, variant) -> {coach: entry}
    depot: dict = field(default_factory=dict)  # ((race or None, variant), coach) -> [depot game]
    expiry: dict = field(default_factory=dict)  # list month -> [((race, variant), coach)] to check
    birth_years: dict = field(default_factory=dict)  # coach -> year
    # every game of a key still unrated, counted or not: (table key, coach) -> {month played: games},
    # for the Gt of its start rating (seed 004: every game from the month of the oldest one used)
    unrated_games: dict = field(default_factory=dict)
    stamp: int = 0
    period: _Period = field(default_factory=_Period)

    @property
    def list_date(self) -> date | None:
        """The date of the list in force (None before the first game)."""
        return None if self.list_month is None else _list_date(self.list_month)

    @property
    def next_list_date(self) -> date | None:
        """The date of the list that will rate the month still running."""
        return None if self.list_month is None else _list_date(self.list_month + 1)

    def rating(self, coach: int, variant: str, race: str | None = None) -> tuple[float, int] | None:
        """(rating, Nv) of a key on the list in force, or None while unrated."""
        entry = self.ratings.get((race, variant), {}).get(coach)
        if entry is not None:
            return entry[_RATING], entry[_NV]
        for number, rating, games, _ in self.config.initial_list:
            if number == coach and self.list_month is not None:
                return rating, min(self.config.nv_cap, games)
        return None

    def copy(self) -> KnsbState:
        return pickle.loads(pickle.dumps(self, pickle.HIGHEST_PROTOCOL))


@dataclass
class KnsbResult:
    state: KnsbState
    rows: list  # list[CalculationRow]
    summaries: list  # list[PeriodSummary]
    lists: list  # list[date]: the lists made in this call, oldest first


class _OutOfOrder(Exception):
    pass


# depot game: (game, side, rc, w, list month in force, depot list month, month played, bootstrap)
_D_GAME, _D_SIDE, _D_RC, _D_W, _D_LIST, _D_DEPOT, _D_PLAYED, _D_BOOT = range(8)
_COUNTED_WIDTH = 5  # kid, rc, w, we, rt per counted row in _Period.counted


class _Run:
    """One call's worth of work on a (private copy of a) state."""

    def __init__(self, state: KnsbState, config: KnsbConfig, birth_years: dict | None):
        if state.config != config:
            raise ValueError("the state was made with a different KnsbConfig: "
                             "recalculate from scratch")
        self.s = state
        self.c = config
        self.rows: list[CalculationRow] = []
        self.summaries: list[PeriodSummary] = []
        self.lists: list[date] = []
        self.wc = 1.0 / (config.sigma * _SQRT2)
        self.excluded = frozenset(config.excluded_races)
        self.exclusion = CountingRule.of(config).exclusion
        self.initial = {entry[0]: entry for entry in config.initial_list}
        self.index: dict = {}  # variant -> race (None when pooled) -> the table in state.ratings
        for (race, variant), table in state.ratings.items():
            self.index.setdefault(variant, {})[race] = table
        for coach, _, _, birth_year in config.initial_list:
            if birth_year is not None:
                state.birth_years.setdefault(coach, birth_year)
        changed = {coach for coach, year in (birth_years or {}).items()
                   if state.birth_years.get(coach) != year}
        if changed:
            state.birth_years.update(birth_years)
            for table in state.ratings.values():  # k of ratings already made follows the new years
                for coach in changed & table.keys():
                    entry = table[coach]
                    entry[_K] = k_factor(entry[_RATING], entry[_NV],
                                         junior=self._junior(coach, state.list_month))
        self._opened()

    def result(self) -> KnsbResult:
        return KnsbResult(self.s, self.rows, self.summaries, self.lists)

    def _opened(self) -> None:
        """Cache what every game of the open month shares."""
        month = self.s.list_month
        if month is not None:
            self.in_force_day = _list_date(month)
            self.next_day = _list_date(month + 1)
            self.label = self.next_day.isoformat()

    # -- helpers --

    def _junior(self, coach: int, month: int) -> bool:
        age = self.c.junior_age
        born = self.s.birth_years.get(coach) if age is not None else None
        return born is not None and month // 12 - born <= age

    def _entry(self, tk: tuple, coach: int) -> list | None:
        """The key's entry, made from the imported list on first sight."""
        table = self.s.ratings.get(tk)
        entry = None if table is None else table.get(coach)
        if entry is None and coach in self.initial:
            _, rating, games, _ = self.initial[coach]
            entry = self._new_entry(tk, coach, rating, min(self.c.nv_cap, games),
                                    self.s.list_month, since=self.s.first_month)
        return entry

    def _new_entry(self, tk: tuple, coach: int, rating: float, nv: int, month: int,
                   since: int | None = None) -> list:
        """Rate a key from the list of `month` on (in the history from `since`, if earlier)."""
        entry = [rating, nv, k_factor(rating, nv, junior=self._junior(coach, month)), -1, -1,
                 tk, coach, [month if since is None else since, rating, nv]]
        table = self.s.ratings.get(tk)
        if table is None:
            table = self.s.ratings[tk] = {}
            self.index.setdefault(tk[1], {})[tk[0]] = table
        table[coach] = entry
        return entry

    @staticmethod
    def _at(entry: list | None, month: int) -> tuple[float | None, int | None]:
        """(rating, Nv) of a key on the list of `month` (None, None: not rated then)."""
        if entry is None:
            return None, None
        history = entry[_HISTORY]
        i = len(history) - 3
        while i >= 0 and history[i] > month:
            i -= 3
        return (None, None) if i < 0 else (history[i + 1], history[i + 2])

    def _kid(self, entry: list) -> int:
        p = self.s.period
        if entry[_STAMP] != self.s.stamp:
            entry[_STAMP] = self.s.stamp
            entry[_KID] = len(p.keys)
            p.keys.append(entry)
        return entry[_KID]

    # -- the games --

    def ingest(self, games) -> None:
        s = self.s
        erf = math.erf
        wc = self.wc
        per_race = self.c.per_race
        excluded = self.excluded
        we_table = self.c.we_table
        index = self.index
        played = PLAYED
        slow = self.slow
        unrated = self.unrated
        initial = self.initial
        row = CalculationRow
        open_month = s.list_month
        p = s.period
        keys = p.keys
        counted = p.counted.extend
        add_rows = p.rows.extend
        add_counted_rows = p.counted_rows.extend
        stamp = s.stamp
        label = list_day = None
        if open_month is not None:
            label, list_day = self.label, self.in_force_day
        last_t = last_id = None
        for g in games:
            t = g.played_at
            game_id = g.game_id
            if last_t is not None and (t < last_t or (t == last_t and game_id <= last_id)):
                raise _OutOfOrder
            last_t = t
            last_id = game_id
            month = t.year * 12 + t.month - 1
            if month != open_month:
                if open_month is None:
                    s.list_month = s.first_month = month
                    self.lists.append(_list_date(month))
                    self._opened()
                elif month > open_month:
                    while s.list_month < month:
                        self.close()
                else:
                    slow(g, month)
                    continue
                open_month = s.list_month
                p = s.period
                keys = p.keys
                counted = p.counted.extend
                add_rows = p.rows.extend
                add_counted_rows = p.counted_rows.extend
                stamp = s.stamp
                label, list_day = self.label, self.in_force_day
            away = g.away
            if not (g.sanctioned and g.kind == played and away is not None
                    and g.home_race_ranked and g.away_race_ranked):
                slow(g, month)
                continue
            variant = g.variant
            home_race = g.home_race
            away_race = g.away_race
            # tables exist only for variants in the ranking
            by_race = index.get(variant)
            if by_race is None:
                slow(g, month)
                continue
            if per_race:
                home_table = by_race.get(home_race)
                away_table = by_race.get(away_race)
                if home_table is None or away_table is None:
                    slow(g, month)
                    continue
            else:
                home_table = away_table = by_race[None]
            home = g.home
            eh = home_table.get(home)
            ea = away_table.get(away)
            if eh is None or ea is None or (
                excluded and (home_race in excluded or away_race in excluded)
            ):
                if (excluded and (home_race in excluded or away_race in excluded)) or (
                    initial and (home in initial or away in initial)
                ):
                    slow(g, month)
                else:
                    unrated(g, eh, ea)
                continue
            r0 = eh[0]
            rc = ea[0]
            if we_table:
                we_home = _table_we(r0 - rc, wc)
                we_away = _table_we(rc - r0, wc)
            else:
                e = erf((r0 - rc) * wc)
                we_home = 0.5 * (1.0 + e)
                we_away = 0.5 * (1.0 - e)  # = expected_score(rc − r0): erf is odd
            if eh[3] != stamp:
                eh[3] = stamp
                eh[4] = len(keys)
                keys.append(eh)
            if ea[3] != stamp:
                ea[3] = stamp
                ea[4] = len(keys)
                keys.append(ea)
            score = g.home_score
            away_score = 1.0 - score
            k_home = eh[2]
            k_away = ea[2]
            rt_home = k_home * (score - we_home)
            rt_away = k_away * (away_score - we_away)
            counted((eh[4], rc, score, we_home, rt_home, ea[4], r0, away_score, we_away, rt_away))
            pair = (
                row(game_id, HOME, home, home_race if per_race else None, variant, away,
                    away_race, t, label, score, True, None, r0, rc, we_home, k_home, rt_home,
                    None, list_day),
                row(game_id, AWAY, away, away_race if per_race else None, variant, home,
                    home_race, t, label, away_score, True, None, rc, r0, we_away, k_away,
                    rt_away, None, list_day),
            )
            add_rows(pair)
            add_counted_rows(pair)

    def unrated(self, g: GameRecord, eh: list | None, ea: list | None) -> None:
        """An on-time game that would count but for a side without a rating (eh or ea None)."""
        s = self.s
        p = s.period
        per_race = self.c.per_race
        boot = self.c.bootstrap_rating is not None
        label = self.label
        list_day = self.in_force_day
        month = s.list_month
        game_id = g.game_id
        played_at = g.played_at
        variant = g.variant
        score = g.home_score
        for side, coach, race, entry, opponent, opponent_race, other, w in (
            (HOME, g.home, g.home_race, eh, g.away, g.away_race, ea, score),
            (AWAY, g.away, g.away_race, ea, g.home, g.home_race, eh, 1.0 - score),
        ):
            key_race = race if per_race else None
            depot_day = None
            if entry is not None:
                r0, rc = entry[_RATING], None
                why = Reason.OPPONENT_UNRATED
                kid = self._kid(entry)
                p.extra_played[kid] = p.extra_played.get(kid, 0) + 1
            else:
                r0 = None
                key = ((key_race, variant), coach)
                self._played_unrated(key, month)
                if other is None and not boot:
                    why, rc = Reason.OPPONENT_UNRATED, None
                else:
                    why = Reason.IN_DEPOT if other is not None else Reason.DEPOT_BOOTSTRAP
                    rc = self._deposit(g, side, key, None if other is None else other[_RATING], w,
                                       month, month)
                    depot_day = self.next_day
            r = CalculationRow(game_id, side, coach, key_race, variant, opponent, opponent_race,
                               played_at, label, w, False, why, r0, rc, None, None, None, None,
                               list_day, depot_day)
            p.rows.append(r)
            if depot_day is not None:
                p.deposit_rows[(game_id, side)] = r

    def slow(self, g: GameRecord, month: int) -> None:
        """Every game the loop above does not take: excluded, unrated sides, late, first sight."""
        s = self.s
        c = self.c
        p = s.period
        late = month < s.list_month
        if late:
            in_force = max(month, s.first_month)
            list_day = _list_date(in_force)
        else:
            in_force = s.list_month
            list_day = self.in_force_day
        label = self.label
        game_id = g.game_id
        played_at = g.played_at
        variant = g.variant
        home = g.home
        away = g.away
        home_race = g.home_race
        away_race = g.away_race
        score = g.home_score
        reason = self.exclusion(g)
        per_race = c.per_race
        row = CalculationRow
        if reason == Reason.VARIANT_EXCLUDED:
            p.rows.append(row(game_id, HOME, home, home_race if per_race else None, variant,
                              away, away_race, played_at, label, score, False, reason,
                              None, None, None, None, None, None, list_day))
            if away is not None:
                p.rows.append(row(game_id, AWAY, away, away_race if per_race else None, variant,
                                  home, home_race, played_at, label, 1.0 - score, False, reason,
                                  None, None, None, None, None, None, list_day))
            return

        tk_home = (home_race if per_race else None, variant)
        e_home = self._entry(tk_home, home)
        if late:
            r_home, nv_home = self._at(e_home, in_force)
        else:
            r_home = None if e_home is None else e_home[_RATING]
        if away is not None:
            tk_away = (away_race if per_race else None, variant)
            e_away = self._entry(tk_away, away)
            if late:
                r_away, nv_away = self._at(e_away, in_force)
            else:
                r_away = None if e_away is None else e_away[_RATING]
        else:
            tk_away = e_away = r_away = None

        if reason is None and r_home is not None and r_away is not None:
            if c.we_table:
                we_home = _table_we(r_home - r_away, self.wc)
                we_away = _table_we(r_away - r_home, self.wc)
            else:
                e = math.erf((r_home - r_away) * self.wc)
                we_home, we_away = 0.5 * (1.0 + e), 0.5 * (1.0 - e)
            if late:
                k_home = k_factor(r_home, nv_home, junior=self._junior(home, in_force))
                k_away = k_factor(r_away, nv_away, junior=self._junior(away, in_force))
            else:
                k_home, k_away = e_home[_K], e_away[_K]
            away_score = 1.0 - score
            rt_home = k_home * (score - we_home)
            rt_away = k_away * (away_score - we_away)
            p.counted.extend((self._kid(e_home), r_away, score, we_home, rt_home,
                              self._kid(e_away), r_home, away_score, we_away, rt_away))
            pair = (
                row(game_id, HOME, home, home_race if per_race else None, variant, away,
                    away_race, played_at, label, score, True, None, r_home, r_away, we_home,
                    k_home, rt_home, None, list_day),
                row(game_id, AWAY, away, away_race if per_race else None, variant, home,
                    home_race, played_at, label, away_score, True, None, r_away, r_home, we_away,
                    k_away, rt_away, None, list_day),
            )
            p.rows.extend(pair)
            p.counted_rows.extend(pair)
            return

        sides = [(HOME, home, home_race, tk_home, e_home, r_home, away, away_race, r_away, score)]
        if away is not None:
            sides.append((AWAY, away, away_race, tk_away, e_away, r_away, home, home_race, r_home,
                          1.0 - score))
        for side, coach, race, tk, entry, r0, opponent, opponent_race, rc, w in sides:
            why = reason
            depot_day = None
            if why is None:
                if r0 is not None:
                    why = Reason.OPPONENT_UNRATED
                elif entry is not None:
                    # a late game from before the player's start rating: nothing left to use it
                    why = Reason.IN_DEPOT
                elif rc is not None or c.bootstrap_rating is not None:
                    why = Reason.IN_DEPOT if rc is not None else Reason.DEPOT_BOOTSTRAP
                    rc = self._deposit(g, side, (tk, coach), rc, w, in_force, month)
                    depot_day = self.next_day
                else:
                    why = Reason.OPPONENT_UNRATED
            if why == Reason.OPPONENT_UNRATED:
                rc = None
            if entry is not None:
                kid = self._kid(entry)
                p.extra_played[kid] = p.extra_played.get(kid, 0) + 1
            else:
                self._played_unrated((tk, coach), month)
            r = row(game_id, side, coach, race if per_race else None, variant, opponent,
                    opponent_race, played_at, label, w, False, why, r0, rc, None, None, None,
                    None, list_day, depot_day)
            p.rows.append(r)
            if depot_day is not None:
                p.deposit_rows[(game_id, side)] = r

    def _played_unrated(self, key: tuple, month: int) -> None:
        """Count a game of a key without a rating (month: when it was played)."""
        months = self.s.unrated_games.get(key)
        if months is None:
            months = self.s.unrated_games[key] = {}
        months[month] = months.get(month, 0) + 1
        if len(months) > self.c.depot_months + 1:  # older months can hold no depot game a start rating uses
            oldest = month - self.c.depot_months
            for old in [m for m in months if m < oldest]:
                del months[old]

    def _deposit(self, g, side, key, rc, w, in_force: int, month: int) -> float:
        """Put one side of a game into the key's depot; returns the Rc it was put in with."""
        s = self.s
        depot_month = s.list_month + 1
        boot = rc is None
        if boot:
            rc = self.c.bootstrap_rating
        games = s.depot.get(key)
        if games is None:
            games = s.depot[key] = []
        games.append((g, side, rc, w, in_force, depot_month, month, boot))
        s.period.depot_touched[key] = None
        expires = max(month + self.c.depot_months + 1, depot_month)
        due = s.expiry.get(expires)
        if due is None:
            s.expiry[expires] = [key]
        elif due[-1] != key:
            due.append(key)
        return rc

    # -- the lists --

    def close(self) -> None:
        """Make the next list: rate the month still running and open the following one."""
        s = self.s
        month = s.list_month + 1
        day = self.next_day
        label = self.label
        self._rate_rated(month, day, label)
        self._expire(month, label)
        self._rate_depots(month, day, label)
        # after the rows of older depot games that expired or went into a start rating
        self.rows.extend(s.period.rows)
        if month % 12 == 0 and s.birth_years and self.c.junior_age is not None:
            self._refresh_junior_k(month)
        s.list_month = month
        s.stamp += 1
        s.period = _Period()
        self.lists.append(day)
        self._opened()

    def _depot_row(self, d: tuple, label: str, counted: bool, reason, wx=None) -> CalculationRow:
        """The row of a depot game at this list: the one made when it arrived, or a new one."""
        row = self.s.period.deposit_rows.get((d[_D_GAME].game_id, d[_D_SIDE])) \
            if d[_D_DEPOT] == self.s.list_month + 1 else None
        if row is not None:
            row.counted = counted
            row.reason = reason
            row.wx = wx
            return row
        g = d[_D_GAME]
        if d[_D_SIDE] == HOME:
            coach, race, opponent, opponent_race = g.home, g.home_race, g.away, g.away_race
        else:
            coach, race, opponent, opponent_race = g.away, g.away_race, g.home, g.home_race
        row = CalculationRow(
            g.game_id, d[_D_SIDE], coach, race if self.c.per_race else None, g.variant, opponent,
            opponent_race, g.played_at, label, d[_D_W], counted, reason, None, d[_D_RC], None,
            None, None, wx, _list_date(d[_D_LIST]), _list_date(d[_D_DEPOT]))
        self.rows.append(row)
        return row

    def _expire(self, month: int, label: str) -> None:
        s = self.s
        oldest = month - self.c.depot_months
        for key in s.expiry.pop(month, ()):
            games = s.depot.get(key)
            if not games:
                continue
            keep = []
            for d in games:
                if d[_D_PLAYED] < oldest:
                    self._depot_row(d, label, False, Reason.DEPOT_EXPIRED)
                else:
                    keep.append(d)
            if keep:
                s.depot[key] = keep
            else:
                del s.depot[key]

    def _rate_rated(self, month: int, day: date, label: str) -> None:
        s = self.s
        c = self.c
        p = s.period
        keys = p.keys
        flat = p.counted
        t = None
        if flat:
            a = np.fromiter(flat, float, len(flat)).reshape(-1, _COUNTED_WIDTH)
            t = _settle(a[:, 0].astype(np.intp), a[:, 1], a[:, 2], a[:, 3], a[:, 4], len(keys),
                        c.sigma, rl=[e[_RATING] for e in keys], margin=c.lpr_margin)
            for r, wx in zip(p.counted_rows, t.wx):
                r.wx = wx

        summaries = self.summaries.append
        summary = PeriodSummary
        cap = c.nv_cap
        extra_played = p.extra_played
        junior = self._junior if s.birth_years and c.junior_age is not None else None
        for kid, entry in enumerate(keys):
            rl = entry[0]
            nv = entry[1]
            race, variant = entry[_TABLE]
            nt = t.nt[kid] if t is not None else 0
            played = nt + extra_played.get(kid, 0) if extra_played else nt
            if not nt:
                summaries(summary(entry[_COACH], race, variant, label, day, rl, rl, 0, played,
                                  0.0, 0.0, 0.0, None, None, None, LIMIT_NONE, nv))
                continue
            rn = t.rn[kid]
            nv_new = nv + nt
            if nv_new > cap:
                nv_new = cap
            summaries(summary(entry[_COACH], race, variant, label, day, rl, rn, nt, played,
                              t.wt[kid], t.wet[kid], t.rtt[kid], t.rct[kid], t.wxt[kid],
                              t.lpr[kid], t.limitation[kid], nv_new))
            if rn != rl or nv_new != nv:
                entry[0] = rn
                entry[1] = nv_new
                entry[2] = k_factor(rn, nv_new,
                                    junior=junior is not None and junior(entry[_COACH], month))
                entry[_HISTORY] += (month, rn, nv_new)

    def _rate_depots(self, month: int, day: date, label: str) -> None:
        s = self.s
        c = self.c
        p = s.period
        starts = []
        for key in p.depot_touched:
            games = s.depot.get(key)
            if games and len(games) >= c.depot_min_games:
                starts.append((key, games))
        if not starts:
            return
        kid = np.repeat(np.arange(len(starts)), [len(games) for _, games in starts])
        rc = np.array([d[_D_RC] for _, games in starts for d in games])
        w = np.array([d[_D_W] for _, games in starts for d in games])
        zeros = np.zeros(len(rc))
        t = _settle(kid, rc, w, zeros, zeros, len(starts), c.sigma)
        i = 0
        for j, ((tk, coach), games) in enumerate(starts):
            for d in games:
                reason = Reason.DEPOT_BOOTSTRAP if d[_D_BOOT] else None
                self._depot_row(d, label, True, reason, t.wx[i])
                i += 1
            rs = t.lpr[j]
            nv = min(c.nv_cap, len(games))
            race, variant = tk
            # Nt: the games the start rating rests on; Gt: every game of the key since the month
            # of the oldest of them, counted or not
            oldest = min(d[_D_PLAYED] for d in games)
            played = s.unrated_games.pop((tk, coach), {})
            gt = sum(n for m, n in played.items() if m >= oldest)
            self.summaries.append(PeriodSummary(
                coach, race, variant, label, day, None, rs, len(games), gt, t.wt[j], 0.0, 0.0,
                t.rct[j], t.wxt[j], rs, LIMIT_NONE, nv, is_start=True))
            self._new_entry(tk, coach, rs, nv, month)
            del s.depot[(tk, coach)]

    def _refresh_junior_k(self, month: int) -> None:
        """At a new year a junior may turn senior: k of unchanged ratings follows the list year."""
        turning = month // 12 - self.c.junior_age - 1
        coaches = {coach for coach, born in self.s.birth_years.items() if born == turning}
        if not coaches:
            return
        for table in self.s.ratings.values():
            for coach in coaches:
                entry = table.get(coach)
                if entry is not None:
                    entry[_K] = k_factor(entry[_RATING], entry[_NV], junior=False)


def run_history(games, config: KnsbConfig, state: KnsbState | None = None, *,
                birth_years: dict | None = None, in_place: bool = False) -> KnsbResult:
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
    if in_place and state is not None:
        # The caller hands over its state: no copy, so games are put in order first.
        with paused_gc():
            run = _Run(state, config, birth_years)
            try:
                run.ingest(sorted(games, key=lambda g: (g.played_at, g.game_id)))
            except _OutOfOrder:
                raise ValueError("the same game (played_at, game_id) was given twice") from None
        return run.result()
    with paused_gc():
        run = _Run(KnsbState(config) if state is None else state.copy(), config, birth_years)
        try:
            run.ingest(games)
        except _OutOfOrder:
            run = _Run(KnsbState(config) if state is None else state.copy(), config, birth_years)
            try:
                run.ingest(sorted(games, key=lambda g: (g.played_at, g.game_id)))
            except _OutOfOrder:
                raise ValueError("the same game (played_at, game_id) was given twice") from None
    return run.result()


def close_periods(state: KnsbState, config: KnsbConfig, until: date, *, in_place: bool = False) -> KnsbResult:
    """Make every list dated on or before `until` (each rates the month before it), games or not.

    The given state is not modified; a copy with the lists made is returned. A game played
    before the last list made is a late game for the next one. Passing state.next_list_date
    rates just the running month: its rows and summaries as they stand, as provisional.
    """
    if isinstance(until, datetime):
        until = until.date()
    with paused_gc():
        run = _Run(state if in_place else state.copy(), config, None)
        s = run.s
        if s.list_month is not None:
            last = min(_month(until), _LAST_MONTH - 1)  # the list after stays datable
            while s.list_month < last:
                run.close()
    return run.result()
