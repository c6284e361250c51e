"""The monthly list page: the list as published (or as computed until it is), the variant asked
for, and the captions of its starters, risers and fallers."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext, ngettext

from rating_pages.columns import presentation
from ratings import selectors

if TYPE_CHECKING:
    from collections.abc import Callable

    from ratings.models import RatingSystem


@dataclass
class ListHead:
    """A list as published (`publication` set) or as computed, and the reads of its entries."""

    head: Any
    publication: Any
    starters_of: Callable
    movers_of: Callable
    counts_of: Callable


def list_head(system: RatingSystem, month: tuple[int, int], edition: int | None) -> ListHead | None:
    """The list as it was published (that edition, else the latest), whatever was computed since; as
    computed until it is published; None if there is neither."""
    publication = selectors.publication_on(system, *month, edition=edition)
    if publication is not None:
        return ListHead(publication, publication, selectors.published_starters, selectors.published_movers,
                        selectors.published_counts)
    if edition is None and (rating_list := selectors.rating_list_on(system, *month)) is not None:
        return ListHead(rating_list, None, selectors.list_starters, selectors.list_movers, selectors.list_counts)
    return None


def chosen_variant(slug: str | None, variants: list) -> tuple[Any, str | None]:
    """The variant of that slug (None: every variant), and the message if there is none of that slug."""
    if not slug:
        return None, None
    variant = next((v for v in variants if v.slug == slug), None)
    if variant is None:
        return None, gettext("There is no variant “%(slug)s”: showing every variant.") % {"slug": slug}
    return variant, None


def starters_caption(system: RatingSystem, label: str) -> str:
    return presentation(system.method).starters_caption % {"label": label}


def worded_revisions(revisions):
    """A publication's revisions (selectors.publication_revisions) with each reason as the page says it."""
    return replace(revisions, reasons=[_reason_text(reason) for reason in revisions.reasons])


def _reason_text(reason) -> str:
    values = {"name": reason.name, "day": f"{reason.day:%Y-%m-%d}", "games": reason.games}
    if reason.kind == "audit":
        return gettext("%(action)s: %(name)s (%(day)s)") % {**values, "action": str(reason.action).capitalize()}
    if reason.kind == "reported":
        return ngettext(
            "%(name)s: reported %(day)s, after this list (%(games)s game)",
            "%(name)s: reported %(day)s, after this list (%(games)s games)", reason.games,
        ) % values
    return ngettext(
        "%(name)s: %(games)s game corrected on %(day)s", "%(name)s: %(games)s games corrected on %(day)s", reason.games,
    ) % values
