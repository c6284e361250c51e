"""Reads of the coach page: ratings in every system, record per race, history, opponents, awards,
the idle decay of a Glicko rating and the games waiting for a list."""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from django.db import connection
from django.db.models import Count, Q, Sum

from ratings.models import (
    CurrentRating,
    Method,
    PeriodSummary,
    RatingSystem,
)
from ratings.selectors.common import _by_ids, _event_id, _event_names, _record_counts
from ratings.selectors.waiting import WaitingCount, waiting_counts, waiting_rows
from ratingsite.formatting import fixed
from tournaments.models import Award, Coach, Event, EventStatus, GameSide, Race, Variant, public_q


def coach_ratings(coach: Coach) -> list[CurrentRating]:
    """Every current rating of the coach, in every system, race and variant."""
    return list(
        CurrentRating.objects.filter(coach=coach, system__active=True)
        .select_related("system", "race", "variant")
        .order_by("system__display_order", "variant__name", "race__name")
    )


EVENT_FIELDS = ("name", "start_date", "country", "is_major", "status")


_EVENT_KEYS = tuple(f"event__{name}" for name in EVENT_FIELDS)


_TOTALS = ("games", "wins", "draws", "losses", "td_for", "td_against", "cas_for", "cas_against")


def coach_record(coach: Coach) -> tuple[list[dict], list[dict]]:
    """(record per race, events) of a coach, from one count of the coach's game sides per event and
    race (a busy coach's thousands of games are read once, and never meet the whole events table).

    Per race: games, wins, draws, losses, touchdowns and casualties, most games first, and byes apart
    (a bye is no game: no opponent, no result). Events: newest first, with race and record there.
    Only public events count (sanctioned, and open play).
    """
    played = Q(opponent__isnull=False)
    counts = (
        GameSide.objects.filter(coach=coach)
        .values("event_id", "race_id")
        .annotate(
            **_record_counts(byes=False),
            td_for=Sum("touchdowns_for", filter=played),
            td_against=Sum("touchdowns_against", filter=played),
            cas_for=Sum("casualties_for", filter=played),
            cas_against=Sum("casualties_against", filter=played),
            byes=Count("id", filter=Q(opponent__isnull=True)),
        )
        .order_by()
    )
    # integers only: read as the driver gives them (Django's conversion per row costs more than the count)
    sql, params = counts.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = [dict(zip(("event_id", "race_id", *_TOTALS, "byes"), values)) for values in cursor.fetchall()]
    events = {
        values[0]: dict(zip(_EVENT_KEYS, values[1:]))
        for values in _by_ids(Event.objects.public(), {row["event_id"] for row in rows})
        .values_list("id", *EVENT_FIELDS)
    }
    races = {race.pk: race for race in Race.objects.all()}
    per_race: dict[int, dict] = {}
    found = []
    for row in rows:
        event = events.get(row["event_id"])
        if event is None:
            continue
        race = races[row["race_id"]]
        totals = per_race.setdefault(
            race.pk, {"race__name": race.name, "race__slug": race.slug, **dict.fromkeys((*_TOTALS, "byes"), 0)},
        )
        for name in (*_TOTALS, "byes"):
            totals[name] += row[name] or 0
        found.append({
            "event_id": row["event_id"], "race__name": race.name, "games": row["games"], "wins": row["wins"],
            "draws": row["draws"], "losses": row["losses"], "byes": row["byes"], **event,
        })
    # newest event first, races in name order within it (two stable sorts: dates do not negate)
    found.sort(key=lambda row: row["race__name"])
    found.sort(key=lambda row: (row["event__start_date"], row["event_id"]), reverse=True)
    return sorted(per_race.values(), key=lambda r: (-r["games"], r["race__name"])), found


def coach_awards(coach: Coach) -> list[Award]:
    return list(
        Award.objects.filter(coach=coach, event__status=EventStatus.SANCTIONED)
        .select_related("event", "race")
        .order_by("-event__start_date", "category")
    )


def coach_history(coach: Coach, system: RatingSystem) -> list[dict]:
    """The coach's rating after every event or period of a system, oldest first; "event_name" names
    an event's period (its label is "event:<id>"), else None."""
    rows = list(
        PeriodSummary.objects.filter(system=system, coach=coach)
        .values("race__name", "race__slug", "variant__name", "variant__slug", "period", "effective", "rl", "rn", "nt")
        .order_by("effective", "race__name", "variant__name")
    )
    names = _event_names({pk for pk in map(_event_id, {row["period"] for row in rows}) if pk is not None})
    for row in rows:
        event_id = _event_id(row["period"])
        row["event_name"] = names.get(event_id) if event_id is not None else None
    return rows


HEAD_TO_HEAD_SHORTCUTS = 10


def coach_opponents(coach: Coach, *, limit: int = HEAD_TO_HEAD_SHORTCUTS) -> list[dict]:
    """The coach's most frequent opponents at public events (most games first, then by name), each
    with the coach's games, wins, draws and losses against them."""
    # grouped by the opponent's id first, names read for the candidates only: joining every coach to
    # group by name took 18 ms for a coach of 7,500 games (5,000 opponents)
    record = _record_counts()
    counts = list(
        GameSide.objects.filter(public_q("event__"), coach=coach, opponent__isnull=False)
        .values("opponent_id").annotate(**record).order_by().values_list("opponent_id", *record)
    )
    if len(counts) > limit:  # the limit-th most games, and every opponent tied with it (names break the tie)
        least = sorted((row[1] for row in counts), reverse=True)[limit - 1]
        counts = [row for row in counts if row[1] >= least]
    by_id = {pk: dict(zip(record, figures)) for pk, *figures in counts}
    named = _by_ids(Coach.objects.all(), set(by_id)).order_by("public_name", "number").values_list("pk", "number", "public_name")
    ordered = [{"opponent__number": number, "opponent__public_name": name, **by_id[pk]} for pk, number, name in named]
    ordered.sort(key=lambda row: -row["games"])  # stable: by name, then number, within equal games
    return ordered[:limit]


def coach_idle_decay(coach: Coach, ratings: list[CurrentRating]) -> None:
    """Set on each of the coach's ratings `idle`: for a Glicko rating whose value moved since its last
    period, (date, φ before, φ now, value lost), the idle decay, from the last stored summary of its
    key (one query); else None."""
    for rating in ratings:
        rating.idle = None
    glicko_ratings = [r for r in ratings if r.system.method == Method.GLICKO]
    if not glicko_ratings:
        return
    last = {}
    summaries = (
        PeriodSummary.objects.filter(coach=coach, system__in={r.system_id for r in glicko_ratings})
        .values_list("system_id", "race_id", "variant_id", "effective", "rn", "phi")
        .order_by("effective", "id")
    )
    for system_id, race_id, variant_id, effective, rn, phi in summaries:
        last[(system_id, race_id, variant_id)] = (effective, rn, phi)
    for rating in glicko_ratings:
        found = last.get((rating.system_id, rating.race_id, rating.variant_id))
        if found is None or rating.phi is None or found[2] is None:
            continue
        effective, rn, phi = found
        if fixed(rn) != fixed(rating.value):
            rating.idle = SimpleNamespace(since=effective, phi_before=phi, phi_now=rating.phi, value_lost=rn - rating.value)


@dataclass
class WaitingNote:
    """A coach's games in one rating key waiting for a list (rated or not yet: the depot)."""

    system: RatingSystem
    race: Race | None
    variant: Variant
    count: WaitingCount
    rated: bool = False  # the key has a rating (False: its games wait for the depot)

    @property
    def games(self) -> int:
        """The waiting games, counting or not."""
        return len(self.count.played)


def coach_waiting(coach: Coach, systems: list[RatingSystem]) -> list[WaitingNote]:
    """The coach's games waiting for a list, per rating key (KNSB), by system, variant and race."""
    counts = {}
    for system in systems:
        rows = [row for row in waiting_rows(system, coach_ids={coach.pk}) if row.coach_id == coach.pk]
        for key, count in waiting_counts(rows).items():
            counts[(system, key[1], key[2])] = count
    if not counts:
        return []
    races = Race.objects.in_bulk({race for _, race, _ in counts if race is not None})
    variants = Variant.objects.in_bulk({variant for *_, variant in counts})
    rated = set(CurrentRating.objects.filter(coach=coach, system__in={s for s, _, _ in counts}).values_list(
        "system_id", "race_id", "variant_id"))
    notes = [
        WaitingNote(system, races.get(race) if race is not None else None, variants[variant], count,
                    rated=(system.pk, race, variant) in rated)
        for (system, race, variant), count in counts.items()
    ]
    return sorted(notes, key=lambda n: (n.system.display_order, n.system.name, n.variant.name, n.race.name if n.race else ""))
