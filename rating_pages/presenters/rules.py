"""The rules a page states about a system's ratings: when an entry has no rank, and when a rating
is provisional (the "?" mark and its tooltip)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext, ngettext

from ratings.choices import Method
from ratings.selectors import coach_idle_decay, stored_config
from ratingsite.formatting import fixed
from ratingsite.languages import on_page

if TYPE_CHECKING:
    from ratings.models import CurrentRating, RatingSystem
    from tournaments.models import Coach


def inactive_rule(system: RatingSystem, config=None) -> str:
    """One sentence: when an entry of this system shows "-" instead of a rank."""
    return RANK_RULES.get(system.method, _months_rule)(system, config)


def _phi_rule(system: RatingSystem, config) -> str:
    limit = (config or stored_config(system)).inactive_phi
    return gettext(
        "No rank while φ is above %(limit)s: the rating grows less certain with every idle period. "
        "The rating itself is kept, and the rank returns with the next games."
    ) % {"limit": f"{limit:g}"}


def _months_rule(system: RatingSystem, config) -> str:
    if system.inactive_after_months:
        return ngettext(
            "No rank after %(months)s month without a counted game. "
            "The rating itself is kept, and the rank returns with the next game.",
            "No rank after %(months)s months without a counted game. "
            "The rating itself is kept, and the rank returns with the next game.",
            system.inactive_after_months,
        ) % {"months": system.inactive_after_months}
    return gettext("Every rated entry is ranked.")


# the methods whose rank lapses otherwise than after months without a counted game
RANK_RULES = {Method.GLICKO: _phi_rule}

# Provisional marks (lichess's "?"): the pages and the about page read these thresholds.
KNSB_FIRM_AFTER_START = 6  # KNSB: firm once Nv reaches the depot minimum (the start rating's games) plus this many
GLICKO_NEAR_LIMIT = 0.10  # Glicko: provisional while ranked but within this share of the φ limit


@dataclass(frozen=True)
class GamesRule:
    """KNSB: a rating resting on fewer than `firm_nv` games gets the "?" mark."""

    firm_nv: int

    @property
    def text(self) -> str:
        return gettext(
            "A KNSB rating resting on fewer than %(firm)s games (the start rating’s depot games "
            "plus %(after)s) is provisional: each game still moves it a lot."
        ) % {"firm": self.firm_nv, "after": KNSB_FIRM_AFTER_START}

    def mark(self, *, nv: int | None = None, phi: float | None = None) -> str | None:
        """The tooltip of a provisional rating ("provisional: rests on 7 games; firm from 12"), None if firm."""
        if nv is None or nv >= self.firm_nv:
            return None
        return ngettext(
            "provisional: rests on %(nv)s game; firm from %(firm)s", "provisional: rests on %(nv)s games; firm from %(firm)s", nv,
        ) % {"nv": nv, "firm": self.firm_nv}


@dataclass(frozen=True)
class PhiRule:
    """Glicko: a ranked rating with φ above `firm_phi`, still within the rank limit `limit`, gets the "?" mark."""

    firm_phi: float
    limit: float

    @property
    def text(self) -> str:
        return gettext(
            "A ranked Glicko rating with φ above %(firm)s (within %(near)s of the rank "
            "limit %(limit)s) is provisional: a few idle periods more and it loses its rank."
        ) % {"firm": f"{self.firm_phi:g}", "near": f"{GLICKO_NEAR_LIMIT:.0%}", "limit": f"{self.limit:g}"}

    def mark(self, *, nv: int | None = None, phi: float | None = None) -> str | None:
        """The tooltip of a provisional rating, None if firm."""
        if phi is None or not self.firm_phi < phi <= self.limit:
            return None
        return gettext("provisional: φ %(phi)s, near the rank limit %(limit)s; firm below φ %(firm)s") % {
            "phi": on_page(fixed(phi)), "limit": f"{self.limit:g}", "firm": f"{self.firm_phi:g}"}


ProvisionalRule = GamesRule | PhiRule


def _games_rule(system: RatingSystem) -> GamesRule:
    return GamesRule(firm_nv=stored_config(system).depot_min_games + KNSB_FIRM_AFTER_START)


def _near_limit_rule(system: RatingSystem) -> PhiRule:
    limit = float(stored_config(system).inactive_phi)
    return PhiRule(firm_phi=round(limit * (1 - GLICKO_NEAR_LIMIT), 2), limit=limit)


# the methods whose ratings can be provisional (NAF Elo's cannot), and how
PROVISIONAL_RULES = {Method.KNSB: _games_rule, Method.GLICKO: _near_limit_rule}


def provisional_rule(system: RatingSystem) -> ProvisionalRule | None:
    """The "?" rule of a system (None: NAF Elo has none), from its stored (validated) parameters."""
    build = PROVISIONAL_RULES.get(system.method)
    return build(system) if build is not None else None


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
