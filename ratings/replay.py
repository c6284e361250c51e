"""Replaying the game stream through an engine, month by month: pure data in, pure data out.

The recalculation service writes what this yields; `verify_ratings` compares it with what is
stored. Between two month starts the engine runs once; at each month start the periods that ended
are closed and a rating list is drawn from the latest summary of every key.

Lists are drawn from a `Board`: every key's latest figures held as columns, so a month's list is a
few array operations over all keys instead of a pass over Python objects (a 1M-game history has
tens of thousands of keys and some 240 month starts).
"""
from __future__ import annotations

import datetime as dt
import pickle
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import partial
from itertools import compress, repeat, starmap
from operator import attrgetter, eq, methodcaller
from typing import Any

import numpy as np

from rating_engines import glicko
from rating_engines.common import CalculationRow, CountingRule, GameRecord, PeriodSummary, Reason, RecordColumns, RowColumns
from rating_engines.protocol import Engine, LateResults
from tournaments.rules import FIRST_PLAY_DATE, last_play_date

Key = tuple  # (coach, race or None, variant)

_FLOATS = ("value", "mu", "phi", "sigma", "previous")
_INTS = ("coach", "group", "variant_group", "nv", "effective_day", "effective_month", "wins", "draws", "losses",
         "last_played")
_NONE = -1  # an integer column's "none" (nv, last_played)
_NONE_CHANGE = np.iinfo(np.int64).min  # rank change: none (any other value may be a real change)
_INT_NONE = {"nv": _NONE, "rank": 0, "overall_rank": 0, "rank_change": _NONE_CHANGE}  # integer columns that may be none


class Board:
    """Every rated key's latest figures, one array per column, in the order keys were first rated.

    `previous` holds each key's value on the latest list (NaN: not rated then); `snapshots` the
    values and ranks (NaN: unranked) of the last two lists, for the current ratings' change since
    the last full month.
    """

    # the columns (_FLOATS, _INTS), set by name in __init__ and add
    value: np.ndarray
    mu: np.ndarray
    phi: np.ndarray
    sigma: np.ndarray
    previous: np.ndarray
    coach: np.ndarray
    group: np.ndarray
    variant_group: np.ndarray
    nv: np.ndarray
    effective_day: np.ndarray
    effective_month: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray
    last_played: np.ndarray

    def __init__(self) -> None:
        self.keys: list[Key] = []
        self.index: dict[Key, int] = {}
        self._groups: dict = {}
        self.size = 0
        for name in _FLOATS:
            setattr(self, name, np.full(0, np.nan))
        for name in _INTS:
            setattr(self, name, np.full(0, _NONE, dtype=np.int64))
        self.snapshots: list[tuple[dt.date, np.ndarray, np.ndarray]] = []

    def __getstate__(self) -> dict:
        """For checkpoints: the rows in use only, and no index (rebuilt from the keys)."""
        state = {name: value for name, value in vars(self).items() if name != "index"}
        for name in (*_FLOATS, *_INTS):
            state[name] = state[name][:self.size].copy()
        return state

    def __setstate__(self, state: dict) -> None:
        vars(self).update(state)
        self.index = dict(zip(self.keys, range(len(self.keys))))

    def _group(self, group) -> int:
        return self._groups.setdefault(group, len(self._groups))

    def add(self, keys: list[Key]) -> None:
        """Give new keys a row (figures unset until `set`)."""
        start = self.size
        self.size += len(keys)
        if self.size > len(self.coach):
            capacity = max(1024, 2 * self.size)
            for name in _FLOATS:
                setattr(self, name, np.concatenate([getattr(self, name), np.full(capacity - len(self.coach), np.nan)]))
            for name in _INTS:
                column = getattr(self, name)
                setattr(self, name, np.concatenate([column, np.full(capacity - len(column), _NONE, dtype=np.int64)]))
        for offset, key in enumerate(keys):
            self.index[key] = start + offset
            self.keys.append(key)
        where = slice(start, self.size)
        self.coach[where] = [key[0] for key in keys]
        self.group[where] = [self._group((key[2], key[1])) for key in keys]
        self.variant_group[where] = [self._group(key[2]) for key in keys]
        self.wins[where] = self.draws[where] = self.losses[where] = 0

    def set_summaries(self, latest: dict, ratings: Mapping[Any, float] | None = None) -> None:
        """Take each key's latest summary (key -> PeriodSummary); its value from `ratings` (key ->
        value) where the engine keeps every key's rating after its last game."""
        if not latest:
            return
        rows = np.fromiter((self.index[key] for key in latest), dtype=np.int64, count=len(latest))
        summaries = list(latest.values())
        self.value[rows] = [s.rn for s in summaries] if ratings is None else [ratings[key] for key in latest]
        self.mu[rows] = [np.nan if s.mu is None else s.mu for s in summaries]
        self.phi[rows] = [np.nan if s.phi is None else s.phi for s in summaries]
        self.sigma[rows] = [np.nan if s.sigma is None else s.sigma for s in summaries]
        self.nv[rows] = [_NONE if s.nv is None else s.nv for s in summaries]
        days = [s.effective for s in summaries]
        self.effective_day[rows] = [d.toordinal() for d in days]
        self.effective_month[rows] = [d.year * 12 + d.month for d in days]

    def count_results(self, rows: np.ndarray, w: np.ndarray, sign: np.ndarray, day: np.ndarray) -> None:
        """Add results to the record of the keys at `rows` (one entry a game, repeated as they come):
        a win for W 1, a loss for W 0, else a draw, taken off where `sign` is -1; `day` (an ordinal)
        moves each key's last game forward."""
        if not len(rows):
            return
        size = len(self.wins)
        for column, outcome in ((self.wins, w == 1.0), (self.losses, w == 0.0), (self.draws, (w != 1.0) & (w != 0.0))):
            column += np.bincount(rows[outcome], weights=sign[outcome], minlength=size).astype(np.int64)
        np.maximum.at(self.last_played, rows, day)

    def standing(self, on: dt.date, rules: ListRules) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """(value, phi, active) of every key on `on`: Glicko phi grows by the closed form of
        glicko.decay for every idle period since the key's last one; the others lapse by months."""
        n = self.size
        if not rules.glicko:
            value = self.value[:n]
            if rules.inactive_after_months is None:
                return value, None, np.ones(n, dtype=bool)
            cutoff = months_before(on, rules.inactive_after_months).toordinal()
            return value, None, self.last_played[:n] >= cutoff
        if rules.period_days:
            idle = (on.toordinal() - self.effective_day[:n]) // rules.period_days
        else:
            idle = (on.year * 12 + on.month) - self.effective_month[:n]
        with np.errstate(invalid="ignore"):  # keys rated after `on` (idle < 0) keep their phi
            phi = glicko.decayed_phi(self.phi[:n], self.sigma[:n], idle, rules.phi_cap)
        return self.mu[:n] - rules.phi_multiplier * phi, phi, phi <= rules.inactive_phi

    def ranks(self, value: np.ndarray, active: np.ndarray, *, per_race: bool) -> tuple[np.ndarray, np.ndarray]:
        """(rank, overall rank) of every key, 0 when unranked: active keys by value within (variant,
        race) and within variant, the coach number breaking ties of order; equal values share a rank."""
        n = self.size
        rows = np.flatnonzero(active)
        # best first, the coach number breaking ties of order: one sort serves both rankings
        best_first = rows[np.lexsort((self.coach[:n][rows], -value[rows]))]
        return (
            _ranks(value, best_first, (self.group if per_race else self.variant_group)[:n]),
            _ranks(value, best_first, self.variant_group[:n]),
        )

    def snapshot(self, on: dt.date, value: np.ndarray, rank: np.ndarray) -> None:
        self.snapshots = [*self.snapshots[-1:], (on, value.copy(), np.where(rank > 0, rank, np.nan))]

    def snapshot_on(self, on: dt.date):
        """(values, ranks) of every key on the list of `on`, NaN for keys rated since; None if not kept."""
        for day, value, rank in self.snapshots:
            if day == on:
                missing = np.full(self.size - len(value), np.nan)
                return np.concatenate([value, missing]), np.concatenate([rank, missing])
        return None


def _ranks(value: np.ndarray, best_first: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Each row's rank within its group (0: unranked), `best_first` holding the ranked rows in order."""
    ranks = np.zeros(len(value), dtype=np.int64)
    if not len(best_first):
        return ranks
    order = best_first[np.argsort(group[best_first], kind="stable")]
    groups, values = group[order], value[order]
    position = np.arange(len(order))
    new_group = np.ones(len(order), dtype=bool)
    new_group[1:] = groups[1:] != groups[:-1]
    new_value = new_group.copy()
    new_value[1:] |= values[1:] != values[:-1]
    group_start = np.maximum.accumulate(np.where(new_group, position, 0))
    value_start = np.maximum.accumulate(np.where(new_value, position, 0))
    ranks[order] = value_start - group_start + 1
    return ranks


@dataclass
class Ledger:
    """What a checkpoint holds: the engine's state and every key's standing."""

    engine_state: object = None
    board: Board = field(default_factory=Board)
    games: int = 0
    first: dt.date | None = None  # the system's first counted game, from whose month its lists start (replayable)


@dataclass
class ListRules:
    """How a list ranks keys: Glicko by phi, the others by recent play."""

    glicko: bool
    inactive_phi: float = 100.0
    phi_multiplier: float = 2.5
    phi_cap: float = 350.0
    period_days: int | None = None  # two-week periods; None: calendar months
    inactive_after_months: int | None = None


@dataclass
class ListEntry:
    key: Key
    value: float
    mu: float | None
    phi: float | None
    sigma: float | None
    nv: int | None
    games: int
    active: bool
    rank: int | None = None
    overall_rank: int | None = None
    change: float | None = None
    games_counted: int = 0
    games_played: int = 0
    starter: bool = False
    # the current ratings only: the record, and the change since the list of the last full month
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last_played: dt.date | None = None
    value_change: float | None = None
    rank_change: int | None = None


@dataclass
class Chunk:
    start: dt.date  # the month start it replays from (the first game's month for the first chunk)
    end: dt.date  # a month start (list date), or the run's last day
    rows: Sequence[CalculationRow]  # a list, or the engine's RowColumns
    summaries: list  # PeriodSummary
    entries: Entries  # the list's, when `end` is a list date; every key's current rating otherwise
    games: int
    is_list: bool
    complete: bool = True  # the list holds every ranked key, not only the month's movements
    other: Entries | None = None  # the list drawn the other way (movements for complete), when asked
    rated: int = 0
    ranked: int = 0
    starters: int = 0


def month_start(day: dt.date) -> dt.date:
    return day.replace(day=1)


def next_month(day: dt.date) -> dt.date:
    return (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)


def previous_month(day: dt.date) -> dt.date:
    return month_start(month_start(day) - dt.timedelta(days=1))


def months_between(earlier: dt.date, later: dt.date) -> int:
    return (later.year - earlier.year) * 12 + later.month - earlier.month


def months_before(on: dt.date, months: int) -> dt.date:
    index = on.year * 12 + on.month - 1 - months
    return dt.date(index // 12, index % 12 + 1, min(on.day, 28))


_DAY = methodcaller("toordinal")  # a datetime's date, as an ordinal


def _row_columns(rows: Sequence[CalculationRow]) -> tuple[list, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What a chunk's lists take from its rows, as columns: each row's key, counted, W, whether it
    takes a result back (a KNSB correction) and its day of play (ordinal). RowColumns are read as
    they are; objects in one pass (cheaper than a map a field)."""
    n = len(rows)
    if isinstance(rows, RowColumns):
        keys = list(zip(rows.column("coach"), rows.column("race"), rows.column("variant")))
        counted, w, reason, played_at = (rows.column(name) for name in ("counted", "w", "reason", "played_at"))
    else:
        keys = [(r.coach, r.race, r.variant) for r in rows]
        counted, w, reason, played_at = ([r.counted for r in rows], [r.w for r in rows], [r.reason for r in rows],
                                         [r.played_at for r in rows])
    return (
        keys, np.fromiter(counted, dtype=bool, count=n), np.fromiter(w, dtype=np.float64, count=n),
        np.fromiter(map(eq, reason, repeat(Reason.REVERSED)), dtype=bool, count=n),
        np.fromiter(map(_DAY, played_at), dtype=np.int64, count=n),
    )


def apply_chunk(
    board: Board, rows: Sequence[CalculationRow], summaries: list[PeriodSummary], ratings: Mapping[Any, float] | None = None,
) -> dict:
    """Fold a chunk's summaries and counted games into the board; returns (games counted, played) per key:
    the chunk's rows, but for a start rating from a depot the games it rests on and every game
    played since the oldest of them.

    `ratings` (key -> value), where the engine keeps one, is every key's rating after its last game:
    an event's summary holds the rating after the key's last game *in that event*, and events overlap.
    """
    latest = {(s.coach, s.race, s.variant): s for s in summaries}
    board.add([key for key in latest if key not in board.index])
    board.set_summaries(latest, ratings)
    keys, counted, w, reverses, day = _row_columns(rows)
    # a row taking a result back (KNSB) is neither a game played nor counted; its result comes off the record
    kept = ~reverses
    seen = Counter(compress(keys, kept))
    counts = Counter(compress(keys, counted & kept))
    played: dict = {key: (counts.get(key, 0), games) for key, games in seen.items()}
    at = np.fromiter(map(board.index.get, keys, repeat(-1)), dtype=np.int64, count=len(keys))
    tallied = (counted | reverses) & (at >= 0)  # a key not rated yet (a KNSB depot game) has no record
    board.count_results(at[tallied], w[tallied], np.where(reverses[tallied], -1, 1), day[tallied])
    for s in summaries:
        if s.is_start and s.rl is None:  # a KNSB start rating: Nt and Gt of its depot (seed 004)
            played[(s.coach, s.race, s.variant)] = (s.nt, s.games_played)
    return played


def draw(
    board: Board, on: dt.date, rules: ListRules, *, per_race: bool, played: dict, emit: str,
    reference: dt.date | None = None, both: bool = False,
) -> tuple[Entries, dict, Entries | None]:
    """The list as of `on`, its counts (rated, ranked, starters), and (`both`) the same list drawn
    the other way (movements for complete, complete for movements); moves `board.previous` to it.

    `emit` says which keys get an entry: "complete" every ranked key and every key that played
    since the previous list; "movements" the keys that played and those whose rank lapsed;
    "every" all keys, with the change since the list of `reference` (the current ratings).
    """
    n = board.size
    value, phi, active = board.standing(on, rules)
    rank, overall = board.ranks(value, active, per_race=per_race)
    previous = board.previous[:n]
    seen = np.zeros(n, dtype=bool)
    if played:
        seen[[board.index[key] for key in played if key in board.index]] = True
    starter = np.isnan(previous) & (active | seen)
    counts = {"rated": int(np.count_nonzero(active | seen)), "ranked": int(np.count_nonzero(active)),
              "starters": int(np.count_nonzero(starter))}

    def chosen(way: str) -> np.ndarray:
        if way == "every":
            return np.arange(n)
        if way == "complete":
            return np.flatnonzero(active | seen)
        was_ranked = np.zeros(n, dtype=bool)
        if board.snapshots:
            _, _, ranked_before = board.snapshots[-1]
            was_ranked[:len(ranked_before)] = ~np.isnan(ranked_before)
        return np.flatnonzero(seen | (was_ranked & ~active))

    since = board.snapshot_on(reference) if reference is not None else None
    entries = _entries(board, chosen(emit), value, phi, active, rank, overall, previous, played, since, emit == "every")
    other = None
    if both and emit != "every":
        way = "movements" if emit == "complete" else "complete"
        other = _entries(board, chosen(way), value, phi, active, rank, overall, previous, played, None, False)
    if emit != "every":
        board.previous[:n] = value
        board.snapshot(on, value, rank)
    return entries, counts, other


def _entries(board, chosen, value, phi, active, rank, overall, previous, played, since, record) -> Entries:
    n = board.size
    keys = board.keys[:n] if len(chosen) == n else [board.keys[i] for i in chosen.tolist()]
    counted, seen = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    index = board.index
    for key, (count, games) in played.items():
        row = index.get(key)
        if row is not None:  # a key that played without a rating yet (KNSB depot) has no entry
            counted[row], seen[row] = count, games
    entries = Entries(
        keys=keys, value=value[chosen], mu=board.mu[chosen],
        phi=phi[chosen] if phi is not None else np.full(len(chosen), np.nan), sigma=board.sigma[chosen],
        nv=board.nv[chosen], games=board.wins[chosen] + board.draws[chosen] + board.losses[chosen],
        active=active[chosen], rank=rank[chosen], overall_rank=overall[chosen], previous=previous[chosen],
        games_counted=counted[chosen], games_played=seen[chosen],
        coach=board.coach[chosen], group=board.group[chosen],
        groups={row: pair for pair, row in board._groups.items() if isinstance(pair, tuple)},
    )
    if record:
        entries.wins, entries.draws, entries.losses = board.wins[chosen], board.draws[chosen], board.losses[chosen]
        entries.last_played = board.last_played[chosen]
        nan = np.full(len(chosen), np.nan)
        entries.then_value, entries.then_rank = (since[0][chosen], since[1][chosen]) if since is not None else (nan, nan)
    return entries


def _floats(array: np.ndarray) -> list:
    """Python floats, None for NaN."""
    return np.where(np.isnan(array), np.array(None, dtype=object), array).tolist()


def _ints(array: np.ndarray, none: int) -> list:
    """Python ints, None for `none`."""
    out = array.astype(object)
    out[array == none] = None
    return out.tolist()


@dataclass
class Entries:
    """The entries of a list (or the current ratings) as columns, one row per key in `keys`.

    Held as arrays until written: a long replay keeps millions of list entries, which as objects
    would cost several times the memory and the time. Iterating gives `ListEntry` objects.
    """

    keys: list
    value: np.ndarray
    mu: np.ndarray  # NaN: none
    phi: np.ndarray
    sigma: np.ndarray
    nv: np.ndarray  # -1: none
    games: np.ndarray
    active: np.ndarray
    rank: np.ndarray  # 0: unranked
    overall_rank: np.ndarray
    previous: np.ndarray  # the value on the previous list; NaN: a starter
    games_counted: np.ndarray
    games_played: np.ndarray
    # the current ratings only: the record, and the value and rank (NaN: none) on the last full month's list
    wins: np.ndarray | None = None
    draws: np.ndarray | None = None
    losses: np.ndarray | None = None
    last_played: np.ndarray | None = None  # ordinal; -1: none
    then_value: np.ndarray | None = None
    then_rank: np.ndarray | None = None
    # each key's coach and (variant, race) as columns: `groups` maps a group number to its pair
    coach: np.ndarray | None = None
    group: np.ndarray | None = None
    groups: dict | None = None

    def __len__(self) -> int:
        return len(self.keys)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every ListEntry field but key, active and starter, as NumPy columns: none is NaN in a
        float column, -1 in nv and last_played (an ordinal), 0 in a rank, and the int64 minimum in
        the rank change."""
        rank = self.rank
        out = {
            "value": self.value, "mu": self.mu, "phi": self.phi, "sigma": self.sigma, "nv": self.nv,
            "games": self.games, "rank": rank, "overall_rank": self.overall_rank, "change": self.value - self.previous,
            "games_counted": self.games_counted, "games_played": self.games_played,
        }
        if self.wins is not None and self.then_rank is not None and self.then_value is not None:
            then_rank = np.where(rank > 0, self.then_rank, np.nan)
            with np.errstate(invalid="ignore"):
                rank_change = np.where(np.isnan(then_rank), _NONE_CHANGE, then_rank - rank).astype(np.int64)
            out.update(
                wins=self.wins, draws=self.draws, losses=self.losses, last_played=self.last_played,
                value_change=self.value - self.then_value, rank_change=rank_change,
            )
        return out

    def columns(self) -> dict[str, list]:
        """`arrays()` as Python lists, with None for none (and dates for last_played)."""
        arrays = self.arrays()
        out = {}
        for name, array in arrays.items():
            if name == "last_played":
                out[name] = [None if x == _NONE else dt.date.fromordinal(x) for x in array.tolist()]
            elif array.dtype.kind == "f" and name != "value":
                out[name] = _floats(array)
            elif name in _INT_NONE:
                out[name] = _ints(array, _INT_NONE[name])
            else:
                out[name] = array.tolist()
        return out

    def take(self, rows: np.ndarray) -> Entries:
        """The entries at `rows` (indices), in that order."""
        keys = self.keys
        columns: dict[str, Any] = {
            f.name: None if getattr(self, f.name) is None else getattr(self, f.name)[rows]
            for f in fields(self) if f.name not in ("keys", "groups")
        }
        return Entries(keys=[keys[i] for i in rows.tolist()], groups=self.groups, **columns)

    def __iter__(self) -> Iterator[ListEntry]:
        columns = self.columns()
        names = list(columns)
        extra = {"active": self.active.tolist(), "starter": np.isnan(self.previous).tolist()}
        for i, key in enumerate(self.keys):
            yield ListEntry(key=key, **{name: columns[name][i] for name in names}, **{k: v[i] for k, v in extra.items()})


class UnratableGame(ValueError):
    """A game the replay cannot give an engine (dated outside the record's dates of play): the run fails naming it."""

    def __init__(self, game: GameRecord, reason: str, *, event_name: str | None = None):
        self.game, self.reason = game, reason
        event = f"event {event_name!r} ({game.event_id})" if event_name else f"event {game.event_id}"
        super().__init__(f"game {game.game_id} of {event}, played {game.played_at.date().isoformat()}, cannot be rated: {reason}")

    def naming(self, event_name: str) -> UnratableGame:
        """The same error, naming the game's event."""
        return UnratableGame(self.game, self.reason, event_name=event_name)


def replayable(
    games: Sequence[GameRecord], config, *, start: dt.date | None, until: dt.date, lists_from: dt.date | None = None,
) -> tuple[Sequence[GameRecord], dt.date | None]:
    """The games an engine is given, and the date the lists start from: `start`, else the system's
    first counted game (None: no game counts, and there are no lists).

    Games of unsanctioned events count for no one: they are replayed, for their footnoted rows,
    only from the month the lists start (with no lists, the first date of play) to `until`, so that
    one dated 0001, 1900 or 9999 neither draws empty lists nor reaches an engine's date arithmetic.
    A replay from a checkpoint (`start`) takes them from the month its lists started (`lists_from`,
    the checkpoint's Ledger.first), as the replay from the first game did: one played before the
    checkpoint and reported since goes forward (KNSB) as it would have.
    Any other game outside the record's dates of play raises UnratableGame. Columns (RecordColumns)
    stay columns.
    """
    first = start
    if first is None:
        counts = CountingRule.of(config).exclusion
        first = next((g.played_at.date() for g in games if counts(g) is None), None)
    kept_from = lists_from if start is not None and lists_from is not None else first
    times = play_times(games)
    lo = bisect_left(times, dt.datetime.combine(month_start(kept_from) if kept_from else FIRST_PLAY_DATE, dt.time()))
    hi = max(lo, bisect_left(times, dt.datetime.combine(until + dt.timedelta(days=1), dt.time())))
    if isinstance(games, RecordColumns):
        outside = ~games.sanctioned()
        outside[lo:hi] = False
        if outside.any():
            games = games.take(np.flatnonzero(~outside))
    else:
        before, after = games[:lo], games[hi:]
        if not all(g.sanctioned for g in before) or not all(g.sanctioned for g in after):
            games = [*(g for g in before if g.sanctioned), *games[lo:hi], *(g for g in after if g.sanctioned)]
    last = last_play_date(until)
    if games and games[0].played_at.date() < FIRST_PLAY_DATE:
        raise UnratableGame(games[0], f"it is dated before {FIRST_PLAY_DATE.isoformat()}, the first date of play")
    if games and games[-1].played_at.date() > last:
        raise UnratableGame(games[-1], f"it is dated after {last.isoformat()}, a year after the run's last day")
    return games, first


def forwarded(
    games: Sequence[GameRecord], late_month: Callable[[GameRecord], int | None], placements: Callable, *,
    start: dt.date | None, until: dt.date, later: list[GameRecord] | None = None,
) -> tuple[Sequence[GameRecord], dict[dt.date, list[GameRecord]]]:
    """(the games rated in the list after their month of play, {month start: the games reported late
    that the list after that month rates}), each in rating order; a corrected game gives the
    records of its `placements`. Columns (RecordColumns) give columns.

    A replay from a checkpoint (`start`) is given, besides the games played since, those played
    before it that were reported since: the late ones among them go forward; the others were rated
    before the checkpoint. A late game whose month is after `until` is not reported yet as of then
    (`later`: its record is added there).
    """
    on_time: list[GameRecord] = []
    late: dict[dt.date, list[GameRecord]] = {}
    begin = dt.datetime.combine(start, dt.time()) if start is not None else None
    first = -1 if start is None else start.year * 12 + start.month - 1
    last = until.year * 12 + until.month - 1
    columns = games if isinstance(games, RecordColumns) else None
    # columns: only a game whose result may have come after its event is looked at, a record made for it
    maybe_late = columns.reported_after_event() if columns is not None else None
    positions = range(len(games)) if maybe_late is None else np.flatnonzero(maybe_late).tolist()
    looked_at = games if columns is None else columns.take(np.array(positions, dtype=np.int64))
    kept: dict[int, GameRecord | None] = {}  # columns: the position of each game looked at that is on time, and its record if another
    for position, g in zip(positions, looked_at):
        if g.corrections:
            placed = placements(g)
        elif g.reported_on is None:
            placed = ((None, g),)
        else:
            placed = ((late_month(g), g),)
        for month, record in placed:
            if month is None:
                if begin is None or record.played_at >= begin:
                    if columns is None:
                        on_time.append(record)
                    else:
                        kept[position] = None if record is g else record
            elif first <= month <= last:
                late.setdefault(dt.date(month // 12, month % 12 + 1, 1), []).append(record)
            elif month > last and later is not None:
                later.append(record)
    if columns is None or maybe_late is None:
        return on_time, late
    keep = ~maybe_late
    if begin is not None:
        keep &= np.fromiter(map(begin.__le__, columns.times), dtype=bool, count=len(columns))
    keep[list(kept)] = True
    at = np.flatnonzero(keep)
    replaced = {int(np.searchsorted(at, position)): record for position, record in kept.items() if record is not None}
    return columns.take(at, replaced=replaced), late


def play_times(games: Sequence[GameRecord]) -> list[dt.datetime]:
    """Each game's time of play."""
    return games.times if isinstance(games, RecordColumns) else [g.played_at for g in games]


def boundaries(first: dt.date, until: dt.date) -> list[dt.date]:
    """Month starts after `first` up to and including `until` (list dates)."""
    out = []
    day = next_month(first)
    while day <= until:
        out.append(day)
        day = next_month(day)
    return out


def _run_chunk(
    module: Engine[Any, Any], config: Any, ledger: Ledger, own: list[GameRecord], times: list[dt.datetime],
    late: dict[dt.date, list[GameRecord]], *, forward: list[dt.date], end: dt.date, resumed: Resumed | None = None,
    before_close: Callable[[Resumed], None] | None = None,
) -> tuple[Sequence[CalculationRow], list, int]:
    """Run a chunk's games through the engine and close its periods up to `end`: (rows, summaries,
    games given). `own`: the games played in it (`times`: their played_at); `forward`: the dates of
    the lists whose late results (popped from `late`) it rates, each ahead of the games played
    since that list's month started. Where the chunk holds games played before such a date, or the
    late results of an earlier one (the first chunk, or a replay that draws no list), those go
    first and the periods up to it close before the late results: the engine rates a late result
    only once its list's month is open, as a replay with lists gives it. (A late result that the
    engine gets first of all opens it at its own month and is taken as on time: it is one of the
    games before the first counted one, which count for no one; its row's period can differ.)

    `resumed`: the chunk's games before `own` were given already (a ReplayTail's), with these rows
    and summaries. `before_close`: called with the chunk's work so far once its last game is
    given, before any period closes after it (where a ReplayTail is taken)."""
    batch: list[GameRecord] = []
    rows: list = [] if resumed is None else [row for part in resumed.rows for row in part]
    summaries: list = [] if resumed is None else [*resumed.summaries]
    given = 0 if resumed is None else resumed.given

    def run(chunk_games: list[GameRecord], until: dt.date, *, last: bool = False) -> Sequence[CalculationRow]:
        nonlocal given
        # The ledger owns its engine state, so the engine may update it without a copy per month.
        result = module.run_history(chunk_games, config, ledger.engine_state, in_place=True)
        ledger.engine_state = result.state
        if last and before_close is not None:
            before_close(Resumed([list(rows), result.rows], [*summaries, *result.summaries], given + len(chunk_games)))
        closed = module.close_periods(result.state, config, until, in_place=True)
        summaries.extend([*result.summaries, *closed.summaries])
        ledger.engine_state = closed.state
        given += len(chunk_games)
        return [*result.rows, *closed.rows] if closed.rows else result.rows  # RowColumns stay columns

    for day in sorted(forward):
        cut = bisect_left(times, dt.datetime.combine(day, dt.time()))
        if cut or batch:  # games before the list's month, or late results of an earlier list
            rows.extend(run(batch + own[:cut], day))
            batch, own, times = [], own[cut:], times[cut:]
        batch += late.pop(day)
    last = run(batch + own, end, last=True)
    return ([*rows, *last] if rows else last), summaries, given


@dataclass
class Resumed:
    """The games of a chunk given to the engine before a Tail was taken: their rows (a list of
    parts, each a list of rows or RowColumns), summaries and number, and the last of them (time, id)."""

    rows: list
    summaries: list
    given: int
    last: tuple[dt.datetime, int] | None = None

    def __getstate__(self) -> dict:
        """Rows and summaries pickled as tuples of their fields: a month's are tens of thousands of objects."""
        rows = [part if isinstance(part, RowColumns) else list(map(_ROW_VALUES, part)) for part in self.rows]
        return {**vars(self), "rows": rows, "summaries": list(map(_SUMMARY_VALUES, self.summaries))}

    def __setstate__(self, state: dict) -> None:
        rows = [part if isinstance(part, RowColumns) else list(starmap(CalculationRow, part)) for part in state["rows"]]
        vars(self).update(state, rows=rows, summaries=list(starmap(PeriodSummary, state["summaries"])))


_ROW_VALUES = attrgetter(*(f.name for f in fields(CalculationRow)))
_SUMMARY_VALUES = attrgetter(*(f.name for f in fields(PeriodSummary)))


@dataclass
class Tail:
    """Where a replay left off (a ReplayTail): its last chunk's start, the last game given to the
    engine (time of play, id), and the pickled (Ledger, Resumed) after that game, before any
    period closed after it: the ledger's board as of the chunk's start."""

    start: dt.date
    last: tuple[dt.datetime, int]
    state: bytes
    record: str = ""  # ReplayTail.record, once the run that took it knows its games

    def resumed(self) -> tuple[Ledger, Resumed]:
        return pickle.loads(self.state)


def _take_tail(keep: Callable[[Tail], None], ledger: Ledger, start: dt.date, last: tuple[dt.datetime, int], done: Resumed) -> None:
    done.last = last
    keep(Tail(start, last, pickle.dumps((ledger, done), protocol=pickle.HIGHEST_PROTOCOL)))


def replay(
    module: Engine[Any, Any],
    config: Any,
    games: Sequence[GameRecord],
    ledger: Ledger,
    *,
    start: dt.date | None,
    until: dt.date,
    rules: ListRules,
    per_race: bool,
    complete: Callable[[dt.date], bool] = lambda day: True,
    both: Callable[[dt.date], bool] = lambda day: False,
    progress: Callable[[int, int], None] | None = None,
    resumed: Resumed | None = None,
    keep_tail: Callable[[Tail], None] | None = None,
) -> Iterator[Chunk]:
    """Run `games` (all played on or after `start`) month by month up to `until` (today).

    Yields one chunk per month, each ending on a list date, then a last partial chunk up to `until`
    whose entries are the current ratings of every key. The ledger is updated in place. The lists
    dated `complete` hold every ranked key; the others the month's movements only (and a chunk of a
    date asked for `both` holds the list drawn the other way too). Lists start
    from `start` or the first game the system counts; the games replayed are `replayable`'s.

    `resumed`: the ledger and `resumed` are a Tail's, `start` its chunk's start and `games` those
    after its last game: the first chunk goes on from there. `keep_tail` is given the Tail at the
    last game given to the engine; none before the lists start (no game counts yet: the first that
    does sets their first month), nor when a late result is still to come after it.
    """
    games, first = replayable(games, config, start=start, until=until, lists_from=ledger.first)
    if start is None:
        ledger.first = first
    if not games and start is None:
        return
    dates = boundaries(first, until) if first is not None else []
    first = first or games[0].played_at.date()
    late: dict[dt.date, list[GameRecord]] = {}
    later: list[GameRecord] = []  # late results whose list comes after `until`
    if isinstance(module, LateResults):  # KNSB: a result reported late goes into a later list
        games, late = forwarded(games, module.late_month, module.placements, start=start, until=until, later=later)
    times = play_times(games)
    board = ledger.board
    # the last game given to the engine, and the chunk that holds it (where the Tail is taken): none
    # if a game before it is still to be given by a later run (a late result, for a list after
    # `until`; a game of an unsanctioned event played after `until`, which replayable leaves out)
    last = (times[-1], games[len(games) - 1].game_id) if len(games) else resumed.last if resumed else None
    if later or (last is not None and last[0] >= dt.datetime.combine(until + dt.timedelta(days=1), dt.time())):
        last = None
    holds_last = bisect_right([dt.datetime.combine(day, dt.time()) for day in dates], times[-1]) if len(games) else 0
    lo = 0
    total = len(dates) + 1
    for index, end in enumerate([*dates, until]):
        is_list = index < len(dates)
        hi = bisect_left(times, dt.datetime.combine(end, dt.time()), lo) if is_list else len(games)
        chunk_start = dates[index - 1] if index else month_start(first)
        taken = None
        if keep_tail is not None and last is not None and ledger.first is not None and index == holds_last and not late:
            taken = partial(_take_tail, keep_tail, ledger, chunk_start, last)
        rows, summaries, played_games = _run_chunk(
            module, config, ledger, list(games[lo:hi]), times[lo:hi], late, forward=[day for day in late if not is_list or day < end],
            end=end, resumed=resumed if index == 0 else None, before_close=taken,
        )
        ledger.games += played_games
        played = apply_chunk(board, rows, summaries, module.current_ratings(ledger.engine_state))
        whole = is_list and complete(end)
        entries, counts, other = draw(
            board, end, rules, per_race=per_race, played=played,
            emit=("complete" if whole else "movements") if is_list else "every", reference=previous_month(until),
            both=is_list and both(end),
        )
        yield Chunk(
            start=chunk_start, end=end, rows=rows, summaries=summaries,
            entries=entries, games=played_games, is_list=is_list, complete=whole, other=other, **counts,
        )
        if progress:
            progress(index + 1, total)
        lo = hi
