"""Replaying the game stream through an engine, month by month: pure data in, pure data out.

The recalculation service writes what this yields; `verify_ratings` compares it with what is
stored. Between two month starts the engine runs once; at each month start the periods that ended
are closed and a rating list is drawn from the latest summary of every key.
"""
from __future__ import annotations

import datetime as dt
import math
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ratings.engines import glicko
from ratings.engines.common import CalculationRow, GameRecord, PeriodSummary

Key = tuple  # (coach, race or None, variant)


@dataclass
class Standing:
    """A key's latest rating and its record of counted games."""

    value: float
    mu: float | None = None
    phi: float | None = None
    sigma: float | None = None
    nv: int | None = None
    effective: dt.date | None = None  # when the latest summary took effect
    first_rated: dt.date | None = None
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last_played: dt.date | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass
class Ledger:
    """What a checkpoint holds: the engine's state and every key's standing."""

    engine_state: object = None
    standings: dict = field(default_factory=dict)  # Key -> Standing
    games: int = 0


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


@dataclass
class Chunk:
    start: dt.date  # the month start it replays from (the first game's month for the first chunk)
    end: dt.date  # a month start (list date), or the run's last day
    rows: list  # CalculationRow
    summaries: list  # PeriodSummary
    entries: list  # ListEntry, when `end` is a list date
    games: int
    is_list: bool


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


def valuation(on: dt.date, rules: ListRules) -> Callable[[Standing], tuple[float, float | None, bool]]:
    """A function giving (value, phi, active) of a key on `on`: Glicko phi grows by the closed form
    of glicko.decay for every idle period since the key's last one; the others lapse by months."""
    if not rules.glicko:
        if rules.inactive_after_months is None:
            return lambda standing: (standing.value, None, True)
        cutoff = months_before(on, rules.inactive_after_months)
        return lambda standing: (
            standing.value, None, standing.last_played is not None and standing.last_played >= cutoff
        )
    cap2 = rules.phi_cap * rules.phi_cap
    months_on = on.year * 12 + on.month
    multiplier, inactive_phi, period_days = rules.phi_multiplier, rules.inactive_phi, rules.period_days

    def value(standing: Standing) -> tuple[float, float, bool]:
        effective = standing.effective
        if period_days:
            idle = (on - effective).days // period_days
        else:
            idle = months_on - (effective.year * 12 + effective.month)
        phi = standing.phi
        if idle > 0:
            step = glicko.SCALE * standing.sigma
            phi = math.sqrt(min(phi * phi + idle * (step * step), cap2))
        return standing.mu - multiplier * phi, phi, phi <= inactive_phi

    return value


def standing_at(standing: Standing, on: dt.date, rules: ListRules) -> tuple[float, float | None, bool]:
    """(value, phi, active) of one key on `on`."""
    return valuation(on, rules)(standing)


def rank_entries(entries: list[ListEntry], *, per_race: bool) -> None:
    """Rank active entries by value, within (variant, race) and within variant; equal values share a rank."""
    ordered = sorted((e for e in entries if e.active), key=lambda e: (-e.value, e.key[0]))
    groupings = [("overall_rank", lambda key: key[2])]
    groupings.append(("rank", (lambda key: (key[2], key[1])) if per_race else (lambda key: key[2])))
    for attribute, group_of in groupings:
        seen: dict = {}
        for entry in ordered:
            group = group_of(entry.key)
            count, last_value, last_rank = seen.get(group, (0, None, 0))
            count += 1
            rank = last_rank if entry.value == last_value else count
            seen[group] = (count, entry.value, rank)
            setattr(entry, attribute, rank)


def draw_list(
    ledger: Ledger, on: dt.date, rules: ListRules, *, per_race: bool, played: dict, previous: dict,
    every_key: bool = False,
) -> list[ListEntry]:
    """The list as of `on`: every ranked key and every key that played since the previous list
    (`every_key`: all keys, for the current ratings).

    `played` maps a key to (games counted, games played) since the previous list; `previous`
    maps a key to its value on the previous list date (absent: not rated then, a starter).
    """
    entries = []
    value_of = valuation(on, rules)
    for key, standing in ledger.standings.items():
        value, phi, active = value_of(standing)
        counted, seen = played.get(key, (0, 0))
        if not (active or seen or every_key):
            continue
        before = previous.get(key)
        entries.append(ListEntry(
            key=key, value=value, mu=standing.mu, phi=phi, sigma=standing.sigma, nv=standing.nv,
            games=standing.games, active=active, change=None if before is None else value - before,
            games_counted=counted, games_played=seen, starter=before is None,
        ))
    rank_entries(entries, per_race=per_race)
    return entries


def apply_chunk(
    ledger: Ledger, rows: list[CalculationRow], summaries: list[PeriodSummary], *,
    previous: dict, previous_date: dt.date | None, rules: ListRules,
) -> dict:
    """Fold a chunk's rows and summaries into the standings; returns (games counted, played) per key.

    A key about to change that is missing from `previous` gets its value on `previous_date`
    first, so its change since the previous list is known even if it was not listed then.
    """
    standings = ledger.standings
    played: dict = {}
    for summary in summaries:
        key = (summary.coach, summary.race, summary.variant)
        standing = standings.get(key)
        if standing is None:
            standing = standings[key] = Standing(value=summary.rn, first_rated=summary.effective)
        elif key not in previous and previous_date is not None and standing.effective is not None:
            previous[key] = standing_at(standing, previous_date, rules)[0]
        standing.value = summary.rn
        standing.mu, standing.phi, standing.sigma = summary.mu, summary.phi, summary.sigma
        standing.nv = summary.nv
        standing.effective = summary.effective
    for row in rows:
        key = (row.coach, row.race, row.variant)
        counted, seen = played.get(key, (0, 0))
        played[key] = (counted + row.counted, seen + 1)
        if not row.counted:
            continue
        standing = standings.get(key)
        if standing is None:  # not rated yet (a KNSB depot game)
            continue
        if row.w == 1.0:
            standing.wins += 1
        elif row.w == 0.0:
            standing.losses += 1
        else:
            standing.draws += 1
        day = row.played_at.date()
        if standing.last_played is None or day > standing.last_played:
            standing.last_played = day
    return played


def boundaries(first: dt.date, until: dt.date) -> list[dt.date]:
    """Month starts after `first` up to and including `until` (list dates)."""
    out = []
    day = next_month(first)
    while day <= until:
        out.append(day)
        day = next_month(day)
    return out


def replay(
    module,
    config,
    games: list[GameRecord],
    ledger: Ledger,
    *,
    start: dt.date | None,
    until: dt.date,
    rules: ListRules,
    per_race: bool,
    previous_list: dict | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[Chunk]:
    """Run `games` (all played on or after `start`) month by month up to `until` (today).

    Yields one chunk per month, each ending on a list date, then a last partial chunk up to `until`
    whose entries are the current ratings of every key. The ledger is updated in place;
    `previous_list` (key -> value) is the list dated `start`.
    """
    if not games and start is None:
        return
    first = start or games[0].played_at.date()
    dates = boundaries(first, until)
    times = [g.played_at for g in games]
    previous = dict(previous_list or {})
    previous_date = start
    lo = 0
    total = len(dates) + 1
    for index, end in enumerate([*dates, until]):
        is_list = index < len(dates)
        hi = bisect_left(times, dt.datetime.combine(end, dt.time()), lo) if is_list else len(games)
        chunk_games = games[lo:hi]
        # The ledger owns its engine state, so the engine may update it without a copy per month.
        result = module.run_history(chunk_games, config, ledger.engine_state, in_place=True)
        closed = module.close_periods(result.state, config, end, in_place=True)
        rows = [*result.rows, *closed.rows]
        summaries = [*result.summaries, *closed.summaries]
        ledger.engine_state = closed.state
        ledger.games += len(chunk_games)
        played = apply_chunk(ledger, rows, summaries, previous=previous, previous_date=previous_date, rules=rules)
        entries = draw_list(
            ledger, end, rules, per_race=per_race, played=played, previous=previous, every_key=not is_list
        )
        yield Chunk(
            start=dates[index - 1] if index else month_start(first), end=end, rows=rows, summaries=summaries,
            entries=entries, games=len(chunk_games), is_list=is_list,
        )
        if is_list:
            previous = {e.key: e.value for e in entries}
            previous_date = end
        if progress:
            progress(index + 1, total)
        lo = hi
