"""The event page: its standings in the chosen rating system, its games round by round, its awards,
the day its results were reported and its map pin."""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from ratings import selectors
from ratingsite import charts

if TYPE_CHECKING:
    from ratings.models import RatingSystem
    from tournaments.models import Event


def event_context(event: Event, system: RatingSystem, systems: list[RatingSystem]) -> dict:
    rounds = defaultdict(list)
    for game in selectors.event_games(event):
        rounds[game.round].append(game)
    # the results entered the record on the event's sanction; a later date is a correction's
    reported = min((g.reported_on for games in rounds.values() for g in games if g.reported_on), default=None)
    return {
        "event": event,
        "system": system,
        "systems": systems,
        "standings": selectors.event_standings(event, system),
        "rounds": sorted(rounds.items(), key=lambda item: item[0].number),
        "awards": selectors.event_awards(event),
        "pin": _map_pin(event),
        "reported": reported,
    }


def _map_pin(event: Event) -> charts.Pin | None:
    if event.latitude is None or event.longitude is None:
        return None
    return charts.map_pin(
        event.latitude, event.longitude,
        label=", ".join(p for p in (event.city, event.country.name if event.country else "") if p) or event.name,
    )
