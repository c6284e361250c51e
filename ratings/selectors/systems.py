"""The rating systems the public pages show, their stored configuration, and the variants."""
from __future__ import annotations

from ratings.configuration import build_config
from ratings.models import (
    RatingSystem,
)
from tournaments.models import Variant


def public_systems() -> list[RatingSystem]:
    """The active rating systems, in display order."""
    return list(RatingSystem.objects.filter(active=True).order_by("display_order", "name"))


def public_system_get(slug: str, systems: list[RatingSystem] | None = None) -> RatingSystem | None:
    """The active system of that slug, found among `systems` (public_systems(), read here if not given)."""
    return next((s for s in (public_systems() if systems is None else systems) if s.slug == slug), None)


def stored_config(system: RatingSystem):
    """The engine configuration of a system's stored (validated) parameters: each one not set is
    the engine's default. Its variants and excluded races are not read (see engine_for)."""
    return build_config(method=system.method, per_race=system.per_race, parameters=system.parameters)


def variants_by_name() -> list[Variant]:
    """Every variant, by name: the choices of a list's variant filter."""
    return list(Variant.objects.order_by("name"))
