"""The words of a notice, written when it is read, in the active language (the page's, the feed's
address's, the e-mail's): a notice stores what it is about, never a sentence. A notice recorded
before (its params empty) keeps the English title it was recorded with."""
from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ratingsite import formatting
from ratingsite.languages import on_page

if TYPE_CHECKING:
    from members.models import Notice


def _figure(notice: Notice, value: float) -> str:
    places = formatting.rating_places(notice.system.method) if notice.system is not None else 2
    return on_page(formatting.fixed(value, places))


def _rating_title(notice: Notice) -> str:
    race = notice.params.get("race") or _("all races")
    key = f"{race}, {notice.params.get('variant', '')}"
    after = _figure(notice, notice.after) if notice.after is not None else ""
    value = (
        _("%(after)s (was %(before)s)") % {"after": after, "before": _figure(notice, notice.before)}
        if notice.before is not None else _("%(after)s (new)") % {"after": after}
    )
    words = {"system": notice.system.name if notice.system is not None else "", "key": key, "value": value}
    if notice.kind == "own":
        return _("Your %(system)s rating (%(key)s) is now %(value)s") % words
    coach = notice.coach.public_name if notice.coach is not None else _("a coach")
    return _("%(coach)s's %(system)s rating (%(key)s) is now %(value)s") % {**words, "coach": coach}


def _list_title(notice: Notice) -> str:
    date = dt.date.fromisoformat(notice.params["date"])
    rated = int(notice.params.get("rated", 0))
    return ngettext(
        "%(system)s: the list of %(month)s is published, %(rated)s coach rated",
        "%(system)s: the list of %(month)s is published, %(rated)s coaches rated",
        rated,
    ) % {"system": notice.system.name if notice.system is not None else "", "month": formats.date_format(date, "F Y"), "rated": rated}


def notice_title(notice: Notice) -> str:
    """The notice's title in the active language (its stored English title if what it stores cannot be worded)."""
    if not notice.params:
        return notice.fallback_title
    try:
        return _list_title(notice) if notice.kind == "list" else _rating_title(notice)
    except (KeyError, TypeError, ValueError):  # params not as this release writes them: never a page's 500
        return notice.fallback_title or str(notice.get_kind_display())


def notice_text(notice: Notice) -> str:
    """The notice's text (a feed entry's summary): its title, and by how much a rating moved."""
    title = notice_title(notice)
    if not notice.params or notice.kind == "list" or notice.before is None or notice.after is None:
        return title
    if title == notice.fallback_title:
        return title
    places = formatting.rating_places(notice.system.method) if notice.system is not None else 2
    change = on_page(formatting.signed(notice.after - notice.before, places))
    return _("%(title)s: a change of %(change)s.") % {"title": title, "change": change}
