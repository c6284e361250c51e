"""What sanctioning an event would change, shown to staff before they sanction it.

Each active system is replayed in memory twice from its checkpoint at or before the event's first
game, as the sanction's run will replay it: once as the record stands, once with the event's games
counted as the sanction counts them (reported today). The two give how many rating keys move, the
largest changes, and which published lists would show revised figures. Nothing is written.

A KNSB game waits for its list, a Glicko game for its rating period to close: such a system is
compared on the day that rates the event's last games (the figures its pages show from then), not today.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import pickle
import time
from dataclasses import dataclass, field
from operator import attrgetter

from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from rating_engines import glicko
from rating_engines.protocol import LateResults
from ratings.configuration import engine_for, list_rules
from ratings.models import Method, Publication, RatingSystem, RecalculationRun
from ratings.replay import Entries, Ledger, UnratableGame, month_start, next_month, replay
from ratings.selectors.history import (
    active_systems,
    games_from,
    reads_reported,
    resume_point,
    sanctioned_records,
)
from ratingsite.formatting import fixed, rating_places
from tournaments.models import PUBLIC_STATUSES, Coach, Event, Game, Race, Variant

logger = logging.getLogger(__name__)

LARGEST = 10
# The games a preview replays, twice, at most: 21,479 took 1.3 to 1.6 s a system (SQLite, the FUMBBL
# record), so about 3.5 s. Beyond (an old event of a long record), the page leaves it to the run.
MAX_GAMES = 50_000
CACHE_SECONDS = 3600


@dataclass(frozen=True)
class KeyChange:
    """One rating key's figures before and after the sanction (before None: a new rating)."""

    coach_number: int
    coach_name: str
    race: str
    variant: str
    before: float | None
    after: float
    rank_before: int | None
    rank_after: int | None

    @property
    def change(self) -> float | None:
        return None if self.before is None else self.after - self.before


@dataclass(frozen=True)
class ListRevision:
    """A published list whose figures the sanction revises: how many of its entries change."""

    date: dt.date
    entries: int


@dataclass
class SystemImpact:
    """One system's preview. `note`, when set, says why there are no figures."""

    name: str
    slug: str
    places: int
    as_of: dt.date | None = None  # the day the figures compare (today, or the KNSB list that processes the games)
    moved: int = 0  # keys whose rating changes (new ones included)
    coaches: int = 0  # the coaches of those keys
    new: int = 0
    largest: list[KeyChange] = field(default_factory=list)
    new_ratings: list[KeyChange] = field(default_factory=list)
    revised: list[ListRevision] = field(default_factory=list)
    processed_on: list[tuple[dt.date, int, bool]] = field(default_factory=list)  # (day rated on, games, still to come)
    waiting: bool = False  # the games wait for a list (KNSB) or a period's close (Glicko) still to come
    waits_for: str = ""  # "list" or "period"
    replayed_from: dt.date | None = None
    games: int = 0
    seconds: float = 0.0
    note: str = ""
    pending_run: bool = False  # a run of the system is queued or running: its figures may still move


def sanction_impact(*, event: Event, today: dt.date | None = None) -> list[SystemImpact]:
    """Every active system's preview of sanctioning `event` (not sanctioned, not open play) on
    `today` (default: today), each cached until the event's games or the system's state change."""
    reported_on = today or timezone.localdate()  # as event_sanction reports its games
    today = today or timezone.now().date()  # as the sanction's run replays to
    records = sanctioned_records(event, reported_on=reported_on)
    fingerprint = hashlib.sha256(repr((event.pk, event.updated_at, reported_on, today, records)).encode()).hexdigest()[:24]
    out = []
    for system in active_systems():
        latest = RecalculationRun.objects.filter(system=system).order_by("-pk").values_list("pk", "status").first()
        state = json.dumps([system.pk, str(system.recalculated_at), system.parameters, system.per_race, latest],
                           sort_keys=True, default=str)
        key = f"sanction-impact:{fingerprint}:{hashlib.sha256(state.encode()).hexdigest()[:24]}"
        impact = cache.get(key)
        if impact is None:
            impact = _system_impact(system, records, today=today)
            if not impact.note or impact.note == NO_GAMES:
                cache.set(key, impact, CACHE_SECONDS)
        impact.pending_run = bool(latest) and latest[1] in ("queued", "running")
        out.append(impact)
    return out


NO_GAMES = gettext_lazy("The event has no games: its sanction changes no rating.")


def _system_impact(system: RatingSystem, records: list, *, today: dt.date) -> SystemImpact:
    impact = SystemImpact(name=system.name, slug=system.slug, places=rating_places(system.method))
    if not records:
        impact.note = NO_GAMES
        return impact
    started = time.perf_counter()
    try:
        _compare(system, records, today=today, impact=impact)
    except UnratableGame as error:
        impact.note = gettext("No preview: %(reason)s.") % {"reason": error}
    except Exception as error:  # a preview is advice: the page and the sanction go on without it
        logger.exception("the sanction preview of %s failed", system.slug)
        impact.note = gettext("No preview: it failed (%(error)s). The sanction's run will say more if it fails too.") % {
            "error": f"{type(error).__name__}: {error}"}
    impact.seconds = time.perf_counter() - started
    return impact


def _resumed(system: RatingSystem, day: dt.date, config) -> tuple[Ledger, dt.date | None]:
    """The checkpoint a run from `day` resumes from, as `_recalculate` takes it (a state made under
    other parameters is no start)."""
    ledger, start = resume_point(system, day)
    if start is not None and getattr(ledger.engine_state, "config", config) != config:
        return Ledger(), None
    return ledger, start


def _compare(system: RatingSystem, records: list, *, today: dt.date, impact: SystemImpact) -> None:
    module, config = engine_for(system)
    first = records[0].played_at.date()
    ledger, start = _resumed(system, first, config)
    impact.note = _too_long(system, records, start)
    if impact.note:
        return
    until = _add_rated_on(impact, system, module, config, records, today=today)
    games = games_from(start, reported=reads_reported(module))
    with_event = sorted([*games, *records], key=attrgetter("played_at", "game_id"))
    published = dict(
        Publication.objects.filter(system=system, date__gt=first, date__lte=until)
        .values_list("date", "complete").order_by("date", "edition")
    )
    rules = list_rules(system, config)
    twin = pickle.loads(pickle.dumps(ledger, protocol=pickle.HIGHEST_PROTOCOL))  # each replay updates its own in place
    before_lists, before = _replayed(system, module, config, rules, games, ledger, start, until, published)
    after_lists, after = _replayed(system, module, config, rules, with_event, twin, start, until, published)
    impact.as_of, impact.replayed_from, impact.games = until, start, len(with_event)
    for day in published:
        was, now = before_lists.get(day, {}), after_lists.get(day, {})
        changed = sum(1 for key in was.keys() | now.keys() if was.get(key) != now.get(key))
        if changed:
            impact.revised.append(ListRevision(day, changed))
    _add_moves(impact, before, after)


def _too_long(system: RatingSystem, records: list, start: dt.date | None) -> str:
    """Why the preview would take too long to replay (more than MAX_GAMES games, twice), or ""."""
    played = Game.objects.filter(event__status__in=PUBLIC_STATUSES)
    total = (played.filter(played_at__gte=dt.datetime.combine(start, dt.time(), tzinfo=dt.UTC)) if start else played).count()
    total += len(records)
    if total <= MAX_GAMES:
        return ""
    if start:
        note = gettext("No preview: %(system)s would replay %(games)s games from its stored state of %(day)s, twice, which would "
                       "hold this page up. The sanction's run recalculates it.")
    else:
        note = gettext("No preview: %(system)s would replay %(games)s games from the first game (it has no stored state before "
                       "the event), twice, which would hold this page up. The sanction's run recalculates it.")
    return note % {"system": system.name, "games": f"{total:,}", "day": f"{start:%Y-%m-%d}" if start else ""}


def _add_rated_on(impact: SystemImpact, system: RatingSystem, module, config, records: list, *, today: dt.date) -> dt.date:
    """Set when the event's games are first rated (and whether that is still to come); the day the
    figures compare: today, or the later list or period close that rates them."""
    rated_on = _rated_on(system, module, config, records)
    impact.processed_on = [(day, games, day > today) for day, games in sorted(rated_on.items())]
    impact.waits_for = "list" if system.method == Method.KNSB else "period"
    if impact.processed_on and impact.processed_on[-1][2]:
        impact.waiting = True
        return impact.processed_on[-1][0]
    return today


def _add_moves(impact: SystemImpact, before: dict, after: dict) -> None:
    """Set the keys that move (at the shown precision), the largest changes and the new ratings."""
    places = impact.places
    moved = [
        (key, before.get(key), figures) for key, figures in after.items()
        if key not in before or fixed(before[key][0], places) != fixed(figures[0], places)
    ]
    impact.moved, impact.coaches = len(moved), len({key[0] for key, _, _ in moved})
    new = [m for m in moved if m[1] is None]
    impact.new = len(new)
    changed = sorted((m for m in moved if m[1] is not None), key=lambda m: (-abs(m[2][0] - m[1][0]), m[0]))[:LARGEST]
    new = sorted(new, key=lambda m: (-m[2][0], m[0]))[:LARGEST]
    impact.largest, impact.new_ratings = _named(changed), _named(new)


def _rated_on(system: RatingSystem, module, config, records: list) -> dict[dt.date, int]:
    """{the day a list or a period's close first rates them: how many of the event's games} (NAF Elo
    rates each game at once: empty). KNSB: the list after the month of play, or for a late result
    the list after the month it was reported in; Glicko: the day after the game's period ends."""
    days: dict[dt.date, int] = {}
    for record in records:
        played = record.played_at.date()
        if isinstance(module, LateResults):
            month = module.late_month(record)
            day = next_month(dt.date(month // 12, month % 12 + 1, 1) if month is not None else month_start(played))
        elif system.method == Method.GLICKO:
            if config.period == "event":
                end = max(played, record.event_end or played)
            else:
                end = glicko.calendar_period(played, config).last_day
            day = end + dt.timedelta(days=1)
        else:
            continue
        days[day] = days.get(day, 0) + 1
    return days


def _replayed(system, module, config, rules, games, ledger, start, until, published) -> tuple[dict, dict]:
    """({published list date: {key: value as the list shows it}}, {key: (value, rank)} as of `until`)."""
    places = rating_places(system.method)
    lists: dict = {}
    current: dict = {}
    for chunk in replay(
        module, config, games, ledger, start=start, until=until, rules=rules, per_race=system.per_race,
        complete=lambda day: published.get(day, False),  # as stored: the published lists' own kind
    ):
        if chunk.is_list and chunk.end in published:
            lists[chunk.end] = dict(zip(chunk.entries.keys, (fixed(v, places) for v in chunk.entries.value.tolist())))
        elif not chunk.is_list:
            current = _figures(chunk.entries)
    return lists, current


def _figures(entries: Entries) -> dict:
    values, ranks = entries.value.tolist(), entries.rank.tolist()
    return {key: (value, rank or None) for key, value, rank in zip(entries.keys, values, ranks)}


def _named(moves: list) -> list[KeyChange]:
    coaches = {pk: (number, name) for pk, number, name in Coach.objects.filter(
        pk__in={key[0] for key, _, _ in moves}).values_list("pk", "number", "name")}
    races = dict(Race.objects.filter(Q(slug__in={key[1] for key, _, _ in moves if key[1]})).values_list("slug", "name"))
    variants = dict(Variant.objects.values_list("slug", "name"))
    out = []
    for (coach, race, variant), before, (value, rank) in moves:
        number, name = coaches.get(coach, (0, "?"))
        out.append(KeyChange(
            number, name, races.get(race, race or ""), variants.get(variant, variant), None if before is None else before[0],
            value, None if before is None else before[1], rank,
        ))
    return out

