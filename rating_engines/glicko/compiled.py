"""Glicko's compiled fast path: calendar periods (month, two weeks) rated over columns, in numba.

`columns_of` reads the games once into arrays; `run_columns` takes them period by period in one
compiled loop (each period rated when the next one starts, and the last at the end) and gives the
rows' figures, the summaries and the new ratings back as arrays; `ColumnsResult` turns them into
run_history's rows and summaries. `run_history` is history.run_history with the periods that
close within the run rated here; the games of the periods the state holds open and of the one
still open at the end are gathered by the Python runner, which keeps them as OpenPeriods (event
periods: all games), and rated by `rate_period`, the compiled period step (close_periods too).

The arithmetic is batch.rate_period's, operation for operation, sums over a key's games in order
of play. exp and log are libm's, as the calculator takes them: numpy's AVX-512 exp and log differ
from libm in the last bit of some values (tests/engines/test_glicko_compiled.py holds the two
equal bit for bit with the Python runner's exp and log taken from libm, and within its last bits
as it is).

numba compiles on first call and caches the machine code beside this file (cache=True):
`python -m rating_engines.glicko.compiled` compiles it ahead. Only the recalculation path imports
this module; the web process imports rating_engines.glicko, which does not import it.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import partial
from itertools import compress, repeat
from operator import attrgetter
from typing import Any

import numpy as np
from numba import njit

from ..common import AWAY, HOME, CalculationRow, CountingRule, GameRecord, PeriodSummary, build_many, paused_gc, run_in_order
from . import calculator
from . import history as python
from .batch import PeriodUpdate, Sides
from .calculator import _G_FACTOR, CENTER, CONVERGENCE, SCALE, VolatilityNotConverged
from .config import GlickoConfig, calendar_period
from .state import NEW, GlickoResult, GlickoState, RatingKey

_ONE_DAY = timedelta(days=1)
# a summary's float figures, a row a summary
_SUMMARY_FLOATS = ("rl", "rn", "wt", "wet", "rtt", "rct", "mu", "phi", "sigma", "mu_before", "phi_before",
                   "sigma_before")
# a counted side's figures, six a side, home then away: the row's r0, rc, opponent_phi, g, we, rt
_SIDE = 6


@dataclass
class GlickoColumns:
    """Games in play order as arrays; keys are indexes in `keys` (the away key −1 for a bye)."""

    period: np.ndarray  # the calendar period's number
    home_key: np.ndarray
    away_key: np.ndarray
    home_score: np.ndarray
    counts: np.ndarray
    keys: list[RatingKey]
    numbers: list[int]  # the periods, in order: their numbers
    labels: list[str]
    ends: list[date]
    games: list[GameRecord]
    reasons: list[str | None]
    # a key's coach and variant: its group (cross-race starts read a group's keys), in `groups`
    key_group: np.ndarray
    groups: list[tuple[int, str]]
    key_has_race: np.ndarray

    def __len__(self) -> int:
        return len(self.period)


def columns_of(games: list[GameRecord], config: GlickoConfig) -> GlickoColumns:
    """Read `games` (in play order) once into columns."""
    exclusion = CountingRule.of(config).exclusion
    per_race = config.per_race
    key_index: dict[RatingKey, int] = {}
    at_time: dict[datetime, int] = {}  # games share their round's time: a period number per time
    numbers: list[int] = []
    labels: list[str] = []
    ends: list[date] = []
    period, home_keys, away_keys, reasons = [], [], [], []
    fields = attrgetter("played_at", "home", "home_race", "away", "away_race", "variant")
    for g, (played_at, home, home_race, away, away_race, variant) in zip(games, map(fields, games)):
        number = at_time.get(played_at)
        if number is None:
            number, label, end = calendar_period(played_at.date(), config)
            at_time[played_at] = number
            if not numbers or numbers[-1] != number:
                numbers.append(number)
                labels.append(label)
                ends.append(end)
        period.append(number)
        home_keys.append(key_index.setdefault((home, home_race if per_race else None, variant), len(key_index)))
        away_keys.append(-1 if away is None else
                         key_index.setdefault((away, away_race if per_race else None, variant), len(key_index)))
        reasons.append(exclusion(g))
    keys = list(key_index)
    group_of: dict[tuple[int, str], int] = {}
    key_group = [group_of.setdefault((coach, variant), len(group_of)) for coach, _, variant in keys]
    return GlickoColumns(
        period=np.array(period, dtype=np.int64), home_key=np.array(home_keys, dtype=np.int64),
        away_key=np.array(away_keys, dtype=np.int64),
        home_score=np.array([g.home_score for g in games], dtype=np.float64),
        counts=np.array([r is None for r in reasons], dtype=np.bool_), keys=keys,
        numbers=numbers, labels=labels, ends=ends, games=games, reasons=reasons,
        key_group=np.array(key_group, dtype=np.int64), groups=list(group_of),
        key_has_race=np.array([race is not None for _, race, _ in keys], dtype=np.bool_),
    )


# --- the kernels ----------------------------------------------------------------------------------


@njit(cache=True)
def _f(x: float, a: float, phi2: float, v: float, d2: float, tau2: float) -> float:
    ex = math.exp(x)
    w = phi2 + v + ex
    return ex * (d2 - phi2 - v - ex) / (2.0 * w * w) - (x - a) / tau2


@njit(cache=True)
def _volatility(sigma: float, phi2: float, v: float, delta: float, tau: float, max_iterations: int) -> float:
    """batch.new_volatilities for one entry (calculator.new_volatility); NaN where it does not
    converge (the caller raises)."""
    a = math.log(sigma * sigma)
    tau2 = tau * tau
    d2 = delta * delta
    big_a = a
    if d2 > phi2 + v:
        big_b = math.log(d2 - phi2 - v)
    else:
        k = 1
        while _f(a - k * tau, a, phi2, v, d2, tau2) < 0.0:
            k += 1
            if k > max_iterations:
                return np.nan
        big_b = a - k * tau
    f_a = _f(big_a, a, phi2, v, d2, tau2)
    f_b = _f(big_b, a, phi2, v, d2, tau2)
    steps = 0
    while abs(big_b - big_a) > CONVERGENCE:
        if steps == max_iterations:
            return np.nan
        xc = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        fc = _f(xc, a, phi2, v, d2, tau2)
        if fc * f_b <= 0.0:
            big_a = big_b
            f_a = f_b
        else:
            f_a = f_a / 2.0
        big_b = xc
        f_b = fc
        steps += 1
    return math.exp(big_a / 2.0)


@njit(cache=True)
def _decayed(phi: float, sigma: float, periods: int, cap: float) -> float:
    # calculator.decayed_phi for one entry
    if periods <= 0:
        return phi
    step = SCALE * sigma
    return math.sqrt(min(phi * phi + periods * (step * step), cap * cap))


@njit(cache=True)
def _rate(
    index: int, nk: int, pk_number: Any, ns: int, s_player: Any, s_opp: Any, s_score: Any, s_game: Any,
    mu: Any, phi: Any, sigma: Any, last: Any, tau: float, cap: float, multiplier: float,
    start_mu: Any, start_phi: Any, start_sigma: Any, g_key: Any, vsum: Any, gain: Any,
    tot_w: Any, tot_e: Any, tot_rt: Any, tot_rc: Any, nt: Any, side_out: Any, e_side: Any, new: Any,
    max_iterations: int,
) -> bool:
    """_close over arrays: one period's keys rated from their start ratings; False where a
    volatility does not converge."""
    for j in range(nk):
        number = pk_number[j]
        lj = last[number]
        new[j] = lj == NEW
        idle = 0 if lj == NEW else index - lj - 1
        start_mu[j] = mu[number]
        start_sigma[j] = sigma[number]
        start_phi[j] = _decayed(phi[number], sigma[number], idle, cap)
        p = start_phi[j] / SCALE
        g_key[j] = 1.0 / math.sqrt(1.0 + p * p * _G_FACTOR)
        vsum[j] = 0.0
        gain[j] = 0.0
        tot_w[j] = 0.0
        tot_e[j] = 0.0
        tot_rt[j] = 0.0
        tot_rc[j] = 0.0
        nt[j] = 0
    for s in range(ns):
        pl = s_player[s]
        op = s_opp[s]
        g = g_key[op]
        e = 1.0 / (1.0 + math.exp(-g * ((start_mu[pl] - CENTER) / SCALE - (start_mu[op] - CENTER) / SCALE)))
        e_side[s] = e
        vsum[pl] += g * g * e * (1.0 - e)
        gain[pl] += g * (s_score[s] - e)
    for j in range(nk):
        number = pk_number[j]
        m = (start_mu[j] - CENTER) / SCALE
        p = start_phi[j] / SCALE
        v = 1.0 / vsum[j]
        sigma_new = _volatility(start_sigma[j], p * p, v, v * gain[j], tau, max_iterations)
        if math.isnan(sigma_new):
            return False
        phi_star = math.sqrt(p * p + sigma_new * sigma_new)
        phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        mu_new = m + phi_new * phi_new * gain[j]
        vsum[j] = phi_new  # kept for the sides' changes
        mu[number] = mu_new * SCALE + CENTER
        phi[number] = phi_new * SCALE
        sigma[number] = sigma_new
        last[number] = index
    for s in range(ns):
        pl = s_player[s]
        op = s_opp[s]
        e = e_side[s]
        g = g_key[op]
        p_new = vsum[pl]
        change = p_new * p_new * (g * (s_score[s] - e)) * SCALE
        row = side_out[s_game[s]]
        at = _SIDE * (s & 1)
        row[at] = start_mu[pl]
        row[at + 1] = start_mu[op]
        row[at + 2] = start_phi[op]
        row[at + 3] = g
        row[at + 4] = e
        row[at + 5] = change
        tot_w[pl] += s_score[s]
        tot_e[pl] += e
        tot_rt[pl] += change
        tot_rc[pl] += start_mu[op]
        nt[pl] += 1
    return True


@njit(cache=True)
def _rate_arrays(mu: Any, phi: Any, sigma: Any, player: Any, opponent: Any, score: Any, tau: float,
                 g_key: Any, e: Any, change: Any, mu_new: Any, phi_new: Any, sigma_new: Any,
                 max_iterations: int) -> bool:
    """batch.rate_period into the given arrays; False where a volatility does not converge."""
    n_keys = len(mu)
    m = (mu - CENTER) / SCALE
    p = phi / SCALE
    vsum = np.zeros(n_keys)
    gain = np.zeros(n_keys)
    for j in range(n_keys):
        g_key[j] = 1.0 / math.sqrt(1.0 + p[j] * p[j] * _G_FACTOR)
    for s in range(len(player)):
        g = g_key[opponent[s]]
        es = 1.0 / (1.0 + math.exp(-g * (m[player[s]] - m[opponent[s]])))
        e[s] = es
        vsum[player[s]] += g * g * es * (1.0 - es)
        gain[player[s]] += g * (score[s] - es)
    for j in range(n_keys):
        v = 1.0 / vsum[j]
        sn = _volatility(sigma[j], p[j] * p[j], v, v * gain[j], tau, max_iterations)
        if math.isnan(sn):
            return False
        phi_star = math.sqrt(p[j] * p[j] + sn * sn)
        pn = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        vsum[j] = pn
        mu_new[j] = (m[j] + pn * pn * gain[j]) * SCALE + CENTER
        phi_new[j] = pn * SCALE
        sigma_new[j] = sn
    for s in range(len(player)):
        pn = vsum[player[s]]
        change[s] = pn * pn * (g_key[opponent[s]] * (score[s] - e[s])) * SCALE
    return True


def rate_period(mu: np.ndarray, phi: np.ndarray, sigma: np.ndarray, sides: Sides, tau: float) -> PeriodUpdate:
    """batch.rate_period in compiled code (exp and log from libm): the periods the Python runner
    keeps open are rated with it."""
    n = mu.size
    g_key, mu_new, phi_new, sigma_new = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    e, change = np.empty(sides.player.size), np.empty(sides.player.size)
    if not _rate_arrays(np.ascontiguousarray(mu, dtype=np.float64), np.ascontiguousarray(phi, dtype=np.float64),
                        np.ascontiguousarray(sigma, dtype=np.float64), sides.player, sides.opponent,
                        sides.score, tau, g_key, e, change, mu_new, phi_new, sigma_new, calculator.MAX_ITERATIONS):
        raise VolatilityNotConverged(f"volatility not converged after {calculator.MAX_ITERATIONS} iterations")
    return PeriodUpdate(g_key, e, change, mu_new, phi_new, sigma_new)


@njit(cache=True)
def _history(
    period: Any, home_key: Any, away_key: Any, home_score: Any, counts: Any,
    key_number: Any, key_group: Any, key_has_race: Any, group_first: Any, group_len: Any, group_members: Any,
    mu: Any, phi: Any, sigma: Any, last: Any, n_state: int,
    mu0: float, phi0: float, sigma0: float, tau: float, cap: float, multiplier: float, cross: bool,
    side_out: Any, new_keys: Any, sum_f: Any, sum_i: Any, sum_period: Any, max_iterations: int,
) -> tuple[int, int, int]:
    """Every period of the games rated in turn: rows' figures, summaries, new keys, ratings.

    Returns (keys numbered, summaries written, −1 or the game whose period did not converge)."""
    n = len(period)
    n_keys = len(key_number)
    pos = np.full(n_keys, -1, dtype=np.int64)  # a key's position in the open period
    excluded = np.zeros(n_keys, dtype=np.int64)  # rows not counted, per key, in the open period
    touched = np.empty(2 * n + 1, dtype=np.int64)
    n_touched = 0
    pk_number = np.empty(2 * n + 1, dtype=np.int64)
    pk_key = np.empty(2 * n + 1, dtype=np.int64)
    s_player = np.empty(2 * n + 1, dtype=np.int64)
    s_opp = np.empty(2 * n + 1, dtype=np.int64)
    s_score = np.empty(2 * n + 1)
    s_game = np.empty(2 * n + 1, dtype=np.int64)
    work = np.empty((10, 2 * n + 1))
    nt = np.empty(2 * n + 1, dtype=np.int64)
    new = np.empty(2 * n + 1, dtype=np.bool_)
    e_side = np.empty(2 * n + 1)
    # a new key's cross-race start reads its coach's keys, the state's among them: as many as a group holds
    starts = np.empty(len(group_members))
    phis = np.empty(len(group_members))
    nk = 0
    ns = 0
    n_new = 0
    n_sum = 0
    period_seq = -1
    i = 0
    while i <= n:
        if i == n or (i > 0 and period[i] != period[i - 1]):
            # the period ends: rate it
            index = period[i - 1]
            if ns:
                ok = _rate(index, nk, pk_number, ns, s_player, s_opp, s_score, s_game, mu, phi, sigma, last,
                           tau, cap, multiplier, work[0], work[1], work[2], work[3], work[4], work[5],
                           work[6], work[7], work[8], work[9], nt, side_out, e_side, new, max_iterations)
                if not ok:
                    return n_new, n_sum, i - 1
                for j in range(nk):
                    f = sum_f[n_sum]
                    f[0] = work[0][j] - multiplier * work[1][j]
                    f[1] = mu[pk_number[j]] - multiplier * phi[pk_number[j]]
                    f[2] = work[6][j]
                    f[3] = work[7][j]
                    f[4] = work[8][j]
                    f[5] = work[9][j] / nt[j]
                    f[6] = mu[pk_number[j]]
                    f[7] = phi[pk_number[j]]
                    f[8] = sigma[pk_number[j]]
                    f[9] = work[0][j]
                    f[10] = work[1][j]
                    f[11] = work[2][j]
                    sum_i[n_sum, 0] = pk_key[j]
                    sum_i[n_sum, 1] = nt[j]
                    sum_i[n_sum, 2] = nt[j] + excluded[pk_key[j]]
                    sum_i[n_sum, 3] = 1 if new[j] else 0
                    sum_period[n_sum] = period_seq
                    n_sum += 1
            for j in range(nk):
                pos[pk_key[j]] = -1
            for j in range(n_touched):
                excluded[touched[j]] = 0
            nk = 0
            ns = 0
            n_touched = 0
            if i == n:
                break
        if i == 0 or period[i] != period[i - 1]:
            period_seq += 1
        index = period[i]
        if not counts[i]:
            for column in range(2 * _SIDE):
                side_out[i, column] = np.nan
            for side in range(2):
                key = home_key[i] if side == 0 else away_key[i]
                if key >= 0:
                    if excluded[key] == 0:
                        touched[n_touched] = key
                        n_touched += 1
                    excluded[key] += 1
            i += 1
            continue
        for side in range(2):
            key = home_key[i] if side == 0 else away_key[i]
            if pos[key] >= 0:
                continue
            number = key_number[key]
            if number < 0:
                # a new key: cross-race from the coach's other keys as they stand now
                number = n_state + n_new
                key_number[key] = number
                new_keys[n_new] = key
                n_new += 1
                grp = key_group[key]
                first = group_first[grp]
                count = group_len[grp]
                if cross and key_has_race[key] and count >= 2:
                    for m in range(count):
                        other = group_members[first + m]
                        lo = last[other]
                        starts[m] = mu[other]
                        phis[m] = phi[other] if lo == NEW else _decayed(phi[other], sigma[other], index - lo - 1, cap)
                    ordered = np.sort(starts[:count])
                    half = count // 2
                    median = ordered[half] if count % 2 else (ordered[half - 1] + ordered[half]) / 2
                    top = phis[0]
                    for m in range(1, count):
                        if phis[m] > top:
                            top = phis[m]
                    mu[number] = median
                    phi[number] = top
                else:
                    mu[number] = mu0
                    phi[number] = phi0
                sigma[number] = sigma0
                last[number] = NEW
                group_members[first + count] = number
                group_len[grp] = count + 1
            pos[key] = nk
            pk_number[nk] = number
            pk_key[nk] = key
            nk += 1
        h = pos[home_key[i]]
        a = pos[away_key[i]]
        s_player[ns] = h
        s_opp[ns] = a
        s_score[ns] = home_score[i]
        s_game[ns] = i
        s_player[ns + 1] = a
        s_opp[ns + 1] = h
        s_score[ns + 1] = 1.0 - home_score[i]
        s_game[ns + 1] = i
        ns += 2
        i += 1
    return n_new, n_sum, -1


@njit(cache=True)
def final_ratings(period: Any, home_key: Any, away_key: Any, home_score: Any, mu: Any, phi: Any, sigma: Any,
                  last: Any, tau: float, cap: float) -> None:
    """The bare update: every period of the arrays rated into mu, phi, sigma in place (start
    ratings as given, every game counted), no rows, no summaries: the benchmark's floor."""
    n = len(period)
    n_keys = len(mu)
    pos = np.full(n_keys, -1, dtype=np.int64)
    members = np.empty(n_keys, dtype=np.int64)
    g_key = np.empty(n_keys)
    vsum = np.empty(n_keys)
    gain = np.empty(n_keys)
    m_start = np.empty(n_keys)
    first = 0
    nk = 0
    for i in range(n + 1):
        if i == n or (i > first and period[i] != period[first]):
            index = period[first]
            for j in range(nk):
                k = members[j]
                idle = 0 if last[k] == NEW else index - last[k] - 1
                phi[k] = _decayed(phi[k], sigma[k], idle, cap)
                p = phi[k] / SCALE
                g_key[j] = 1.0 / math.sqrt(1.0 + p * p * _G_FACTOR)
                m_start[j] = (mu[k] - CENTER) / SCALE
                vsum[j] = 0.0
                gain[j] = 0.0
            for t in range(first, i):
                h = pos[home_key[t]]
                a = pos[away_key[t]]
                for pl, op, s in ((h, a, home_score[t]), (a, h, 1.0 - home_score[t])):
                    g = g_key[op]
                    e = 1.0 / (1.0 + math.exp(-g * (m_start[pl] - m_start[op])))
                    vsum[pl] += g * g * e * (1.0 - e)
                    gain[pl] += g * (s - e)
            for j in range(nk):
                k = members[j]
                p = phi[k] / SCALE
                v = 1.0 / vsum[j]
                sigma_new = _volatility(sigma[k], p * p, v, v * gain[j], tau, 100)  # calculator.MAX_ITERATIONS
                phi_star = math.sqrt(p * p + sigma_new * sigma_new)
                phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
                mu[k] = (m_start[j] + phi_new * phi_new * gain[j]) * SCALE + CENTER
                phi[k] = phi_new * SCALE
                sigma[k] = sigma_new
                last[k] = index
                pos[k] = -1
            nk = 0
            first = i
            if i == n:
                break
        for k in (home_key[i], away_key[i]):
            if pos[k] < 0:
                pos[k] = nk
                members[nk] = k
                nk += 1


# --- the wrapper ----------------------------------------------------------------------------------


@dataclass
class ColumnsResult:
    """A run's output as columns: per game its two rows' figures (NaN where it does not count),
    per summary its figures, in run_history's order."""

    columns: GlickoColumns
    config: GlickoConfig
    sides: np.ndarray  # (games, 12): home r0, rc, opponent_phi, g, we, rt, then away's
    summary_floats: np.ndarray  # (summaries, 12): _SUMMARY_FLOATS
    summary_ints: np.ndarray  # (summaries, 4): key (index in columns.keys), nt, games played, is_start
    summary_period: np.ndarray  # the period's position in columns.numbers

    def rows(self) -> list[CalculationRow]:
        """The calculation rows, two a game (one a bye), as run_history gives them."""
        c = self.columns
        games = c.games
        n = len(c)
        byes = bool((c.away_key < 0).any())
        keep = [True, True] * n
        if byes:
            keep[1::2] = (c.away_key >= 0).tolist()
        skipped = np.flatnonzero(~c.counts).tolist()

        def pair(home: Iterable[Any], away: Iterable[Any]) -> list[Any]:
            both: list[Any] = [None] * (2 * n)
            both[0::2] = home
            both[1::2] = away
            return list(compress(both, keep)) if byes else both

        def numbers(column: int) -> list[Any]:
            both: list[Any] = [None] * (2 * n)
            both[0::2] = self.sides[:, column].tolist()
            both[1::2] = self.sides[:, _SIDE + column].tolist()
            for i in skipped:
                both[2 * i] = both[2 * i + 1] = None
            return list(compress(both, keep)) if byes else both

        per_race = self.config.per_race
        ids, played_at, variants, homes, aways, home_races, away_races = zip(*map(python._ROW_FIELDS, games))
        labels = np.array(c.labels, dtype=object)[np.searchsorted(np.array(c.numbers), c.period)].tolist()
        reasons = c.reasons
        return build_many(CalculationRow, {
            "game_id": pair(ids, ids), "side": pair([HOME] * n, [AWAY] * n),
            "coach": pair(homes, aways), "race": pair(home_races, away_races) if per_race else repeat(None),
            "variant": pair(variants, variants), "opponent": pair(aways, homes),
            "opponent_race": pair(away_races, home_races), "played_at": pair(played_at, played_at),
            "period": pair(labels, labels), "w": pair(c.home_score.tolist(), (1.0 - c.home_score).tolist()),
            "counted": pair(c.counts.tolist(), c.counts.tolist()), "reason": pair(reasons, reasons),
            "r0": numbers(0), "rc": numbers(1), "opponent_phi": numbers(2), "g": numbers(3), "we": numbers(4),
            "rt": numbers(5),
        })

    def summaries(self) -> list[PeriodSummary]:
        """One summary per key that played counted games in a period, periods in order."""
        c = self.columns
        f = self.summary_floats
        ints = self.summary_ints
        keys = [c.keys[index] for index in ints[:, 0].tolist()]
        coaches, races, variants = zip(*keys) if keys else ((), (), ())
        seq = self.summary_period.tolist()
        columns: dict[str, Any] = {name: f[:, at].tolist() for at, name in enumerate(_SUMMARY_FLOATS)}
        return build_many(PeriodSummary, {
            **columns, "coach": coaches, "race": races, "variant": variants,
            "period": [c.labels[s] for s in seq], "effective": [c.ends[s] + _ONE_DAY for s in seq],
            "nt": ints[:, 1].tolist(), "games_played": ints[:, 2].tolist(),
            "is_start": ints[:, 3].astype(np.bool_).tolist(),
        })


def run_columns(columns: GlickoColumns, config: GlickoConfig, state: GlickoState) -> ColumnsResult:
    """Rate every period of the games (in play order, after `state`, nothing open in it) in
    compiled code; `state` is updated in place, as the Python runner leaves it after closing them."""
    n = len(columns)
    keys = columns.keys
    n_state = len(state.keys)
    if len(state.mu) < n_state + len(keys):
        state._grow(n_state + len(keys))
    key_group, groups = columns.key_group, columns.groups
    if n_state:
        key_number = np.fromiter((state.key_index.get(key, -1) for key in keys), np.int64, len(keys))
        existing = [state.coach_keys.get(group, ()) for group in groups]
        group_len = np.fromiter(map(len, existing), np.int64, len(groups))
    else:  # a run from the first game: every key is new
        key_number = np.full(len(keys), -1, dtype=np.int64)
        group_len = np.zeros(len(groups), dtype=np.int64)
    room = np.bincount(key_group[key_number < 0], minlength=len(groups))
    group_first = np.zeros(len(groups), dtype=np.int64)
    np.cumsum((group_len + room)[:-1], out=group_first[1:])
    group_members = np.empty(int((group_len + room).sum()), dtype=np.int64)
    if n_state:
        for first, members in zip(group_first.tolist(), existing):
            if members:
                group_members[first:first + len(members)] = members
    held = group_len.copy()
    sides = np.empty((n, 2 * _SIDE))  # the loop writes every game's: NaN where it does not count
    new_keys = np.empty(len(keys), dtype=np.int64)
    sum_f = np.empty((2 * n, len(_SUMMARY_FLOATS)))
    sum_i = np.empty((2 * n, 4), dtype=np.int64)
    sum_period = np.empty(2 * n, dtype=np.int64)
    n_new, n_sum, failed = _history(
        columns.period, columns.home_key, columns.away_key, columns.home_score, columns.counts,
        key_number, key_group, columns.key_has_race, group_first, group_len, group_members,
        state.mu, state.phi, state.sigma, state.last, n_state,
        config.mu0, config.phi0, config.sigma0, config.tau, config.decay_cap, config.value_phi_multiplier,
        config.cross_race_start, sides, new_keys, sum_f, sum_i, sum_period, calculator.MAX_ITERATIONS,
    )
    if failed >= 0:
        raise VolatilityNotConverged(f"volatility not converged after {calculator.MAX_ITERATIONS} iterations "
                                     f"in the period of game {columns.games[failed].game_id}")
    added = [keys[index] for index in new_keys[:n_new].tolist()]
    state.key_index.update(zip(added, range(n_state, n_state + n_new)))
    state.keys.extend(added)
    # the loop appended each new key to its group's members: those are the coach's keys now
    grown = np.flatnonzero(group_len != held).tolist()
    numbers = group_members.tolist()
    firsts = group_first.tolist()
    lengths = group_len.tolist()
    state.coach_keys.update({groups[g]: tuple(numbers[firsts[g]:firsts[g] + lengths[g]]) for g in grown})
    state.periods_closed += len(columns.numbers)
    state.periods_opened += len(columns.numbers)
    if n:
        last = columns.games[-1]
        state.last_played = (last.played_at, last.game_id)
    return ColumnsResult(columns, config, sides, sum_f[:n_sum], sum_i[:n_sum], sum_period[:n_sum])


def run_history(
    games: Iterable[GameRecord], config: GlickoConfig, state: GlickoState | None = None, *, in_place: bool = False
) -> GlickoResult:
    """history.run_history with the periods that close within the run rated in compiled code:
    the same arguments, the same result."""
    start = GlickoState() if state is None else state
    if config.period == "event":
        return run_in_order(partial(python._run, config=config, rate=rate_period), list(games), start,
                            in_place=in_place)
    return run_in_order(partial(_run, config=config), list(games), start, in_place=in_place)


def close_periods(state: GlickoState, config: GlickoConfig, until: date, *, in_place: bool = False) -> GlickoResult:
    """history.close_periods, the periods rated by the compiled step."""
    if not any(p.end < until for p in state.open_periods.values()):
        return GlickoResult(state, [], [])
    with paused_gc():
        result = GlickoResult(state if in_place else state.copy(), [], [])
        python._close_ended(result, config, until, rate_period)
    return result


def _run(games: list[GameRecord], state: GlickoState, *, config: GlickoConfig) -> GlickoResult:
    """history._run: the games up to the end of the periods the state holds open and those of the
    last period in Python (they stay open periods), the periods between compiled."""
    result = GlickoResult(state, [], [])
    if not games:
        return result
    held = max((p.end for p in state.open_periods.values()), default=None)
    head = 0
    if held is not None:
        while head < len(games) and games[head].played_at.date() <= held:
            head += 1
    last_number = calendar_period(games[-1].played_at.date(), config).number
    tail = len(games)
    while tail > head and calendar_period(games[tail - 1].played_at.date(), config).number == last_number:
        tail -= 1
    if head:
        more = python._run(games[:head], state, config=config, rate=rate_period)
        result.rows.extend(more.rows)
        result.summaries.extend(more.summaries)
    middle = games[head:tail]
    if middle:
        _check_order(middle, state.last_played)
        first_day = middle[0].played_at.date()
        python._close_ended(result, config, first_day, rate_period)
        if any(p.end >= first_day for p in state.open_periods.values()):  # a period left open across
            more = python._run(games[head:], state, config=config, rate=rate_period)
            result.rows.extend(more.rows)
            result.summaries.extend(more.summaries)
            return result
        out = run_columns(columns_of(middle, config), config, state)
        result.rows.extend(out.rows())
        result.summaries.extend(out.summaries())
    more = python._run(games[tail:], state, config=config, rate=rate_period)
    result.rows.extend(more.rows)
    result.summaries.extend(more.summaries)
    return result


def _check_order(games: list[GameRecord], last_played: tuple[datetime, int] | None) -> None:
    """history._run's check: each game after the one before it (and after the state's last)."""
    last_t, last_id = last_played or (games[0].played_at, games[0].game_id - 1)
    for g in games:
        t = g.played_at
        if t <= last_t and (t < last_t or g.game_id <= last_id):
            raise python._out_of_order(g, last_t, last_id)
        last_t = t
        last_id = g.game_id


def warm_up() -> None:
    """Compile (or load from the cache) every kernel: a worker calls it at start, so that no run,
    and no request, waits for a compile."""
    day = datetime(2020, 1, 1)
    games = [GameRecord(1, day, 1, "v", 1, "orc", 2, "elf", 1.0), GameRecord(2, day, 1, "v", 3, "orc", None, None,
                                                                             1.0, kind="bye"),
             GameRecord(3, day + timedelta(days=40), 1, "v", 1, "elf", 2, "elf", 0.5)]
    run_history(games, GlickoConfig())
    columns = columns_of(games[:1], GlickoConfig())
    final_ratings(columns.period, columns.home_key, columns.away_key, columns.home_score, np.full(2, 1500.0),
                  np.full(2, 350.0), np.full(2, 0.06), np.full(2, NEW, dtype=np.int64), 0.2, 350.0)


if __name__ == "__main__":
    import time

    began = time.perf_counter()
    warm_up()
    print(f"Glicko kernels compiled or loaded in {time.perf_counter() - began:.2f} s")
