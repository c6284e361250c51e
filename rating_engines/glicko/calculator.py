"""Glicko-2 for one player and one rating period, the steps of Glickman's "Example of the Glicko-2
system" (revised 2022: the new volatility by the Illinois method), and the federation's rules
around it (idle decay, a new race's start, the ranking value).

This is the reference: the history runner rates a whole period over arrays (batch.py) and is
tested equal to these functions. Ratings come and go on the rating scale (mu around 1500, phi 350
for a new rating); steps 3 to 7 work on Glickman's internal scale.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

SCALE = 173.7178
CENTER = 1500.0
CONVERGENCE = 1e-6  # Glickman's epsilon for the volatility iteration
MAX_ITERATIONS = 100  # each loop of the volatility iteration; far above the usual 5 to 10
_G_FACTOR = 3.0 / (math.pi * math.pi)

Numbers = float | np.ndarray  # one value, or one per rating key


class VolatilityNotConverged(ArithmeticError):
    """The Illinois iteration for the new volatility did not converge within MAX_ITERATIONS."""


@dataclass(frozen=True, slots=True)
class GlickoRating:
    """A Glicko-2 rating on the rating scale."""

    mu: float = 1500.0
    phi: float = 350.0
    sigma: float = 0.06


@dataclass(frozen=True, slots=True)
class ScaledResult:
    """One game of the period on the internal scale: the opponent's g and the player's E and score."""

    g: float
    e: float
    score: float


# --- step 2 and step 8: between the rating scale and the internal scale ---------------------------


def internal_mu(mu: float) -> float:
    return (mu - CENTER) / SCALE


def internal_phi(phi: float) -> float:
    return phi / SCALE


def on_rating_scale(mu: float, phi: float, sigma: float) -> GlickoRating:
    return GlickoRating(mu * SCALE + CENTER, phi * SCALE, sigma)


# --- steps 3 and 4: the estimated variance v and the improvement delta ----------------------------


def g(phi: float) -> float:
    """g(phi) = 1/√(1 + 3phi²/π²) on the internal scale: how much an opponent's uncertainty damps a game."""
    return 1.0 / math.sqrt(1.0 + phi * phi * _G_FACTOR)


def expected(mu: float, opponent_mu: float, opponent_g: float) -> float:
    """E(mu, mu_j, phi_j) = 1/(1 + exp(−g(phi_j)(mu − mu_j))) on the internal scale."""
    return 1.0 / (1.0 + math.exp(-opponent_g * (mu - opponent_mu)))


def scaled_results(mu: float, results: Iterable[tuple[GlickoRating, float]]) -> list[ScaledResult]:
    """The period's (opponent, score) pairs on the internal scale, for a player at internal `mu`."""
    out = []
    for opponent, score in results:
        opponent_g = g(internal_phi(opponent.phi))
        out.append(ScaledResult(opponent_g, expected(mu, internal_mu(opponent.mu), opponent_g), score))
    return out


def variance(results: Sequence[ScaledResult]) -> float:
    """Step 3: v = 1/Σ g²·E·(1 − E)."""
    total = 0.0
    for r in results:
        total += r.g * r.g * r.e * (1.0 - r.e)
    return 1.0 / total


def score_gain(results: Sequence[ScaledResult]) -> float:
    """Σ g·(s − E): step 4's delta is v times it, step 7 moves mu by phi'² times it."""
    total = 0.0
    for r in results:
        total += r.g * (r.score - r.e)
    return total


# --- step 5: the new volatility -----------------------------------------------------------------


def new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: sigma' by the Illinois method, the root of Glickman's f(x) with x = ln sigma'².

    Raises VolatilityNotConverged after MAX_ITERATIONS steps rather than loop.
    """
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    tau2 = tau * tau
    d2 = delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        w = phi2 + v + ex
        return ex * (d2 - phi2 - v - ex) / (2.0 * w * w) - (x - a) / tau2

    big_a = a
    big_b = math.log(d2 - phi2 - v) if d2 > phi2 + v else _lower_bracket(f, a, tau)
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


def _lower_bracket(f: Callable[[float], float], a: float, tau: float) -> float:
    """B = a − k·tau for the first k = 1, 2, ... with f(a − k·tau) ≥ 0."""
    k = 1
    while f(a - k * tau) < 0.0:
        k += 1
        if k > MAX_ITERATIONS:
            raise VolatilityNotConverged(f"no lower bracket after {MAX_ITERATIONS} steps")
    return a - k * tau


# --- steps 6 and 7: the new phi and mu ---------------------------------------------------------


def pre_period_phi(phi: float, sigma: float) -> float:
    """Step 6: phi* = √(phi² + sigma²), also the whole update of a player without games."""
    return math.sqrt(phi * phi + sigma * sigma)


def new_phi(phi_star: float, v: float) -> float:
    """Step 7: phi' = 1/√(1/phi*² + 1/v)."""
    return 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)


def new_mu(mu: float, phi_new: float, gain: float) -> float:
    """Step 7: mu' = mu + phi'²·Σ g·(s − E)."""
    return mu + phi_new * phi_new * gain


def rate(player: GlickoRating, results: Sequence[tuple[GlickoRating, float]], *, tau: float = 0.2) -> GlickoRating:
    """The player's rating after one period with `results`: (opponent GlickoRating, score) pairs.

    Opponents are taken at their start-of-period ratings. With no results only phi grows (step 6).
    Raises VolatilityNotConverged rather than loop.
    """
    mu = internal_mu(player.mu)
    phi = internal_phi(player.phi)
    sigma = player.sigma
    if not results:
        return GlickoRating(player.mu, pre_period_phi(phi, sigma) * SCALE, sigma)
    scaled = scaled_results(mu, results)
    v = variance(scaled)
    gain = score_gain(scaled)
    sigma_new = new_volatility(sigma, phi, v, v * gain, tau)
    phi_new = new_phi(pre_period_phi(phi, sigma_new), v)
    return on_rating_scale(new_mu(mu, phi_new, gain), phi_new, sigma_new)


# --- the federation's rules around the algorithm ----------------------------------------------------


def decayed_phi(phi: Numbers, sigma: Numbers, periods: Numbers, cap: float) -> np.ndarray:
    """phi after `periods` idle periods, floats or numpy arrays alike: phi² grows by
    (173.7178·sigma)² each, capped at `cap` (unchanged where periods is 0 or less).

    The one definition of the idle decay. It is the closed form of single steps: the cap is
    monotone, so min(phi² + n·s², cap²) equals applying min(phi² + s², cap²) n times.
    """
    step = SCALE * sigma
    grown = np.sqrt(np.minimum(phi * phi + periods * (step * step), cap * cap))
    return np.where(periods > 0, grown, phi)


def decay_step(sigma: float) -> float:
    """What φ² grows by in one idle period at volatility `sigma`: (173.7178·σ)², as decayed_phi adds it."""
    step = SCALE * sigma
    return step * step


def decay(player: GlickoRating, *, periods: int = 1, phi_cap: float | None = 350.0) -> GlickoRating:
    """The rating after `periods` idle periods (decayed_phi; no cap when phi_cap is None)."""
    if periods < 0:
        raise ValueError(f"periods must not be negative, got {periods!r}")
    if periods == 0:
        return player
    cap = math.inf if phi_cap is None else phi_cap
    return GlickoRating(float(player.mu), float(decayed_phi(player.phi, player.sigma, periods, cap)), player.sigma)


def initial_for_new_race(
    existing_ratings: Iterable[GlickoRating], *, mu0: float = 1500.0, phi0: float = 350.0, sigma0: float = 0.06
) -> GlickoRating:
    """Start rating of a coach's new race: with at least two existing ratings (median mu, max phi,
    sigma0), otherwise (mu0, phi0, sigma0)."""
    existing = list(existing_ratings)
    if len(existing) < 2:
        return GlickoRating(mu0, phi0, sigma0)
    return GlickoRating(float(statistics.median(r.mu for r in existing)), max(r.phi for r in existing), sigma0)


def display_value(rating: GlickoRating, multiplier: float = 2.5) -> float:
    """The ranking value mu − multiplier·phi."""
    return rating.mu - multiplier * rating.phi


# --- one game of a period, as a breakdown shows it (rating scale) -----------------------------------


def g_factor(phi: float) -> float:
    """Glickman's g(phi) for a rating-scale phi: how much an opponent's uncertainty damps a game."""
    return g(internal_phi(phi))


def expected_score(mu: float, opponent: GlickoRating) -> float:
    """Glickman's E: the expected score of a player at `mu` against `opponent` (rating scale)."""
    return 1.0 / (1.0 + math.exp(-g_factor(opponent.phi) * (mu - opponent.mu) / SCALE))


def game_change(mu: float, phi_after: float, opponent: GlickoRating, score: float) -> float:
    """One game's share of the period's change in mu, φ'²·g·(s − E), on the rating scale (the
    shares of a period's games add up to mu' − mu)."""
    share = (phi_after / SCALE) ** 2 * SCALE
    return share * g_factor(opponent.phi) * (score - expected_score(mu, opponent))
