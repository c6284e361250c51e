"""KNSB list rating (the Dutch chess federation's method) on monthly lists.

Lists are dated the 1st of each month; the list dated the 1st of month m rates the games played in
month m − 1. A game takes R0 and Rc from the list in force on its date of play (the latest list
dated on or before it, its "Lijstdatum"). A result reported late (late_month) goes into the list
after the month it was reported in, still with the ratings of its own Lijstdatum: a replay gives
those games to the run of that month, ahead of the month's own.

    calculator   the formulas for one game and one player's period (the reference)
    normal       Φ over arrays and the LPR equation for many players at once
    settlement   every player's period closed at once (the figures of the calculator)
    config       KnsbConfig;  state: KnsbState and what it holds
    run, lists, games, history   the runner: games in, lists out

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
from .calculator import (
    LIMIT_LPR,
    LIMIT_NONE,
    LIMIT_RL,
    SIGMA,
    DepotGame,
    PeriodGame,
    PeriodResult,
    PeriodRow,
    StartRating,
    expected_score,
    k_factor,
    late_month,
    performance_rating,
    placements,
    rate_period,
    start_rating,
)
from .config import KnsbConfig
from .history import close_periods, current_ratings, run_history
from .state import KnsbResult, KnsbState
from .state import _Period as _Period  # checkpoints pickled before the split name the open period here

__all__ = [
    "LIMIT_LPR", "LIMIT_NONE", "LIMIT_RL", "SIGMA", "DepotGame", "KnsbConfig", "KnsbResult", "KnsbState",
    "PeriodGame", "PeriodResult", "PeriodRow", "StartRating", "close_periods", "current_ratings", "expected_score", "k_factor",
    "late_month", "performance_rating", "placements", "rate_period", "run_history", "start_rating",
]
