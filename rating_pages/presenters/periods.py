"""How a rating period reads on the pages: its title, and the breakdown's footnote texts."""
from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.utils.dateformat import format as date_format
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from rating_engines import common as engine_reasons
from rating_engines.common import Reason
from rating_pages.columns import presentation
from ratings import selectors

if TYPE_CHECKING:
    from ratings.models import RatingSystem

LATE_TEXT = gettext_noop("reported late, after the list that would have rated it was out: rated in the first list after "
                         "its report, with R0 and Rc from the list in force when it was played (Lijstdatum)")
# The engines' reasons a game does not count (rating_engines.common.REASON_TEXT, which the exports
# keep in English) as the pages word them
REASON_TEXT = {
    Reason.OPPONENT_UNRATED: _("opponent unrated"),
    Reason.RACE_EXCLUDED: _("race excluded from this ranking"),
    Reason.RACE_NOT_RANKED: _("race not ranked"),
    Reason.EVENT_NOT_SANCTIONED: _("event not sanctioned"),
    Reason.FORFEIT: _("forfeit"),
    Reason.BYE: _("bye"),
    Reason.VARIANT_EXCLUDED: _("variant not in this ranking"),
    Reason.REVERSED: _("result corrected after a list had rated it: its Rt taken back here (the corrected result is rated beside it)"),
    Reason.IN_DEPOT: _("game in depot: no rating yet"),
    Reason.DEPOT_EXPIRED: _("depot game expired (older than the depot limit)"),
    Reason.DEPOT_BOOTSTRAP: _("depot game against an unrated opponent, rated at the bootstrap rating"),
}
GLOBAL_REASON_TEXT = {**REASON_TEXT, Reason.RACE_EXCLUDED: _("race excluded from global ranking")}


def reason_texts(system: RatingSystem) -> dict:
    """The reasons a game does not count, in this system's words and the page's language."""
    return GLOBAL_REASON_TEXT if selectors.reason_texts(system) is engine_reasons.GLOBAL_REASON_TEXT else REASON_TEXT


def period_title(system: RatingSystem, label: str, event_name: str | None) -> str:
    """How a period label reads on the page: an event's name, a KNSB list, a month or two weeks."""
    if label.startswith(selectors.EVENT_PREFIX):
        return event_name or label
    if presentation(system.method).lists:
        return gettext("List of %(label)s") % {"label": label}
    if len(label) == 7:
        return date_format(dt.date.fromisoformat(f"{label}-01"), "F Y")
    try:
        start = dt.date.fromisoformat(label)
    except ValueError:
        return label
    return gettext("Two weeks from %(day)s") % {"day": f"{start:%Y-%m-%d}"}


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
    texts = {**reason_texts(system), selectors.LATE: gettext(LATE_TEXT)}
    return [(number, str(texts.get(reason, reason))) for number, reason in footnotes]
