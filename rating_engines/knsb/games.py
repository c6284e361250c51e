"""Taking games: each is rated against the list in force, or goes into a depot, or gets a row saying why not.

The month loop takes the common game (on time, counting, both sides rated) with the arithmetic of
calculator.expected_score and calculator.rating_change written out (the same figures: the fast
path's tests check it); every other game goes to `slow` or `unrated`.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import date, datetime
from itertools import chain
from typing import NamedTuple

from ..common import AWAY, HOME, PLAYED, CalculationRow, GameRecord, Reason
from .calculator import date_of_list, expected_score, k_factor, rating_change, table_we
from .lists import ListMaking
from .run import OutOfOrder
from .state import KID, NV, RATING, STAMP, DepotEntry, DepotKey, Entry, K, TableKey

# (played_at, game_id) of the last game taken, with `not reverses` for a game outside the month loop
PlayOrder = tuple[datetime, int] | tuple[datetime, int, bool]


class _Side(NamedTuple):
    """One side of a game outside the month loop, with the rating it has on the game's list."""

    side: str
    coach: int
    tk: TableKey  # (race or None when pooled, variant): its rating table
    entry: Entry | None
    r0: float | None
    nv: int | None
    opponent: int | None
    opponent_race: str | None
    w: float


class GameIntake(ListMaking):
    """A run: games in, lists made as later months arrive."""

    def ingest(self, games: list[GameRecord]) -> None:
        """Take `games` in (played_at, game_id) order; OutOfOrder at the first game that breaks it."""
        s = self.s
        remaining = iter(games)
        g = next(remaining, None)
        if g is None:
            return
        last: PlayOrder = (g.played_at, g.game_id - 1)
        while g is not None:
            t = g.played_at
            month = t.year * 12 + t.month - 1
            if s.list_month is None:
                s.list_month = s.first_month = month
                self.lists.append(date_of_list(month))
                self._opened()
            while s.list_month < month:
                self.close()
            if month < s.list_month:
                order = (t, g.game_id, not g.reverses)
                if order <= last:
                    raise OutOfOrder
                last = order
                self.slow(g, month)
                g = next(remaining, None)
            else:
                g, last = self._take_month(g, remaining, last)

    def _take_month(self, first: GameRecord, remaining: Iterator[GameRecord],
                    last: PlayOrder) -> tuple[GameRecord | None, PlayOrder]:
        """Rate `first` and the games after it played in the open month; returns the first game of
        a later month (None: no more games) and the (played_at, game_id) of the last one taken."""
        s = self.s
        erf = math.erf
        wc = self.wc
        per_race = self.c.per_race
        we_table = self.c.we_table
        index = self.index
        played = PLAYED
        slow = self.slow
        general = self._general
        row = CalculationRow
        open_month = s.list_month
        p = s.period
        keys = p.keys
        counted = p.counted.extend
        add_rows = p.rows.extend
        add_counted_rows = p.counted_rows.extend
        stamp = s.stamp
        label, list_day = self.label, self.in_force_day
        for g in chain((first,), remaining):
            t = g.played_at
            if t.year * 12 + t.month - 1 != open_month:
                return g, last
            game_id = g.game_id
            order = (t, game_id)
            if order <= last:
                raise OutOfOrder
            last = order
            away = g.away
            if not (g.sanctioned and g.kind == played and away is not None
                    and g.home_race_ranked and g.away_race_ranked):
                slow(g, open_month)
                continue
            variant = g.variant
            tables = index.get(variant)  # None: no table in this variant, or not in the ranking
            if tables is None:
                slow(g, open_month)
                continue
            home_race = g.home_race
            away_race = g.away_race
            home_table = tables[home_race]
            away_table = tables[away_race]
            if home_table is None or away_table is None:
                slow(g, open_month)
                continue
            home = g.home
            eh = home_table.get(home)
            ea = away_table.get(away)
            if eh is None or ea is None:
                general(g, eh, ea, open_month)
                continue
            r0 = eh[RATING]
            rc = ea[RATING]
            if we_table:
                we_home = table_we(r0 - rc, wc)
                we_away = table_we(rc - r0, wc)
            else:
                e = erf((r0 - rc) * wc)
                we_home = 0.5 * (1.0 + e)
                we_away = 0.5 * (1.0 - e)  # = expected_score(rc − r0): erf is odd
            if eh[STAMP] != stamp:
                eh[STAMP] = stamp
                eh[KID] = len(keys)
                keys.append(eh)
            if ea[STAMP] != stamp:
                ea[STAMP] = stamp
                ea[KID] = len(keys)
                keys.append(ea)
            score = g.home_score
            away_score = 1.0 - score
            k_home = eh[K]
            k_away = ea[K]
            rt_home = k_home * (score - we_home)
            rt_away = k_away * (away_score - we_away)
            counted((eh[KID], rc, score, we_home, rt_home, ea[KID], r0, away_score, we_away, rt_away))
            pair = (
                row(game_id, HOME, home, home_race if per_race else None, variant, away,
                    away_race, t, label, score, True, None, r0, rc, we_home, k_home, rt_home,
                    None, list_day),
                row(game_id, AWAY, away, away_race if per_race else None, variant, home,
                    home_race, t, label, away_score, True, None, rc, r0, we_away, k_away,
                    rt_away, None, list_day),
            )
            add_rows(pair)
            add_counted_rows(pair)
        return None, last

    def _general(self, g: GameRecord, eh: Entry | None, ea: Entry | None, month: int) -> None:
        """A counting game with a side not rated yet: the imported list may rate it on first sight."""
        initial = self.initial
        if initial and (g.home in initial or g.away in initial):
            self.slow(g, month)
        else:
            self.unrated(g, eh, ea)

    def unrated(self, g: GameRecord, eh: Entry | None, ea: Entry | None) -> None:
        """An on-time game that would count but for a side without a rating (eh or ea None)."""
        p = self.s.period
        per_race = self.c.per_race
        boot = self.c.bootstrap_rating is not None
        label = self.label
        list_day = self.in_force_day
        month = self.on_time_month
        score = g.home_score
        assert g.away is not None  # the month loop takes only games with two sides
        for side, coach, race, entry, opponent, opponent_race, other, w in (
            (HOME, g.home, g.home_race, eh, g.away, g.away_race, ea, score),
            (AWAY, g.away, g.away_race, ea, g.home, g.home_race, eh, 1.0 - score),
        ):
            key_race = race if per_race else None
            depot_day = None
            if entry is not None:
                r0, rc = entry[RATING], None
                why = Reason.OPPONENT_UNRATED
                kid = self._kid(entry)
                p.extra_played[kid] = p.extra_played.get(kid, 0) + 1
            else:
                r0 = None
                key = ((key_race, g.variant), coach)
                self._played_unrated(key, month)
                if other is None and not boot:
                    why, rc = Reason.OPPONENT_UNRATED, None
                else:
                    why = Reason.IN_DEPOT if other is not None else Reason.DEPOT_BOOTSTRAP
                    rc = self._deposit(g, side, key, None if other is None else other[RATING], w, month, month)
                    depot_day = self.next_day
            r = CalculationRow(g.game_id, side, coach, key_race, g.variant, opponent, opponent_race,
                               g.played_at, label, w, False, why, r0, rc, None, None, None, None,
                               list_day, depot_day)
            p.rows.append(r)
            if depot_day is not None:
                p.deposit_rows[(g.game_id, side)] = r

    def slow(self, g: GameRecord, month: int) -> None:
        """Every game the month loop does not take: left out, a side unrated, late, first sight."""
        if g.reverses:
            self._take_back(g, month)
            return
        late = month < self.on_time_month
        in_force = max(month, self.first_month) if late else self.on_time_month
        list_day = date_of_list(in_force)
        reason = self.exclusion(g)
        if reason == Reason.VARIANT_EXCLUDED:
            self._left_out(g, reason, list_day)
            return
        home = self._side(HOME, g.home, g.home_race, g.away, g.away_race, g.home_score, g, late, in_force)
        if g.away is None:
            self._uncounted(g, home, None, reason, in_force, month, list_day)
            return
        away = self._side(AWAY, g.away, g.away_race, g.home, g.home_race, 1.0 - g.home_score, g,
                          late, in_force)
        if reason is None and home.r0 is not None and away.r0 is not None:
            self._rate_pair(g, home, away, late, in_force, list_day)
            return
        self._uncounted(g, home, away.r0, reason, in_force, month, list_day)
        self._uncounted(g, away, home.r0, reason, in_force, month, list_day)

    def _side(self, side: str, coach: int, race: str | None, opponent: int | None, opponent_race: str | None,
              w: float, g: GameRecord, late: bool, in_force: int) -> _Side:
        """A side of `g` with its rating and Nv on the list of `in_force` (late) or the list in force."""
        tk = (race if self.c.per_race else None, g.variant)
        entry = self._entry(tk, coach)
        if late:
            r0, nv = self._at(entry, in_force)
        elif entry is not None:
            r0, nv = entry[RATING], entry[NV]
        else:
            r0 = nv = None
        return _Side(side, coach, tk, entry, r0, nv, opponent, opponent_race, w)

    def _left_out(self, g: GameRecord, reason: str, list_day: date) -> None:
        """Rows without figures for a game of a variant outside the ranking."""
        p = self.s.period
        per_race = self.c.per_race
        p.rows.append(CalculationRow(
            g.game_id, HOME, g.home, g.home_race if per_race else None, g.variant, g.away, g.away_race,
            g.played_at, self.label, g.home_score, False, reason, None, None, None, None, None, None,
            list_day))
        if g.away is not None:
            p.rows.append(CalculationRow(
                g.game_id, AWAY, g.away, g.away_race if per_race else None, g.variant, g.home,
                g.home_race, g.played_at, self.label, 1.0 - g.home_score, False, reason, None, None,
                None, None, None, None, list_day))

    def _rate_pair(self, g: GameRecord, home: _Side, away: _Side, late: bool, in_force: int,
                   list_day: date) -> None:
        """A counting game outside the month loop; a late one takes R0, Rc and k from its own list."""
        r_home, r_away = home.r0, away.r0
        assert r_home is not None and r_away is not None and home.entry is not None and away.entry is not None
        sigma, table = self.c.sigma, self.c.we_table
        we_home = expected_score(r_home - r_away, sigma=sigma, table=table)
        we_away = expected_score(r_away - r_home, sigma=sigma, table=table)
        k_home, k_away = self._k(home, late, in_force), self._k(away, late, in_force)
        rt_home = rating_change(k_home, home.w, we_home)
        rt_away = rating_change(k_away, away.w, we_away)
        p = self.s.period
        p.counted.extend((self._kid(home.entry), r_away, home.w, we_home, rt_home,
                          self._kid(away.entry), r_home, away.w, we_away, rt_away))
        pair = (
            CalculationRow(g.game_id, HOME, home.coach, home.tk[0], g.variant, away.coach, g.away_race,
                           g.played_at, self.label, home.w, True, None, r_home, r_away, we_home, k_home,
                           rt_home, None, list_day),
            CalculationRow(g.game_id, AWAY, away.coach, away.tk[0], g.variant, home.coach, g.home_race,
                           g.played_at, self.label, away.w, True, None, r_away, r_home, we_away, k_away,
                           rt_away, None, list_day),
        )
        p.rows.extend(pair)
        p.counted_rows.extend(pair)

    def _take_back(self, g: GameRecord, month: int) -> None:
        """A corrected game's old result, rated by a list already out: its Rt comes off each side's
        rating here (rows REVERSED). A result that counted for no one has nothing to take back; nor
        has a depot game (its depot, or the start rating made from it, keeps it)."""
        if self.exclusion(g) is not None or g.away is None:
            return
        in_force = max(month, self.first_month)
        home = self._side(HOME, g.home, g.home_race, g.away, g.away_race, g.home_score, g, True, in_force)
        away = self._side(AWAY, g.away, g.away_race, g.home, g.home_race, 1.0 - g.home_score, g, True, in_force)
        if home.r0 is None or away.r0 is None:
            return
        sigma, table = self.c.sigma, self.c.we_table
        p = self.s.period
        list_day = date_of_list(in_force)
        for me, other in ((home, away), (away, home)):
            assert me.entry is not None and me.r0 is not None and other.r0 is not None
            we = expected_score(me.r0 - other.r0, sigma=sigma, table=table)
            k = self._k(me, True, in_force)
            rt = -rating_change(k, me.w, we)
            taken = p.reversed.setdefault(self._kid(me.entry), [0.0, 0])
            taken[0] += rt
            taken[1] += 1
            p.rows.append(CalculationRow(
                g.game_id, me.side, me.coach, me.tk[0], g.variant, other.coach, me.opponent_race, g.played_at,
                self.label, me.w, False, Reason.REVERSED, me.r0, other.r0, we, k, rt, None, list_day))

    def _k(self, me: _Side, late: bool, in_force: int) -> float:
        """k of a rated side: the list in force's, or for a late game that of the game's own list."""
        assert me.entry is not None and me.r0 is not None and me.nv is not None
        if late:
            return k_factor(me.r0, me.nv, junior=self._junior(me.coach, in_force))
        k: float = me.entry[K]
        return k

    def _uncounted(self, g: GameRecord, me: _Side, rc: float | None, reason: str | None,
                   in_force: int, month: int, list_day: date) -> None:
        """The row of a side that does not count (`rc`: the opponent's rating, if any); an unrated
        side's game goes into its depot when it can."""
        depot_day = None
        why = reason
        if why is None:
            why, rc, depot_day = self._not_counted(g, me, rc, in_force, month)
        if why == Reason.OPPONENT_UNRATED:
            rc = None
        p = self.s.period
        if me.entry is not None:
            kid = self._kid(me.entry)
            p.extra_played[kid] = p.extra_played.get(kid, 0) + 1
        else:
            self._played_unrated((me.tk, me.coach), month)
        r = CalculationRow(g.game_id, me.side, me.coach, me.tk[0], g.variant, me.opponent, me.opponent_race,
                           g.played_at, self.label, me.w, False, why, me.r0, rc, None, None, None, None,
                           list_day, depot_day)
        p.rows.append(r)
        if depot_day is not None:
            p.deposit_rows[(g.game_id, me.side)] = r

    def _not_counted(self, g: GameRecord, me: _Side, rc: float | None, in_force: int,
                     month: int) -> tuple[str, float | None, date | None]:
        """(reason, Rc, depot list date or None) for a side of a counting game that has no opponent
        rating or no rating of its own; puts the game into the depot when it can."""
        if me.r0 is not None:
            return Reason.OPPONENT_UNRATED, None, None
        if me.entry is not None:  # a late game from before the player's start rating: nothing left to use it
            return Reason.IN_DEPOT, rc, None
        if rc is None and self.c.bootstrap_rating is None:
            return Reason.OPPONENT_UNRATED, None, None
        why = Reason.IN_DEPOT if rc is not None else Reason.DEPOT_BOOTSTRAP
        rc = self._deposit(g, me.side, (me.tk, me.coach), rc, me.w, in_force, month)
        return why, rc, self.next_day

    def _played_unrated(self, key: DepotKey, month: int) -> None:
        """Count a game of a key without a rating (month: when it was played)."""
        months = self.s.unrated_games.get(key)
        if months is None:
            months = self.s.unrated_games[key] = {}
        months[month] = months.get(month, 0) + 1
        if len(months) > self.c.depot_months + 1:  # older months can hold no depot game a start rating uses
            oldest = month - self.c.depot_months
            for old in [m for m in months if m < oldest]:
                del months[old]

    def _deposit(self, g: GameRecord, side: str, key: DepotKey, rc: float | None, w: float, in_force: int,
                 month: int) -> float:
        """Put one side of a game into the key's depot; returns the Rc it was put in with."""
        s = self.s
        depot_month = self.depot_month
        boot = rc is None
        if rc is None:
            rc = self.c.bootstrap_rating
        assert rc is not None
        games = s.depot.get(key)
        if games is None:
            games = s.depot[key] = []
        games.append(DepotEntry(g, side, rc, w, in_force, depot_month, month, boot))
        s.period.depot_touched[key] = None
        expires = max(month + self.c.depot_months + 1, depot_month)
        due = s.expiry.get(expires)
        if due is None:
            s.expiry[expires] = [key]
        elif due[-1] != key:
            due.append(key)
        return rc
