"""Measures of a prediction against a result: plain numpy, no Django.

`expected` is the predicted score of one side (its probability of winning, a draw counting half),
`score` what that side scored: 1, 0.5 or 0. Each measure is a mean over games; lower is better
except for the favourite's share.
"""
from __future__ import annotations

import numpy as np

# A prediction of exactly 0 or 1 that is wrong would cost an infinite log loss.
EPSILON = 1e-12


def score_log_losses(expected: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Per game −[S·ln p + (1 − S)·ln(1 − p)]."""
    p = np.clip(np.asarray(expected, dtype=float), EPSILON, 1 - EPSILON)
    s = np.asarray(score, dtype=float)
    return -(s * np.log(p) + (1 - s) * np.log1p(-p))


def score_log_loss(expected: np.ndarray, score: np.ndarray) -> float:
    """Mean −[S·ln p + (1 − S)·ln(1 − p)]: the cross-entropy of the score, a draw counting half."""
    return _mean(score_log_losses(expected, score))


def brier_scores(expected: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Per game (p − S)²."""
    return (np.asarray(expected, dtype=float) - np.asarray(score, dtype=float)) ** 2


def brier_score(expected: np.ndarray, score: np.ndarray) -> float:
    """Mean (p − S)²."""
    return _mean(brier_scores(expected, score))


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def favourite_wins(expected: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game: whether it is decisive with a favourite (a prediction other than exactly 0.5: an
    even prediction names no favourite, so that game is left out), and whether the favourite won it."""
    p, s = np.asarray(expected, dtype=float), np.asarray(score, dtype=float)
    decisive = (s != 0.5) & (p != 0.5)
    return decisive, decisive & ((p > 0.5) == (s == 1.0))


def favourite_share(expected: np.ndarray, score: np.ndarray) -> tuple[float, int]:
    """Of the decisive games with a favourite (a prediction other than exactly 0.5), the share the
    favourite won, and how many such games there were."""
    decisive, won = favourite_wins(expected, score)
    games = int(np.count_nonzero(decisive))
    return (np.count_nonzero(won) / games if games else float("nan")), games


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
    order = None if np.all(times[1:] >= times[:-1]) else np.argsort(times, kind="stable")  # a report's are in order
    by_group = np.argsort(_narrow(groups if order is None else groups[order]), kind="stable")
    order = by_group if order is None else order[by_group]
    g, t, v = groups[order], times[order], np.asarray(values, dtype=float)[order]
    total = np.cumsum(v) - v  # exclusive, within the whole sorted stream
    new_group = np.r_[True, g[1:] != g[:-1]]
    new_instant = new_group | np.r_[True, t[1:] != t[:-1]]
    positions = np.arange(n)
    group_start = np.maximum.accumulate(np.where(new_group, positions, 0))
    instant_start = np.maximum.accumulate(np.where(new_instant, positions, 0))
    # what came before the item's instant, less what came before its group
    out_sums, out_counts = np.empty(n), np.empty(n)
    out_sums[order] = total[instant_start] - total[group_start]
    out_counts[order] = instant_start - group_start
    return out_sums, out_counts


def _narrow(codes: np.ndarray) -> np.ndarray:
    """Group codes as the narrowest integers that hold them: NumPy sorts 8- and 16-bit integers by
    radix, in a fraction of the time of 64-bit ones."""
    low, high = int(codes.min(initial=0)), int(codes.max(initial=0))
    for kind in (np.int8, np.int16):
        if np.iinfo(kind).min <= low and high <= np.iinfo(kind).max:
            return codes.astype(kind)
    return codes


# The race-against-race table: a first meeting predicts 0.5, worth this many games (races differ little).
RACE_PRIOR_GAMES = 20.0


def race_table_expected(race: np.ndarray, opponent_race: np.ndarray, times: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The expected score of each game's side from the earlier games of its race against the
    opponent's race (both ways round: a side's win is the other race's loss), shrunk towards 0.5.
    Kept once per pair of races, as the score of the lower-numbered race; a mirror match is 0.5."""
    race, opponent_race = np.asarray(race, dtype=np.int64), np.asarray(opponent_race, dtype=np.int64)
    low, high = np.minimum(race, opponent_race), np.maximum(race, opponent_race)
    pair = low * (int(high.max(initial=0)) + 1) + high
    s = np.asarray(score, dtype=float)
    low_side = race == low
    sums, counts = before_each(pair, times, np.where(low_side, s, 1 - s))
    low_expected = (sums + RACE_PRIOR_GAMES * 0.5) / (counts + RACE_PRIOR_GAMES)
    return np.where(race == opponent_race, 0.5, np.where(low_side, low_expected, 1 - low_expected))


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


def outcome_log_losses(expected: np.ndarray, draw: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Per game −ln P(outcome) over win, draw and loss: P(draw) the draw model's, at most min(p, 1 − p)
    so that neither decisive result is ruled out; P(win) = p − P(draw)/2, P(loss) = 1 − p − P(draw)/2."""
    p = np.clip(np.asarray(expected, dtype=float), EPSILON, 1 - EPSILON)
    d = np.minimum(np.asarray(draw, dtype=float), np.minimum(p, 1 - p))
    s = np.asarray(score, dtype=float)
    chance = np.where(s == 1.0, p - d / 2, np.where(s == 0.0, 1 - p - d / 2, d))
    return -np.log(np.maximum(chance, EPSILON))


def outcome_log_loss(expected: np.ndarray, draw: np.ndarray, score: np.ndarray) -> float:
    """Mean −ln P(outcome) over win, draw and loss (outcome_log_losses)."""
    return _mean(outcome_log_losses(expected, draw, score))


# what a group of games sums, from which every measure is a ratio (cell_sums, figures)
TERMS = ("games", "log_loss", "brier", "outcome_log_loss", "decisive", "won")


def cell_sums(expected: np.ndarray, draw: np.ndarray, score: np.ndarray, cell: np.ndarray, cells: int) -> np.ndarray:
    """Per cell 0 … cells − 1 (`cell`: each game's), the sum of each of TERMS over its games: an
    array TERMS × cells. Cells add up to any coarser group; `figures` turns a sum into the measures."""
    decisive, won = favourite_wins(expected, score)
    return np.stack([
        np.bincount(cell, minlength=cells).astype(float),
        *(np.bincount(cell, terms.astype(float), minlength=cells) for terms in (
            score_log_losses(expected, score), brier_scores(expected, score),
            outcome_log_losses(expected, draw, score), decisive, won,
        )),
    ])


def figures(sums: np.ndarray) -> dict:
    """The measures of a group of games from its sums of TERMS: the means of log loss, Brier and
    W/D/L log loss, the favourite's share of its decisive games (None where a group has none)."""
    total = dict(zip(TERMS, sums.tolist()))
    games, decisive = total["games"], round(total["decisive"])
    return {
        "log_loss": total["log_loss"] / games if games else None,
        "brier": total["brier"] / games if games else None,
        "favourite_share": total["won"] / decisive if decisive else None, "decisive": decisive,
        "outcome_log_loss": total["outcome_log_loss"] / games if games else None,
    }
