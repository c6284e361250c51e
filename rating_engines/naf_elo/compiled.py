"""NAF Elo's compiled fast path: the history over columns of the games, in numba.

`columns_of` reads the games once into arrays; `run_columns` applies them in one compiled loop and
gives the calculation rows, the event totals and the ratings back as arrays; `ColumnsResult.result`
turns those into the EloResult run_history gives (rows and summaries built only when asked). The
arithmetic is the calculator's to the bit (tests/engines/test_naf_elo_compiled.py holds it so).

numba compiles on first call and caches the machine code beside this file (cache=True), so only
the first run after an install pays it: `python -m rating_engines.naf_elo.compiled` compiles it
ahead (a worker's start, `make install`). Only the recalculation path imports this module; the
web process imports rating_engines.naf_elo, which does not import it, so no request pays a compile.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from itertools import compress, count, repeat
from operator import attrgetter, is_not, methodcaller, truediv
from typing import Any

import numpy as np
from numba import njit

from ..common import AWAY, HOME, CountingRule, GameRecord, PeriodSummary, Reason, RowColumns, build_many, run_in_order
from .config import EloConfig
from .history import _check_play_order
from .state import EloResult, EloState, EventTally, KeyTotals, RatingKey

# a game's reason code: 0 counts, else REASONS[code]
REASONS: tuple[str | None, ...] = (
    None, Reason.EVENT_NOT_SANCTIONED, Reason.BYE, Reason.FORFEIT, Reason.RACE_NOT_RANKED,
    Reason.VARIANT_EXCLUDED, Reason.RACE_EXCLUDED,
)
_REASON_CODE = {reason: code for code, reason in enumerate(REASONS)}
_CONCEDED = {None: 0, HOME: 1, AWAY: 2}
_NO_END = np.iinfo(np.int64).min  # an event without event_end
# an event's totals per key (EventTally's KeyTotals): the columns of the loop's two tables
_FLOAT_TOTALS = ("rl", "rn", "wt", "wet", "rtt", "rc_sum")
_INT_TOTALS = ("nt", "gp", "last_day", "is_start")


@dataclass
class GameColumns:
    """The games of a run, in play order, as arrays (one entry a game); keys are rating keys'
    indexes in `keys`, the away key −1 for a bye."""

    game_id: np.ndarray
    day: np.ndarray  # played_at's date as an ordinal
    event: np.ndarray  # index in event_ids
    event_end: np.ndarray  # ordinal, or _NO_END
    home_key: np.ndarray
    away_key: np.ndarray
    home_score: np.ndarray  # as recorded (a conceded game's S is set in the loop)
    conceded: np.ndarray  # 0 none, 1 home, 2 away
    coaches: np.ndarray
    major: np.ndarray
    reason: np.ndarray  # 0 counts, else an index in REASONS
    event_ids: list[int]
    keys: list[RatingKey]
    played_at: list[datetime]
    home: list[int]
    away: list[int | None]
    home_race: list[str]
    away_race: list[str | None]
    variant: list[str]

    def __len__(self) -> int:
        return len(self.game_id)


def _first_seen(values: Iterable[Any], n: int) -> tuple[np.ndarray, list[Any]]:
    """Each value's index among the distinct values in order of first appearance, and those values:
    a dict's setdefault against a counter (C-level), then the counters renumbered."""
    seen: dict[Any, int] = {}
    codes = np.fromiter(map(seen.setdefault, values, count()), dtype=np.int64, count=n)
    firsts = np.fromiter(seen.values(), dtype=np.int64, count=len(seen))  # ascending: first appearances
    return np.searchsorted(firsts, codes), list(seen)


def _column(games: list[GameRecord], name: str) -> list[Any]:
    return list(map(attrgetter(name), games))


def columns_of(games: list[GameRecord], config: EloConfig) -> GameColumns:
    """Read `games` (in play order) once into columns: one C-level pass a field, no Python loop a game."""
    n = len(games)
    home, away, variant, played_at = (_column(games, name) for name in ("home", "away", "variant", "played_at"))
    home_race, away_race = _column(games, "home_race"), _column(games, "away_race")
    races = (home_race, away_race) if config.per_race else (repeat(None, n), repeat(None, n))
    # keys numbered in order of first appearance, each game's home side before its away side (none for a bye)
    sides: list[Any] = [None] * (2 * n)
    sides[0::2] = zip(home, races[0], variant)
    sides[1::2] = zip(away, races[1], variant)
    present = np.ones(2 * n, dtype=np.bool_)
    present[1::2] = np.fromiter(map(is_not, away, repeat(None)), dtype=np.bool_, count=n)
    key_of_side = np.full(2 * n, -1, dtype=np.int64)
    key_of_side[present], keys = _first_seen(compress(sides, present), int(np.count_nonzero(present)))
    events, event_ids = _first_seen(_column(games, "event_id"), n)
    event_end = _column(games, "event_end")
    end_of = {day: _NO_END if day is None else day.toordinal() for day in set(event_end)}
    exclusion = CountingRule.of(config).exclusion
    return GameColumns(
        game_id=np.fromiter(map(attrgetter("game_id"), games), dtype=np.int64, count=n),
        day=np.fromiter(map(methodcaller("toordinal"), played_at), dtype=np.int64, count=n),
        event=events,
        event_end=np.fromiter(map(end_of.__getitem__, event_end), dtype=np.int64, count=n),
        home_key=key_of_side[0::2].copy(),
        away_key=key_of_side[1::2].copy(),
        home_score=np.fromiter(map(attrgetter("home_score"), games), dtype=np.float64, count=n),
        conceded=np.fromiter(map(_CONCEDED.__getitem__, map(attrgetter("conceded_by"), games)), dtype=np.int8, count=n),
        coaches=np.fromiter(map(attrgetter("event_coaches"), games), dtype=np.int64, count=n),
        major=np.fromiter(map(attrgetter("major"), games), dtype=np.bool_, count=n),
        reason=np.fromiter(map(_REASON_CODE.__getitem__, map(exclusion, games)), dtype=np.int8, count=n),
        event_ids=event_ids, keys=keys, played_at=played_at,
        home=home, away=away, home_race=home_race, away_race=away_race, variant=variant,
    )


@njit(cache=True)
def _round_half_away(value: float, scale: float) -> float:
    # common.round_half_away with 10**places given: the same operations in the same order
    rounded = math.floor(abs(value) * scale + 0.5 + 1e-9)
    if rounded:
        return math.copysign(rounded / scale, value)
    return 0.0


@njit(cache=True)
def _k(coaches: int, major: bool, non_major_max: int, major_coaches: int, round_k: bool, k_scale: float) -> float:
    n = major_coaches if major else min(coaches, non_major_max)
    k = 2.0 * math.sqrt(n) * k_scale
    return _round_half_away(k, 1.0) if round_k else k


@njit(cache=True)
def _history(
    day: Any, event: Any, event_end: Any, home_key: Any, away_key: Any, home_score: Any, conceded: Any,
    coaches: Any, major: Any, reason: Any,
    ratings: Any, rated: Any, first_rated: Any,
    start_rating: float, non_major_max: int, major_coaches: int, round_k: bool, k_scale: float, conceder_loses: bool,
    seg_of_event: Any, seg_evt: Any, seg_end: Any, seg_first_slot: Any, seg_touched: Any, n_segments: int,
    key_slot: Any, slot_prev: Any, slot_seg: Any, slot_keyidx: Any, n_slots: int,
    ftot: Any, itot: Any,
    r_home_out: Any, r_away_out: Any, p_home_out: Any, p_away_out: Any, k_out: Any,
    rt_home_out: Any, rt_away_out: Any, seg_of_game: Any,
) -> tuple[int, int]:
    """The history runner's loop over arrays: rows' numbers, each event's totals per key, ratings."""
    n = len(day)
    k = 0.0
    k_coaches = -1
    k_major = False
    for i in range(n):
        d = day[i]
        e = event[i]
        s = seg_of_event[e]
        if s < 0 or seg_end[s] < d:  # the event opens (again: an ended one was closed)
            s = n_segments
            n_segments += 1
            seg_of_event[e] = s
            seg_evt[s] = e
            end = event_end[i]
            seg_end[s] = end if end > d else d
            seg_first_slot[s] = n_slots
        seg_touched[s] = True
        seg_of_game[i] = s
        counts = reason[i] == 0
        score = home_score[i]
        if counts and conceded[i] != 0 and conceder_loses:
            score = 0.0 if conceded[i] == 1 else 1.0
        if counts:
            hk = home_key[i]
            ak = away_key[i]
            if coaches[i] != k_coaches or major[i] != k_major:
                k_coaches = coaches[i]
                k_major = major[i]
                k = _k(k_coaches, k_major, non_major_max, major_coaches, round_k, k_scale)
            r_home = ratings[hk]
            r_away = ratings[ak]
            p_home = 1.0 / (10.0 ** ((r_away - r_home) / 150.0) + 1.0)
            p_away = 1.0 / (10.0 ** ((r_home - r_away) / 150.0) + 1.0)
            away_score = 1.0 - score
            rt_home = k * (score - p_home)
            rt_away = k * (away_score - p_away)
            n_home = _round_half_away(r_home + rt_home, 100.0)
            n_away = _round_half_away(r_away + rt_away, 100.0)
            r_home_out[i] = r_home
            r_away_out[i] = r_away
            p_home_out[i] = p_home
            p_away_out[i] = p_away
            k_out[i] = k
            rt_home_out[i] = rt_home
            rt_away_out[i] = rt_away
        else:
            r_home_out[i] = np.nan
            r_away_out[i] = np.nan
            p_home_out[i] = np.nan
            p_away_out[i] = np.nan
            k_out[i] = np.nan
            rt_home_out[i] = np.nan
            rt_away_out[i] = np.nan
        for side in range(2):
            key = home_key[i] if side == 0 else away_key[i]
            if key < 0:
                continue
            # this key's slot in the event: walk its slots back to those opened since the event did
            slot = key_slot[key]
            while slot >= 0 and slot >= seg_first_slot[s] and slot_seg[slot] != s:
                slot = slot_prev[slot]
            new = slot < 0 or slot < seg_first_slot[s]
            if new:
                slot = n_slots
                n_slots += 1
                slot_seg[slot] = s
                slot_keyidx[slot] = key
                slot_prev[slot] = key_slot[key]
                key_slot[key] = slot
            if not counts:
                if new:
                    ftot[slot, 0] = np.nan
                    ftot[slot, 1] = np.nan
                    itot[slot, 0] = 0
                    itot[slot, 1] = 1
                    ftot[slot, 2] = 0.0
                    ftot[slot, 3] = 0.0
                    ftot[slot, 4] = 0.0
                    ftot[slot, 5] = 0.0
                    itot[slot, 3] = 0
                    itot[slot, 2] = 0
                else:
                    itot[slot, 1] += 1
                continue
            if side == 0:
                r, r_new, w, p, rt, rc = r_home, n_home, score, p_home, rt_home, r_away
            else:
                r, r_new, w, p, rt, rc = r_away, n_away, away_score, p_away, rt_away, r_home
            if new:
                ftot[slot, 0] = r
                ftot[slot, 1] = r_new
                itot[slot, 0] = 1
                itot[slot, 1] = 1
                ftot[slot, 2] = w
                ftot[slot, 3] = p
                ftot[slot, 4] = rt
                ftot[slot, 5] = rc
                itot[slot, 3] = 0 if rated[key] else 1
                itot[slot, 2] = d
            else:
                if itot[slot, 0] == 0:
                    ftot[slot, 0] = r
                    itot[slot, 3] = 0 if rated[key] else 1
                ftot[slot, 1] = r_new
                itot[slot, 0] += 1
                itot[slot, 1] += 1
                ftot[slot, 2] += w
                ftot[slot, 3] += p
                ftot[slot, 4] += rt
                ftot[slot, 5] += rc
                itot[slot, 2] = d
        if counts:
            hk = home_key[i]
            ak = away_key[i]
            if not rated[hk]:
                rated[hk] = True
                first_rated[hk] = 2 * i
            if not rated[ak]:
                rated[ak] = True
                first_rated[ak] = 2 * i + 1
            ratings[hk] = n_home
            ratings[ak] = n_away
    return n_segments, n_slots


@njit(cache=True)
def final_ratings(home_key: Any, away_key: Any, home_score: Any, k: Any, ratings: Any) -> None:
    """The bare update: every game of the arrays applied to `ratings` in place, no rows, no totals
    (the benchmark's floor under the compiled path; a parameter search that needs the ratings only)."""
    for i in range(len(home_key)):
        hk = home_key[i]
        ak = away_key[i]
        r_home = ratings[hk]
        r_away = ratings[ak]
        score = home_score[i]
        kk = k[i]
        ratings[hk] = _round_half_away(r_home + kk * (score - 1.0 / (10.0 ** ((r_away - r_home) / 150.0) + 1.0)), 100.0)
        ratings[ak] = _round_half_away(r_away + kk * (1.0 - score - 1.0 / (10.0 ** ((r_home - r_away) / 150.0) + 1.0)), 100.0)


@dataclass
class ColumnsResult:
    """A run's output as columns: per game the numbers of its two rows (NaN where a game does not
    count), per (event, key) slot its totals, and what the state becomes."""

    games: GameColumns
    config: EloConfig
    r_home: np.ndarray
    r_away: np.ndarray
    p_home: np.ndarray
    p_away: np.ndarray
    k: np.ndarray
    rt_home: np.ndarray
    rt_away: np.ndarray
    labels: list[str]  # per segment (an event's stretch between openings)
    seg_of_game: np.ndarray
    slot_seg: np.ndarray
    slot_key: np.ndarray  # per slot its key's index in `keys`
    keys: list[RatingKey]
    totals: dict[str, np.ndarray]  # per slot: rl, rn, nt, gp, wt, wet, rtt, rc_sum, is_start, last_day
    summary_slots: np.ndarray  # the slots summarised, in the order run_history hands them out
    open_segments: list[tuple[int, int]]  # (segment, event_id) of the events still open, in state order
    seg_end: np.ndarray
    seg_first_slot: np.ndarray
    ratings: np.ndarray
    first_rated: np.ndarray  # per key the row (2·game + side) that first rated it here, else −1
    n_slots: int

    def rows(self) -> RowColumns:
        """The calculation rows, two a game (one a bye), as run_history gives them, as columns."""
        g = self.games
        n = len(g)
        counted = g.reason == 0
        has_away = g.away_key >= 0
        keep = np.empty(2 * n, dtype=np.bool_)
        keep[0::2] = True
        keep[1::2] = has_away

        def pair(home: Any, away: Any, dtype: Any = object) -> list[Any]:
            both = np.empty(2 * n, dtype=dtype)
            both[0::2] = home
            both[1::2] = away
            out: list[Any] = both[keep].tolist()
            return out

        def numbers(home: np.ndarray, away: np.ndarray) -> list[Any]:
            both = np.empty(2 * n, dtype=object)
            both[0::2] = home.astype(object)
            both[1::2] = away.astype(object)
            both[0::2][~counted] = None
            both[1::2][~counted] = None
            out: list[Any] = both[keep].tolist()
            return out

        per_race = self.config.per_race
        raw = g.home_score
        # S: a conceded game's as the rule says where it counts, else as recorded
        conceded = counted & (g.conceded != 0) & self.config.conceder_loses
        w_home = np.where(conceded, np.where(g.conceded == 1, 0.0, 1.0), raw)
        labels = np.array(self.labels, dtype=object)[self.seg_of_game]
        reasons = np.array(REASONS, dtype=object)[g.reason]
        count = int(np.count_nonzero(keep))
        return RowColumns(count, {
            "game_id": pair(g.game_id, g.game_id, np.int64), "side": pair(HOME, AWAY),
            "coach": pair(g.home, g.away), "race": pair(g.home_race, g.away_race) if per_race else [None] * count,
            "variant": pair(g.variant, g.variant), "opponent": pair(g.away, g.home),
            "opponent_race": pair(g.away_race, g.home_race), "played_at": pair(g.played_at, g.played_at),
            "period": pair(labels, labels), "w": pair(w_home, 1.0 - w_home, np.float64),
            "counted": pair(counted, counted, np.bool_), "reason": pair(reasons, reasons),
            "r0": numbers(self.r_home, self.r_away), "rc": numbers(self.r_away, self.r_home),
            "we": numbers(self.p_home, self.p_away), "k": numbers(self.k, self.k),
            "rt": numbers(self.rt_home, self.rt_away),
        })

    def summaries(self) -> list[PeriodSummary]:
        """One summary per key with a counted game per event handed out, in run_history's order."""
        slots = self.summary_slots
        t = self.totals
        all_keys = self.keys
        keys = [all_keys[index] for index in self.slot_key[slots].tolist()]
        coaches, races, variants = zip(*keys) if keys else ((), (), ())
        nt = t["nt"][slots].tolist()
        return build_many(PeriodSummary, {
            "coach": coaches, "race": races, "variant": variants,
            "period": [self.labels[s] for s in self.slot_seg[slots].tolist()],
            "effective": list(map(date.fromordinal, t["last_day"][slots].tolist())),
            "rl": t["rl"][slots].tolist(), "rn": t["rn"][slots].tolist(), "nt": nt,
            "games_played": t["gp"][slots].tolist(), "wt": t["wt"][slots].tolist(),
            "wet": t["wet"][slots].tolist(), "rtt": t["rtt"][slots].tolist(),
            "rct": list(map(truediv, t["rc_sum"][slots].tolist(), nt)),
            "is_start": t["is_start"][slots].tolist(),
        })

    def update_state(self, state: EloState) -> None:
        """`state` (the run's start) as the run leaves it: new ratings, the events still open."""
        g = self.games
        ratings = self.ratings.tolist()
        first = self.first_rated
        new = np.flatnonzero(first >= 0)
        for key in [self.keys[index] for index in new[np.argsort(first[new])].tolist()]:
            state.ratings[key] = 0.0  # in the order first rated, as the history runner adds them
        touched = np.unique(np.concatenate([g.home_key, g.away_key[g.away_key >= 0]])).tolist()
        for index in touched:
            key = g.keys[index]
            if key in state.ratings:
                state.ratings[key] = ratings[index]
        t = self.totals
        columns = [t[name].tolist() for name in ("rl", "rn", "nt", "gp", "wt", "wet", "rtt", "rc_sum", "is_start", "last_day")]
        open_events: dict[int, EventTally] = {}
        ends = self.seg_end.tolist()
        firsts = self.seg_first_slot.tolist() + [self.n_slots]
        slot_seg = self.slot_seg
        for seg, event_id in self.open_segments:
            totals: dict[RatingKey, KeyTotals] = {}
            for slot in range(firsts[seg], self.n_slots):
                if slot_seg[slot] != seg:
                    continue
                rl, rn, nt, gp, wt, wet, rtt, rc_sum, is_start, last_day = (column[slot] for column in columns)
                totals[self.keys[self.slot_key[slot]]] = (
                    [rl, rn, nt, gp, wt, wet, rtt, rc_sum, is_start, date.fromordinal(last_day)] if nt
                    else [None, None, 0, gp, 0.0, 0.0, 0.0, 0.0, False, None])
            open_events[event_id] = EventTally(self.labels[seg], date.fromordinal(ends[seg]), totals, False)
        state.open_events = open_events
        if len(g):
            state.last_played = (g.played_at[-1], int(g.game_id[-1]))

    def result(self, state: EloState) -> EloResult:
        """The EloResult run_history gives, `state` updated in place."""
        rows = self.rows()
        summaries = self.summaries()
        self.update_state(state)
        return EloResult(state, rows, summaries)


def run_columns(games: GameColumns, config: EloConfig, state: EloState | None = None) -> ColumnsResult:
    """Apply the games (in play order, after `state`, which is not modified) in compiled code."""
    state = EloState() if state is None else state
    n = len(games)
    counted = games.reason == 0
    if n and games.coaches.min() < 0 and np.any(games.coaches[counted] < 0):
        bad = int(games.coaches[counted][games.coaches[counted] < 0][0])
        raise ValueError(f"naf_coaches must not be negative, got {bad!r}")
    keys = list(games.keys)
    known = state.ratings
    prior = list(state.open_events.items())
    # a key's index, needed only to seed the events the state holds open
    key_index = {key: index for index, key in enumerate(keys)} if prior else {}

    # the events the state holds open come first: segments and slots seeded from their totals
    event_ids = list(games.event_ids)
    event_index = {event_id: index for index, event_id in enumerate(event_ids)}
    for event_id, _ in prior:
        if event_id not in event_index:
            event_index[event_id] = len(event_ids)
            event_ids.append(event_id)
    prior_slots = sum(len(tally.totals) for _, tally in prior)
    for _, tally in prior:
        for key in tally.totals:
            if key not in key_index:
                key_index[key] = len(keys)
                keys.append(key)
    n_keys = len(keys)
    if known:
        ratings = np.array([known.get(key, config.start_rating) for key in keys], dtype=np.float64)
        rated = np.array([key in known for key in keys], dtype=np.bool_)
    else:
        ratings = np.full(n_keys, config.start_rating)
        rated = np.zeros(n_keys, dtype=np.bool_)
    first_rated = np.full(n_keys, -1, dtype=np.int64)

    max_segments = len(prior) + n
    max_slots = prior_slots + 2 * n
    seg_of_event = np.full(len(event_ids), -1, dtype=np.int64)
    # left empty: the loop writes every segment and slot it opens, and every game's numbers
    seg_evt = np.empty(max_segments, dtype=np.int64)
    seg_end = np.empty(max_segments, dtype=np.int64)
    seg_first_slot = np.empty(max_segments, dtype=np.int64)
    seg_touched = np.zeros(max_segments, dtype=np.bool_)
    key_slot = np.full(n_keys, -1, dtype=np.int64)
    slot_prev = np.empty(max_slots, dtype=np.int64)
    slot_seg = np.empty(max_slots, dtype=np.int64)
    slot_keyidx = np.empty(max_slots, dtype=np.int64)
    # an event's totals per key, a row a slot (the loop touches one or two cache lines a side)
    ftot = np.empty((max_slots, len(_FLOAT_TOTALS)))
    itot = np.empty((max_slots, len(_INT_TOTALS)), dtype=np.int64)
    labels: list[str] = []
    seg_event: list[int] = []
    prior_dirty = []
    slot = 0
    for seg, (event_id, tally) in enumerate(prior):
        seg_of_event[event_index[event_id]] = seg
        seg_end[seg] = tally.end.toordinal()
        seg_first_slot[seg] = slot
        labels.append(tally.label)
        seg_event.append(event_id)
        prior_dirty.append(tally.dirty)
        for key, values in tally.totals.items():
            rl, rn, nt, gp, wt, wet, rtt, rc_sum, is_start, last_day = values
            index = key_index[key]
            slot_seg[slot] = seg
            slot_keyidx[slot] = index
            slot_prev[slot] = key_slot[index]
            key_slot[index] = slot
            ftot[slot] = [np.nan if rl is None else rl, np.nan if rn is None else rn, wt, wet, rtt, rc_sum]
            itot[slot] = [nt, gp, 0 if last_day is None else last_day.toordinal(), is_start]
            slot += 1

    per_game = {name: np.empty(n) for name in ("r_home", "p_home", "p_away", "k", "rt_home", "rt_away", "r_away")}
    seg_of_game = np.empty(n, dtype=np.int64)
    n_segments, n_slots = _history(
        games.day, games.event, games.event_end, games.home_key, games.away_key, games.home_score, games.conceded,
        games.coaches, games.major, games.reason, ratings, rated, first_rated,
        config.start_rating, config.non_major_max, config.major_coaches, config.round_k, config.k_scale,
        config.conceder_loses, seg_of_event, seg_evt, seg_end, seg_first_slot, seg_touched, len(prior),
        key_slot, slot_prev, slot_seg, slot_keyidx, slot,
        ftot, itot,
        per_game["r_home"], per_game["r_away"], per_game["p_home"], per_game["p_away"],
        per_game["k"], per_game["rt_home"], per_game["rt_away"], seg_of_game,
    )
    # the segments opened here: their labels and events
    for seg in range(len(prior), n_segments):
        event_id = event_ids[int(seg_evt[seg])]
        labels.append(f"event:{event_id}")
        seg_event.append(event_id)
    slot_seg = slot_seg[:n_slots]

    # a segment is handed out when the first game after its end arrives (n: at the end of the run),
    # those handed out together in the order the state holds them (opened first, first)
    ends = seg_end[:n_segments]
    close_at = np.searchsorted(games.day, ends, side="right")
    dirty = seg_touched[:n_segments].copy()
    dirty[:len(prior)] |= np.array(prior_dirty, dtype=np.bool_)
    order = np.lexsort((np.arange(n_segments), close_at))
    emitted = order[dirty[order]]
    rank = np.empty(n_segments, dtype=np.int64)
    rank[emitted] = np.arange(len(emitted))
    totals: dict[str, np.ndarray] = {name: ftot[:n_slots, column] for column, name in enumerate(_FLOAT_TOTALS)}
    totals.update((name, itot[:n_slots, column]) for column, name in enumerate(_INT_TOTALS))
    totals["is_start"] = totals["is_start"].astype(np.bool_)
    chosen = np.flatnonzero(dirty[slot_seg] & (totals["nt"] > 0))
    summary_slots = chosen[np.argsort(rank[slot_seg[chosen]], kind="stable")]
    open_segments = [(seg, seg_event[seg]) for seg in np.flatnonzero(close_at == n).tolist()]
    return ColumnsResult(
        games, config, per_game["r_home"], per_game["r_away"], per_game["p_home"],
        per_game["p_away"], per_game["k"], per_game["rt_home"], per_game["rt_away"], labels, seg_of_game,
        slot_seg, slot_keyidx[:n_slots], keys, totals, summary_slots,
        open_segments, ends, seg_first_slot[:n_segments], ratings, first_rated, n_slots,
    )


def run_history(
    games: Iterable[GameRecord], config: EloConfig, state: EloState | None = None, *, in_place: bool = False
) -> EloResult:
    """history.run_history in compiled code: the same arguments, the same result."""
    start = EloState() if state is None else state

    def run(ordered: list[GameRecord], copy: EloState) -> EloResult:
        if not ordered:
            return EloResult(copy, [], [])
        _check_play_order(ordered, copy.last_played)
        return run_columns(columns_of(ordered, config), config, copy).result(copy)

    return run_in_order(run, list(games), start, in_place=in_place)


def warm_up() -> None:
    """Compile (or load from the cache) every kernel: a worker calls it at start, so that no run,
    and no request, waits for a compile."""
    day = datetime(2020, 1, 1)
    games = [GameRecord(1, day, 1, "v", 1, "orc", 2, "elf", 1.0, event_coaches=10),
             GameRecord(2, day, 1, "v", 3, "orc", None, None, 1.0, kind="bye")]
    run_history(games, EloConfig()).rows  # noqa: B018 - built for the compile only
    final_ratings(np.zeros(1, np.int64), np.ones(1, np.int64), np.ones(1), np.ones(1), np.full(2, 150.0))


if __name__ == "__main__":
    import time

    began = time.perf_counter()
    warm_up()
    print(f"NAF Elo kernels compiled or loaded in {time.perf_counter() - began:.2f} s")
