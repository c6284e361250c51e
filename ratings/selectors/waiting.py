"""KNSB games waiting for the next list (spec, Publication): read-time figures, never stored.

A KNSB list rates its games only when it is made, so between two lists the games reported since
the latest one have no rows: a late result (reported after the list that would have rated it) and
every on-time game of the month still running. Until the list that will rate them is made, their
pages show them as waiting for it, with the R0 and Rc of the list in force on their date of play
and the We, k and Rt those give: the engine's own formulas over the stored ratings. Provisional:
Wx, the LPR and the new rating come only with the list, and no stored total includes them.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import Max, Q

from rating_engines import knsb
from rating_engines.common import AWAY, HOME, CountingRule, Reason
from rating_engines.knsb.calculator import date_of_list, month_number
from ratings.configuration import engine_for
from ratings.models import CurrentRating, Method, PeriodSummary, RatingList, RatingSystem
from ratings.selectors.history import game_records
from tournaments.models import Coach, Event, EventStatus, Game, Race, Variant


@dataclass
class WaitingRow:
    """One side of a game waiting for its list, as that list will rate it (a calculation row's columns)."""

    game_id: int
    side: str
    coach_id: int
    race_id: int | None  # the key's race: None when races are pooled
    variant_id: int
    opponent: Coach | None
    opponent_race: Race | None
    played_at: dt.datetime
    reported_on: dt.date | None
    event_id: int
    event_name: str
    waiting_for: dt.date  # the list that will rate it
    list_date: dt.date  # Lijstdatum: the list its R0 and Rc come from
    late: bool  # reported after the list that would have rated it was out
    w: float
    counted: bool = False  # will count when the list is made
    reason: str = ""
    r0: float | None = None
    rc: float | None = None
    we: float | None = None
    k: float | None = None
    rt: float | None = None
    wx: float | None = None  # comes with the list's LPR
    depot_date: dt.date | None = None  # an unrated side: the list at which the game will enter the depot

    @property
    def opponent_id(self) -> int | None:
        return self.opponent.pk if self.opponent is not None else None

    @property
    def key(self) -> tuple:
        return self.coach_id, self.race_id, self.variant_id

    @property
    def period(self) -> str:
        return self.waiting_for.isoformat()


@dataclass
class WaitingCount:
    """A rating key's games waiting for a list: how many will count, the latest played, which list."""

    games: int = 0
    last_played: dt.date | None = None
    lists: list = field(default_factory=list)
    played: set = field(default_factory=set)  # every waiting game's id, counting or not

    @property
    def list_date(self) -> dt.date | None:
        return self.lists[0] if self.lists else None


def latest_list_date(system: RatingSystem) -> dt.date | None:
    return RatingList.objects.filter(system=system).aggregate(latest=Max("date"))["latest"]


def waiting_rows(system: RatingSystem, *, coach_ids: set[int] | None = None, event: Event | None = None) -> list[WaitingRow]:
    """The sides of the games waiting for a list of `system` (KNSB; none for the other methods), of
    games with one of `coach_ids` or of `event` if given, in order of play; each game's both sides."""
    if system.method != Method.KNSB:
        return []
    latest = latest_list_date(system)
    if latest is None:  # no list yet: nothing is rated, nothing to show as it will be
        return []
    if not _any_since(latest, coach_ids=coach_ids, event=event):  # the common case, in one query
        return []
    _, config = engine_for(system)
    records = [
        g for g in game_records(since=dt.datetime.combine(latest, dt.time()), reported_since=latest)
        if g.sanctioned and (event is None or g.event_id == event.pk)
        and (coach_ids is None or g.home in coach_ids or g.away in coach_ids)
    ]
    placed = _placed_after(records, latest)
    if not placed:
        return []
    return _Rater(system, config, latest).rows(placed)


def _any_since(latest: dt.date, *, coach_ids: set[int] | None, event: Event | None) -> bool:
    """Whether any sanctioned game (of `event`, with one of `coach_ids`) was played or reported since
    the latest list."""
    candidates = Game.objects.filter(event__status=EventStatus.SANCTIONED).filter(
        Q(played_at__gte=dt.datetime.combine(latest, dt.time(), tzinfo=dt.UTC)) | Q(reported_on__gte=latest))
    if event is not None:
        candidates = candidates.filter(event=event)
    if coach_ids is not None:
        candidates = candidates.filter(Q(home_coach_id__in=coach_ids) | Q(away_coach_id__in=coach_ids))
    return candidates.exists()


def _placed_after(records: list, latest: dt.date) -> list[tuple]:
    """(record, the list it waits for, the list its R0 and Rc come from, late) of each result the
    engine places in a list after `latest`."""
    placed = []
    for game in records:
        for month, record in knsb.placements(game):
            played = month_number(record.played_at)
            waiting_for = date_of_list((played if month is None else month) + 1)
            if waiting_for > latest:
                placed.append((record, waiting_for, min(date_of_list(played), latest), month is not None))
    return placed


class _Rater:
    """The figures of waiting games from the stored ratings, by the engine's formulas."""

    def __init__(self, system: RatingSystem, config, latest: dt.date):
        self.system, self.c, self.latest = system, config, latest
        self.exclusion = CountingRule.of(config).exclusion
        self.races = {race.slug: race for race in Race.objects.all()}
        self.variants = dict(Variant.objects.values_list("slug", "pk"))
        self.initial = {coach: (rating, min(config.nv_cap, games)) for coach, rating, games, _ in config.initial_list}
        self.born = {coach: year for coach, _, _, year in config.initial_list if year is not None}

    def rows(self, placed: list) -> list[WaitingRow]:
        coaches = {c for record, *_ in placed for c in (record.home, record.away) if c is not None}
        self._ratings(coaches, {in_force for _, _, in_force, _ in placed})
        opponents = Coach.objects.in_bulk(coaches)
        events = dict(Event.objects.filter(pk__in={r.event_id for r, *_ in placed}).values_list("pk", "name"))
        out = []
        for record, waiting_for, in_force, late in placed:
            sides = [(HOME, record.home, record.home_race, record.away, record.away_race, record.home_score)]
            if record.away is not None:
                sides.append((AWAY, record.away, record.away_race, record.home, record.home_race, 1.0 - record.home_score))
            rated = {coach: self._rating(coach, race, record.variant, in_force) for _, coach, race, *_ in sides}
            reason = self.exclusion(record)
            for side, coach, race, opponent, opponent_race, w in sides:
                row = WaitingRow(
                    record.game_id, side, coach, self._race_id(race), self.variants[record.variant],
                    opponents.get(opponent), self.races.get(opponent_race), record.played_at, record.reported_on,
                    record.event_id, events.get(record.event_id, ""), waiting_for, in_force, late, w,
                )
                self._figures(row, record, reason, rated[coach], rated.get(opponent), (coach, race, record.variant))
                if row.reason != Reason.REVERSED or row.rt is not None:
                    out.append(row)
        return out

    def _figures(self, row: WaitingRow, record, reason: str | None, mine, theirs, key: tuple) -> None:
        """R0, Rc, We, k and Rt of one side, or why it will not count (the engine's list close, in words)."""
        c = self.c
        r0, nv = mine if mine is not None else (None, None)
        rc = theirs[0] if theirs is not None else None
        if record.reverses:  # a correction takes the old result back: nothing to take from an unrated side
            if r0 is not None and rc is not None:
                self._rate(row, r0, nv, rc, sign=-1.0)
            row.reason = Reason.REVERSED
            return
        if reason is not None:
            row.reason = reason
            if reason != Reason.VARIANT_EXCLUDED:
                row.r0, row.rc = r0, rc
            return
        if r0 is not None and rc is not None:
            self._rate(row, r0, nv, rc)
            row.counted = True
            return
        row.r0 = r0
        if r0 is not None:
            row.reason = Reason.OPPONENT_UNRATED
        elif self._rated_later(*key):  # a late game from before the coach's start rating: nothing left to use it
            row.reason, row.rc = Reason.IN_DEPOT, rc
        elif rc is not None:
            row.reason, row.rc, row.depot_date = Reason.IN_DEPOT, rc, row.waiting_for
        elif c.bootstrap_rating is not None:
            row.reason, row.rc, row.depot_date = Reason.DEPOT_BOOTSTRAP, c.bootstrap_rating, row.waiting_for
        else:
            row.reason = Reason.OPPONENT_UNRATED

    def _rate(self, row: WaitingRow, r0: float, nv: int | None, rc: float, *, sign: float = 1.0) -> None:
        assert nv is not None  # a KNSB rating always rests on its games (Nv)
        c = self.c
        born = self.born.get(row.coach_id)
        junior = c.junior_age is not None and born is not None and row.list_date.year - born <= c.junior_age
        row.r0, row.rc = r0, rc
        row.we = knsb.expected_score(r0 - rc, sigma=c.sigma, table=c.we_table)
        row.k = knsb.k_factor(r0, nv, junior=junior)
        row.rt = sign * (row.k * (row.w - row.we))  # calculator.rating_change

    def _race_id(self, slug: str | None) -> int | None:
        if not self.c.per_race or slug is None:
            return None
        return self.races[slug].pk

    def _ratings(self, coaches: set[int], dates: set[dt.date]) -> None:
        """Each key's (rating, Nv) on every list a waiting game takes them from: the latest list's are
        the current ratings; an older list's the key's latest new rating dated on or before it."""
        key = ("coach_id", "race_id", "variant_id")
        self.current = {
            (coach, race, variant): (value, nv)
            for coach, race, variant, value, nv in CurrentRating.objects.filter(system=self.system, coach_id__in=coaches)
            .values_list(*key, "value", "nv")
        }
        self.history: dict[tuple, list] = {}
        older = [d for d in dates if d < self.latest]
        if older:
            summaries = (
                PeriodSummary.objects.filter(system=self.system, coach_id__in=coaches, effective__lte=max(older))
                .values_list(*key, "effective", "rn", "nv").order_by("effective", "id")
            )
            for coach, race, variant, effective, rn, nv in summaries:
                self.history.setdefault((coach, race, variant), []).append((effective, rn, nv))

    def _rating(self, coach: int, race: str | None, variant: str, on: dt.date) -> tuple | None:
        """(rating, Nv) of a key on the list of `on`, None when it had none (the imported list rates on sight)."""
        key = (coach, self._race_id(race), self.variants[variant])
        if on >= self.latest:
            found = self.current.get(key)
            if found is not None:
                return found
        else:
            found = None
            for effective, rn, nv in self.history.get(key, ()):
                if effective > on:
                    break
                found = (rn, nv)
            if found is not None:
                return found
        return self.initial.get(coach)

    def _rated_later(self, coach: int, race: str | None, variant: str) -> bool:
        return (coach, self._race_id(race), self.variants[variant]) in self.current


def waiting_counts(rows: list[WaitingRow]) -> dict[tuple, WaitingCount]:
    """(coach id, race id, variant id) -> its waiting games that will count (a correction of a game
    already counted adds none) and the latest of them played; every key with a waiting row."""
    counts: dict[tuple, WaitingCount] = {}
    taken_back = {(row.key, row.game_id) for row in rows if row.reason == Reason.REVERSED}
    for row in rows:
        count = counts.setdefault(row.key, WaitingCount())
        if row.waiting_for not in count.lists:
            count.lists.append(row.waiting_for)
        count.played.add(row.game_id)
        if row.counted and (row.key, row.game_id) not in taken_back:
            count.games += 1
            day = row.played_at.date()
            if count.last_played is None or day > count.last_played:
                count.last_played = day
    for count in counts.values():
        count.lists.sort()
    return counts
