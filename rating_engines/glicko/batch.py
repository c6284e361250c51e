"""The calculator's steps over arrays: one rating period for every key that played, at once.

The same arithmetic as calculator.rate, key by key, with the sums over a key's games taken in
order of play (tests hold the two equal). A period's games come in as sides: one entry per side,
home then away for each game.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from . import calculator
from .calculator import _G_FACTOR, CENTER, CONVERGENCE, SCALE, VolatilityNotConverged


class Sides(NamedTuple):
    """A period's counted games, two entries each (home, then away): positions in the period's keys."""

    player: np.ndarray
    opponent: np.ndarray
    score: np.ndarray

    @classmethod
    def of(cls, home_keys: list[int], away_keys: list[int], home_scores: list[float]) -> Sides:
        home = np.array(home_keys, dtype=np.intp)
        away = np.array(away_keys, dtype=np.intp)
        home_score = np.array(home_scores, dtype=float)
        player = np.empty(2 * home.size, dtype=np.intp)
        opponent = np.empty_like(player)
        score = np.empty(2 * home.size)
        player[0::2] = home
        player[1::2] = away
        opponent[0::2] = away
        opponent[1::2] = home
        score[0::2] = home_score
        score[1::2] = 1.0 - home_score
        return cls(player, opponent, score)


class PeriodUpdate(NamedTuple):
    """One period rated: per key (g at the start, and the new rating on the rating scale) and per side."""

    g: np.ndarray  # per key: g(phi) of its start rating
    expected: np.ndarray  # per side: E
    change: np.ndarray  # per side: the game's share of the change in mu, on the rating scale
    mu: np.ndarray  # per key, after the period
    phi: np.ndarray
    sigma: np.ndarray


def rate_period(mu: np.ndarray, phi: np.ndarray, sigma: np.ndarray, sides: Sides, tau: float) -> PeriodUpdate:
    """Steps 2 to 8 for every key of the period at once, from start ratings on the rating scale."""
    n_keys = mu.size
    player, opponent = sides.player, sides.opponent
    mu = (mu - CENTER) / SCALE
    phi = phi / SCALE
    g_key = 1.0 / np.sqrt(1.0 + phi * phi * _G_FACTOR)
    g = g_key[opponent]
    e = 1.0 / (1.0 + np.exp(-g * (mu[player] - mu[opponent])))
    v = 1.0 / np.bincount(player, weights=g * g * e * (1.0 - e), minlength=n_keys)
    gain = np.bincount(player, weights=g * (sides.score - e), minlength=n_keys)
    sigma_new = new_volatilities(sigma, phi * phi, v, v * gain, tau)
    phi_star = np.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / np.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * gain
    phi_new_p = phi_new[player]
    change = phi_new_p * phi_new_p * (g * (sides.score - e)) * SCALE
    return PeriodUpdate(g_key, e, change, mu_new * SCALE + CENTER, phi_new * SCALE, sigma_new)


def new_volatilities(sigma: np.ndarray, phi2: np.ndarray, v: np.ndarray, delta: np.ndarray, tau: float) -> np.ndarray:
    """Step 5 (calculator.new_volatility) for each entry, each iterated until it converges."""
    a = np.log(sigma * sigma)
    tau2 = tau * tau
    d2 = delta * delta

    def f(x: np.ndarray, at: np.ndarray) -> np.ndarray:
        ex = np.exp(x)
        p2 = phi2[at]
        vv = v[at]
        w = p2 + vv + ex
        slope: np.ndarray = ex * (d2[at] - p2 - vv - ex) / (2.0 * w * w) - (x - a[at]) / tau2
        return slope

    big_a = a.copy()
    big_b = np.empty_like(a)
    wide = d2 > phi2 + v
    big_b[wide] = np.log(d2[wide] - phi2[wide] - v[wide])
    _lower_brackets(f, a, tau, big_b, np.flatnonzero(~wide))
    everything = np.arange(a.size)
    f_a = f(big_a, everything)
    f_b = f(big_b, everything)
    active = np.flatnonzero(np.abs(big_b - big_a) > CONVERGENCE)
    steps = 0
    while active.size:
        if steps == calculator.MAX_ITERATIONS:
            raise VolatilityNotConverged(
                f"volatility not converged after {calculator.MAX_ITERATIONS} iterations for {active.size} rating(s)"
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
    volatility: np.ndarray = np.exp(big_a / 2.0)
    return volatility


def _lower_brackets(
    f: Callable[[np.ndarray, np.ndarray], np.ndarray], a: np.ndarray, tau: float, big_b: np.ndarray, pending: np.ndarray
) -> None:
    """Set big_b[i] = a[i] − k·tau for the first k with f ≥ 0, for each pending entry."""
    k = 1
    while pending.size:
        below = f(a[pending] - k * tau, pending) < 0.0
        done = pending[~below]
        big_b[done] = a[done] - k * tau
        pending = pending[below]
        k += 1
        if k > calculator.MAX_ITERATIONS and pending.size:
            raise VolatilityNotConverged(f"no lower bracket after {calculator.MAX_ITERATIONS} steps")
