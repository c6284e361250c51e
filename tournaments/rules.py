"""The record's rules that no database constraint can hold: the window of dates of play, which moves
with the clock, and the largest plausible scores.

Plain Python, no Django (the rating engines' replay and the tuning search read it too): uploads,
entry forms, services, the models' PlayDateValidator and the importers all check the same rule here,
and so say the same thing about the same date or score.
"""
import datetime as dt
from collections.abc import Callable

# Dates of play the record accepts: none before Blood Bowl was first published (1986), none more
# than a year ahead (an event is announced at most a season before). Anything outside is a typing
# error (0001, 9999) that the rating engines' date arithmetic cannot take.
FIRST_PLAY_DATE = dt.date(1986, 1, 1)
# Blood Bowl scores above these are typing errors, not games (the database refuses anything above 99).
MAX_TOUCHDOWNS = 20
MAX_CASUALTIES = 30


def last_play_date(today: dt.date) -> dt.date:
    """The latest date of play the record accepts on `today`: the same day a year later."""
    try:
        return today.replace(year=today.year + 1)
    except ValueError:  # 29 February
        return today.replace(year=today.year + 1, day=28)


def _as_is(text: str) -> str:
    return text


def gettext_noop(text: str) -> str:
    """Marks a text for the translation catalogue (makemessages reads the call) without Django."""
    return text


PLAY_DATE_PROBLEM = gettext_noop(
    "%(day)s is not a plausible date: dates of play run from %(first)s to %(last)s (a year from today)."
)


def play_date_error(day: dt.date, *, today: dt.date, translate: Callable[[str], str] = _as_is) -> str | None:
    """Why `day` cannot be a date of play of the record (None: it can); a page passes its `gettext`
    as `translate` for the reason in its language, the importers keep it in English."""
    last = last_play_date(today)
    if FIRST_PLAY_DATE <= day <= last:
        return None
    return translate(PLAY_DATE_PROBLEM) % {"day": day.isoformat(), "first": FIRST_PLAY_DATE.isoformat(), "last": last.isoformat()}
