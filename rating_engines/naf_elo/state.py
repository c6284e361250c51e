"""What a NAF Elo history carries from one run to the next, and the summaries of its events.

Checkpoints pickle EloState and EventTally: their fields and the layout of an event's totals stay
as they are, or stored checkpoints no longer load.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from itertools import repeat
from operator import truediv
from typing import Any

from ..common import CalculationRow, PeriodSummary, build_many

RatingKey = tuple[int, str | None, str]  # (coach, race or None when races are pooled, variant)

# An event's running totals for one rating key: a list, so the history runner adds to it in place;
# these are its positions.
RL = 0  # CR before the key's first counted game in the event (None: none counted yet)
RN = 1  # CR after its last counted game
NT = 2  # counted games
GAMES_PLAYED = 3  # every game of the key in the event, counted or not
WT = 4  # Σ S
WET = 5  # Σ P
RTT = 6  # Σ Rt
RC_SUM = 7  # Σ Rc, the opponents' CR
IS_START = 8  # the key had no CR before its first counted game in the event
LAST_DAY = 9  # the day of its last counted game in the event

KeyTotals = list[Any]


def uncounted_totals() -> KeyTotals:
    """The totals of a key whose one game in the event so far does not count."""
    return [None, None, 0, 1, 0.0, 0.0, 0.0, 0.0, False, None]


@dataclass
class EventTally:
    """Running totals of one event while it may still receive games: rating key -> KeyTotals."""

    label: str
    end: date  # event_end, or the day of its first game here if that is later or there is none
    totals: dict[RatingKey, KeyTotals] = field(default_factory=dict)
    dirty: bool = True  # changed since its summaries were last handed out


@dataclass
class EloState:
    """Everything needed to continue a history: ratings, the last game applied, open events."""

    ratings: dict[RatingKey, float] = field(default_factory=dict)  # key -> CR
    last_played: tuple[datetime, int] | None = None  # (played_at, game_id) of the last game applied
    open_events: dict[int, EventTally] = field(default_factory=dict)  # event_id -> its tally

    def copy(self) -> EloState:
        events = {
            event_id: EventTally(t.label, t.end, {k: list(v) for k, v in t.totals.items()}, t.dirty)
            for event_id, t in self.open_events.items()
        }
        return EloState(dict(self.ratings), self.last_played, events)


@dataclass
class EloResult:
    state: EloState
    rows: Sequence[CalculationRow]  # a list, or RowColumns from the compiled path
    summaries: list[PeriodSummary]


def event_summaries(tally: EventTally) -> list[PeriodSummary]:
    """One summary per key with a counted game in the event, as its totals stand now."""
    tally.dirty = False
    rated = [(key, totals) for key, totals in tally.totals.items() if totals[NT]]
    if not rated:
        return []
    keys, totals = zip(*rated)
    coaches, races, variants = zip(*keys)
    column = list(zip(*totals))
    # in force from the key's last game here: events overlap, so a later event can end first
    return build_many(PeriodSummary, {
        "coach": coaches, "race": races, "variant": variants, "period": repeat(tally.label),
        "effective": column[LAST_DAY], "rl": column[RL], "rn": column[RN], "nt": column[NT],
        "games_played": column[GAMES_PLAYED], "wt": column[WT], "wet": column[WET], "rtt": column[RTT],
        "rct": map(truediv, column[RC_SUM], column[NT]), "is_start": column[IS_START],
    })


def close_ended_events(open_events: dict[int, EventTally], before: date, summaries: list[PeriodSummary]) -> None:
    """Hand out the summaries of events that ended before `before` and forget their totals."""
    ended = [event_id for event_id, tally in open_events.items() if tally.end < before]
    for event_id in ended:
        tally = open_events.pop(event_id)
        if tally.dirty:
            summaries.extend(event_summaries(tally))
