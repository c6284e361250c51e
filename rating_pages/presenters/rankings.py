"""The ranking page: which entries it lists (the current ranking, a list as published, or a list
not published yet), its default variant, its caption and its variant switch."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.utils import timezone
from django.utils.translation import gettext
from django_countries import countries

from rating_pages.filters import PublishedRankingFilter, RankingFilter
from rating_pages.tables import ListRankingTable, PublishedRankingTable, RankingTable
from ratings import selectors

if TYPE_CHECKING:
    from ratings.models import RatingSystem


@dataclass
class RankingSource:
    """What a ranking lists, and the table and filters that show it."""

    queryset: Any
    table_class: type = RankingTable
    filter_class: type = RankingFilter
    extra: dict = field(default_factory=dict)  # the table's own arguments (a publication's)
    rating_list: Any = None  # the list, or its publication (None: the current ranking)
    publication: Any = None


def ranking_source(system: RatingSystem, month: tuple[int, int] | None) -> RankingSource | None:
    """The current ranking (month None), else that month's list as published, whatever was computed
    since, or as computed until it is published; None if the system has no list of that month."""
    if month is None:
        return RankingSource(selectors.ranking_current(system))
    publication = selectors.publication_on(system, *month)
    if publication is not None:
        return RankingSource(
            selectors.ranking_of_publication(publication), PublishedRankingTable, PublishedRankingFilter,
            {"publication": publication}, publication, publication,
        )
    rating_list = selectors.rating_list_on(system, *month)
    if rating_list is None:
        return None
    return RankingSource(selectors.ranking_of_list(rating_list), ListRankingTable, rating_list=rating_list)


def with_default_variant(params, rated_variants: list[dict]):
    """The query with the most played variant chosen when none is asked for: ratings of two variants
    are never compared, so a list of every variant interleaves their ranks (`?variant=`, empty,
    asks for all of them)."""
    if "variant" in params or not rated_variants:
        return params
    params = params.copy()
    params["variant"] = rated_variants[0]["variant__slug"]
    return params


def variant_links(query, rated_variants: list[dict], chosen: str) -> list[dict]:
    """The ranking's switch: each variant the system rates, then all of them, with the other filters."""
    links = []
    for slug, name in [*((v["variant__slug"], v["variant__name"]) for v in rated_variants), ("", gettext("All variants"))]:
        params = query.copy()
        params.pop("page", None)
        params["variant"] = slug
        links.append({"name": name, "url": f"?{params.urlencode()}", "current": slug == chosen})
    return links


def filters_set(filterset, query) -> list[str]:
    """The filters the summary of folded filters names: those asked for, not the default variant."""
    return [name for name in filterset.form.changed_data if name != "variant" or "variant" in query]


def ranking_caption(system: RatingSystem, rating_list, filterset) -> str:
    """`rating_list`: the list or its publication (None: the current ranking)."""
    if getattr(rating_list, "published_at", None):
        caption = gettext("%(system)s ranking, list of %(day)s, as published %(moment)s") % {
            "system": system.name, "day": f"{rating_list.date:%Y-%m-%d}",
            "moment": f"{timezone.localtime(rating_list.published_at):%Y-%m-%d %H:%M}"}
    elif rating_list:
        caption = gettext("%(system)s ranking, list of %(day)s") % {"system": system.name, "day": f"{rating_list.date:%Y-%m-%d}"}
    else:
        caption = gettext("%(system)s ranking, current") % {"system": system.name}
    chosen = _chosen_filters(filterset.form.cleaned_data) if filterset.is_valid() else []
    return caption + (f": {', '.join(chosen)}" if chosen else "")


def _chosen_filters(data: dict) -> list[str]:
    chosen = [str(data[name]) for name in ("variant", "race") if data.get(name)]
    if data.get("country"):
        chosen.append(countries.name(data["country"]) or data["country"])
    if data.get("active"):
        chosen.append(gettext("ranked only"))
    if data.get("name"):
        chosen.append(gettext("name “%(name)s”") % {"name": data["name"]})
    return chosen
