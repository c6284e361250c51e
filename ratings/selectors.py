"""Reads for the ratings: the game stream the engines consume, and stored ratings for pages and exports."""
import datetime as dt

from django.db import connection
from django.utils.dateparse import parse_datetime

from ratings.engines.common import GameRecord
from tournaments.models import EventStatus

_GAME_SQL = """
SELECT g.id, {played_at}, g.event_id, v.slug, g.home_coach_id, hr.slug, g.away_coach_id, ar.slug,
       g.home_touchdowns, g.away_touchdowns, e.is_major, e.status, hr.ranked, ar.ranked, g.kind,
       g.conceded_by, e.end_date
FROM tournaments_game g
JOIN tournaments_event e ON e.id = g.event_id
JOIN tournaments_variant v ON v.id = e.variant_id
JOIN tournaments_race hr ON hr.id = g.home_race_id
LEFT JOIN tournaments_race ar ON ar.id = g.away_race_id
WHERE e.status <> %s {where}
ORDER BY g.played_at, g.id
"""

_EVENT_COACHES_SQL = """
SELECT event_id, COUNT(DISTINCT coach_id) FROM tournaments_gameside
WHERE event_id IN (SELECT DISTINCT g.event_id FROM tournaments_game g JOIN tournaments_event e ON e.id = g.event_id
                   WHERE e.status <> %s {where})
GROUP BY event_id
"""


def naive_utc(value) -> dt.datetime:
    """Datetimes as the engines see them: naive, in UTC (SQLite may hand back text)."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value


def _as_date(value) -> dt.date:
    return dt.date.fromisoformat(value) if isinstance(value, str) else value


def _window(since: dt.datetime | None, until: dt.datetime | None) -> tuple[str, list]:
    where, params = "", [EventStatus.DRAFT]
    if since is not None:
        where += " AND g.played_at >= %s"
        params.append(since.replace(tzinfo=dt.timezone.utc) if since.tzinfo is None else since)
    if until is not None:
        where += " AND g.played_at < %s"
        params.append(until.replace(tzinfo=dt.timezone.utc) if until.tzinfo is None else until)
    return where, params


def game_records(*, since: dt.datetime | None = None, until: dt.datetime | None = None) -> list[GameRecord]:
    """Every recorded game outside draft events in [since, until), in rating order (time of play, id).

    Unsanctioned games are included: they keep a footnoted row in every breakdown.
    Coaches are identified by their database id, races and variants by slug.
    """
    where, params = _window(since, until)
    # PostgreSQL hands back naive UTC itself (its C loader), which is most of reading a long history.
    played_at = "g.played_at AT TIME ZONE 'UTC'" if connection.vendor == "postgresql" else "g.played_at"
    with connection.cursor() as cursor:
        cursor.execute(_EVENT_COACHES_SQL.format(where=where), params)
        coaches_in_event = dict(cursor.fetchall())
    sanctioned = EventStatus.SANCTIONED
    as_naive = (lambda value: value) if connection.vendor == "postgresql" else naive_utc
    records = []
    append = records.append
    # One object per distinct slug, time of play and event end: the driver makes a new one per row,
    # and a million games would otherwise hold several million copies.
    shared: dict = {}
    share = shared.setdefault
    # a server-side cursor on PostgreSQL: a million raw rows are never held at once beside the records
    with connection.chunked_cursor() as cursor:
        cursor.execute(_GAME_SQL.format(where=where, played_at=played_at), params)
        while rows := cursor.fetchmany(20_000):
            for (game_id, played_at, event_id, variant, home, home_race, away, away_race, home_td, away_td, major,
                 status, home_ranked, away_ranked, kind, conceded_by, event_end) in rows:
                # GameRecord's fields in order (positional: a million keyword calls add up)
                append(GameRecord(
                    game_id, share(at := as_naive(played_at), at), event_id, share(variant, variant), home,
                    share(home_race, home_race), away, share(away_race, away_race),
                    1.0 if home_td > away_td else 0.0 if home_td < away_td else 0.5, coaches_in_event.get(event_id, 0),
                    bool(major), status == sanctioned, bool(home_ranked),
                    bool(away_ranked) if away_race is not None else False, share(kind, kind), conceded_by,
                    share(end := _as_date(event_end), end),
                ))
    return records


LZ4_MAGIC = b"\x04\x22\x4d\x18"


def resume_point(system, day: dt.date | None):
    """(ledger, start) to replay `system` from: the latest checkpoint at or before `day`, or an
    empty ledger from the first game when there is none (or no day)."""
    import pickle
    import zlib

    import lz4.frame

    from ratings.models import EngineCheckpoint
    from ratings.replay import Ledger

    checkpoint = None
    if day is not None:
        checkpoint = EngineCheckpoint.objects.filter(system=system, as_of__lte=day).order_by("-as_of").first()
    if checkpoint is None:
        return Ledger(), None
    state = bytes(checkpoint.state)
    # LZ4 frames; checkpoints written before LZ4 are zlib streams
    raw = lz4.frame.decompress(state) if state[:4] == LZ4_MAGIC else zlib.decompress(state)
    return pickle.loads(raw), checkpoint.as_of


def replay_as_of(system, on: dt.date):
    """The entries of every rated key of `system` as of `on` (every period ended before it),
    replayed in memory from the latest checkpoint at or before that date; writes nothing."""
    from ratings.configuration import engine_for, list_rules
    from ratings.replay import replay

    module, config = engine_for(system)
    ledger, start = resume_point(system, on)
    games = game_records(
        since=dt.datetime.combine(start, dt.time()) if start else None, until=dt.datetime.combine(on, dt.time())
    )
    entries = []
    for chunk in replay(
        module, config, games, ledger, start=start, until=on, rules=list_rules(system, config),
        per_race=system.per_race, complete=lambda day: False,
    ):
        entries = chunk.entries
    return entries


EXPORT_HEADER = ["coach_number", "coach", "race", "variant", "rating", "mu", "phi", "sigma", "rank", "games"]


def _number(value, places: int) -> str:
    return "" if value is None else f"{value:.{places}f}"


def export_rows(system, *, on: dt.date | None = None, variant=None) -> list[list[str]]:
    """The CSV rows of a ranking (current, or as of `on`), best first, inactive keys unranked at the end."""
    from ratings.models import CurrentRating
    from tournaments.models import Coach, Race, Variant

    if on is None:
        ratings = CurrentRating.objects.filter(system=system)
        if variant is not None:
            ratings = ratings.filter(variant=variant)
        data = list(ratings.values_list(
            "coach__number", "coach__name", "race__name", "variant__name", "value", "mu", "phi", "sigma", "rank", "games",
        ))
    else:
        coaches = dict((pk, (number, name)) for pk, number, name in Coach.objects.values_list("pk", "number", "name"))
        races = dict(Race.objects.values_list("slug", "name"))
        variants = dict(Variant.objects.values_list("slug", "name"))
        data = []
        for e in replay_as_of(system, on):
            coach, race, variant_slug = e.key
            if variant is not None and variant_slug != variant.slug:
                continue
            number, name = coaches[coach]
            data.append((number, name, races.get(race), variants[variant_slug], e.value, e.mu, e.phi, e.sigma, e.rank, e.games))
    data.sort(key=lambda r: (r[3], r[2] or "", r[8] is None, r[8] or 0, -r[4], r[0]))
    return [
        [str(number), name, race or "", variant_name, _number(value, 2), _number(mu, 2), _number(phi, 2),
         _number(sigma, 6), "" if rank is None else str(rank), str(games)]
        for number, name, race, variant_name, value, mu, phi, sigma, rank, games in data
    ]
