"""Predictions: every game's expected score under each rating system, for an event and for one
pairing in the calculator; once a system has rated the event, its stored We against the scores.

Before a system rates a game, each side's rating is the one its engine would take for the key
(coach, race where the system rates races apart, variant): NAF Elo and Glicko the current rating
(CurrentRating), KNSB the list in force on the date of play (the key's latest list entry dated on
or before it). A key without a rating starts at the engine's start value (Elo 150, Glicko μ0 and
φ0, or a new race's start from the coach's other races); a KNSB key without a list rating has no
prediction (its games go into the depot). Once rated, a side's prediction is its stored calculation
row's We: it was known before the game. Byes and forfeits are not predicted.
"""
from __future__ import annotations

import bisect
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Max, Q

from rating_engines import glicko, knsb, naf_elo
from rating_engines.common import BYE, FORFEIT, GLOBAL_REASON_TEXT, PLAYED, REASON_TEXT, CountingRule, GameRecord
from ratings.configuration import engine_for
from ratings.models import CalculationRow, CurrentRating, Method, RatingListEntry, RatingSystem
from ratings.selectors.events import event_games
from ratingsite.formatting import fixed
from tournaments.models import Coach, Event, EventStatus, Game, Race, Variant
from tournaments.permissions import ENTER_EVENTS
from tournaments.selectors import organiser_event_get

PREDICTED_STATUSES = (EventStatus.SUBMITTED, EventStatus.SANCTIONED)
WE_PLACES = 3  # the pages show We to three places: a pairing even at them names no favourite
NO_LIST_RATING = "no list rating yet"
OPPONENT_NO_LIST_RATING = "opponent has no list rating yet"
NOT_RATED_YET = {
    Method.NAF_ELO: "not rated yet",
    Method.GLICKO: "not rated yet: its rating period has not closed",
    Method.KNSB: "not rated yet: waiting for the next monthly list",
}


@dataclass(frozen=True)
class SideRating:
    """The rating one side brings to a game in one system: the Elo CR, the Glicko μ (with φ) or the
    KNSB list rating R0 (with the date of its list); `start`: no rating yet, the engine's start value."""

    rating: float
    phi: float | None = None
    start: bool = False
    list_date: dt.date | None = None


@dataclass
class SidePrediction:
    """One side of one game in one system: its expected score We (None: not predicted, `note` says
    why), the rating it rests on (before the event is rated) and the stored W (once it is)."""

    we: float | None = None
    w: float | None = None
    note: str = ""
    rating: SideRating | None = None


@dataclass
class Total:
    """Expected against actual over some sides: the games predicted, Σ We and (once rated) Σ W."""

    games: int = 0
    we: float = 0.0
    w: float = 0.0

    def add(self, side: SidePrediction) -> None:
        if side.we is None:
            return
        self.games += 1
        self.we += side.we
        self.w += side.w or 0.0

    @property
    def difference(self) -> float:
        """Σ(W − We), as the standings give it."""
        return self.w - self.we


@dataclass
class CoachTotal:
    """A coach's expected total at the event in one system (and once rated, his actual total)."""

    coach: Coach
    race: str
    total: Total = field(default_factory=Total)
    rating: SideRating | None = None  # the rating of his first predicted game, before the event is rated


@dataclass
class SystemPredictions:
    """One system's column of the page. `rated`: the system has rated the event (stored We)."""

    system: RatingSystem
    config: object
    rated: bool
    coaches: list[CoachTotal] = field(default_factory=list)
    event: Total = field(default_factory=Total)


@dataclass
class Pairing:
    """A game with each system's (home, away) predictions, in the order of the page's systems."""

    game: Game
    cells: list[tuple[SidePrediction, SidePrediction]]


@dataclass
class RoundPredictions:
    """A round's pairings, and per system the favourites' expected and actual total (the side with
    the higher We, as shown, in each game both of whose sides are predicted)."""

    round: object
    pairings: list[Pairing]
    favourites: list[tuple[SystemPredictions, Total]]


@dataclass
class EventPredictions:
    event: Event
    systems: list[SystemPredictions]
    rounds: list[RoundPredictions]
    byes: int = 0
    forfeits: int = 0

    @property
    def rated(self) -> bool:
        return any(s.rated for s in self.systems)


# --- the arithmetic: each engine's own expected score ---------------------------------------------


def expected_scores(method: str, config, home: SideRating, away: SideRating) -> tuple[float, float]:
    """Each side's expected score against the other by the method's formula: NAF Elo's P, Glicko-2's
    E (each side's against the other's μ and φ, so the two need not add up to 1), KNSB's We."""
    if method == Method.NAF_ELO:
        return naf_elo.win_probability(home.rating, away.rating), naf_elo.win_probability(away.rating, home.rating)
    if method == Method.GLICKO:
        return (
            glicko.expected_score(home.rating, glicko.GlickoRating(away.rating, away.phi)),
            glicko.expected_score(away.rating, glicko.GlickoRating(home.rating, home.phi)),
        )
    difference = home.rating - away.rating
    return (
        knsb.expected_score(difference, sigma=config.sigma, table=config.we_table),
        knsb.expected_score(-difference, sigma=config.sigma, table=config.we_table),
    )


def reason_texts(system: RatingSystem) -> dict[str, str]:
    """The footnote texts of the reasons a game does not count, in this system's words."""
    return GLOBAL_REASON_TEXT if system.method == Method.GLICKO and not system.per_race else REASON_TEXT


# --- the ratings each engine would use -------------------------------------------------------------


class _Ratings:
    """The ratings one system would use for some coaches in one variant, read at once: the current
    ratings (NAF Elo, Glicko) or every list entry in force from `since` to `until` (KNSB)."""

    def __init__(self, system: RatingSystem, config, *, variant: Variant, coach_ids: set[int], since: dt.date, until: dt.date):
        self.system, self.config = system, config
        self.current: dict[tuple, tuple] = {}
        self.listed: dict[tuple, list[tuple[dt.date, float]]] = defaultdict(list)
        if system.method == Method.KNSB:
            self._read_lists(variant, coach_ids, since, until)
        else:
            rows = CurrentRating.objects.filter(system=system, variant=variant, coach_id__in=coach_ids)
            for coach_id, race_id, value, mu, phi in rows.values_list("coach_id", "race_id", "value", "mu", "phi"):
                self.current[(coach_id, race_id)] = (value, mu, phi)

    def _read_lists(self, variant: Variant, coach_ids: set[int], since: dt.date, until: dt.date) -> None:
        """Each key's latest entry dated on or before `since`, and every later one up to `until`
        (a list that rated no game of a key holds no entry for it: the latest one is in force)."""
        entries = RatingListEntry.objects.filter(system=self.system, variant=variant, coach_id__in=coach_ids)
        latest = entries.filter(rating_list__date__lte=since).values("coach_id", "race_id").annotate(day=Max("rating_list__date"))
        wanted = {(e["coach_id"], e["race_id"], e["day"]) for e in latest}
        found = entries.filter(
            Q(rating_list__date__in={day for _, _, day in wanted}) | Q(rating_list__date__gt=since, rating_list__date__lte=until)
        ).values_list("coach_id", "race_id", "rating_list__date", "value").order_by("rating_list__date")
        for coach_id, race_id, day, value in found:
            if day > since or (coach_id, race_id, day) in wanted:
                self.listed[(coach_id, race_id)].append((day, value))

    def side(self, coach_id: int, race_id: int, day: dt.date) -> SideRating | None:
        """The rating of the coach's key on `day` (None: KNSB, no list rating yet)."""
        key = (coach_id, race_id if self.system.per_race else None)
        method, config = self.system.method, self.config
        if method == Method.KNSB:
            entries = self.listed.get(key, [])
            at = bisect.bisect_right(entries, (day, float("inf")))
            return SideRating(entries[at - 1][1], list_date=entries[at - 1][0]) if at else None
        found = self.current.get(key)
        if method == Method.NAF_ELO:
            return SideRating(found[0]) if found else SideRating(config.start_rating, start=True)
        if found:
            return SideRating(found[1], found[2])
        others = [glicko.GlickoRating(mu, phi) for (coach, _), (_, mu, phi) in self.current.items() if coach == coach_id]
        start = glicko.initial_for_new_race(
            others if config.cross_race_start else [], mu0=config.mu0, phi0=config.phi0, sigma0=config.sigma0,
        )
        return SideRating(start.mu, start.phi, start=True)


def _predicted(ratings: _Ratings, game: GameRecord, home_race_id: int, away_race_id: int | None, day: dt.date):
    """(home, away) predictions of a game the system has not rated, from the ratings it would use."""
    reason = CountingRule.of(ratings.config).exclusion(game)
    if reason is not None:
        note = reason_texts(ratings.system).get(reason, reason)
        return SidePrediction(note=note), SidePrediction(note=note)
    home = ratings.side(game.home, home_race_id, day)
    away = ratings.side(game.away, away_race_id, day)
    if home is None or away is None:
        return (
            SidePrediction(note=NO_LIST_RATING if home is None else OPPONENT_NO_LIST_RATING, rating=home),
            SidePrediction(note=NO_LIST_RATING if away is None else OPPONENT_NO_LIST_RATING, rating=away),
        )
    we_home, we_away = expected_scores(ratings.system.method, ratings.config, home, away)
    return SidePrediction(we_home, rating=home), SidePrediction(we_away, rating=away)


def _stored(system: RatingSystem, rows: list[tuple]) -> SidePrediction:
    """A side's prediction from its stored rows (period order): the last counted one with a We;
    a KNSB game corrected after its list has three, all with the We of its Lijstdatum."""
    if not rows:
        return SidePrediction(note=NOT_RATED_YET[system.method])
    for counted, _, we, w in reversed(rows):
        if counted and we is not None:
            return SidePrediction(we, w)
    reason = rows[-1][1]
    return SidePrediction(note=reason_texts(system).get(reason, reason) if reason else "no expected score (start rating)")


def _stored_pair(system: RatingSystem, stored: dict, game: Game) -> tuple[SidePrediction, SidePrediction]:
    """(home, away) predictions of a rated game; a bye's one row speaks for both."""
    home = _stored(system, stored[(game.pk, "home")])
    return home, _stored(system, stored[(game.pk, "away")]) if game.away_coach_id else home


# --- an event ------------------------------------------------------------------------------------------


def prediction_event_get(*, user, pk: int) -> Event:
    """The event of that id if its predictions may be shown to `user`: a sanctioned event to anyone,
    a submitted one to its organiser and to staff only. Raises Event.DoesNotExist for any other."""
    event = Event.objects.select_related("variant", "organiser").get(pk=pk, status__in=PREDICTED_STATUSES)
    if event.is_public:
        return event
    if not (user.is_authenticated and user.has_perm(ENTER_EVENTS)):
        raise Event.DoesNotExist
    return organiser_event_get(user=user, pk=pk)


def _record(game: Game, variant: Variant) -> GameRecord:
    """The game as its engine would read it once the event is sanctioned."""
    return GameRecord(
        game_id=game.pk, played_at=game.played_at, event_id=game.event_id, variant=variant.slug,
        home=game.home_coach_id, home_race=game.home_race.slug, away=game.away_coach_id,
        away_race=game.away_race.slug if game.away_race_id else None, home_score=game.home_score,
        home_race_ranked=game.home_race.ranked, away_race_ranked=bool(game.away_race_id and game.away_race.ranked),
        kind=game.kind,
    )


def event_predictions(event: Event, systems: list[RatingSystem]) -> EventPredictions:
    """Every game's expected score in each of `systems`, each coach's expected total, and where a
    system has rated the event its stored We with the actual scores, per round and for the event.

    A fixed number of queries per system, whatever the size of the event.
    """
    games = event_games(event)
    coach_ids = {c for g in games for c in (g.home_coach_id, g.away_coach_id) if c is not None}
    days = [g.played_at.date() for g in games]
    records = [_record(g, event.variant) for g in games]
    columns, cells = [], []
    for system in systems:
        _, config = engine_for(system)
        stored = defaultdict(list)
        rows = (
            CalculationRow.objects.filter(system=system, game__event=event)
            .values_list("game_id", "side", "counted", "reason", "we", "w").order_by("period", "id")
        )
        for game_id, side, *values in rows:
            stored[(game_id, side)].append(values)
        rated = bool(stored)
        columns.append(SystemPredictions(system, config, rated))
        if rated:
            cells.append([_stored_pair(system, stored, g) for g in games])
            continue
        ratings = _Ratings(
            system, config, variant=event.variant, coach_ids=coach_ids, since=min(days, default=event.start_date),
            until=max(days, default=event.start_date),
        )
        cells.append([_predicted(ratings, r, g.home_race_id, g.away_race_id, d) for g, r, d in zip(games, records, days)])
    return _event_totals(event, games, columns, [list(row) for row in zip(*cells)] if cells else [[] for _ in games])


def _event_totals(event: Event, games: list[Game], columns: list[SystemPredictions], by_game: list[list]) -> EventPredictions:
    """Rounds with their favourites' totals, and each system's coach totals, from the games' cells."""
    coaches: dict[int, list[CoachTotal]] = {}
    races: dict[int, list[str]] = defaultdict(list)
    rounds: dict[object, RoundPredictions] = {}
    for game, game_cells in zip(games, by_game):
        sides = [(game.home_coach, game.home_race)] + ([(game.away_coach, game.away_race)] if game.away_coach_id else [])
        for coach, race in sides:
            coaches.setdefault(coach.pk, [CoachTotal(coach, "") for _ in columns])
            if race.name not in races[coach.pk]:
                races[coach.pk].append(race.name)
        round_ = rounds.get(game.round_id)
        if round_ is None:
            round_ = rounds[game.round_id] = RoundPredictions(game.round, [], [(column, Total()) for column in columns])
        round_.pairings.append(Pairing(game, game_cells))
        for index, (home, away) in enumerate(game_cells):
            for (coach, _), side in zip(sides, (home, away)):
                total = coaches[coach.pk][index]
                total.total.add(side)
                columns[index].event.add(side)
                if total.rating is None and side.we is not None:
                    total.rating = side.rating
            if home.we is not None and away.we is not None and fixed(home.we, WE_PLACES) != fixed(away.we, WE_PLACES):
                round_.favourites[index][1].add(home if home.we > away.we else away)
    ordered = sorted(coaches, key=lambda pk: (coaches[pk][0].coach.name, pk))
    for index, column in enumerate(columns):
        column.coaches = [coaches[pk][index] for pk in ordered]
        for total in column.coaches:
            total.race = ", ".join(races[total.coach.pk])
    return EventPredictions(
        event, columns, sorted(rounds.values(), key=lambda r: r.round.number),
        byes=sum(g.kind == BYE for g in games), forfeits=sum(g.kind == FORFEIT for g in games),
    )


# --- one pairing (the calculator) ---------------------------------------------------------------------


@dataclass
class PairingRow:
    """One system's (or method's) expected scores of a pairing."""

    system: RatingSystem
    home: SidePrediction
    away: SidePrediction

    @property
    def sides(self) -> tuple[SidePrediction, SidePrediction]:
        return self.home, self.away


def coach_pairing(
    *, systems: Iterable[tuple[RatingSystem, object]], home: Coach, home_race: Race, away: Coach, away_race: Race,
    variant: Variant, on: dt.date,
) -> list[PairingRow]:
    """The expected scores of `home` against `away` in each system, from the ratings its engine would
    use for a game played on `on` (the current ratings; KNSB the list in force)."""
    game = GameRecord(
        game_id=0, played_at=dt.datetime.combine(on, dt.time()), event_id=0, variant=variant.slug, home=home.pk,
        home_race=home_race.slug, away=away.pk, away_race=away_race.slug, home_score=0.5,
        home_race_ranked=home_race.ranked, away_race_ranked=away_race.ranked, kind=PLAYED,
    )
    out = []
    for system, config in systems:
        ratings = _Ratings(system, config, variant=variant, coach_ids={home.pk, away.pk}, since=on, until=on)
        out.append(PairingRow(system, *_predicted(ratings, game, home_race.pk, away_race.pk, on)))
    return out


def rating_pairing(*, systems: Iterable[tuple[RatingSystem, object]], home: SideRating, away: SideRating) -> list[PairingRow]:
    """The expected scores of two given ratings under each system's method (one rating for every
    method: the scales differ, a NAF Elo CR starting at 150, Glicko and KNSB at 1500)."""
    out = []
    for system, config in systems:
        we_home, we_away = expected_scores(system.method, config, home, away)
        out.append(PairingRow(system, SidePrediction(we_home, rating=home), SidePrediction(we_away, rating=away)))
    return out
