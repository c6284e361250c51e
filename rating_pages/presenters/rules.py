"""The rules a page states about a system's ratings: when an entry has no rank, and when a rating
is provisional (the "?" mark and its tooltip)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ratings.choices import Method
from ratings.selectors import coach_idle_decay, stored_config
from ratingsite.formatting import fixed

if TYPE_CHECKING:
    from ratings.models import CurrentRating, RatingSystem
    from tournaments.models import Coach


def inactive_rule(system: RatingSystem, config=None) -> str:
    """One sentence: when an entry of this system shows "-" instead of a rank."""
    if system.method == Method.GLICKO:
        limit = (config or stored_config(system)).inactive_phi
        return (
            f"No rank while φ is above {limit:g}: the rating grows less certain with every idle period. "
            "The rating itself is kept, and the rank returns with the next games."
        )
    if system.inactive_after_months:
        return (
            f"No rank after {system.inactive_after_months} months without a counted game. "
            "The rating itself is kept, and the rank returns with the next game."
        )
    return "Every rated entry is ranked."


# Provisional marks (lichess's "?"): the pages and the about page read these thresholds.
KNSB_FIRM_AFTER_START = 6  # KNSB: firm once Nv reaches the depot minimum (the start rating's games) plus this many
GLICKO_NEAR_LIMIT = 0.10  # Glicko: provisional while ranked but within this share of the φ limit


@dataclass(frozen=True)
class ProvisionalRule:
    """When a rating of one system gets the "?" mark: KNSB below `firm_nv` games, Glicko with φ above
    `firm_phi` but still within the rank limit `limit`."""

    method: str
    firm_nv: int | None = None
    firm_phi: float | None = None
    limit: float | None = None

    @property
    def text(self) -> str:
        if self.method == Method.KNSB:
            return (f"A KNSB rating resting on fewer than {self.firm_nv} games (the start rating’s depot games "
                    f"plus {KNSB_FIRM_AFTER_START}) is provisional: each game still moves it a lot.")
        return (f"A ranked Glicko rating with φ above {self.firm_phi:g} (within {GLICKO_NEAR_LIMIT:.0%} of the rank "
                f"limit {self.limit:g}) is provisional: a few idle periods more and it loses its rank.")

    def mark(self, *, nv: int | None = None, phi: float | None = None) -> str | None:
        """The tooltip of a provisional rating ("provisional: rests on 7 games; firm from 12"), None if firm."""
        if self.method == Method.KNSB:
            if nv is None or nv >= self.firm_nv:
                return None
            return f"provisional: rests on {nv} game{'s' if nv != 1 else ''}; firm from {self.firm_nv}"
        if phi is None or not self.firm_phi < phi <= self.limit:
            return None
        return f"provisional: φ {fixed(phi)}, near the rank limit {self.limit:g}; firm below φ {self.firm_phi:g}"


def provisional_rule(system: RatingSystem) -> ProvisionalRule | None:
    """The "?" rule of a system (None: NAF Elo has none), from its stored (validated) parameters."""
    if system.method == Method.KNSB:
        return ProvisionalRule(system.method, firm_nv=stored_config(system).depot_min_games + KNSB_FIRM_AFTER_START)
    if system.method == Method.GLICKO:
        limit = float(stored_config(system).inactive_phi)
        return ProvisionalRule(system.method, firm_phi=round(limit * (1 - GLICKO_NEAR_LIMIT), 2), limit=limit)
    return None


def coach_rating_notes(coach: Coach, ratings: list[CurrentRating]) -> None:
    """Set on each of the coach's ratings `provisional` (the "?" tooltip, or None) and `idle` (the
    Glicko idle decay since its last period, selectors.coach_idle_decay)."""
    found: dict[int, ProvisionalRule | None] = {}
    for rating in ratings:
        if rating.system_id not in found:
            found[rating.system_id] = provisional_rule(rating.system)
        rule = found[rating.system_id]
        rating.provisional = rule.mark(nv=rating.nv, phi=rating.phi) if rule is not None else None
    coach_idle_decay(coach, ratings)
