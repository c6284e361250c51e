"""Reads of the event pages: the public events, an event's standings in a rating system (with the
NAF Elo games of other events amid its own and the KNSB games waiting for a list), games and awards."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from django.db.models import Count, OuterRef, Subquery, Sum

from rating_engines import naf_elo
from ratings.models import (
    CalculationRow,
    Method,
    PeriodSummary,
    RatingSystem,
)
from ratings.selectors.common import EVENT_PREFIX, _event_id, _event_names, _record_counts
from ratings.selectors.waiting import waiting_rows
from tournaments.models import Award, Coach, Event, Game, GameSide


def public_events():
    """Events anyone may see (sanctioned, and open play), newest first, with their game count."""
    games = Game.objects.filter(event=OuterRef("pk")).order_by().values("event").annotate(n=Count("id")).values("n")
    return (
        Event.objects.public()
        .select_related("variant")
        .annotate(game_count=Subquery(games))
        .order_by("-start_date", "name", "id")
    )


def public_event_get(*, pk: int) -> Event:
    """The public event (sanctioned, or open play) of that id, with its variant; raises Event.DoesNotExist."""
    return Event.objects.select_related("variant").public().get(pk=pk)


def event_years() -> list[int]:
    """The years with public events, newest first."""
    return sorted(
        {d.year for d in Event.objects.public().dates("start_date", "year")}, reverse=True
    )


@dataclass
class Standing:
    coach: Coach
    race: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    td_for: int = 0
    td_against: int = 0
    cas_for: int = 0
    cas_against: int = 0
    counted: int = 0
    wt: float | None = None
    w_minus_we: float | None = None
    change: float | None = None  # NAF Elo: the sum of its games' changes (each kept to 0.01); else ΣRt
    rating_after: float | None = None
    race_slug: str | None = None
    position: int = 0
    without_we: int = 0  # counted games without We (KNSB depot and start rating), left out of W − We
    between: list = field(default_factory=list)  # NAF Elo: OtherEvent, games of other events amid these
    waiting: SimpleNamespace | None = None  # KNSB: the coach's games here waiting for a list, as it will rate them
    lists: list = field(default_factory=list)  # KNSB: the lists that rated the coach's counted games here


def event_standings(event: Event, system: RatingSystem) -> list[Standing]:
    """Every coach of the event with record, Wt, Σ(W − We) and rating change in `system`.

    Wt adds up the coach's counted rows of this event's games, Σ(W − We) those of them with a We.
    The change is the event's own: ΣRt of those rows, for NAF Elo the sum of its games' changes,
    each the difference of the ratings kept to 0.01. Where games of other events fall between a
    coach's first and last game here (NAF Elo), `between` names them with their change, so that
    the rating before + this change + theirs = the rating after.
    """
    standings = _event_records(event)
    spans = _add_rating_figures(standings, event, system)
    _add_waiting(standings, event, system)
    if system.method == Method.NAF_ELO:
        label = f"{EVENT_PREFIX}{event.pk}"
        after = PeriodSummary.objects.filter(system=system, period=label, rl__isnull=False)
        for coach_id, rn in after.values_list("coach_id", "rn"):
            if coach_id in standings:
                standings[coach_id].rating_after = rn
        for coach_id, between in _elo_games_between(system, spans, exclude=label).items():
            standings[coach_id].between = between
    ordered = sorted(
        standings.values(),
        key=lambda s: (-s.points, -(s.td_for - s.td_against), -(s.cas_for - s.cas_against), s.coach.public_name),
    )
    for position, standing in enumerate(ordered, start=1):
        standing.position = position
    return ordered


_RECORD_SUMS = ("games", "wins", "draws", "losses", "td_for", "td_against", "cas_for", "cas_against")


def _event_records(event: Event) -> dict[int, Standing]:
    """coach id -> the coach's record at the event (every race he played there, in one standing)."""
    sides = (
        GameSide.objects.filter(event=event)
        .values("coach_id", "race__name", "race__slug")
        .annotate(
            **_record_counts(),
            points=Sum("score"),
            td_for=Sum("touchdowns_for"),
            td_against=Sum("touchdowns_against"),
            cas_for=Sum("casualties_for"),
            cas_against=Sum("casualties_against"),
        )
        .order_by()
    )
    coaches = Coach.objects.in_bulk({s["coach_id"] for s in sides})
    standings: dict[int, Standing] = {}
    for s in sides:
        standing = standings.get(s["coach_id"])
        if standing is None:
            standing = standings[s["coach_id"]] = Standing(
                coach=coaches[s["coach_id"]], race=s["race__name"], race_slug=s["race__slug"]
            )
        else:
            standing.race = f"{standing.race}, {s['race__name']}"
        for name in _RECORD_SUMS:
            setattr(standing, name, getattr(standing, name) + (s[name] or 0))
        standing.points += float(s["points"] or 0)
    return standings


def _add_rating_figures(standings: dict[int, Standing], event: Event, system: RatingSystem) -> dict[tuple, list]:
    """Add each coach's Wt, Σ(W − We) and change from his counted rows of the event's games.
    Returns, for NAF Elo, each key's first and last (played_at, game_id) there."""
    rows = (
        CalculationRow.objects.filter(system=system, game__event=event, counted=True)
        .values_list("coach_id", "race_id", "variant_id", "played_at", "game_id", "w", "we", "rt", "r0", "period")
        .order_by("played_at", "game_id")
    )
    elo = system.method == Method.NAF_ELO
    knsb = system.method == Method.KNSB
    spans: dict[tuple, list] = {}
    for coach_id, race_id, variant_id, played_at, game_id, w, we, rt, r0, period in rows:
        standing = standings.get(coach_id)
        if standing is None:
            continue
        if knsb and period not in standing.lists:
            standing.lists.append(period)
        standing.counted += 1
        standing.wt = (standing.wt or 0.0) + w
        if we is None:  # W − We is per game: depot and start-rating games have no We
            standing.without_we += 1
        else:
            standing.w_minus_we = (standing.w_minus_we or 0.0) + (w - we)
        if rt is not None:
            change = naf_elo.game_change(r0, rt) if elo else rt
            standing.change = (standing.change or 0.0) + change
        if elo:
            span = spans.setdefault((coach_id, race_id, variant_id), [(played_at, game_id), None])
            span[1] = (played_at, game_id)
    return spans


def _add_waiting(standings: dict[int, Standing], event: Event, system: RatingSystem) -> None:
    """Each coach's games here waiting for a KNSB list: the list, and Wt, Σ(W − We) and ΣRt as it
    will rate them (provisional: kept apart from the stored figures)."""
    for row in waiting_rows(system, event=event):
        standing = standings.get(row.coach_id)
        if standing is None:
            continue
        waiting = standing.waiting
        if waiting is None:
            waiting = standing.waiting = SimpleNamespace(
                lists=[], games=set(), counted=0, wt=None, w_minus_we=None, change=None, list_date=None,
            )
        if row.waiting_for not in waiting.lists:
            waiting.lists = sorted([*waiting.lists, row.waiting_for])
            waiting.list_date = waiting.lists[0]
        waiting.games.add(row.game_id)
        if row.counted:
            waiting.counted += 1
            waiting.wt = (waiting.wt or 0.0) + row.w
        if row.counted and row.we is not None:
            waiting.w_minus_we = (waiting.w_minus_we or 0.0) + (row.w - row.we)
        if row.rt is not None:  # a correction's row taking the old result back has a (negative) Rt
            waiting.change = (waiting.change or 0.0) + row.rt


@dataclass
class OtherEvent:
    """Games of another event that fell between a key's first and last game of an event."""

    event_id: int | None
    name: str
    games: int = 0
    change: float = 0.0


def _elo_games_between(system: RatingSystem, spans: dict, *, exclude: str) -> dict[int, list[OtherEvent]]:
    """coach id -> the other events whose counted games fell within the coach's span of an event.

    `spans` maps a key (coach, race, variant ids) to the first and last (played_at, game_id) of
    its games in the event labelled `exclude`.
    """
    if not spans:
        return {}
    first = min(span[0][0] for span in spans.values())
    last = max(span[1][0] for span in spans.values())
    # through the games played in the window as well as the coaches: for a weekend event the planner
    # takes the few hundred games of those days by their index, not every row of every coach in it
    played_between = Game.objects.filter(played_at__range=(first, last)).values("pk")
    rows = (
        CalculationRow.objects.filter(
            system=system, coach_id__in={key[0] for key in spans}, counted=True, played_at__range=(first, last),
            game_id__in=played_between,
        )
        .exclude(period=exclude)
        .values_list("coach_id", "race_id", "variant_id", "played_at", "game_id", "period", "r0", "rt")
        .order_by("played_at", "game_id")
    )
    found: dict[int, dict[str, OtherEvent]] = {}
    for coach_id, race_id, variant_id, played_at, game_id, period, r0, rt in rows:
        span = spans.get((coach_id, race_id, variant_id))
        if span is None or not span[0] < (played_at, game_id) < span[1]:
            continue
        other = found.setdefault(coach_id, {}).setdefault(period, OtherEvent(_event_id(period), period))
        other.games += 1
        other.change += naf_elo.game_change(r0, rt)
    names = _event_names({o.event_id for others in found.values() for o in others.values() if o.event_id})
    out = {}
    for coach_id, others in found.items():
        for other in others.values():
            other.name = names.get(other.event_id, other.name)
        out[coach_id] = list(others.values())
    return out


def event_games(event: Event) -> list[Game]:
    """The event's games, round by round."""
    return list(
        Game.objects.filter(event=event)
        .select_related("round", "home_coach", "away_coach", "home_race", "away_race")
        .order_by("round__number", "played_at", "id")
    )


def event_awards(event: Event) -> list[Award]:
    return list(Award.objects.filter(event=event).select_related("coach", "race").order_by("category", "coach__public_name"))
