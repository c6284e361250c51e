"""The close of a list period for every player at once, over NumPy arrays: the fast path of
calculator.rate_period and calculator.start_rating (the same figures, bit for bit)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..common import round_half_away_array
from .calculator import LIMIT_LPR, LIMIT_NONE, LIMIT_RL
from .normal import phi, solve_lpr

_LIMIT_NAMES = (LIMIT_NONE, LIMIT_LPR, LIMIT_RL)


def kept_between(rl: np.ndarray, lpr: np.ndarray, raw: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """calculator.kept_between elementwise: the kept values and which limit applied (codes into
    _LIMIT_NAMES)."""
    up = rl < lpr
    down = rl > lpr
    low = np.where(up, rl, lpr - margin)
    high = np.where(down, rl, lpr + margin)
    above = raw > high
    below = raw < low
    kept = np.where(above, high, np.where(below, low, raw))
    code = np.where(above, np.where(down, 2, 1), np.where(below, np.where(up, 2, 1), 0))
    return kept, code


@dataclass(slots=True)
class Totals:
    """Per-player sums over counted games (lists indexed by player number kid) and per-game Wx."""

    wx: list[float]
    nt: list[int]
    wt: list[float]
    wet: list[float]
    rtt: list[float]
    rct: list[float]
    lpr_exact: list[float]
    lpr: list[float]
    wxt: list[float]
    extra: list[bool]  # True where an extra remise entered the LPR
    wx_extra: list[float]
    rn: list[float]  # with Rl: the new rating and the limit that applied (else empty)
    limitation: list[str]


def settle(kid: np.ndarray, rc: np.ndarray, w: np.ndarray, we: np.ndarray, rt: np.ndarray, nkeys: int, sigma: float,
           rl: Sequence[float] | np.ndarray | None = None, margin: float = 0.0) -> Totals:
    """Totals, LPR and Wx for the counted games of `nkeys` players (arrays over games; Rt given).

    The extra remise (score ½) enters a player's LPR equation at 0 % or 100 %, against Rl
    (`rl[kid]`), or against the player's Rct when `rl` is None (start rating). With `rl` also the
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
    x = solve_lpr(np.concatenate((kid, extra_keys)), np.concatenate((rc, against)),
                  wt + 0.5 * extra, nkeys, sigma)
    lpr = round_half_away_array(x)
    inv = 1.0 / sigma
    wx = phi((lpr[kid] - rc) * inv)
    wx_extra = phi((lpr[extra_keys] - against) * inv)
    wxt = np.bincount(kid, wx, nkeys)
    wxt[extra_keys] += wx_extra
    wx_by_key = np.full(nkeys, np.nan)
    wx_by_key[extra_keys] = wx_extra
    rn: list[float] = []
    limitation: list[str] = []
    if rl is not None:
        kept, code = kept_between(rl, lpr, round_half_away_array(rl + rtt), margin)
        rn = kept.tolist()
        limitation = [_LIMIT_NAMES[c] for c in code.tolist()]
    return Totals(
        wx.tolist(), nt.tolist(), wt.tolist(), np.bincount(kid, we, nkeys).tolist(),
        rtt.tolist(), rct.tolist(), x.tolist(), lpr.tolist(), wxt.tolist(), extra.tolist(),
        wx_by_key.tolist(), rn, limitation,
    )
