"""Glicko-2 by rating periods: NAF Glicko (per race, monthly), Global Glicko (pooled, two-weekly).

calculator: Glickman's algorithm (revised 2022) for one player and one period, step by step, and
the federation's rules around it (idle decay, a new race's start); the reference.
config: the parameters of a rating system, and the calendar of its periods.
state: what a history carries from one call to the next.
history: the fast runner over a whole history (batch: one period's arithmetic over arrays),
tested equal to the calculator.
"""
from .calculator import (
    CENTER,
    CONVERGENCE,
    MAX_ITERATIONS,
    SCALE,
    GlickoRating,
    VolatilityNotConverged,
    decay,
    decay_step,
    decayed_phi,
    display_value,
    expected_score,
    g_factor,
    game_change,
    initial_for_new_race,
    rate,
)
from .config import GLOBAL_DEFAULTS, PERIODS, CalendarPeriod, GlickoConfig, calendar_period
from .history import close_periods, current_ratings, ratings_as_of, run_history
from .state import ExcludedGame, GlickoResult, GlickoState, OpenPeriod, RatingKey

__all__ = [
    "CENTER", "CONVERGENCE", "GLOBAL_DEFAULTS", "MAX_ITERATIONS", "PERIODS", "SCALE",
    "CalendarPeriod", "ExcludedGame", "GlickoConfig", "GlickoRating", "GlickoResult", "GlickoState", "OpenPeriod",
    "RatingKey", "VolatilityNotConverged",
    "calendar_period", "close_periods", "current_ratings", "decay", "decay_step", "decayed_phi", "display_value",
    "expected_score", "g_factor",
    "game_change", "initial_for_new_race", "rate", "ratings_as_of", "run_history",
]
