"""One call's worth of work on a state: what the list close (lists.py) and the game intake (games.py) share."""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from ..common import CalculationRow, CountingRule, PeriodSummary
from .calculator import date_of_list, erf_scale, k_factor
from .config import InitialEntry, KnsbConfig
from .state import HISTORY, KID, NV, RATING, STAMP, Entry, K, KnsbResult, KnsbState, Table, TableKey


class OutOfOrder(Exception):
    """A game came before the one given just before it."""


class RaceTables(dict[str | None, Table | None]):
    """race -> the rating table a game of that race is rated in, in one variant; None when the race
    is left out or has no table yet (its games then take the general path). Worked out once per race."""

    def __init__(self, per_race: bool, excluded: frozenset[str]) -> None:
        super().__init__()
        self.per_race = per_race
        self.excluded = excluded
        self.tables: dict[str | None, Table] = {}  # race (None when pooled) -> {coach: entry}

    def add(self, race: str | None, table: Table) -> None:
        self.tables[race] = table
        self.clear()

    def __missing__(self, race: str | None) -> Table | None:
        table = None if race in self.excluded else self.tables.get(race if self.per_race else None)
        self[race] = table
        return table


class RunContext:
    """A (private copy of a) state, its configuration, and the rows, summaries and lists made so far."""

    def __init__(self, state: KnsbState, config: KnsbConfig, birth_years: Mapping[int, int] | None) -> None:
        if state.config != config:
            raise ValueError("the state was made with a different KnsbConfig: "
                             "recalculate from scratch")
        self.s = state
        self.c = config
        self.rows: list[CalculationRow] = []
        self.summaries: list[PeriodSummary] = []
        self.lists: list[date] = []
        self.wc = erf_scale(config.sigma)
        self.excluded = frozenset(config.excluded_races)
        self.exclusion = CountingRule.of(config).exclusion
        self.initial: dict[int, InitialEntry] = {entry[0]: entry for entry in config.initial_list}
        self.index: dict[str, RaceTables] = {}  # variant -> its tables in state.ratings
        for (race, variant), table in state.ratings.items():
            self._index_table(race, variant, table)
        self._take_birth_years(birth_years or {})
        self._opened()

    def _take_birth_years(self, birth_years: Mapping[int, int]) -> None:
        """Add the imported list's and the given birth years; k of ratings already made follows them."""
        state = self.s
        for coach, _, _, birth_year in self.c.initial_list:
            if birth_year is not None:
                state.birth_years.setdefault(coach, birth_year)
        changed = {coach for coach, year in birth_years.items() if state.birth_years.get(coach) != year}
        if not changed:
            return
        state.birth_years.update(birth_years)
        for table in state.ratings.values():
            for coach in changed & table.keys():
                entry = table[coach]
                entry[K] = k_factor(entry[RATING], entry[NV], junior=self._junior(coach, state.list_month))

    def _index_table(self, race: str | None, variant: str, table: Table) -> None:
        tables = self.index.get(variant)
        if tables is None:
            tables = self.index[variant] = RaceTables(self.c.per_race, self.excluded)
        tables.add(race, table)

    def result(self) -> KnsbResult:
        return KnsbResult(self.s, self.rows, self.summaries, self.lists)

    def _opened(self) -> None:
        """Cache what every game of the open month shares."""
        month, first = self.s.list_month, self.s.first_month
        if month is not None and first is not None:
            self.first_month = first
            self.on_time_month = month  # games of this month are on time; earlier ones are late
            self.depot_month = month + 1  # the list that rates them, at which unrated sides enter a depot
            self.in_force_day = date_of_list(month)
            self.next_day = date_of_list(month + 1)
            self.label = self.next_day.isoformat()

    def _junior(self, coach: int, month: int | None) -> bool:
        """Whether `coach` is a junior on the list of `month`: its year minus the birth year at most junior_age."""
        age = self.c.junior_age
        if age is None:
            return False
        born = self.s.birth_years.get(coach)
        return born is not None and month is not None and month // 12 - born <= age

    def _entry(self, tk: TableKey, coach: int) -> Entry | None:
        """The key's entry, made from the imported list on first sight."""
        table = self.s.ratings.get(tk)
        entry = None if table is None else table.get(coach)
        if entry is None and coach in self.initial:
            _, rating, games, _ = self.initial[coach]
            entry = self._new_entry(tk, coach, rating, min(self.c.nv_cap, games),
                                    self.s.list_month, since=self.s.first_month)
        return entry

    def _new_entry(self, tk: TableKey, coach: int, rating: float, nv: int, month: int | None,
                   since: int | None = None) -> Entry:
        """Rate a key from the list of `month` on (in the history from `since`, if earlier)."""
        entry = [rating, nv, k_factor(rating, nv, junior=self._junior(coach, month)), -1, -1,
                 tk, coach, [month if since is None else since, rating, nv]]
        table = self.s.ratings.get(tk)
        if table is None:
            table = self.s.ratings[tk] = {}
            self._index_table(tk[0], tk[1], table)
        table[coach] = entry
        return entry

    @staticmethod
    def _at(entry: Entry | None, month: int) -> tuple[float | None, int | None]:
        """(rating, Nv) of a key on the list of `month` (None, None: not rated then)."""
        if entry is None:
            return None, None
        history = entry[HISTORY]
        i = len(history) - 3
        while i >= 0 and history[i] > month:
            i -= 3
        return (None, None) if i < 0 else (history[i + 1], history[i + 2])

    def _kid(self, entry: Entry) -> int:
        """The key's number in the open period, given on its first game there."""
        p = self.s.period
        if entry[STAMP] != self.s.stamp:
            entry[STAMP] = self.s.stamp
            entry[KID] = len(p.keys)
            p.keys.append(entry)
        kid: int = entry[KID]
        return kid
