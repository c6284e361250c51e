"""Plain data shared by every rating engine: the games they read, the rows and summaries they write.

No Django, no settings, no clock: engines take these in and give these out.
"""
from __future__ import annotations

import gc
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import MISSING, dataclass, fields
from datetime import date, datetime
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, Self, TypeVar

import numpy as np

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

HOME = "home"
AWAY = "away"

PLAYED = "played"
FORFEIT = "forfeit"
BYE = "bye"


class Reason:
    """Why a calculation row does not count (stored as the code, shown as a footnote)."""

    OPPONENT_UNRATED = "opponent_unrated"
    RACE_EXCLUDED = "race_excluded"
    RACE_NOT_RANKED = "race_not_ranked"
    EVENT_NOT_SANCTIONED = "event_not_sanctioned"
    FORFEIT = "forfeit"
    BYE = "bye"
    VARIANT_EXCLUDED = "variant_excluded"
    REVERSED = "reversed"
    IN_DEPOT = "in_depot"
    DEPOT_EXPIRED = "depot_expired"
    DEPOT_BOOTSTRAP = "depot_bootstrap"


REASON_TEXT = {
    Reason.OPPONENT_UNRATED: "opponent unrated",
    Reason.RACE_EXCLUDED: "race excluded from this ranking",
    Reason.RACE_NOT_RANKED: "race not ranked",
    Reason.EVENT_NOT_SANCTIONED: "event not sanctioned",
    Reason.FORFEIT: "forfeit",
    Reason.BYE: "bye",
    Reason.VARIANT_EXCLUDED: "variant not in this ranking",
    Reason.REVERSED: "result corrected after a list had rated it: its Rt taken back here (the corrected result is rated beside it)",
    Reason.IN_DEPOT: "game in depot: no rating yet",
    Reason.DEPOT_EXPIRED: "depot game expired (older than the depot limit)",
    Reason.DEPOT_BOOTSTRAP: "depot game against an unrated opponent, rated at the bootstrap rating",
}

# Global Glicko pools the races: the spec's words for the races it leaves out
GLOBAL_REASON_TEXT = {**REASON_TEXT, Reason.RACE_EXCLUDED: "race excluded from global ranking"}


_Slotted = TypeVar("_Slotted")


def pickled_by_values(cls: type[_Slotted]) -> type[_Slotted]:
    """A slots dataclass pickled as its constructor's arguments, in field order: a slots dataclass
    otherwise pickles each object as a dict of its field names, made and read field by field, six
    times the time (a checkpoint holds the games of KNSB depots and open periods). Objects pickled
    the old way still load."""
    values = attrgetter(*(f.name for f in fields(cls)))  # type: ignore[arg-type]

    def __reduce__(self: _Slotted) -> tuple[type[_Slotted], tuple[Any, ...]]:
        return cls, values(self)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign,assignment]
    return cls


# Not frozen: a frozen dataclass sets each field through object.__setattr__, ten times the cost
# of building a plain one, and a long history builds a million of them. Engines never change one;
# unsafe_hash keeps them hashable by value as before.
@pickled_by_values
@dataclass(slots=True, unsafe_hash=True)
class GameRecord:
    """One recorded game as the engines see it. Races and variants are slugs; coaches are numbers."""

    game_id: int
    played_at: datetime
    event_id: int
    variant: str
    home: int
    home_race: str
    away: int | None
    away_race: str | None
    home_score: float  # W of the home side: 1, 0.5 or 0 (from touchdowns)
    event_coaches: int = 0  # N: distinct coaches in the event, for the Elo K
    major: bool = False
    sanctioned: bool = True
    home_race_ranked: bool = True
    away_race_ranked: bool = True
    kind: str = PLAYED
    conceded_by: str | None = None  # HOME, AWAY or None
    event_end: date | None = None
    reported_on: date | None = None  # when the game entered the record (KNSB: a late one goes forward)
    corrections: tuple[Correction, ...] = ()  # Correction, oldest first: the results it had before (KNSB keeps them)
    reverses: bool = False  # KNSB: takes back this earlier result of the game, in the list after its correction

    @property
    def away_score(self) -> float:
        return 1.0 - self.home_score

    def reported_since(self, day: date) -> bool:
        """Whether a result of this game entered the record on or after `day`: its report, or its
        last correction."""
        last = self.corrections[-1].corrected_on if self.corrections else self.reported_on
        return last is not None and last >= day

    def record_exclusion(self) -> str | None:
        """The reason this game counts for no one, whatever the rating system (or None)."""
        if not self.sanctioned:
            return Reason.EVENT_NOT_SANCTIONED
        if self.kind == BYE or self.away is None:
            return Reason.BYE
        if self.kind == FORFEIT:
            return Reason.FORFEIT
        if not (self.home_race_ranked and self.away_race_ranked):
            return Reason.RACE_NOT_RANKED
        return None


class RecordColumns(Sequence[GameRecord]):
    """Recorded games held as columns, each GameRecord made when it is asked for: a full replay's
    two million records as objects held some 450 MB, and each run's process, forked to share
    them, copied every page it read (reading an object writes its reference count). NumPy columns
    stay shared; a replay makes the records of a month at a time. A slice, or `take`, is columns again.

    `events` maps an event id to its (variant, major, sanctioned, end); `races` a race id to its
    (slug, ranked), -1 being no race; `corrections` a game id to its Correction tuple (the game's
    report date is then its first's). In the columns -1 is no away coach, 0 no report date (an
    ordinal), and kind and concession are codes into `kinds` and `concessions`. `replaced` maps a
    position to the record given there instead of its columns' (KNSB: a correction's record in
    the place of the game it corrects).
    """

    __slots__ = ("times", "_columns", "_events", "_races", "_corrections", "_kinds", "_concessions", "_replaced")

    INTS = ("game_id", "event_id", "home", "home_race", "away", "away_race", "event_coaches", "kind", "conceded_by", "reported_on")

    def __init__(
        self, times: list[datetime], columns: Mapping[str, np.ndarray], *, events: Mapping[int, tuple[Any, ...]],
        races: Mapping[int, tuple[Any, ...]], corrections: Mapping[int, tuple[Correction, ...]], kinds: Sequence[str],
        concessions: Sequence[str | None], replaced: Mapping[int, GameRecord] | None = None,
    ):
        missing = {*self.INTS, "home_score"} - set(columns)
        if missing:
            raise TypeError(f"RecordColumns: no column for {', '.join(sorted(missing))}")
        if any(len(column) != len(times) for column in columns.values()):
            raise ValueError("RecordColumns: every column holds one value a game")
        self.times = times  # each game's played_at (naive UTC): bisected by the replay
        self._columns = dict(columns)
        self._events, self._races, self._corrections = events, races, corrections
        self._kinds, self._concessions = kinds, concessions
        self._replaced = dict(replaced or {})
        if any(not 0 <= position < len(times) for position in self._replaced):
            raise IndexError("RecordColumns: a record replaced outside the games")
        for position, record in self._replaced.items():
            times[position] = record.played_at

    def __len__(self) -> int:
        return len(self.times)

    def _view(self, times: list[datetime], at: Any, replaced: Mapping[int, GameRecord]) -> RecordColumns:
        return RecordColumns(
            times, {name: column[at] for name, column in self._columns.items()}, events=self._events,
            races=self._races, corrections=self._corrections, kinds=self._kinds, concessions=self._concessions,
            replaced=replaced,
        )

    def take(self, positions: np.ndarray, *, replaced: Mapping[int, GameRecord] | None = None) -> RecordColumns:
        """The games at `positions`, in that order; `replaced` (by position in the result) given instead of theirs."""
        times = self.times
        found: dict[int, GameRecord] = {}
        if self._replaced:
            own = self._replaced
            for new in np.flatnonzero(np.isin(positions, np.fromiter(own, dtype=np.int64, count=len(own)))).tolist():
                found[new] = own[int(positions[new])]
        return self._view([times[i] for i in positions.tolist()], positions, {**found, **(replaced or {})})

    def sanctioned(self) -> np.ndarray:
        """Whether each game's event is sanctioned."""
        events = self._events
        sanctioned = per_distinct(self._columns["event_id"], lambda event: events[event][2], bool)
        for position, record in self._replaced.items():
            sanctioned[position] = record.sanctioned
        return sanctioned

    def reported_after_event(self) -> np.ndarray:
        """Whether a result of each game may have come after its event: reported after the event's
        end (any report, where no end is on record), or corrected, or its record replaced. The
        others are on time for every method (LateResults.late_month)."""
        events, columns = self._events, self._columns
        end = per_distinct(columns["event_id"], lambda event: -1 if events[event][3] is None else events[event][3].toordinal(),
                           np.int64)
        reported = columns["reported_on"]
        found = (reported > 0) & ((end < 0) | (reported > end))
        found[self._corrected()] = True
        found[list(self._replaced)] = True
        return found

    def _corrected(self) -> np.ndarray:
        """The positions of the corrected games."""
        corrections = self._corrections
        if not corrections:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(np.isin(self._columns["game_id"], np.fromiter(corrections, dtype=np.int64, count=len(corrections))))

    def reported_since(self, day: date) -> np.ndarray:
        """Whether a result of each game entered the record on or after `day`: its report, or for a
        corrected game its last correction."""
        found = self._columns["reported_on"] >= day.toordinal()
        game_ids = self._columns["game_id"]
        for i in self._corrected().tolist():  # a few games, not a pass over two million ids
            found[i] = self._corrections[int(game_ids[i])][-1].corrected_on >= day
        for position, record in self._replaced.items():
            found[position] = record.reported_since(day)
        return found

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            kept = range(len(self))[index]
            return self._view(
                self.times[index], index,
                {kept.index(position): record for position, record in self._replaced.items() if position in kept},
            )
        return self._records(slice(index, index + 1 or None))[0]

    def __iter__(self) -> Iterator[GameRecord]:
        for start in range(0, len(self), 10_000):
            yield from self._records(slice(start, start + 10_000))

    def _records(self, at: slice) -> list[GameRecord]:
        columns = {name: self._columns[name][at].tolist() for name in (*self.INTS, "home_score")}
        events, races, corrections, kinds, concessions = (
            self._events, self._races, self._corrections, self._kinds, self._concessions)
        dates: dict[int, date | None] = {ordinal: date.fromordinal(ordinal) for ordinal in set(columns["reported_on"]) - {0}}
        dates[0] = None
        records: list[GameRecord] = []
        append = records.append
        for game_id, at_time, event_id, home, home_race, away, away_race, score, coaches, kind, conceded, reported in zip(
            columns["game_id"], self.times[at], columns["event_id"], columns["home"], columns["home_race"],
            columns["away"], columns["away_race"], columns["home_score"], columns["event_coaches"], columns["kind"],
            columns["conceded_by"], columns["reported_on"],
        ):
            variant, major, sanctioned, end = events[event_id]
            home_slug, home_ranked = races[home_race]
            away_slug, away_ranked = races[away_race]
            # GameRecord's fields in order (positional: keywords cost more, a million times)
            record = GameRecord(
                game_id, at_time, event_id, variant, home, home_slug, None if away < 0 else away, away_slug, score,
                coaches, major, sanctioned, home_ranked, away_ranked, kinds[kind], concessions[conceded], end,
                dates[reported],
            )
            if corrections:
                found = corrections.get(game_id)
                if found:
                    record.corrections, record.reported_on = found, found[0].reported_on
            append(record)
        if self._replaced:
            kept = range(len(self))[at]
            for position, replacement in self._replaced.items():
                if position in kept:
                    records[kept.index(position)] = replacement
        return records


def per_distinct(ids: np.ndarray, find: Callable[[int], Any], dtype: Any) -> np.ndarray:
    """`find(id)` for each of `ids` (a column), called once per distinct id."""
    distinct, inverse = np.unique(ids, return_inverse=True)
    return np.array([find(i) for i in distinct.tolist()], dtype=dtype)[inverse].reshape(len(ids))


class Correction(NamedTuple):
    """A result a game had before a correction, and since when; `corrected_on`: the day it was replaced."""

    corrected_on: date
    home_score: float
    kind: str
    reported_on: date | None


class CountingRule:
    """Whether a game counts in one rating system, and if not why: the one place the rule is written.

    First the record's reasons (unsanctioned event, bye, forfeit, unranked race), then the system's
    own: a variant outside its list, a race it leaves out.
    """

    __slots__ = ("variants", "excluded_races")

    def __init__(self, variants: Iterable[str] | None = None, excluded_races: Iterable[str] = ()) -> None:
        self.variants = None if variants is None else frozenset(variants)
        self.excluded_races = frozenset(excluded_races)

    @classmethod
    def of(cls, config: Any) -> CountingRule:
        """The rule of an engine configuration (anything with `variants` and `excluded_races`)."""
        return cls(config.variants, config.excluded_races)

    def exclusion(self, game: GameRecord) -> str | None:
        """The reason `game` does not count in this system (a `Reason`), or None when it counts."""
        if (game.sanctioned and game.kind == PLAYED and game.away is not None
                and game.home_race_ranked and game.away_race_ranked):
            reason = None
        else:
            reason = game.record_exclusion()
        if reason is None:
            variants = self.variants
            excluded = self.excluded_races
            if variants is not None and game.variant not in variants:
                reason = Reason.VARIANT_EXCLUDED
            elif excluded and (game.home_race in excluded or game.away_race in excluded):
                reason = Reason.RACE_EXCLUDED
        return reason


@pickled_by_values  # a ReplayTail holds the rows of its month's games
@dataclass(slots=True)
class CalculationRow:
    """One game seen from one side in one rating system: every column of the breakdown table.

    `key` is the rating the row belongs to: (coach, race, variant), race None when races are pooled.
    For Glicko rows r0/rc are the player's and opponent's mu at the start of the period, `we` is E,
    `g` is g(phi_opponent), and `rt` is this game's share of the mu change.
    """

    game_id: int
    side: str
    coach: int
    race: str | None
    variant: str
    opponent: int | None
    opponent_race: str | None
    played_at: datetime
    period: str  # label of the event ("event:<id>") or period ("2022-03", "2022-03-07", list date)
    w: float
    counted: bool
    reason: str | None = None
    r0: float | None = None
    rc: float | None = None
    we: float | None = None
    k: float | None = None
    rt: float | None = None
    wx: float | None = None
    list_date: date | None = None  # KNSB "Lijstdatum": the list R0 and Rc come from
    depot_date: date | None = None  # KNSB: the list date at which the game entered the depot
    opponent_phi: float | None = None
    g: float | None = None


class RowColumns(Sequence[CalculationRow]):
    """Calculation rows as columns: each CalculationRow field a list of one value a row, or absent
    where every row holds the field's default. An engine's compiled path hands its rows out so:
    the recalculation writes them (storage) and folds them into the lists (replay.apply_chunk)
    from the columns, without an object a row; anything else sees CalculationRow objects."""

    __slots__ = ("_columns", "_length", "_rows")

    def __init__(self, length: int, columns: Mapping[str, list[Any]]):
        check_fields(CalculationRow, columns)
        self._length = length
        self._columns = dict(columns)
        self._rows: list[CalculationRow] | None = None

    def column(self, name: str) -> Iterable[Any]:
        """The field's values, one a row (a repeat of its default where the rows leave it unset)."""
        values = self._columns.get(name)
        if values is not None:
            return values
        return repeat(_ROW_DEFAULTS[name], self._length)

    def _objects(self) -> list[CalculationRow]:
        if self._rows is None:
            self._rows = build_many(CalculationRow, self._columns) if self._length else []
        return self._rows

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[CalculationRow]:
        return iter(self._objects())

    def __getitem__(self, index: Any) -> Any:
        return self._objects()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (RowColumns, list)):
            return self._objects() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


_ROW_DEFAULTS = {f.name: f.default for f in fields(CalculationRow) if f.default is not MISSING}


@pickled_by_values
@dataclass(slots=True)
class PeriodSummary:
    """The new-rating block for one rating key after one event or period."""

    coach: int
    race: str | None
    variant: str
    period: str
    effective: date  # the date from which the new rating is in force (list date, day after period)
    rl: float | None  # rating before (None: unrated)
    rn: float  # rating after
    nt: int = 0  # counted games
    games_played: int = 0  # all games of the key in the period, counted or not
    wt: float = 0.0
    wet: float = 0.0
    rtt: float = 0.0
    rct: float | None = None
    wxt: float | None = None
    lpr: float | None = None
    limitation: str = "none"  # none, lpr, rl
    nv: int | None = None
    mu: float | None = None
    phi: float | None = None
    sigma: float | None = None
    mu_before: float | None = None
    phi_before: float | None = None
    sigma_before: float | None = None
    is_start: bool = False  # KNSB start rating / first rating of the key

    @property
    def wt_percent(self) -> float | None:
        return 100.0 * self.wt / self.nt if self.nt else None


# repr-exact decimal halves such as 154.465 are stored a hair under; nudge by a few ulps
_HALF_NUDGE = 1e-9


def round_half_away(value: float, places: int = 0) -> float:
    """Round half away from zero (Python's round() rounds half to even)."""
    scale = 10.0**places
    scaled = abs(value) * scale
    rounded = math.floor(scaled + 0.5 + _HALF_NUDGE)
    return math.copysign(rounded / scale, value) if rounded else 0.0


def round_half_away_array(values: np.ndarray, places: int = 0) -> np.ndarray:
    """round_half_away elementwise, with the same arithmetic (a value rounded to zero keeps its
    sign: −0.0, equal to 0.0)."""
    scale = 10.0**places
    rounded: np.ndarray = np.copysign(np.floor(np.abs(values) * scale + 0.5 + _HALF_NUDGE) / scale, values)
    return rounded


def check_fields(cls: type, values: Mapping[str, Any]) -> None:
    """Raise ValueError naming any key of `values` that is not a field of the dataclass `cls`."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown parameter(s) {', '.join(unknown)}")


def plain_params(config: Any) -> dict[str, Any]:
    """A configuration dataclass's fields as plain data, tuples as lists (what a system stores)."""
    return {f.name: list(value) if isinstance(value := getattr(config, f.name), tuple) else value for f in fields(config)}


def config_error(owner: str, name: str, value: object, expected: str) -> ValueError:
    """The error a configuration raises for a bad parameter, naming it."""
    return ValueError(f"{owner}.{name}: {value!r} is not valid ({expected})")


def config_slugs(owner: str, name: str, value: object, *, allow_none: bool) -> tuple[str, ...] | None:
    """A validated tuple of slugs (variants, excluded races); None means every one where allowed."""
    if value is None and allow_none:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, frozenset, set)):
        raise config_error(owner, name, value, "a list of slugs")
    if not all(isinstance(slug, str) and slug for slug in value):
        raise config_error(owner, name, value, "a list of non-empty slugs")
    if allow_none and not value:
        raise config_error(owner, name, value, "at least one variant, or None for all")
    return tuple(sorted(value)) if isinstance(value, (set, frozenset)) else tuple(value)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Suspend the cyclic garbage collector for a bulk run, restoring its previous setting.

    Engines build millions of acyclic rows; generational scans over them cost more than the
    calculation itself.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Copies(Protocol):
    def copy(self) -> Self: ...


T = TypeVar("T", bound="DataclassInstance")
S = TypeVar("S", bound=_Copies)
R = TypeVar("R")


def build_many(cls: type[T], columns: Mapping[str, Iterable[Any]]) -> list[T]:
    """Instances of the dataclass `cls`, one per position of `columns` (field name -> iterable).

    Fields without a column take their default; the shortest finite column sets the count. Built
    by a C-level map over positional arguments, which costs a third of a Python loop with keywords.
    """
    check_fields(cls, columns)
    args = []
    for f in fields(cls):
        if f.name in columns:
            args.append(columns[f.name])
        elif f.default is not MISSING:
            args.append(repeat(f.default))
        else:
            raise TypeError(f"{cls.__name__}: no column for required field {f.name}")
    return list(map(cls, *args))


class OutOfOrder(Exception):
    """A game came before the last game the state already holds."""


def _in_play_order(game: GameRecord) -> tuple[datetime, int]:
    return game.played_at, game.game_id


def run_in_order(run: Callable[[list[GameRecord], S], R], games: list[GameRecord], start: S, *, in_place: bool) -> R:
    """`run(games, state)` on a copy of `start` (or on `start` itself, `in_place`).

    Games are taken as given when already in play order, else sorted; a game before the
    state's last one raises ValueError (recalculate from an earlier state).
    """
    with paused_gc():
        if in_place:
            games.sort(key=_in_play_order)
        try:
            return run(games, start if in_place else start.copy())
        except OutOfOrder:
            if in_place:
                raise ValueError(_too_early(start)) from None
        games.sort(key=_in_play_order)
        try:
            return run(games, start.copy())
        except OutOfOrder:
            raise ValueError(_too_early(start)) from None


def _too_early(state: Any) -> str:
    return (
        f"games must be played after the last game of the given state {state.last_played!r}: "
        "recalculate from an earlier state"
    )
