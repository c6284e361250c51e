"""The standard normal CDF Φ over NumPy arrays, and the LPR equation solved for many players at once.

NumPy has no erf: Φ is tabulated as piecewise degree-7 polynomials interpolating math.erf at
Chebyshev points on intervals of 1/32 (error below 1e-15; tests check it).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import chebyshev

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

_PHI_STEP = 1.0 / 32.0
_PHI_TOP = 9.0  # Φ(9) is 1 to double precision
_PHI_DEGREE = 7
_PHI_INTERVALS = int(_PHI_TOP / _PHI_STEP)


def _phi_table() -> np.ndarray:
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
    def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if len(a) < len(b):
            a, b = b, a
        out = a.copy()
        out[:len(b)] += b
        return out

    def mulx(a: np.ndarray) -> np.ndarray:
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


def phi(z: np.ndarray) -> np.ndarray:
    """Φ(z) elementwise."""
    a = np.abs(z)
    i = (a * (1.0 / _PHI_STEP)).astype(np.intp)
    np.minimum(i, _PHI_INTERVALS, out=i)
    u = a * (2.0 / _PHI_STEP) - (2 * i + 1)
    coefs = _PHI_COEFS
    p: np.ndarray = coefs[_PHI_DEGREE].take(i)
    for d in range(_PHI_DEGREE - 1, -1, -1):
        p *= u
        p += coefs[d].take(i)
    np.copysign(p, z, out=p)
    p += 0.5
    return p


def solve_lpr(kid: np.ndarray, rc: np.ndarray, target: np.ndarray, nkeys: int,
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
        f = np.bincount(term_kid, phi(z), nkeys)[active] - target[active]
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


