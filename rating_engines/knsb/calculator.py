"""The KNSB formulas of ratings.md section 4, for one game and one player's list period: the reference.

    We = Φ((R0 − Rc)/σ), σ = 2000/7                 Rt = k·(W − We), Rtt = ΣRt
    LPR: Σ We(x − Rc) = Wt, rounded                  Rn = round(Rl + Rtt), kept between Rl and LPR
    Nv = min(100, Nv + Nt)                           unrated players: start rating Rs = LPR of a depot

The history runner (history.py) closes every player's period at once with NumPy (settlement.py);
its figures are these, bit for bit (tests/engines/test_knsb_fast_path.py).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date
from functools import cache
from typing import NamedTuple

import numpy as np

from ..common import GameRecord, round_half_away
from .normal import phi, solve_lpr

SIGMA = 2000.0 / 7.0
_SQRT2 = math.sqrt(2.0)

LIMIT_NONE = "none"
LIMIT_LPR = "lpr"
LIMIT_RL = "rl"


# --- list periods -------------------------------------------------------------------------------


def month_number(day: date) -> int:
    """The month of `day` as one number (year·12 + month − 1): list periods are counted in these."""
    return day.year * 12 + day.month - 1


@cache
def date_of_list(month: int) -> date:
    """The date of the list of month number `month`: its 1st (that list rates the month before)."""
    return date(month // 12, month % 12 + 1, 1)


def late_month(game: GameRecord) -> int | None:
    """The month whose list processes `game` when its result came late, else None (it goes in the
    list after the month it was played in).

    Late: reported after its event's end and on or after the 1st of the month after its play,
    when the list that would have rated it was out. It then goes into the list after the month it
    was reported in. A game reported by its event's end is on time, however long the event ran:
    history loaded in bulk counts as reported at its event's end.
    """
    reported = game.reported_on
    if reported is None or (game.event_end is not None and reported <= game.event_end):
        return None
    month = month_number(reported)
    return month if month > month_number(game.played_at) else None


def placements(game: GameRecord) -> list[tuple[int | None, GameRecord]]:
    """The records a run rates for `game`, each with the month whose list processes it (None: the
    list after its month of play), in that order.

    A game never corrected is itself (late_month). A correction made before the list that rated
    the result it replaces was out takes that result's place; one made after it goes forward as
    a late result does: into the list after the month of the correction, a record taking the old
    result back (reverses) and the corrected one, both with the ratings of the game's Lijstdatum.
    A correction that leaves W and the kind of game as they were changes nothing.
    """
    if not game.corrections:
        return [(late_month(game), game)]
    first = game.corrections[0]
    results = [(c.home_score, c.kind) for c in game.corrections[1:]] + [(game.home_score, game.kind)]
    held = replace(game, home_score=first.home_score, kind=first.kind, reported_on=first.reported_on, corrections=())
    month = late_month(held)
    played = month_number(game.played_at)
    out: list[tuple[int | None, GameRecord]] = []
    for correction, (score, kind) in zip(game.corrections, results):
        if (score, kind) == (held.home_score, held.kind):
            continue
        new = replace(held, home_score=score, kind=kind, reported_on=correction.corrected_on)
        corrected = month_number(correction.corrected_on)
        if corrected > (played if month is None else month):  # the list that rated `held` was out
            out += [(month, held), (corrected, replace(held, reverses=True))]
            month = corrected
        held = new
    out.append((month, held))
    return out


# --- one game -----------------------------------------------------------------------------------


def erf_scale(sigma: float) -> float:
    """The c with Φ(d/σ) = ½(1 + erf(c·d))."""
    return 1.0 / (sigma * _SQRT2)


def expected_score(diff: float, *, sigma: float = SIGMA, table: bool = False) -> float:
    """We for a rating difference R0 − Rc: Φ(diff/σ), the exact normal CDF (via math.erf).

    With `table` the value is rounded to 3 decimals as in the printed table: the better-rated
    side's value is rounded and the other side gets 1 minus it, so both sides still sum to 1.
    """
    if table:
        return table_we(diff, erf_scale(sigma))
    return 0.5 * (1.0 + math.erf(diff * erf_scale(sigma)))


def table_we(diff: float, c: float) -> float:
    """We of the printed table for R0 − Rc = `diff`, with c = erf_scale(σ)."""
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


def rating_change(k: float, w: float, we: float) -> float:
    """Rt = k·(W − We), unrounded."""
    return k * (w - we)


# --- one period ---------------------------------------------------------------------------------


def total(values: Iterable[float]) -> float:
    """The sum in order, one addition at a time (the list close's sums, so the same bits)."""
    result = 0.0
    for value in values:
        result += value
    return result


def has_extra_remise(wt: float, nt: int) -> bool:
    """At 0 % or 100 % a fictitious draw (the extra remise) enters the LPR equation."""
    return nt > 0 and (wt == 0.0 or wt == nt)


def performance_rating(opponent_ratings: Iterable[float], score: float, *, sigma: float = SIGMA) -> float:
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
    return float(solve_lpr(kid, rc, np.array([float(score)]), 1, sigma)[0])


def scores_at(lpr: float, opponent_ratings: list[float], sigma: float) -> list[float]:
    """Wx per game: Φ((LPR − Rc)/σ), by the tabulated Φ that the list close uses."""
    inv = 1.0 / sigma
    wx: list[float] = phi(np.array([(lpr - rc) * inv for rc in opponent_ratings])).tolist()
    return wx


class ListPerformance(NamedTuple):
    """The LPR of a period's counted games and the Wx it gives each of them."""

    exact: float  # the unrounded solution of the LPR equation
    lpr: float
    extra_remise: bool
    wx: list[float]
    wx_extra: float | None  # Wx of the extra remise (in Wxt)
    wxt: float


def list_performance(opponent_ratings: list[float], wt: float, extra_against: float, *,
                     sigma: float = SIGMA) -> ListPerformance:
    """LPR over the games against `opponent_ratings` scoring Wt, rounded half away from zero.

    At 0 % or 100 % the extra remise, a draw against `extra_against` (Rl, or Rct for a start
    rating), enters the equation and Wxt.
    """
    extra = has_extra_remise(wt, len(opponent_ratings))
    terms = [*opponent_ratings, extra_against] if extra else opponent_ratings
    exact = performance_rating(terms, wt + 0.5 if extra else wt, sigma=sigma)
    lpr = round_half_away(exact)
    wx = scores_at(lpr, opponent_ratings, sigma)
    wx_extra = scores_at(lpr, [extra_against], sigma)[0] if extra else None
    wxt = total(wx) if wx_extra is None else total(wx) + wx_extra
    return ListPerformance(exact, lpr, extra, wx, wx_extra, wxt)


def kept_between(rl: float, lpr: float, raw: float, margin: float = 0.0) -> tuple[float, str]:
    """Rn: `raw` kept between Rl and LPR (widened by `margin` on the LPR side), and the limit that
    applied. Beyond the LPR it is the LPR; moving away from the LPR it stays at Rl. When Rl = LPR
    both limits are the LPR's."""
    low = rl if rl < lpr else lpr - margin
    high = rl if rl > lpr else lpr + margin
    if raw > high:
        return high, LIMIT_RL if rl > lpr else LIMIT_LPR
    if raw < low:
        return low, LIMIT_RL if rl < lpr else LIMIT_LPR
    return raw, LIMIT_NONE


def nv_after(nv: int, nt: int, cap: int = 100) -> int:
    """Nv on the new list: min(cap, Nv + Nt)."""
    return min(cap, nv + nt)


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


def check_score(w: float) -> float:
    """W as a float; ValueError outside 0..1."""
    if not 0.0 <= w <= 1.0:
        raise ValueError(f"score W must lie between 0 and 1, got {w!r}")
    return float(w)


def rate_period(
    rl: float,
    nv: int,
    games: Iterable[PeriodGame | tuple[float | None, float, float] | tuple[float | None, float, float, int | None]],
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
    played = [g if isinstance(g, PeriodGame) else PeriodGame(*g) for g in games]
    if not played:
        return PeriodResult(rl, rl, nv, LIMIT_NONE, (), 0, 0.0, 0.0, 0.0, None, None, None, None,
                            False, None)
    r0 = [rl if g.r0 is None else float(g.r0) for g in played]
    rc = [float(g.rc) for g in played]
    w = [check_score(g.w) for g in played]
    k = [k_factor(r, nv if g.nv is None else g.nv, junior=junior) for r, g in zip(r0, played)]
    we = [expected_score(a - b, sigma=sigma, table=we_table) for a, b in zip(r0, rc)]
    rt = [rating_change(k_, w_, we_) for k_, w_, we_ in zip(k, w, we)]
    nt, wt, rtt = len(played), total(w), total(rt)
    lpr = list_performance(rc, wt, rl, sigma=sigma)
    rn, limitation = kept_between(rl, lpr.lpr, round_half_away(rl + rtt), lpr_margin)
    rows = tuple(PeriodRow(*values) for values in zip(r0, rc, w, we, k, rt, lpr.wx))
    return PeriodResult(rl, rn, nv_after(nv, nt, nv_cap), limitation, rows, nt, wt, total(we), rtt,
                        total(rc) / nt, lpr.wxt, lpr.lpr, lpr.exact, lpr.extra_remise, lpr.wx_extra)


# --- start ratings ------------------------------------------------------------------------------


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


def start_rating(
    games: Iterable[DepotGame | tuple[float, float] | tuple[float, float, date | None]],
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
        oldest = month_number(list_date) - months
        kept = [g for g in kept if g.played_on is None or month_number(g.played_on) >= oldest]
    if not kept or len(kept) < min_games:
        return None
    rc = [float(g.rc) for g in kept]
    wt = total(check_score(g.w) for g in kept)
    rct = total(rc) / len(kept)
    lpr = list_performance(rc, wt, rct, sigma=sigma)
    return StartRating(lpr.lpr, min(nv_cap, len(kept)), tuple(kept), tuple(lpr.wx), len(kept), wt, rct,
                       lpr.wxt, lpr.exact, lpr.extra_remise)
