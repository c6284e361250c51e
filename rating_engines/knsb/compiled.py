"""KNSB's compiled fast path: monthly lists made over columns of the games, in numba.

`columns_of` reads the games once into arrays; `run_columns` takes them in one compiled loop: the
game intake (counted pairs, opponent unrated, depots, games left out), and every list close (the
rated keys' totals, LPR and new ratings; depot expiry; start ratings), and gives the rows' figures,
the summaries and the state back as arrays. `ColumnsResult` turns them into run_history's rows and
summaries, `state_of` into its KnsbState. `run_history` is history.run_history with every list that closes within
the run made here; the games of the last month (still open at the end) go to the Python runner,
which keeps them in the state's open period.

What stays in Python: a run from a given state, with birth years (juniors), an imported list,
corrections (games that reverse a result) or games out of order runs history.run_history as it
is; close_periods is the Python one.

The arithmetic is games.py's, lists.py's, settlement.py's and normal.py's, operation for
operation, sums over a key's games in order of play; erf and exp are libm's. normal.solve_lpr
takes exp from numpy, whose AVX-512 exp differs from libm in the last bit of some values: it moves
an unrounded LPR by far less than the rounding to whole points
(tests/engines/test_knsb_compiled.py holds the two equal bit for bit with the Python runner's exp
taken from libm).

numba compiles on first call and caches the machine code beside this file (cache=True):
`python -m rating_engines.knsb.compiled` compiles it ahead (make install). The web process imports
rating_engines.knsb, which does not import this module (the replay does not use it yet).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from itertools import repeat
from operator import attrgetter
from typing import Any

import numpy as np
from numba import njit

from ..common import AWAY, HOME, CalculationRow, CountingRule, GameRecord, PeriodSummary, Reason, build_many, paused_gc
from . import history as python
from .calculator import LIMIT_LPR, LIMIT_NONE, LIMIT_RL, date_of_list, erf_scale
from .config import KnsbConfig
from .games import GameIntake
from .normal import _P_GRID, _PHI_COEFS, _PHI_DEGREE, _PHI_INTERVALS, _PHI_STEP, _Z_GRID
from .state import DepotEntry, DepotKey, KnsbResult, KnsbState, Table, TableKey

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_HALF_NUDGE = 1e-9  # common.round_half_away's
_LIMITS = (LIMIT_NONE, LIMIT_LPR, LIMIT_RL)
# a row's reason: None, the game's own (CountingRule), then the KNSB runner's
_NONE, _GAME, _OPPONENT_UNRATED, _IN_DEPOT, _BOOTSTRAP, _EXPIRED = range(6)
_REASONS: tuple[str | None, ...] = (None, None, Reason.OPPONENT_UNRATED, Reason.IN_DEPOT, Reason.DEPOT_BOOTSTRAP,
                                    Reason.DEPOT_EXPIRED)
# a game's own code: it counts, its variant is outside the ranking (rows without figures), another reason
_COUNTS, _LEFT_OUT, _EXCLUDED = range(3)
# a row's float figures (NaN: None)
_ROW_FLOATS = ("r0", "rc", "we", "k", "rt", "wx")
_ROW_FIELDS = attrgetter("game_id", "played_at", "variant", "home", "away", "home_race", "away_race", "home_score")
_SUM_FLOATS = ("rl", "rn", "wt", "wet", "rtt", "rct", "wxt", "lpr")


@dataclass
class KnsbColumns:
    """Games in play order as arrays; keys are indexes in `keys` (the away key −1 for a bye)."""

    month: np.ndarray  # month number of play
    home_key: np.ndarray
    away_key: np.ndarray
    home_score: np.ndarray
    code: np.ndarray  # _COUNTS, _LEFT_OUT, _EXCLUDED
    keys: list[DepotKey]  # ((race or None, variant), coach)
    games: list[GameRecord]
    reasons: list[str | None]

    def __len__(self) -> int:
        return len(self.month)


def columns_of(games: list[GameRecord], config: KnsbConfig) -> KnsbColumns:
    """Read `games` (in play order) once into columns."""
    exclusion = CountingRule.of(config).exclusion
    per_race = config.per_race
    key_index: dict[DepotKey, int] = {}
    at_time: dict[datetime, int] = {}
    months, home_keys, away_keys, reasons = [], [], [], []
    fields = attrgetter("played_at", "home", "home_race", "away", "away_race", "variant")
    for g, (played_at, home, home_race, away, away_race, variant) in zip(games, map(fields, games)):
        month = at_time.get(played_at)
        if month is None:
            month = at_time[played_at] = played_at.year * 12 + played_at.month - 1
        months.append(month)
        home_keys.append(key_index.setdefault(((home_race if per_race else None, variant), home), len(key_index)))
        away_keys.append(-1 if away is None else
                         key_index.setdefault(((away_race if per_race else None, variant), away), len(key_index)))
        reasons.append(exclusion(g))
    code = [_COUNTS if r is None else _LEFT_OUT if r == Reason.VARIANT_EXCLUDED else _EXCLUDED for r in reasons]
    return KnsbColumns(
        month=np.array(months, dtype=np.int64), home_key=np.array(home_keys, dtype=np.int64),
        away_key=np.array(away_keys, dtype=np.int64),
        home_score=np.array([g.home_score for g in games], dtype=np.float64),
        code=np.array(code, dtype=np.int8), keys=list(key_index), games=games, reasons=reasons,
    )


# --- the kernels ----------------------------------------------------------------------------------


@njit(cache=True)
def _round(value: float, scale: float) -> float:
    # common.round_half_away_array for one value (a value rounded to zero keeps its sign)
    return math.copysign(math.floor(abs(value) * scale + 0.5 + _HALF_NUDGE) / scale, value)


@njit(cache=True)
def _k_factor(rating: float, nv: int) -> float:
    # calculator.k_factor of a senior (the compiled path has no birth years)
    if nv < 75:
        return 216.0 / math.sqrt(nv)
    if rating <= 2100:
        return 25.0
    if rating >= 2400:
        return 10.0
    return 25.0 - (rating - 2100) / 20.0


@njit(cache=True)
def _table_we(diff: float, c: float) -> float:
    # calculator.table_we: common.round_half_away to 3 places (0.0 where it rounds to zero)
    value = 0.5 * (1.0 + math.erf(abs(diff) * c))
    rounded = math.floor(abs(value) * 1000.0 + 0.5 + _HALF_NUDGE)
    p = math.copysign(rounded / 1000.0, value) if rounded else 0.0
    return p if diff >= 0 else 1.0 - p


@njit(cache=True)
def _phi(z: float, coefs: Any) -> float:
    """normal.phi for one value."""
    a = abs(z)
    i = int(a * (1.0 / _PHI_STEP))
    if i > _PHI_INTERVALS:
        i = _PHI_INTERVALS
    u = a * (2.0 / _PHI_STEP) - (2 * i + 1)
    p = coefs[_PHI_DEGREE, i]
    for d in range(_PHI_DEGREE - 1, -1, -1):
        p *= u
        p += coefs[d, i]
    return math.copysign(p, z) + 0.5


@njit(cache=True)
def _interp(x: float, xp: Any, fp: Any) -> float:
    # np.interp for one value, as numpy computes it
    n = len(xp)
    if x < xp[0]:
        return float(fp[0])
    if x > xp[n - 1]:
        return float(fp[n - 1])
    j = np.searchsorted(xp, x, side="right") - 1
    if j >= n - 1 or xp[j] == x:
        return float(fp[j])
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    value = slope * (x - xp[j]) + fp[j]
    if math.isnan(value):
        value = slope * (x - xp[j + 1]) + fp[j + 1]
        if math.isnan(value) and fp[j] == fp[j + 1]:
            value = fp[j]
    return float(value)


@njit(cache=True, error_model="numpy")
def _solve(terms: Any, m: int, target: float, sigma: float, p_grid: Any, z_grid: Any, coefs: Any) -> float:
    """normal.solve_lpr for one key over its m terms; NaN when it does not converge."""
    inv = 1.0 / sigma
    total = 0.0
    lowest = terms[0]
    highest = terms[0]
    for t in range(m):
        total += terms[t]
        if terms[t] < lowest:
            lowest = terms[t]
        if terms[t] > highest:
            highest = terms[t]
    z0 = _interp(target / m, p_grid, z_grid)
    low = lowest + sigma * (z0 - 0.01)
    high = highest + sigma * (z0 + 0.01)
    x = total / m + sigma * z0
    c1 = inv * _INV_SQRT_2PI
    c2 = -inv * inv * _INV_SQRT_2PI
    for _ in range(200):
        f = 0.0
        s1 = 0.0
        s2 = 0.0
        for t in range(m):
            z = (x - terms[t]) * inv
            density = math.exp(-0.5 * z * z)
            f += _phi(z, coefs)
            s1 += density
            s2 += z * density
        f = f - target
        d1 = s1 * c1
        d2 = s2 * c2
        lo = x if f < 0.0 else low
        hi = x if f > 0.0 else high
        low = lo
        high = hi
        newton = f / d1
        step = newton / (1.0 - 0.5 * newton * d2 / d1)
        new = x - step
        small = abs(step) <= 1e-3
        if not small and not (new > lo and new < hi):
            new = 0.5 * (lo + hi)
        else:
            if not new > lo:  # np.clip: maximum, then minimum
                new = lo
            if not new < hi:
                new = hi
        if f == 0.0:
            new = x
        done = f == 0.0 or small or hi - lo <= 1e-9
        x = new
        if done:
            return x
    return np.nan


@njit(cache=True, error_model="numpy")
def _settle(kid: Any, rc: Any, w: Any, we: Any, rt: Any, m: int, nk: int, rl: Any, has_rl: bool, sigma: float,
            margin: float, p_grid: Any, z_grid: Any, coefs: Any, wx: Any, out: Any, lim: Any, nt: Any) -> bool:
    """settlement.settle for `nk` keys over m terms: per term wx, per key out[j] = (wt, wet, rtt,
    rct, wxt, lpr, rn) and lim[j] the limit's code (with Rl; without, a start rating: wet and rtt 0,
    we and rt not read); False where an LPR did not converge."""
    inv = 1.0 / sigma
    first = np.zeros(nk + 1, dtype=np.int64)
    for t in range(m):
        first[kid[t] + 1] += 1
    for j in range(nk):
        first[j + 1] += first[j]
    fill = first[:nk].copy()
    order = np.empty(m, dtype=np.int64)
    for t in range(m):
        order[fill[kid[t]]] = t
        fill[kid[t]] += 1
    terms = np.empty(m + 1)
    for j in range(nk):
        count = first[j + 1] - first[j]
        nt[j] = count
        wt = 0.0
        wet = 0.0
        rtt = 0.0
        rcs = 0.0
        for at in range(first[j], first[j + 1]):
            t = order[at]
            wt += w[t]
            if has_rl:
                wet += we[t]
                rtt += rt[t]
            rcs += rc[t]
            terms[at - first[j]] = rc[t]
        out[j, 0] = wt
        out[j, 1] = wet
        out[j, 2] = rtt
        out[j, 3] = rcs / max(count, 1)
        if count == 0:
            out[j, 4] = np.nan
            out[j, 5] = np.nan
            continue
        extra = wt == 0.0 or wt == count
        against = rl[j] if has_rl else out[j, 3]
        n_terms = count
        if extra:
            terms[count] = against
            n_terms += 1
        x = _solve(terms, n_terms, wt + 0.5 if extra else wt, sigma, p_grid, z_grid, coefs)
        if math.isnan(x):
            return False
        lpr = _round(x, 1.0)
        wxt = 0.0
        for at in range(first[j], first[j + 1]):
            t = order[at]
            wx[t] = _phi((lpr - rc[t]) * inv, coefs)
            wxt += wx[t]
        if extra:
            wxt += _phi((lpr - against) * inv, coefs)
        out[j, 4] = wxt
        out[j, 5] = lpr
        if has_rl:  # settlement.kept_between
            r = rl[j]
            raw = _round(r + rtt, 1.0)
            low = r if r < lpr else lpr - margin
            high = r if r > lpr else lpr + margin
            if raw > high:
                out[j, 6] = high
                lim[j] = 2 if r > lpr else 1
            elif raw < low:
                out[j, 6] = low
                lim[j] = 2 if r < lpr else 1
            else:
                out[j, 6] = raw
                lim[j] = 0
    return True


@njit(cache=True, error_model="numpy")
def _history(
    month: Any, home_key: Any, away_key: Any, home_score: Any, code: Any, end: int, last_month: int,
    wc: float, sigma: float, we_table: bool, margin: float, min_games: int, depot_months: int, nv_cap: int,
    boot: bool, boot_rating: float, p_grid: Any, z_grid: Any, coefs: Any,
    rated: Any, rating: Any, nv: Any, kf: Any, key_stamp: Any, key_kid: Any,
    dep_head: Any, dep_tail: Any, dep_len: Any, d_game: Any, d_side: Any, d_rc: Any, d_w: Any, d_boot: Any,
    d_next: Any, um_head: Any, um_tail: Any, um_len: Any, u_month: Any, u_count: Any, u_next: Any,
    ex_head: Any, ex_tail: Any, ex_key: Any, ex_next: Any,
    row_f: Any, row_reason: Any, row_counted: Any, row_depot: Any,
    x_dep: Any, x_reason: Any, x_wx: Any, x_counted: Any, closes: Any, close_extras: Any,
    sum_f: Any, sum_i: Any, sum_month: Any, h_key: Any, h_month: Any, h_rating: Any, h_nv: Any,
) -> Any:
    """The games [0, end) taken in order and every list up to that of `last_month` made.

    Returns (lists made, extra rows, summaries, history entries, depot entries, first month),
    or a negative list count where an LPR did not converge."""
    n = end
    first_month = month[0]
    base = first_month
    list_month = first_month
    n_closes = 0
    n_x = 0
    n_sum = 0
    n_h = 0
    n_d = 0
    n_u = 0
    n_ex = 0
    # the open period
    p_keys = np.empty(2 * n + 1, dtype=np.int64)
    extra_played = np.empty(2 * n + 1, dtype=np.int64)  # set as a key takes its number
    nk = 0
    c_kid = np.empty(2 * n + 1, dtype=np.int64)
    c_rc = np.empty(2 * n + 1)
    c_w = np.empty(2 * n + 1)
    c_we = np.empty(2 * n + 1)
    c_rt = np.empty(2 * n + 1)
    c_slot = np.empty(2 * n + 1, dtype=np.int64)
    nc = 0
    touched = np.empty(2 * n + 1, dtype=np.int64)
    touch_stamp = np.full(len(rated), -1, dtype=np.int64)
    n_touched = 0
    wx = np.empty(2 * n + 1)
    out = np.empty((2 * n + 1, 7))
    lim = np.empty(2 * n + 1, dtype=np.int64)
    nt = np.empty(2 * n + 1, dtype=np.int64)
    rl = np.empty(2 * n + 1)
    starts = np.empty(2 * n + 1, dtype=np.int64)
    s_kid = np.empty(2 * n + 1, dtype=np.int64)
    s_rc = np.empty(2 * n + 1)
    s_w = np.empty(2 * n + 1)
    s_dep = np.empty(2 * n + 1, dtype=np.int64)
    i = 0
    while True:
        target = month[i] if i < n else last_month
        while list_month < target:
            # --- the list close (lists.ListMaking.close) of the month list_month
            close = list_month + 1
            # rated keys
            for j in range(nk):
                rl[j] = rating[p_keys[j]]
            if not _settle(c_kid, c_rc, c_w, c_we, c_rt, nc, nk, rl, True, sigma, margin, p_grid, z_grid, coefs,
                           wx, out, lim, nt):
                return -1, 0, 0, 0, 0, 0
            for t in range(nc):
                row_f[c_slot[t], 5] = wx[t]
            for j in range(nk):
                key = p_keys[j]
                f = sum_f[n_sum]
                s = sum_i[n_sum]
                sum_month[n_sum] = close
                s[0] = key
                s[4] = 0
                r = rating[key]
                v = nv[key]
                f[0] = r
                if nt[j] == 0:
                    f[1] = r
                    f[2] = 0.0
                    f[3] = 0.0
                    f[4] = 0.0
                    f[5] = np.nan
                    f[6] = np.nan
                    f[7] = np.nan
                    s[1] = 0
                    s[2] = extra_played[j]
                    s[3] = 0
                    s[5] = v
                    n_sum += 1
                    continue
                rn = out[j, 6]
                v_new = min(nv_cap, v + nt[j])
                f[1] = rn
                f[2] = out[j, 0]
                f[3] = out[j, 1]
                f[4] = out[j, 2]
                f[5] = out[j, 3]
                f[6] = out[j, 4]
                f[7] = out[j, 5]
                s[1] = nt[j]
                s[2] = nt[j] + extra_played[j]
                s[3] = lim[j]
                s[5] = v_new
                n_sum += 1
                if rn != r or v_new != v:
                    rating[key] = rn
                    nv[key] = v_new
                    kf[key] = _k_factor(rn, v_new)
                    h_key[n_h] = key
                    h_month[n_h] = close
                    h_rating[n_h] = rn
                    h_nv[n_h] = v_new
                    n_h += 1
            # depot games too old leave (lists.ListMaking._expire)
            oldest = close - depot_months
            slot = close - base
            e = ex_head[slot]
            while e >= 0:
                key = ex_key[e]
                d = dep_head[key]
                kept_head = -1
                kept_tail = -1
                kept = 0
                while d >= 0:
                    following = d_next[d]
                    if month[d_game[d]] < oldest:
                        x_dep[n_x] = d
                        x_reason[n_x] = _EXPIRED
                        x_counted[n_x] = False
                        x_wx[n_x] = np.nan
                        n_x += 1
                    else:
                        if kept_tail < 0:
                            kept_head = d
                        else:
                            d_next[kept_tail] = d
                        kept_tail = d
                        d_next[d] = -1
                        kept += 1
                    d = following
                dep_head[key] = kept_head
                dep_tail[key] = kept_tail
                dep_len[key] = kept
                e = ex_next[e]
            ex_head[slot] = -1
            # start ratings (lists.ListMaking._rate_depots)
            ns = 0
            m = 0
            for q in range(n_touched):
                key = touched[q]
                if dep_len[key] >= min_games:
                    d = dep_head[key]
                    while d >= 0:
                        s_kid[m] = ns
                        s_rc[m] = d_rc[d]
                        s_w[m] = d_w[d]
                        s_dep[m] = d
                        m += 1
                        d = d_next[d]
                    starts[ns] = key
                    ns += 1
            if ns:
                if not _settle(s_kid, s_rc, s_w, s_w, s_w, m, ns, rl, False, sigma, margin, p_grid, z_grid,
                               coefs, wx, out, lim, nt):
                    return -1, 0, 0, 0, 0, 0
                for t in range(m):
                    d = s_dep[t]
                    g = d_game[d]
                    reason = _BOOTSTRAP if d_boot[d] else _NONE
                    if month[g] + 1 == close:  # entered the depot at this list: its row is the one made then
                        slot_row = 2 * g + d_side[d]
                        row_counted[slot_row] = True
                        row_reason[slot_row] = reason
                        row_f[slot_row, 5] = wx[t]
                    else:
                        x_dep[n_x] = d
                        x_reason[n_x] = reason
                        x_counted[n_x] = True
                        x_wx[n_x] = wx[t]
                        n_x += 1
                t = 0
                for j in range(ns):
                    key = starts[j]
                    count = dep_len[key]
                    played_oldest = month[d_game[s_dep[t]]]
                    for q in range(t, t + count):
                        if month[d_game[s_dep[q]]] < played_oldest:
                            played_oldest = month[d_game[s_dep[q]]]
                    t += count
                    gt = 0
                    u = um_head[key]
                    while u >= 0:
                        if u_month[u] >= played_oldest:
                            gt += u_count[u]
                        u = u_next[u]
                    um_head[key] = -1
                    um_tail[key] = -1
                    um_len[key] = 0
                    rs = out[j, 5]
                    v = min(nv_cap, count)
                    f = sum_f[n_sum]
                    s = sum_i[n_sum]
                    sum_month[n_sum] = close
                    f[0] = np.nan
                    f[1] = rs
                    f[2] = out[j, 0]
                    f[3] = 0.0
                    f[4] = 0.0
                    f[5] = out[j, 3]
                    f[6] = out[j, 4]
                    f[7] = rs
                    s[0] = key
                    s[1] = count
                    s[2] = gt
                    s[3] = 0
                    s[4] = 1
                    s[5] = v
                    n_sum += 1
                    rated[key] = True
                    rating[key] = rs
                    nv[key] = v
                    kf[key] = _k_factor(rs, v)
                    h_key[n_h] = key
                    h_month[n_h] = close
                    h_rating[n_h] = rs
                    h_nv[n_h] = v
                    n_h += 1
                    dep_head[key] = -1
                    dep_tail[key] = -1
                    dep_len[key] = 0
            closes[n_closes] = close
            close_extras[n_closes] = n_x
            n_closes += 1
            list_month = close
            nk = 0
            nc = 0
            n_touched = 0
        if i >= n:
            break
        # --- one game of the open month (games.GameIntake)
        stamp = n_closes
        g_month = month[i]
        score = home_score[i]
        h = home_key[i]
        a = away_key[i]
        c = code[i]
        for side in range(2):
            row_depot[2 * i + side] = False
            row_counted[2 * i + side] = False
            row_reason[2 * i + side] = _GAME
            for col in range(6):
                row_f[2 * i + side, col] = np.nan
        if c == _LEFT_OUT:
            i += 1
            continue
        if c == _COUNTS and rated[h] and rated[a]:
            r0 = rating[h]
            rc = rating[a]
            if we_table:
                we_home = _table_we(r0 - rc, wc)
                we_away = _table_we(rc - r0, wc)
            else:
                erf = math.erf((r0 - rc) * wc)
                we_home = 0.5 * (1.0 + erf)
                we_away = 0.5 * (1.0 - erf)
            for key in (h, a):
                if key_stamp[key] != stamp:
                    key_stamp[key] = stamp
                    key_kid[key] = nk
                    p_keys[nk] = key
                    extra_played[nk] = 0
                    nk += 1
            k_home = kf[h]
            k_away = kf[a]
            rt_home = k_home * (score - we_home)
            rt_away = k_away * ((1.0 - score) - we_away)
            for side in range(2):
                slot_row = 2 * i + side
                c_kid[nc] = key_kid[h] if side == 0 else key_kid[a]
                c_rc[nc] = rc if side == 0 else r0
                c_w[nc] = score if side == 0 else 1.0 - score
                c_we[nc] = we_home if side == 0 else we_away
                c_rt[nc] = rt_home if side == 0 else rt_away
                c_slot[nc] = slot_row
                nc += 1
                row_counted[slot_row] = True
                row_reason[slot_row] = _NONE
                f = row_f[slot_row]
                f[0] = r0 if side == 0 else rc
                f[1] = rc if side == 0 else r0
                f[2] = we_home if side == 0 else we_away
                f[3] = k_home if side == 0 else k_away
                f[4] = rt_home if side == 0 else rt_away
            i += 1
            continue
        # a side that does not count (games._uncounted, games.unrated)
        for side in range(2 if a >= 0 else 1):
            me = h if side == 0 else a
            other = a if side == 0 else h
            w = score if side == 0 else 1.0 - score
            slot_row = 2 * i + side
            rc = np.nan
            if other >= 0 and rated[other]:
                rc = rating[other]
            if c != _COUNTS:
                why = _GAME
            elif rated[me] or (math.isnan(rc) and not boot):
                why = _OPPONENT_UNRATED
                rc = np.nan
            else:
                why = _IN_DEPOT if not math.isnan(rc) else _BOOTSTRAP
                is_boot = math.isnan(rc)
                if is_boot:
                    rc = boot_rating
                # games._deposit
                d = n_d
                n_d += 1
                d_game[d] = i
                d_side[d] = side
                d_rc[d] = rc
                d_w[d] = w
                d_boot[d] = is_boot
                d_next[d] = -1
                if dep_tail[me] < 0:
                    dep_head[me] = d
                else:
                    d_next[dep_tail[me]] = d
                dep_tail[me] = d
                dep_len[me] += 1
                if touch_stamp[me] != stamp:
                    touch_stamp[me] = stamp
                    touched[n_touched] = me
                    n_touched += 1
                slot = g_month + depot_months + 1 - base
                if ex_tail[slot] < 0 or ex_key[ex_tail[slot]] != me:
                    ex_key[n_ex] = me
                    ex_next[n_ex] = -1
                    if ex_tail[slot] < 0:
                        ex_head[slot] = n_ex
                    else:
                        ex_next[ex_tail[slot]] = n_ex
                    ex_tail[slot] = n_ex
                    n_ex += 1
                row_depot[slot_row] = True
            if rated[me]:
                if key_stamp[me] != stamp:
                    key_stamp[me] = stamp
                    key_kid[me] = nk
                    p_keys[nk] = me
                    extra_played[nk] = 0
                    nk += 1
                extra_played[key_kid[me]] += 1
                row_f[slot_row, 0] = rating[me]
            else:  # games._played_unrated
                u = um_tail[me]
                if u >= 0 and u_month[u] == g_month:
                    u_count[u] += 1
                else:
                    u_month[n_u] = g_month
                    u_count[n_u] = 1
                    u_next[n_u] = -1
                    if u < 0:
                        um_head[me] = n_u
                    else:
                        u_next[u] = n_u
                    um_tail[me] = n_u
                    um_len[me] += 1
                    n_u += 1
                    if um_len[me] > depot_months + 1:
                        oldest = g_month - depot_months
                        while u_month[um_head[me]] < oldest:
                            um_head[me] = u_next[um_head[me]]
                            um_len[me] -= 1
            row_reason[slot_row] = why
            row_f[slot_row, 1] = rc
        i += 1
    return n_closes, n_x, n_sum, n_h, n_d, first_month


@njit(cache=True, error_model="numpy")
def final_ratings(month: Any, home_key: Any, away_key: Any, home_score: Any, rating: Any, nv: Any, wc: float,
                  sigma: float, nv_cap: int, p_grid: Any, z_grid: Any, coefs: Any) -> None:
    """The bare update: every month of the arrays rated into rating and nv in place (every key rated
    from the start, every game counted: We, Rt, the monthly totals, LPR and Rn kept between Rl and
    LPR), no rows, no summaries, no depots: the benchmark's floor."""
    n = len(month)
    n_keys = len(rating)
    pos = np.full(n_keys, -1, dtype=np.int64)
    members = np.empty(n_keys, dtype=np.int64)
    kf = np.empty(n_keys)
    for key in range(n_keys):
        kf[key] = _k_factor(rating[key], nv[key])
    kid = np.empty(2 * n + 1, dtype=np.int64)
    rc = np.empty(2 * n + 1)
    w = np.empty(2 * n + 1)
    we = np.empty(2 * n + 1)
    rt = np.empty(2 * n + 1)
    wx = np.empty(2 * n + 1)
    out = np.empty((n_keys, 7))
    lim = np.empty(n_keys, dtype=np.int64)
    nt = np.empty(n_keys, dtype=np.int64)
    rl = np.empty(n_keys)
    nk = 0
    m = 0
    first = 0
    for i in range(n + 1):
        if i == n or month[i] != month[first]:
            for j in range(nk):
                rl[j] = rating[members[j]]
            _settle(kid, rc, w, we, rt, m, nk, rl, True, sigma, 0.0, p_grid, z_grid, coefs, wx, out, lim, nt)
            for j in range(nk):
                key = members[j]
                rating[key] = out[j, 6]
                nv[key] = min(nv_cap, nv[key] + nt[j])
                kf[key] = _k_factor(rating[key], nv[key])
                pos[key] = -1
            nk = 0
            m = 0
            first = i
            if i == n:
                break
        h = home_key[i]
        a = away_key[i]
        for key in (h, a):
            if pos[key] < 0:
                pos[key] = nk
                members[nk] = key
                nk += 1
        e = math.erf((rating[h] - rating[a]) * wc)
        for side in range(2):
            me = h if side == 0 else a
            kid[m] = pos[me]
            rc[m] = rating[a] if side == 0 else rating[h]
            w[m] = home_score[i] if side == 0 else 1.0 - home_score[i]
            we[m] = 0.5 * (1.0 + e) if side == 0 else 0.5 * (1.0 - e)
            rt[m] = kf[me] * (w[m] - we[m])
            m += 1


# --- the wrapper ----------------------------------------------------------------------------------


@dataclass
class ColumnsResult:
    """A run's output as columns, in run_history's order: per game its two rows' figures (slots 2i,
    2i + 1), the rows added at a list for older depot games, the summaries, the state's arrays."""

    columns: KnsbColumns
    config: KnsbConfig
    end: int  # the games taken: [0, end)
    row_f: np.ndarray  # (2 · games, 6): _ROW_FLOATS, NaN for None
    row_reason: np.ndarray
    row_counted: np.ndarray
    row_depot: np.ndarray
    extra_depot: np.ndarray  # the depot entry an extra row shows
    extra_reason: np.ndarray
    extra_wx: np.ndarray
    extra_counted: np.ndarray
    closes: np.ndarray  # the month of each list made
    close_extras: np.ndarray  # extra rows up to the end of each list
    summary_floats: np.ndarray  # _SUM_FLOATS
    summary_ints: np.ndarray  # key, nt, games played, limit code, is_start, Nv
    summary_month: np.ndarray
    depot: dict[str, np.ndarray]  # d_game, d_side, d_rc, d_w, d_boot (every depot entry made)
    first_month: int

    def rows(self) -> list[CalculationRow]:
        """The calculation rows of every list made, as run_history gives them."""
        c = self.columns
        n = self.end
        games = c.games[:n]
        month = c.month[:n]
        kept = np.ones(2 * n, dtype=np.bool_)
        kept[1::2] = c.away_key[:n] >= 0
        byes = not kept.all()

        def pair(home: Iterable[Any], away: Iterable[Any]) -> list[Any]:
            both: list[Any] = [None] * (2 * n)
            both[0::2] = home
            both[1::2] = away
            return both

        def sides(column: np.ndarray) -> np.ndarray:
            return column[kept] if byes else column

        def per_game(values: list[Any]) -> list[Any]:
            both = pair(values, values)
            return [v for v, k in zip(both, kept.tolist()) if k] if byes else both

        ids, played_at, variants, homes, aways, home_races, away_races, scores = (
            zip(*map(_ROW_FIELDS, games)) if n else ((),) * 8)
        months = sorted(set(month.tolist()))
        days = {m: date_of_list(m) for m in set(months) | {m + 1 for m in months}}
        labels = {m: day.isoformat() for m, day in days.items()}
        month_list = month.tolist()
        game_of_row = sides(np.repeat(np.arange(n), 2)).tolist()
        code = sides(self.row_reason[:2 * n]).tolist()
        reasons = [c.reasons[i] if r == _GAME else _REASONS[r] for i, r in zip(game_of_row, code)]
        next_day = [days[m + 1] for m in month_list]
        w = pair(scores, (1.0 - c.home_score[:n]).tolist())
        columns: dict[str, Any] = {
            "game_id": per_game(list(ids)),
            "side": [(AWAY if r & 1 else HOME) for r in np.flatnonzero(kept).tolist()] if byes else [HOME, AWAY] * n,
            "coach": pair(homes, aways), "race": pair(home_races, away_races) if self.config.per_race else None,
            "variant": per_game(list(variants)), "opponent": pair(aways, homes),
            "opponent_race": pair(away_races, home_races), "played_at": per_game(list(played_at)),
            "period": per_game([labels[m + 1] for m in month_list]), "w": w,
            "counted": sides(self.row_counted[:2 * n]).tolist(), "reason": reasons,
            **{name: _nullable(sides(self.row_f[:2 * n, at])) for at, name in enumerate(_ROW_FLOATS)},
            "list_date": per_game([days[m] for m in month_list]),
        }
        if byes:
            for name in ("coach", "opponent", "opponent_race", "w") + (("race",) if self.config.per_race else ()):
                columns[name] = [v for v, k in zip(columns[name], kept.tolist()) if k]
        depot = sides(self.row_depot[:2 * n])
        depot_date: list[date | None] = [None] * len(depot)
        day_of_row = per_game(next_day)
        for at in np.flatnonzero(depot).tolist():
            depot_date[at] = day_of_row[at]
        columns["depot_date"] = depot_date
        if columns["race"] is None:
            columns["race"] = repeat(None)
        main = build_many(CalculationRow, columns)
        extras = self._extra_rows()
        out: list[CalculationRow] = []
        rows_before = np.concatenate(([0], np.cumsum(kept))).tolist()  # rows of the slots before slot s
        bounds = np.searchsorted(month, np.stack((self.closes - 1, self.closes))).tolist()
        x_first = 0
        for lo, hi, x_end in zip(bounds[0], bounds[1], self.close_extras.tolist()):
            out += extras[x_first:x_end]
            x_first = x_end
            out += main[rows_before[2 * lo]:rows_before[2 * hi]]
        return out

    def _extra_rows(self) -> list[CalculationRow]:
        c = self.columns
        per_race = self.config.per_race
        depot = self.depot
        label_of = np.repeat(self.closes, np.diff(np.concatenate(([0], self.close_extras)))).tolist()
        games, months, sides, rcs = depot["game"].tolist(), c.month.tolist(), depot["side"].tolist(), depot["rc"].tolist()
        days = {m: date_of_list(m) for m in set(label_of) | set(months) | {m + 1 for m in months}}
        labels = {m: day.isoformat() for m, day in days.items()}
        rows = []
        for d, reason, wx, counted, close in zip(self.extra_depot.tolist(), self.extra_reason.tolist(),
                                                 _nullable(self.extra_wx), self.extra_counted.tolist(), label_of):
            i = games[d]
            g = c.games[i]
            m = months[i]
            race: str | None
            opponent: int | None
            opponent_race: str | None
            if sides[d] == 0:
                side, coach, race, opponent, opponent_race, w = HOME, g.home, g.home_race, g.away, g.away_race, g.home_score
            else:
                assert g.away is not None  # only a game with two sides goes into a depot
                side, coach, race, opponent, opponent_race, w = AWAY, g.away, g.away_race, g.home, g.home_race, 1.0 - g.home_score
            rows.append(CalculationRow(
                g.game_id, side, coach, race if per_race else None, g.variant, opponent, opponent_race, g.played_at,
                labels[close], w, counted, _REASONS[reason], None, rcs[d], None, None, None, wx,
                days[m], days[m + 1]))
        return rows

    def summaries(self) -> list[PeriodSummary]:
        """One summary per rated key that played in a list's month, then the start ratings, list by list."""
        keys = self.columns.keys
        f = {name: _nullable(self.summary_floats[:, at]) for at, name in enumerate(_SUM_FLOATS)}
        ints = self.summary_ints
        key, nt, played, limit, start, nv = (ints[:, at].tolist() for at in range(6))
        days = {m: date_of_list(m) for m in set(self.summary_month.tolist())}
        day = [days[m] for m in self.summary_month.tolist()]
        tks = [keys[k] for k in key]
        return build_many(PeriodSummary, {
            "coach": [coach for _, coach in tks], "race": [tk[0] for tk, _ in tks], "variant": [tk[1] for tk, _ in tks],
            "period": [d.isoformat() for d in day], "effective": day, **f, "nt": nt, "games_played": played,
            "limitation": [_LIMITS[code] for code in limit], "nv": nv, "is_start": [bool(s) for s in start],
        })


def _nullable(column: np.ndarray) -> list[float | None]:
    values = column.astype(object)
    values[np.isnan(column)] = None
    listed: list[float | None] = values.tolist()
    return listed


@dataclass
class _KeyArrays:
    """Every key's state in the compiled run (see run_columns)."""

    rated: np.ndarray
    rating: np.ndarray
    nv: np.ndarray
    k: np.ndarray
    stamp: np.ndarray
    kid: np.ndarray
    dep_head: np.ndarray
    dep_len: np.ndarray
    history: tuple[np.ndarray, ...]  # key, list month, rating, Nv of every new entry on a list, in order
    unrated: tuple[np.ndarray, ...]  # per key its first (month, games) node; month, games, next per node
    expiry: tuple[np.ndarray, ...]  # per month (from the first) its first node; key, next per node
    list_month: int
    closes: int

    def histories(self) -> dict[int, list[Any]]:
        history: dict[int, list[Any]] = {}
        for key, m, r, v in zip(*(column.tolist() for column in self.history)):
            history.setdefault(key, []).extend((m, r, v))
        return history

    def unrated_months(self) -> dict[int, dict[int, int]]:
        head, month, count, following = (column.tolist() for column in self.unrated)
        out: dict[int, dict[int, int]] = {}
        for key in np.flatnonzero(self.unrated[0] >= 0).tolist():
            u = head[key]
            months = out[key] = {}
            while u >= 0:
                months[month[u]] = count[u]
                u = following[u]
        return out

    def due(self, first: int) -> dict[int, list[int]]:
        head, key, following = (column.tolist() for column in self.expiry)
        out: dict[int, list[int]] = {}
        for slot in np.flatnonzero(self.expiry[0] >= 0).tolist():
            e = head[slot]
            due = out[first + slot] = []
            while e >= 0:
                due.append(key[e])
                e = following[e]
        return out


def run_columns(columns: KnsbColumns, config: KnsbConfig, end: int | None = None) -> tuple[ColumnsResult, _KeyArrays]:
    """Take the games [0, end) (in play order, from no state) and make every list up to the one in
    force at game `end` (or the month after the last game) in compiled code."""
    n = len(columns) if end is None else end
    last_month = int(columns.month[n]) if n < len(columns) else int(columns.month[n - 1]) + 1
    n_keys = len(columns.keys)
    first = int(columns.month[0])
    slots = last_month - first + config.depot_months + 3
    pool = 2 * n + 1
    rated = np.zeros(n_keys, dtype=np.bool_)
    rating, nv, kf = np.zeros(n_keys), np.zeros(n_keys, dtype=np.int64), np.zeros(n_keys)
    key_stamp, key_kid = np.full(n_keys, -1, dtype=np.int64), np.full(n_keys, -1, dtype=np.int64)
    dep_head, dep_tail, dep_len = (np.full(n_keys, -1, dtype=np.int64), np.full(n_keys, -1, dtype=np.int64),
                                   np.zeros(n_keys, dtype=np.int64))
    um_head, um_tail, um_len = (np.full(n_keys, -1, dtype=np.int64), np.full(n_keys, -1, dtype=np.int64),
                                np.zeros(n_keys, dtype=np.int64))
    d_game, d_side = np.empty(pool, dtype=np.int64), np.empty(pool, dtype=np.int64)
    d_rc, d_w, d_boot, d_next = np.empty(pool), np.empty(pool), np.empty(pool, dtype=np.bool_), np.empty(pool, dtype=np.int64)
    u_month, u_count, u_next = (np.empty(pool, dtype=np.int64) for _ in range(3))
    ex_head, ex_tail = np.full(slots, -1, dtype=np.int64), np.full(slots, -1, dtype=np.int64)
    ex_key, ex_next = np.empty(pool, dtype=np.int64), np.empty(pool, dtype=np.int64)
    row_f = np.empty((2 * n, 6))
    row_reason, row_counted, row_depot = (np.empty(2 * n, dtype=np.int8), np.empty(2 * n, dtype=np.bool_),
                                          np.empty(2 * n, dtype=np.bool_))
    x_dep, x_reason, x_wx, x_counted = (np.empty(pool, dtype=np.int64), np.empty(pool, dtype=np.int8), np.empty(pool),
                                        np.empty(pool, dtype=np.bool_))
    n_lists = last_month - first + 1
    closes, close_extras = np.empty(n_lists, dtype=np.int64), np.empty(n_lists, dtype=np.int64)
    sum_f, sum_i, sum_month = np.empty((pool, len(_SUM_FLOATS))), np.empty((pool, 6), dtype=np.int64), np.empty(pool, dtype=np.int64)
    h_key, h_month, h_nv = (np.empty(pool, dtype=np.int64) for _ in range(3))
    h_rating = np.empty(pool)
    boot_rating = config.bootstrap_rating
    boot = boot_rating is not None
    n_closes, n_x, n_sum, n_h, n_d, _ = _history(
        columns.month, columns.home_key, columns.away_key, columns.home_score, columns.code, n, last_month,
        erf_scale(config.sigma), config.sigma, config.we_table, config.lpr_margin, config.depot_min_games,
        config.depot_months, config.nv_cap, boot, 0.0 if boot_rating is None else boot_rating, _P_GRID, _Z_GRID,
        _PHI_COEFS, rated, rating, nv, kf, key_stamp, key_kid, dep_head, dep_tail, dep_len, d_game, d_side, d_rc,
        d_w, d_boot, d_next, um_head, um_tail, um_len, u_month, u_count, u_next, ex_head, ex_tail, ex_key, ex_next,
        row_f, row_reason, row_counted, row_depot, x_dep, x_reason, x_wx, x_counted, closes, close_extras,
        sum_f, sum_i, sum_month, h_key, h_month, h_rating, h_nv,
    )
    if n_closes < 0:
        raise RuntimeError("LPR iteration did not converge")
    keys = _KeyArrays(rated, rating, nv, kf, key_stamp, key_kid, dep_head, dep_len,
                      (h_key[:n_h], h_month[:n_h], h_rating[:n_h], h_nv[:n_h]), (um_head, u_month, u_count, u_next),
                      (ex_head, ex_key, ex_next), last_month, n_closes)
    depot = {"game": d_game[:n_d], "side": d_side[:n_d], "rc": d_rc[:n_d], "w": d_w[:n_d], "boot": d_boot[:n_d],
             "next": d_next[:n_d]}
    result = ColumnsResult(columns, config, n, row_f, row_reason, row_counted, row_depot, x_dep[:n_x],
                           x_reason[:n_x], x_wx[:n_x], x_counted[:n_x], closes[:n_closes], close_extras[:n_closes],
                           sum_f[:n_sum], sum_i[:n_sum], sum_month[:n_sum], depot, first)
    return result, keys


def state_of(out: ColumnsResult, keys: _KeyArrays) -> KnsbState:
    """The KnsbState the Python runner leaves after the same lists: entries, depots, expiry, the
    unrated keys' months; the open period empty."""
    c = out.columns
    state = KnsbState(out.config, list_month=keys.list_month, first_month=out.first_month, stamp=keys.closes)
    ratings: dict[TableKey, Table] = state.ratings
    history = keys.histories()
    for key in np.flatnonzero(keys.rated).tolist():
        tk, coach = c.keys[key]
        table = ratings.get(tk)
        if table is None:
            table = ratings[tk] = {}
        table[coach] = [float(keys.rating[key]), int(keys.nv[key]), float(keys.k[key]), int(keys.stamp[key]),
                        int(keys.kid[key]), tk, coach, history[key]]
    depot = out.depot
    for key in np.flatnonzero(keys.dep_len > 0).tolist():
        entries = state.depot[c.keys[key]] = []
        d = int(keys.dep_head[key])
        while d >= 0:
            i = int(depot["game"][d])
            g = c.games[i]
            m = int(c.month[i])
            w = g.home_score if depot["side"][d] == 0 else 1.0 - g.home_score
            entries.append(DepotEntry(g, HOME if depot["side"][d] == 0 else AWAY, float(depot["rc"][d]), w, m, m + 1, m,
                                      bool(depot["boot"][d])))
            d = int(depot["next"][d])
    state.expiry = {m: [c.keys[key] for key in due] for m, due in keys.due(out.first_month).items()
                    if m > keys.list_month}
    state.unrated_games = {c.keys[key]: months for key, months in keys.unrated_months().items()}
    return state


def _compiled_case(games: list[GameRecord], config: KnsbConfig, state: KnsbState | None,
                   birth_years: Mapping[int, int] | None) -> bool:
    """Whether the compiled path takes the run: from no state, no juniors, no imported list, no
    corrections, games in (played_at, game_id) order."""
    if state is not None or birth_years or config.initial_list or not games:
        return False
    last = (games[0].played_at, games[0].game_id - 1)
    for g in games:
        order = (g.played_at, g.game_id)
        if order <= last or g.reverses:
            return False
        last = order
    return True


def run_history(games: Iterable[GameRecord], config: KnsbConfig, state: KnsbState | None = None, *,
                birth_years: Mapping[int, int] | None = None, in_place: bool = False) -> KnsbResult:
    """history.run_history with every list made within the run made in compiled code: the same
    arguments, the same result."""
    games = games if isinstance(games, list) else list(games)
    if not _compiled_case(games, config, state, birth_years):
        return python.run_history(games, config, state, birth_years=birth_years, in_place=in_place)
    last_month = month_of(games[-1])
    tail = len(games)
    while tail > 0 and month_of(games[tail - 1]) == last_month:
        tail -= 1
    if tail == 0:
        return python.run_history(games, config, state, birth_years=birth_years, in_place=in_place)
    with paused_gc():
        out, keys = run_columns(columns_of(games, config), config, tail)
        rows, summaries = out.rows(), out.summaries()
        lists = [date_of_list(out.first_month)] + [date_of_list(m) for m in out.closes.tolist()]
        run = GameIntake(state_of(out, keys), config, None)
        run.ingest(games[tail:])
        more = run.result()
    return KnsbResult(more.state, rows + more.rows, summaries + more.summaries, lists + more.lists)


def month_of(game: GameRecord) -> int:
    t = game.played_at
    return t.year * 12 + t.month - 1


def warm_up() -> None:
    """Compile (or load from the cache) every kernel: a worker calls it at start, so that no run,
    and no request, waits for a compile."""
    games = [GameRecord(i + 1, datetime(2020, 1 + i // 4, 1 + i % 4, 10), 1, "v", 1 + i % 3, "orc", 4 + i % 2, "elf",
                        [1.0, 0.5, 0.0][i % 3]) for i in range(16)]
    games.append(GameRecord(17, datetime(2020, 5, 9), 1, "v", 3, "orc", None, None, 1.0, kind="bye"))
    run_history(games, KnsbConfig(depot_min_games=1))
    columns = columns_of(games[:4], KnsbConfig())
    final_ratings(columns.month, columns.home_key, np.maximum(columns.away_key, 0), columns.home_score,
                  np.full(len(columns.keys), 1500.0), np.full(len(columns.keys), 6, dtype=np.int64),
                  erf_scale(KnsbConfig().sigma), KnsbConfig().sigma, 100, _P_GRID, _Z_GRID, _PHI_COEFS)


if __name__ == "__main__":
    import time

    began = time.perf_counter()
    warm_up()
    print(f"KNSB kernels compiled or loaded in {time.perf_counter() - began:.2f} s")
