"""Reads of the stored parameter searches, for the accuracy page."""
from __future__ import annotations

from django.db.models import OuterRef, Subquery

from ratings.models import ParameterSearch, RatingSystem


def parameter_search_latest() -> list[ParameterSearch]:
    """The latest stored search of each active rating system that has one, in display order."""
    latest = ParameterSearch.objects.filter(system=OuterRef("pk")).order_by("-computed_at", "-id").values("pk")[:1]
    systems = RatingSystem.objects.filter(active=True).order_by("display_order", "name").annotate(search=Subquery(latest))
    ids = [pk for pk in systems.values_list("search", flat=True) if pk is not None]
    found = ParameterSearch.objects.select_related("system").in_bulk(ids)
    return [found[pk] for pk in ids]
