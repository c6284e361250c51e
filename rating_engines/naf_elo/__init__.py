"""NAF Elo ("Coach Rating", CR): one rating per (coach, race, variant), updated after every game.

P = 1 / (10^((Ropp − R)/150) + 1); new = old + K·(S − P), kept to 0.01 (half away from zero);
K = 2·√min(N, non_major_max), majors always 2·√60. Games are applied one at a time in
(played_at, game_id) order across events.

calculator: the formulas for one game (the reference); config: EloConfig; state: what a history
carries between runs and its event summaries; history: run_history, the fast path; compiled: the
same history over columns in numba (not imported here: the web process never loads numba).
"""
from .calculator import ELO_SCALE, game_change, home_score, k_value, rating_after, rating_change, update, win_probability
from .config import EloConfig
from .history import close_periods, current_ratings, run_history
from .state import EloResult, EloState, EventTally, RatingKey

__all__ = [
    "ELO_SCALE", "EloConfig", "EloResult", "EloState", "EventTally", "RatingKey", "close_periods",
    "current_ratings", "game_change", "home_score", "k_value", "rating_after", "rating_change",
    "run_history", "update", "win_probability",
]
