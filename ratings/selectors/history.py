"""Reads for the ratings: the game stream the engines consume, and stored ratings for pages and exports."""
import datetime as dt
import hashlib
import io
import pickle
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Any

import lz4.frame
import numpy as np
from django.db import connection
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from rating_engines.common import Correction, GameRecord, RecordColumns, paused_gc, per_distinct
from rating_engines.protocol import Engine, LateResults
from ratings.bulk import fetch_binary
from ratings.configuration import engine_for, list_rules
from ratings.models import (
    CurrentRating,
    EngineCheckpoint,
    Method,
    PeriodSummary,
    Publication,
    PublishedEntry,
    RatingList,
    RatingListEntry,
    RatingSystem,
    RecalculationRun,
    ReplayTail,
    RunStatus,
)
from ratings.replay import Board, Ledger, Tail, play_times, replay
from ratingsite.formatting import fixed, rating_places
from tournaments.models import PUBLIC_STATUSES, Coach, EventStatus, GameCorrection, Race, Variant

# The games of public events alone (sanctioned, and open play for its footnoted rows), in rating order:
# their events and races are a few thousand rows, joined in Python from dictionaries (a join per row
# and a text slug per row cost more than the rest).
_GAME_SQL = """
SELECT g.id, {played_at}, g.event_id, g.home_coach_id, g.home_race_id, g.away_coach_id, g.away_race_id,
       g.home_touchdowns, g.away_touchdowns, g.kind, g.conceded_by, g.reported_on
FROM tournaments_game g
WHERE g.event_id IN (SELECT e.id FROM tournaments_event e WHERE e.status IN (%s, %s)) {where}
ORDER BY g.played_at, g.id
"""

_EVENTS_SQL = """
SELECT e.id, v.slug, e.is_major, e.status, e.end_date FROM tournaments_event e
JOIN tournaments_variant v ON v.id = e.variant_id WHERE e.status IN (%s, %s)
"""

_EVENT_COACHES_SQL = """
SELECT event_id, COUNT(DISTINCT coach_id) FROM tournaments_gameside
WHERE event_id IN (SELECT DISTINCT g.event_id FROM tournaments_game g JOIN tournaments_event e ON e.id = g.event_id
                   WHERE e.status IN (%s, %s) {where})
GROUP BY event_id
"""


def naive_utc(value) -> dt.datetime:
    """Datetimes as the engines see them: naive, in UTC (SQLite may hand back text)."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    return value


def _as_date(value) -> dt.date:
    return dt.date.fromisoformat(value) if isinstance(value, str) else value


def _window(since: dt.datetime | None, until: dt.datetime | None, reported_since: dt.date | None = None) -> tuple[str, list]:
    where, params = "", list(PUBLIC_STATUSES)
    if since is not None:
        where += " AND (g.played_at >= %s" + (" OR g.reported_on >= %s)" if reported_since else ")")
        params.append(since.replace(tzinfo=dt.UTC) if since.tzinfo is None else since)
        if reported_since:
            params.append(reported_since)
    if until is not None:
        where += " AND g.played_at < %s"
        params.append(until.replace(tzinfo=dt.UTC) if until.tzinfo is None else until)
    return where, params


@contextmanager
def _planned_for_every_row(window: bool):
    """PostgreSQL plans a cursor for its first tenth, and for the games of a window (from a
    checkpoint) that is the time of play's index walked whole, filtering: 0.19 s for the 2,498 games
    of the last month of a million, 0.04 s planned for reading every row, as the replays do. Then
    back to the default for other cursors. The whole record reads faster in the index's order."""
    if connection.vendor != "postgresql" or not window:
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SET cursor_tuple_fraction TO 1.0")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET cursor_tuple_fraction")


def game_records(
    *, since: dt.datetime | None = None, until: dt.datetime | None = None, reported_since: dt.date | None = None,
) -> list[GameRecord]:
    """record_columns' games as GameRecord objects."""
    return list(record_columns(since=since, until=until, reported_since=reported_since))


def record_columns(
    *, since: dt.datetime | None = None, until: dt.datetime | None = None, reported_since: dt.date | None = None,
) -> RecordColumns:
    """Every recorded game of a public event (sanctioned, or open play) in [since, until), in rating order (time of play, id),
    and with `reported_since` also those played before `since` reported on or after that day (a
    KNSB replay from a checkpoint takes the late ones forward).

    Unsanctioned games are included: they keep a footnoted row in every breakdown.
    Coaches are identified by their database id, races and variants by slug.
    """
    where, params = _window(since, until, reported_since)
    whole = since is None and until is None
    # PostgreSQL hands back naive UTC itself (its C loader), which is most of reading a long history.
    played_at = "g.played_at AT TIME ZONE 'UTC'" if connection.vendor == "postgresql" else "g.played_at"
    events, races, coaches_in_event = _record_lookups(where, params, whole=whole)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in _RECORD_TYPES}
    times: list[dt.datetime] = []
    share = {}.setdefault  # one object per time of play: the driver makes a new one per row
    kinds: dict[str, int] = {}
    concessions: dict[str | None, int] = {None: 0}
    ordinals: dict[Any, int] = {None: 0}

    def ordinal(day) -> int:
        found = ordinals.get(day)
        if found is None:
            found = ordinals[day] = _as_date(day).toordinal()
        return found

    # a server-side cursor on PostgreSQL: a million raw rows are never held at once beside the
    # columns, and each batch is columns at once (as lists, two million games held 700 MB for a moment)
    with _planned_for_every_row(not whole), connection.chunked_cursor() as cursor:
        cursor.execute(_GAME_SQL.format(where=where, played_at=played_at), params)
        while rows := cursor.fetchmany(20_000):
            game_id, at, event_id, home, home_race, away, away_race, home_td, away_td, kind, conceded_by, reported = zip(*rows)
            times.extend(share(t, t) for t in (at if connection.vendor == "postgresql" else map(naive_utc, at)))
            home_goals, away_goals = np.array(home_td), np.array(away_td)
            for name, values in (
                ("game_id", game_id), ("event_id", event_id), ("home", home), ("home_race", _ids(home_race)),
                ("away", _ids(away)), ("away_race", _ids(away_race)),
                ("home_score", np.where(home_goals > away_goals, 1.0, np.where(home_goals < away_goals, 0.0, 0.5))),
                ("kind", [kinds.setdefault(k, len(kinds)) for k in kind]),
                ("conceded_by", [concessions.setdefault(c, len(concessions)) for c in conceded_by]),
                ("reported_on", list(map(ordinal, reported))),
            ):
                parts[name].append(np.asarray(values, dtype=_RECORD_TYPES[name]))
    columns = {
        name: np.concatenate(found) if found else np.zeros(0, dtype=_RECORD_TYPES[name]) for name, found in parts.items()
    }
    columns["event_coaches"] = (
        _event_coaches(columns) if whole  # every game of every event is here: count each event's coaches from them
        else per_distinct(columns["event_id"], lambda event: coaches_in_event.get(event, 0), np.int32)
    )
    races = {-1 if pk is None else pk: found for pk, found in races.items()}
    return RecordColumns(
        times, columns, events=events, races=races, corrections=_corrections(), kinds=list(kinds),
        concessions=list(concessions),
    )


# each column's type: ids as they are, codes and counts narrower (two million games: 100 MB in all)
_RECORD_TYPES = {
    "game_id": np.int64, "event_id": np.int64, "home": np.int64, "home_race": np.int32, "away": np.int64,
    "away_race": np.int32, "home_score": np.float64, "kind": np.int8, "conceded_by": np.int8, "reported_on": np.int32,
}


def _record_lookups(where: str, params: list, *, whole: bool) -> tuple[dict, dict, dict]:
    """What game_records looks up per row: each event's (variant, major, sanctioned, end), each
    race's (slug, ranked), and (for a window) each event's number of distinct coaches."""
    sanctioned = EventStatus.SANCTIONED
    with connection.cursor() as cursor:
        if whole:
            cursor.execute(_EVENTS_SQL, list(PUBLIC_STATUSES))
        else:  # only the events with games in the window
            cursor.execute(_EVENTS_SQL + f"AND e.id IN (SELECT g.event_id FROM tournaments_game g WHERE TRUE {where})", params)
        events = {
            pk: (variant, bool(major), status == sanctioned, _as_date(end))
            for pk, variant, major, status, end in cursor.fetchall()
        }
        cursor.execute("SELECT id, slug, ranked FROM tournaments_race")
        races = {pk: (slug, bool(ranked)) for pk, slug, ranked in cursor.fetchall()}
        races[None] = (None, False)
        coaches_in_event: dict = {}
        if not whole:  # events cut by the window count all their coaches
            cursor.execute(_EVENT_COACHES_SQL.format(where=where), params)
            coaches_in_event = dict(cursor.fetchall())
    return events, races, coaches_in_event


def _ids(values) -> list[int]:
    """Ids, -1 for none."""
    return [-1 if v is None else v for v in values]


def _event_coaches(columns: dict[str, np.ndarray]) -> np.ndarray:
    """Each game's N, its event's distinct coaches, counted from the games (every game of every event)."""
    events, away = columns["event_id"], columns["away"]
    if not len(events):
        return np.zeros(0, dtype=np.int64)
    played = away >= 0
    side_events = np.concatenate([events, events[played]]).astype(np.int64)
    coaches = np.concatenate([columns["home"], away[played]]).astype(np.int64)
    # each (event, coach) as one number where they fit in one: a sort of numbers, where unique rows
    # (axis=0) are sorted as records, 4.9 of the 10.6 s that reading 2,000,000 games took (coaches
    # are ids, never negative: the away side's -1 is left out above)
    span = int(coaches.max()) + 1
    if max(-int(side_events.min()), int(side_events.max())) < np.iinfo(np.int64).max // span:
        event_of_pair = np.unique(side_events * span + coaches) // span
    else:
        event_of_pair = np.unique(np.stack([side_events, coaches], axis=1), axis=0)[:, 0]
    distinct, counts = np.unique(event_of_pair, return_counts=True)
    return counts[np.searchsorted(distinct, events)]


def sanctioned_records(event, *, reported_on: dt.date) -> list[GameRecord]:
    """The games of `event` as the engines would read them once it is sanctioned on `reported_on`
    (game_records' fields: its results reported that day, N its distinct coaches), in rating order."""
    games = list(
        event.games.order_by("played_at", "id").values_list(
            "id", "played_at", "home_coach_id", "home_race__slug", "home_race__ranked", "away_coach_id",
            "away_race__slug", "away_race__ranked", "home_touchdowns", "away_touchdowns", "kind", "conceded_by",
        )
    )
    coaches = {home for _, _, home, *_ in games} | {row[5] for row in games if row[5] is not None}
    variant = Variant.objects.values_list("slug", flat=True).get(pk=event.variant_id)
    return [
        GameRecord(
            game_id, naive_utc(at), event.pk, variant, home, home_slug, away, away_slug,
            1.0 if home_td > away_td else 0.0 if home_td < away_td else 0.5,
            len(coaches), bool(event.is_major), True, bool(home_ranked), bool(away_ranked) if away_slug else False,
            kind, conceded_by, event.end_date, reported_on,
        )
        for game_id, at, home, home_slug, home_ranked, away, away_slug, away_ranked, home_td, away_td, kind, conceded_by in games
    ]


def _corrections() -> dict[int, tuple[Correction, ...]]:
    """Each corrected game's results before (oldest first), by game id: the lists that rated them
    keep them (KNSB), and the game counts as reported the day it first entered the record."""
    corrections: dict = {}
    for game_id, corrected_on, home_td, away_td, kind, reported_on in GameCorrection.objects.order_by("game_id", "id").values_list(
        "game_id", "corrected_on", "home_touchdowns", "away_touchdowns", "kind", "reported_on",
    ):
        score = 1.0 if home_td > away_td else 0.0 if home_td < away_td else 0.5
        corrections.setdefault(game_id, []).append(Correction(corrected_on, score, kind, reported_on))
    return {game_id: tuple(found) for game_id, found in corrections.items()}


LZ4_MAGIC = b"\x04\x22\x4d\x18"


def _checkpoints_at(system, day: dt.date):
    return EngineCheckpoint.objects.filter(system=system, as_of__lte=day).order_by("-as_of")


def resume_date(system, day: dt.date | None) -> dt.date | None:
    """The date a run asked to start on `day` replays from (None: from the first game)."""
    return None if day is None else _checkpoints_at(system, day).values_list("as_of", flat=True).first()


def resume_point(system, day: dt.date | None):
    """(ledger, start) to replay `system` from: the latest checkpoint at or before `day`, or an
    empty ledger from the first game when there is none (or no day)."""
    if day is None:
        return Ledger(), None
    found = _with_blobs(_checkpoints_at(system, day).values_list("state", "as_of")[:1])
    if not found:
        return Ledger(), None
    state, as_of = bytes(found[0][0]), found[0][1]
    # LZ4 frames; checkpoints written before LZ4 are zlib streams
    raw = lz4.frame.decompress(state) if state[:4] == LZ4_MAGIC else zlib.decompress(state)
    return _CheckpointUnpickler(io.BytesIO(raw)).load(), as_of


def _with_blobs(rows: QuerySet) -> list[tuple]:
    """The rows of a query of megabytes of state: binary on PostgreSQL, not hex text."""
    if connection.vendor == "postgresql":
        sql, params = rows.query.sql_with_params()
        return fetch_binary(sql, list(params))
    return list(rows)


def _tails_before(system, day: dt.date):
    return ReplayTail.objects.filter(system=system, last_played__lt=dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC))


def month_record(games: Sequence[GameRecord], start: dt.date, last: tuple[dt.datetime, int]) -> tuple[str, int]:
    """(SHA-256 of the games played from `start` up to `last` (time, id) among `games`, in rating
    order and with every field and correction; the position in `games` of the first game after `last`)."""
    times = play_times(games)
    lo = bisect_left(times, dt.datetime.combine(start, dt.time()))
    hi = bisect_right(times, last[0])
    digest = hashlib.sha256()
    for g in games[lo:hi]:
        if (g.played_at, g.game_id) > last:
            break
        digest.update(repr(g.__reduce__()[1]).encode())
        lo += 1
    return digest.hexdigest(), lo


def tail_start(system) -> dt.date | None:
    """The month start the system's replay tail goes on from (None: no tail)."""
    return ReplayTail.objects.filter(system=system).values_list("start", flat=True).first()


def replay_tail(system, day: dt.date | None) -> Tail | None:
    """The stored Tail of `system`'s last run if a run asked to start on `day` may go on from it
    (ReplayTail): its last game was played on an earlier day, so every game from `day` on, the
    ones the run is for, comes after it."""
    if day is None:
        return None
    rows = _with_blobs(_tails_before(system, day).values_list("start", "last_played", "last_game", "record", "state"))
    if not rows:
        return None
    start, played, game, record, state = rows[0]
    return Tail(start, (naive_utc(played), game), lz4.frame.decompress(bytes(state)), record)


class _CheckpointUnpickler(pickle.Unpickler):
    """Checkpoints written while the engines were ratings.engines name their classes there."""

    def find_class(self, module: str, name: str):
        if module == "ratings.engines" or module.startswith("ratings.engines."):
            module = "rating_engines" + module.removeprefix("ratings.engines")
        return super().find_class(module, name)


@dataclass
class GameHistory:
    """The game stream read once for several runs (every system at once): from `start` on, as
    recorded at `read_at`; the games a list, or columns (RecordColumns)."""
    start: dt.date | None
    games: Sequence[GameRecord]
    read_at: dt.datetime
    reported: bool = False  # also holds the games played before `start` reported since

    def since(self, start: dt.date | None, *, reported: bool = False) -> Sequence[GameRecord] | None:
        """The games played from `start` on, and if `reported` those played before it reported
        since (game_records' reported_since); None when this history does not reach back so far."""
        if self.start is not None and (start is None or start < self.start):
            return None
        games = self.games
        if start is None:
            return games
        if reported and not self.reported:
            return None
        begin = dt.datetime.combine(start, dt.time())
        if isinstance(games, RecordColumns):
            cut = bisect_left(games.times, begin)
            if not reported:
                return games[cut:]
            late = np.flatnonzero(games[:cut].reported_since(start))
            return games.take(np.concatenate([late, np.arange(cut, len(games))])) if len(late) else games[cut:]
        cut = bisect_left(games, begin, key=attrgetter("played_at"))
        before = [g for g in games[:cut] if g.reported_since(start)] if reported else []
        return [*before, *games[cut:]]


def reads_reported(module: Engine[Any, Any]) -> bool:
    """Whether a replay by this engine from a checkpoint also reads the games played before it and
    reported since (KNSB: a late result goes forward into a later list)."""
    return isinstance(module, LateResults)


def games_from(start: dt.date | None, *, reported: bool, until: dt.date | None = None) -> list[GameRecord]:
    """The games a replay from `start` (a checkpoint; None: the first game) reads, played before
    `until` if given; with `reported` also those played before `start` and reported since."""
    return list(columns_from(start, reported=reported, until=until))


def columns_from(start: dt.date | None, *, reported: bool, until: dt.date | None = None) -> RecordColumns:
    """games_from's games as columns."""
    return record_columns(
        since=dt.datetime.combine(start, dt.time()) if start else None,
        until=dt.datetime.combine(until, dt.time()) if until else None,
        reported_since=start if reported and start else None,
    )


def game_history(systems, since: dt.date | None) -> GameHistory:
    """The games every run of `systems` asked to start on `since` will replay."""
    read_at = timezone.now()  # before reading: a run that finishes after this may have seen newer games
    starts = [resume_date(system, since) for system in systems]
    start = None if None in starts or not starts else min(starts)
    reported = any(reads_reported(engine_for(system)[0]) for system in systems)
    with paused_gc():  # millions of values, none in a cycle: the collector's passes over them cost a third of reading
        games = columns_from(start, reported=reported)
    return GameHistory(start=start, games=games, read_at=read_at, reported=reported)


def replay_as_of(system, on: dt.date):
    """The entries of every rated key of `system` as of `on` (every period ended before it),
    replayed in memory from the latest checkpoint at or before that date; writes nothing."""
    module, config = engine_for(system)
    ledger, start = resume_point(system, on)
    games = games_from(start, reported=reads_reported(module), until=on)
    entries = []
    for chunk in replay(
        module, config, games, ledger, start=start, until=on, rules=list_rules(system, config),
        per_race=system.per_race, complete=lambda day: False,
    ):
        entries = chunk.entries
    return entries


EXPORT_HEADER = ["coach_number", "coach", "race", "variant", "rating", "mu", "phi", "sigma", "rank", "games"]


def publication_in_force(system, on: dt.date | None = None) -> Publication | None:
    """The published list in force on `on` (else today): the latest dated on or before it, its latest edition."""
    return (
        Publication.objects.filter(system=system, date__lte=on or timezone.localdate())
        .order_by("-date", "-edition").first()
    )


def export_rows(system, *, on: dt.date | None = None, variant=None, publication: Publication | None = None) -> list[list[str]]:
    """The CSV rows of a ranking (current, as of `on` as revised since, or a `publication` as it was
    published), best first, inactive keys unranked at the end."""
    if publication is not None:
        data = _published_export_data(publication, variant)
    elif on is None:
        data = _current_export_data(system, variant)
    else:
        data = _replayed_export_data(system, on, variant)
    data.sort(key=lambda r: (r[3], r[2] or "", r[8] is None, r[8] or 0, -r[4], r[0]))
    places = rating_places(system.method)
    return [
        [str(number), name, race or "", variant_name, fixed(value, places), fixed(mu, 2), fixed(phi, 2),
         fixed(sigma, 6), "" if rank is None else str(rank), str(games)]
        for number, name, race, variant_name, value, mu, phi, sigma, rank, games in data
    ]


def _published_export_data(publication: Publication, variant) -> list[tuple]:
    """The export's rows of a publication, as published: (number, name, race, variant, value, μ, φ, σ, rank, games)."""
    entries = PublishedEntry.objects.filter(publication=publication)
    if variant is not None:
        entries = entries.filter(variant_slug=variant.slug)
    return [
        (number, name, race or None, *rest)
        for number, name, race, *rest in entries.values_list(
            "coach_number", "coach_name", "race_name", "variant_name", "value", "mu", "phi", "sigma", "rank", "games",
        )
    ]


def _current_export_data(system, variant) -> list[tuple]:
    """The export's rows of the current ratings."""
    ratings = CurrentRating.objects.filter(system=system)
    if variant is not None:
        ratings = ratings.filter(variant=variant)
    return list(ratings.values_list(
        "coach__number", "coach__public_name", "race__name", "variant__name", "value", "mu", "phi", "sigma", "rank", "games",
    ))


def _replayed_export_data(system, on: dt.date, variant) -> list[tuple]:
    """The export's rows of the ranking as of `on`, replayed from the record as it stands now."""
    coaches = dict((pk, (number, name)) for pk, number, name in Coach.objects.values_list("pk", "number", "public_name"))
    races = dict(Race.objects.values_list("slug", "name"))
    variants = dict(Variant.objects.values_list("slug", "name"))
    data = []
    for e in replay_as_of(system, on):
        coach, race, variant_slug = e.key
        if variant is not None and variant_slug != variant.slug:
            continue
        number, name = coaches[coach]
        data.append((number, name, races.get(race), variants[variant_slug], e.value, e.mu, e.phi, e.sigma, e.rank, e.games))
    return data


def run_covering(day: dt.date):
    """The oldest queued or running recalculation whose replay covers `day` (None: no run does)."""
    return (
        RecalculationRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING])
        .filter(Q(from_date__isnull=True) | Q(from_date__lte=day))
        .select_related("system").order_by("created_at").first()
    )


def active_systems():
    """The active rating systems, in display order (a queryset: forms choose from it)."""
    return RatingSystem.objects.filter(active=True).order_by("display_order", "name")


def systems_named(slugs: list[str] | None) -> tuple[list[RatingSystem], list[str]]:
    """The systems of these slugs, each once in the order given (none given: every active system in
    display order), and the slugs that name no system (a command's --system)."""
    if not slugs:
        return list(active_systems()), []
    found = {system.slug: system for system in RatingSystem.objects.filter(slug__in=slugs)}
    return [found[slug] for slug in dict.fromkeys(slugs) if slug in found], [slug for slug in slugs if slug not in found]


# A key's place on the monthly lists, for the statistics' rank over time

def rating_keys(*, coach: Coach, system: RatingSystem) -> QuerySet:
    """The (race, variant) keys a coach has on the system's monthly lists, most list entries first."""
    return (
        RatingListEntry.objects.filter(system=system, coach=coach)
        .values("race__slug", "race__name", "variant__slug", "variant__name").order_by()
        .annotate(months=Count("id"))
        .order_by("-months", "race__name", "variant__name")
    )


@dataclass(frozen=True)
class RankMonth:
    """A key on one monthly list. `on_list` False: the stored list holds no entry for the key (a
    movements list it did not move on, or a complete one it is off while inactive), so the figures
    are derived: its games and activity carried from its latest entry, its rank worked out that month.
    A published list is a record: where it holds the key, the figures are the published ones, and
    `revised_*` the list's as computed now where they read otherwise (a late result, a correction)."""

    date: dt.date
    rank: int | None  # None: inactive
    value: float
    games: int
    on_list: bool
    published: str = ""  # PUBLISHED_ON, PUBLISHED_OFF, or "" (not published)
    revised_rank: int | None = None
    revised_value: float | None = None

    @property
    def revised(self) -> bool:
        return self.revised_value is not None


PUBLISHED_ON = "yes"  # the figures are the published list's entry
PUBLISHED_OFF = "not on it"  # the published list holds no entry for the key: the figures are as computed now


def drifts_while_idle(system: RatingSystem) -> bool:
    """Whether an idle key's rating moves between its lists (Glicko: φ grows each idle period), so that
    a month derived for it is not simply its latest entry's rating."""
    return system.method == Method.GLICKO


def rank_history(*, coach: Coach, system: RatingSystem, race: Race | None, variant: Variant) -> list[RankMonth]:
    """The key's rank and rating on every monthly list from its first entry on, oldest first, as
    if every list had been complete: the replay's ranking (`Board.ranks`) over the key's group as
    it stood each month. A Glicko value drifts while idle (φ grows), so it comes from the summaries."""
    key = {"system": system, "race": race, "variant": variant}
    own = list(
        RatingListEntry.objects.filter(coach=coach, **key).order_by("rating_list__date")
        .values_list("rating_list__date", "rank", "value", "games")
    )
    if not own:
        return []
    lists = list(RatingList.objects.filter(system=system).order_by("date").values_list("id", "date", "complete"))
    entries = {day: rest for day, *rest in own}
    months: list[RankMonth] = []
    rank, value, games = entries[own[0][0]]
    for _, day, complete in lists:
        if day < own[0][0]:
            continue
        on_list = day in entries
        if on_list:
            rank, value, games = entries[day]
        elif complete:  # a complete list holds every active key: off it, the key is inactive
            rank = None
        # (a movements list holds every key that played or lost its rank: off it, the key stands as it did)
        months.append(RankMonth(day, rank, value, games, on_list=on_list))
    derived = [m.date for m in months if not m.on_list]
    ranked = [m.date for m in months if not m.on_list and m.rank is not None]
    if drifts_while_idle(system):
        standing = _glicko_standing(system, key, coach=coach, derived=derived, ranked=ranked)
    else:
        standing = _movements_ranks(system, key, coach=coach, lists=lists, ranked=ranked)
    months = [replace(m, **standing[m.date]) if m.date in standing else m for m in months]
    return _as_published(months, system, coach=coach, race=race, variant=variant)


def _as_published(months: list[RankMonth], system: RatingSystem, *, coach: Coach, race: Race | None, variant: Variant) -> list[RankMonth]:
    """The months whose list was published (its latest edition, as the list pages show it) with the
    published figures, the figures computed now beside them where they differ at the shown precision."""
    latest: dict[dt.date, int] = {}
    for pk, day in Publication.objects.filter(system=system).order_by("date", "edition").values_list("pk", "date"):
        latest[day] = pk
    if not latest:
        return months
    published = {
        day: (rank, value, games)
        for day, rank, value, games in PublishedEntry.objects.filter(
            publication_id__in=list(latest.values()), coach_number=coach.number,
            race_slug=race.slug if race else "", variant_slug=variant.slug,
        ).values_list("publication__date", "rank", "value", "games")
    }
    places = rating_places(system.method)
    out = []
    for month in months:
        if month.date not in latest:
            out.append(month)
        elif month.date not in published:
            out.append(replace(month, published=PUBLISHED_OFF))
        else:
            rank, value, games = published[month.date]
            same = rank == month.rank and fixed(value, places) == fixed(month.value, places)
            out.append(replace(
                month, rank=rank, value=value, games=games, on_list=True, published=PUBLISHED_ON,
                revised_rank=None if same else month.rank, revised_value=None if same else month.value,
            ))
    return out


def _group_keys(coaches: np.ndarray, coach: Coach) -> tuple[np.ndarray, np.ndarray, int]:
    """(the group's coaches, each row's place among them, the key's own place): the key is among them
    even if no row read is its own."""
    keys, index = np.unique(np.append(coaches, coach.pk), return_inverse=True)
    return keys, index[:-1], int(index[-1])


def _group_board(coaches: np.ndarray) -> Board:
    """A board of one ranking group (the key's race and variant, or its variant), for its ranks."""
    board = Board()
    board.add([(coach, None, None) for coach in coaches.tolist()])
    return board


def _movements_ranks(system: RatingSystem, key: dict, *, coach: Coach, lists: list, ranked: list[dt.date]) -> dict:
    """The key's rank on each `ranked` date (a movements list without its entry, while active): every
    key of the group at its latest entry since the complete list before, ranked as the replay ranks.
    One read of the group's entries on those lists, then one pass per run of movements lists."""
    if not ranked:
        return {}
    runs: dict[int, list[int]] = {}  # position of a complete list (-1: none yet) -> the wanted positions after it
    wanted = set(ranked)
    base = -1
    for position, (_, day, complete) in enumerate(lists):
        if complete:
            base = position
        elif day in wanted:
            runs.setdefault(base, []).append(position)
    position_of = {lists[p][0]: p for start, needed in runs.items() for p in range(max(start, 0), needed[-1] + 1)}
    rows = list(RatingListEntry.objects.filter(rating_list_id__in=list(position_of), **key)
                .values_list("rating_list_id", "coach_id", "value", "rank"))
    if not rows:
        return {}
    list_ids, coaches, values, ranks = (list(column) for column in zip(*rows))
    positions = np.array([position_of[i] for i in list_ids], dtype=np.int64)
    order = np.argsort(positions, kind="stable")
    positions = positions[order]
    keys, index, mine = _group_keys(np.array(coaches, dtype=np.int64)[order], coach)
    values = np.array(values, dtype=float)[order]
    active = np.array([rank is not None for rank in ranks], dtype=bool)[order]
    board = _group_board(keys)
    out = {}
    for start, needed in runs.items():
        value, on = np.full(len(keys), np.nan), np.zeros(len(keys), dtype=bool)
        for position in range(max(start, 0), needed[-1] + 1):
            lo, hi = np.searchsorted(positions, [position, position + 1])
            value[index[lo:hi]], on[index[lo:hi]] = values[lo:hi], active[lo:hi]
            if lists[position][1] in wanted:
                rank, _ = board.ranks(value, on, per_race=system.per_race)
                out[lists[position][1]] = {"rank": int(rank[mine]) or None}
    return out


def _glicko_standing(system: RatingSystem, key: dict, *, coach: Coach, derived: list[dt.date], ranked: list[dt.date]) -> dict:
    """The key's value on each `derived` date, and its rank on the `ranked` ones, as the replay's board
    stood then: each key's latest summary written before the list, its φ grown for the idle periods.
    The group's summaries are read up to the last ranked date, the key's own up to the last date."""
    if not derived:
        return {}
    wanted = Q(coach=coach, chunk__lt=derived[-1])
    if ranked:
        wanted |= Q(chunk__lt=ranked[-1])
    rows = list(PeriodSummary.objects.filter(wanted, **key).order_by("chunk", "effective", "pk")
                .values_list("coach_id", "chunk", "effective", "mu", "phi", "sigma"))
    if not rows:
        return {}
    coaches, chunks, effective, mu, phi, sigma = (list(column) for column in zip(*rows))
    written = np.array([day.toordinal() for day in chunks], dtype=np.int64)
    effective_day = np.array([day.toordinal() for day in effective], dtype=np.int64)
    effective_month = np.array([day.year * 12 + day.month for day in effective], dtype=np.int64)
    mu, phi, sigma = (np.array(column, dtype=float) for column in (mu, phi, sigma))
    keys, index, mine = _group_keys(np.array(coaches, dtype=np.int64), coach)
    board = _group_board(keys)
    rules = list_rules(system, engine_for(system)[1])
    ranked_days = set(ranked)
    out = {}
    done = 0
    for day in derived:
        upto = int(np.searchsorted(written, day.toordinal()))  # the summaries of the chunks before the list
        if upto > done:  # each key's latest of them, as the board folds them in
            _, last_first = np.unique(index[done:upto][::-1], return_index=True)
            rows_in = upto - 1 - last_first
            at = index[rows_in]
            board.mu[at], board.phi[at], board.sigma[at] = mu[rows_in], phi[rows_in], sigma[rows_in]
            board.effective_day[at], board.effective_month[at] = effective_day[rows_in], effective_month[rows_in]
            done = upto
        value, _, active = board.standing(day, rules)
        out[day] = {"value": float(value[mine])}
        if day in ranked_days:
            rank, _ = board.ranks(value, active, per_race=system.per_race)
            out[day]["rank"] = int(rank[mine]) or None
    return out
