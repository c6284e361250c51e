"""The about page's figures drawn from a system's configuration: idle periods until a Glicko rank
lapses, and what a period is called."""
from __future__ import annotations

from rating_engines import glicko


def idle_periods_until_unranked(config, phi: float, sigma: float | None = None) -> int:
    """How many idle periods until φ rises above the inactive limit (0: already unranked)."""
    sigma = config.sigma0 if sigma is None else sigma
    limit = config.inactive_phi
    if phi > limit:
        return 0
    step = glicko.decay_step(sigma)
    if config.decay_cap <= limit:
        return -1  # never: the cap keeps φ within the limit
    periods = int((limit * limit - phi * phi) // step) + 1
    while glicko.decay(glicko.GlickoRating(0.0, phi, sigma), periods=periods - 1, phi_cap=config.decay_cap).phi > limit:
        periods -= 1
    return periods


def period_name(config) -> str:
    return {"month": "month", "two_weeks": "two-week period", "event": "event"}[config.period]
