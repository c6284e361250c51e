"""How a rating period reads on the pages: its title, and the breakdown's footnote texts."""
from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from rating_pages.columns import presentation
from ratings import selectors

if TYPE_CHECKING:
    from ratings.models import RatingSystem

LATE_TEXT = ("reported late, after the list that would have rated it was out: rated in the first list after "
             "its report, with R0 and Rc from the list in force when it was played (Lijstdatum)")


def period_title(system: RatingSystem, label: str, event_name: str | None) -> str:
    """How a period label reads on the page: an event's name, a KNSB list, a month or two weeks."""
    if label.startswith(selectors.EVENT_PREFIX):
        return event_name or label
    if presentation(system.method).lists:
        return f"List of {label}"
    if len(label) == 7:
        return dt.date.fromisoformat(f"{label}-01").strftime("%B %Y")
    try:
        start = dt.date.fromisoformat(label)
    except ValueError:
        return label
    return f"Two weeks from {start:%Y-%m-%d}"


def title_periods(system: RatingSystem, periods: list) -> None:
    """Set each breakdown Period's title."""
    for period in periods:
        period.title = period_title(system, period.label, period.event_name)


def title_history(system: RatingSystem, rows: list[dict]) -> list[dict]:
    """Set each coach_history row's "title"; the rows."""
    for row in rows:
        row["title"] = period_title(system, row["period"], row["event_name"])
    return rows


def footnote_texts(system: RatingSystem, footnotes: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The breakdown's footnotes, (number, reason), as (number, text) in this system's words."""
    texts = {**selectors.reason_texts(system), selectors.LATE: LATE_TEXT}
    return [(number, texts.get(reason, reason)) for number, reason in footnotes]
