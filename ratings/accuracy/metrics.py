"""Measures of a prediction against a result: plain numpy, no Django.

`expected` is the predicted score of one side (its probability of winning, a draw counting half),
`score` what that side scored: 1, 0.5 or 0. Each measure is a mean over games; lower is better
except for the favourite's share.
"""
from __future__ import annotations

import numpy as np

# A prediction of exactly 0 or 1 that is wrong would cost an infinite log loss.
EPSILON = 1e-12


def score_log_loss(expected: np.ndarray, score: np.ndarray) -> float:
    """Mean −[S·ln p + (1 − S)·ln(1 − p)]: the cross-entropy of the score, a draw counting half."""
    p = np.clip(np.asarray(expected, dtype=float), EPSILON, 1 - EPSILON)
    s = np.asarray(score, dtype=float)
    return float(np.mean(-(s * np.log(p) + (1 - s) * np.log1p(-p)))) if len(p) else float("nan")


def brier_score(expected: np.ndarray, score: np.ndarray) -> float:
    """Mean (p − S)²."""
    p, s = np.asarray(expected, dtype=float), np.asarray(score, dtype=float)
    return float(np.mean((p - s) ** 2)) if len(p) else float("nan")


def favourite_share(expected: np.ndarray, score: np.ndarray) -> tuple[float, int]:
    """Of the decisive games with a favourite (a prediction other than exactly 0.5), the share the
    favourite won, and how many such games there were."""
    p, s = np.asarray(expected, dtype=float), np.asarray(score, dtype=float)
    decisive = (s != 0.5) & (p != 0.5)
    games = int(np.count_nonzero(decisive))
    won = np.count_nonzero((p[decisive] > 0.5) == (s[decisive] == 1.0))
    return (won / games if games else float("nan")), games


CALIBRATION_BINS = 10


def calibration(expected: np.ndarray, score: np.ndarray, bins: int = CALIBRATION_BINS) -> list[dict]:
    """The predictions in `bins` equal bins of the expected score (the last one includes 1): per bin
    its range, count, mean expected and mean observed score (None where a bin is empty)."""
    p, s = np.asarray(expected, dtype=float), np.asarray(score, dtype=float)
    which = np.minimum((p * bins).astype(np.int64), bins - 1)
    counts = np.bincount(which, minlength=bins)
    sum_p, sum_s = np.bincount(which, p, minlength=bins), np.bincount(which, s, minlength=bins)
    return [
        {"low": b / bins, "high": (b + 1) / bins, "games": int(counts[b]),
         "expected": float(sum_p[b] / counts[b]) if counts[b] else None,
         "observed": float(sum_s[b] / counts[b]) if counts[b] else None}
        for b in range(bins)
    ]


def before_each(groups: np.ndarray, times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each item, the sum of `values` and the count of the items of its group at strictly
    earlier times: what was known before it (items at the same instant do not see each other)."""
    n = len(groups)
    if not n:
        return np.zeros(0), np.zeros(0)
    order = np.lexsort((times, groups))
    g, t, v = groups[order], times[order], np.asarray(values, dtype=float)[order]
    total = np.cumsum(v) - v  # exclusive, within the whole sorted stream
    count = np.arange(n, dtype=float)
    new_group = np.r_[True, g[1:] != g[:-1]]
    new_instant = new_group | np.r_[True, t[1:] != t[:-1]]
    group_start = np.maximum.accumulate(np.where(new_group, np.arange(n), 0))
    instant_start = np.maximum.accumulate(np.where(new_instant, np.arange(n), 0))
    # what came before the item's instant, less what came before its group
    sums = total[instant_start] - total[group_start]
    counts = count[instant_start] - count[group_start]
    out_sums, out_counts = np.empty(n), np.empty(n)
    out_sums[order], out_counts[order] = sums, counts
    return out_sums, out_counts


# The race-against-race table: a first meeting predicts 0.5, worth this many games (races differ little).
RACE_PRIOR_GAMES = 20.0


def race_table_expected(race: np.ndarray, opponent_race: np.ndarray, times: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The expected score of each game's side from the earlier games of its race against the
    opponent's race (both ways round: a side's win is the other race's loss), shrunk towards 0.5."""
    n = len(race)
    races = np.r_[race, opponent_race].astype(np.int64)
    opponents = np.r_[opponent_race, race].astype(np.int64)
    pair = races * (int(max(races.max(initial=0), opponents.max(initial=0))) + 1) + opponents
    s = np.asarray(score, dtype=float)
    sums, counts = before_each(pair, np.r_[times, times], np.r_[s, 1 - s])
    return ((sums[:n] + RACE_PRIOR_GAMES * 0.5) / (counts[:n] + RACE_PRIOR_GAMES))


# The draw model: the draw rate of earlier games by how one-sided the prediction was.
DRAW_BINS = 10
DRAW_PRIOR_RATE, DRAW_PRIOR_GAMES = 0.2, 20.0


def draw_rate_expected(expected: np.ndarray, times: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Each game's draw probability: the share of draws among the earlier games whose prediction
    was as one-sided (|p − 0.5| in ten bins of 0.05), shrunk towards 20 % by 20 games."""
    p, s = np.asarray(expected, dtype=float), np.asarray(score, dtype=float)
    which = np.minimum((np.abs(p - 0.5) * 2 * DRAW_BINS).astype(np.int64), DRAW_BINS - 1)
    draws, counts = before_each(which, times, (s == 0.5).astype(float))
    return (draws + DRAW_PRIOR_RATE * DRAW_PRIOR_GAMES) / (counts + DRAW_PRIOR_GAMES)


def outcome_log_loss(expected: np.ndarray, draw: np.ndarray, score: np.ndarray) -> float:
    """Mean −ln P(outcome) over win, draw and loss: P(draw) the draw model's, at most min(p, 1 − p) so
    that neither decisive result is ruled out; P(win) = p − P(draw)/2, P(loss) = 1 − p − P(draw)/2."""
    p = np.clip(np.asarray(expected, dtype=float), EPSILON, 1 - EPSILON)
    d = np.minimum(np.asarray(draw, dtype=float), np.minimum(p, 1 - p))
    s = np.asarray(score, dtype=float)
    chance = np.where(s == 1.0, p - d / 2, np.where(s == 0.0, 1 - p - d / 2, d))
    return float(np.mean(-np.log(np.maximum(chance, EPSILON)))) if len(p) else float("nan")
