"""Making a list: the month still running is rated, depots expire or yield start ratings, the next month opens."""
from __future__ import annotations

from datetime import date

import numpy as np

from ..common import HOME, CalculationRow, PeriodSummary, Reason, round_half_away
from .calculator import LIMIT_NONE, date_of_list, k_factor, kept_between
from .run import RunContext
from .settlement import Totals, settle
from .state import COACH, COUNTED_COLUMNS, HISTORY, NV, RATING, TABLE, DepotEntry, DepotKey, Entry, K, Taken, _Period


class ListMaking(RunContext):
    """The list close of a run."""

    def close(self) -> None:
        """Make the next list: rate the month still running and open the following one."""
        s = self.s
        month = self.depot_month
        day = self.next_day
        label = self.label
        self._rate_rated(month, day, label)
        self._expire(month, label)
        self._rate_depots(month, day, label)
        # after the rows of older depot games that expired or went into a start rating
        self.rows.extend(s.period.rows)
        if month % 12 == 0 and s.birth_years and self.c.junior_age is not None:
            self._refresh_junior_k(month, self.c.junior_age)
        s.list_month = month
        s.stamp += 1
        s.period = _Period()
        self.lists.append(day)
        self._opened()

    # -- rated keys --

    def _rate_rated(self, month: int, day: date, label: str) -> None:
        """A summary for every rated key that played this month; new ratings where they changed."""
        p = self.s.period
        t = self._settle_counted(p) if p.counted else None
        summaries = self.summaries.append
        summary = PeriodSummary
        cap = self.c.nv_cap
        extra_played = p.extra_played
        taken_back = p.reversed
        for kid, entry in enumerate(p.keys):
            nt = t.nt[kid] if t is not None else 0
            played = nt + extra_played.get(kid, 0) if extra_played else nt
            rl = entry[RATING]
            nv = entry[NV]
            race, variant = entry[TABLE]
            taken = taken_back.get(kid) if taken_back else None
            if taken is not None:  # corrections: old results' Rt taken back, their games off Nv
                self._rate_corrected(entry, kid, t, nt, played, taken, month, day, label)
                continue
            if t is None or not nt:
                summaries(summary(entry[COACH], race, variant, label, day, rl, rl, 0, played,
                                  0.0, 0.0, 0.0, None, None, None, LIMIT_NONE, nv))
                continue
            rn = t.rn[kid]
            nv_new = min(cap, nv + nt)  # calculator.nv_after
            summaries(summary(entry[COACH], race, variant, label, day, rl, rn, nt, played,
                              t.wt[kid], t.wet[kid], t.rtt[kid], t.rct[kid], t.wxt[kid],
                              t.lpr[kid], t.limitation[kid], nv_new))
            if rn != rl or nv_new != nv:
                self._on_new_list(entry, rn, nv_new, month)

    def _rate_corrected(self, entry: Entry, kid: int, t: Totals | None, nt: int, played: int, taken: Taken,
                        month: int, day: date, label: str) -> None:
        """A key whose period takes back old results: Rtt holds their (negative) Rt beside the counted
        games' and Rn = round(Rl + Rtt) is kept between Rl and the LPR of the counted games, if any;
        Nt, Wt, We and the LPR are the counted games' alone, and Nv loses the games taken back."""
        rl, nv = entry[RATING], entry[NV]
        rtt = taken[0] + (t.rtt[kid] if nt and t is not None else 0.0)
        raw = round_half_away(rl + rtt)
        nv_new = max(0, min(self.c.nv_cap, nv + nt - taken[1]))
        race, variant = entry[TABLE]
        rct: float | None
        wxt: float | None
        lpr: float | None
        if nt and t is not None:
            rn, limitation = kept_between(rl, t.lpr[kid], raw, self.c.lpr_margin)
            wt, wet, rct, wxt, lpr = t.wt[kid], t.wet[kid], t.rct[kid], t.wxt[kid], t.lpr[kid]
        else:
            rn, limitation = raw, LIMIT_NONE
            wt, wet, rct, wxt, lpr = 0.0, 0.0, None, None, None
        self.summaries.append(PeriodSummary(entry[COACH], race, variant, label, day, rl, rn, nt, played,
                                            wt, wet, rtt, rct, wxt, lpr, limitation, nv_new))
        if rn != rl or nv_new != nv:
            self._on_new_list(entry, rn, nv_new, month)

    def _on_new_list(self, entry: Entry, rn: float, nv: int, month: int) -> None:
        """The key's entry on the list of `month`: its rating, Nv, the k they give, and its history."""
        entry[RATING] = rn
        entry[NV] = nv
        junior = bool(self.s.birth_years) and self.c.junior_age is not None and self._junior(entry[COACH], month)
        entry[K] = k_factor(rn, nv, junior=junior)
        entry[HISTORY] += (month, rn, nv)

    def _settle_counted(self, p: _Period) -> Totals:
        """Totals of every rated key of the period; Wx into its counted rows."""
        c = self.c
        columns = np.fromiter(p.counted, float, len(p.counted)).reshape(-1, len(COUNTED_COLUMNS))
        kid, rc, w, we, rt = columns.T
        totals = settle(kid.astype(np.intp), rc, w, we, rt, len(p.keys), c.sigma,
                        rl=[entry[RATING] for entry in p.keys], margin=c.lpr_margin)
        for row, wx in zip(p.counted_rows, totals.wx):
            row.wx = wx
        return totals

    def _refresh_junior_k(self, month: int, junior_age: int) -> None:
        """At a new year a junior may turn senior: k of unchanged ratings follows the list year."""
        turning = month // 12 - junior_age - 1
        coaches = {coach for coach, born in self.s.birth_years.items() if born == turning}
        if not coaches:
            return
        for table in self.s.ratings.values():
            for coach in coaches:
                entry = table.get(coach)
                if entry is not None:
                    entry[K] = k_factor(entry[RATING], entry[NV], junior=False)

    # -- depots --

    def _depot_row(self, d: DepotEntry, label: str, counted: bool, reason: str | None,
                   wx: float | None = None) -> CalculationRow:
        """The row of a depot game at this list: the one made when it arrived, or a new one."""
        row = self.s.period.deposit_rows.get((d.game.game_id, d.side)) if d.depot_month == self.depot_month else None
        if row is not None:
            row.counted = counted
            row.reason = reason
            row.wx = wx
            return row
        g = d.game
        race: str | None
        if d.side == HOME:
            coach, race, opponent, opponent_race = g.home, g.home_race, g.away, g.away_race
        else:
            assert g.away is not None  # only a game with two sides goes into a depot
            coach, race, opponent, opponent_race = g.away, g.away_race, g.home, g.home_race
        row = CalculationRow(
            g.game_id, d.side, coach, race if self.c.per_race else None, g.variant, opponent,
            opponent_race, g.played_at, label, d.w, counted, reason, None, d.rc, None,
            None, None, wx, date_of_list(d.list_month), date_of_list(d.depot_month))
        self.rows.append(row)
        return row

    def _expire(self, month: int, label: str) -> None:
        """Depot games played before the depot limit leave the depots due at this list."""
        s = self.s
        oldest = month - self.c.depot_months
        for key in s.expiry.pop(month, ()):
            games = s.depot.get(key)
            if not games:
                continue
            keep: list[DepotEntry] = []
            for d in games:
                if d.played_month < oldest:
                    self._depot_row(d, label, False, Reason.DEPOT_EXPIRED)
                else:
                    keep.append(d)
            if keep:
                s.depot[key] = keep
            else:
                del s.depot[key]

    def _rate_depots(self, month: int, day: date, label: str) -> None:
        """A start rating for every depot touched this month that holds enough games."""
        s = self.s
        starts: list[tuple[DepotKey, list[DepotEntry]]] = []
        for key in s.period.depot_touched:
            games = s.depot.get(key)
            if games and len(games) >= self.c.depot_min_games:
                starts.append((key, games))
        if not starts:
            return
        kid = np.repeat(np.arange(len(starts)), [len(games) for _, games in starts])
        rc = np.array([d.rc for _, games in starts for d in games])
        w = np.array([d.w for _, games in starts for d in games])
        zeros = np.zeros(len(rc))
        totals = settle(kid, rc, w, zeros, zeros, len(starts), self.c.sigma)
        first = 0
        for j, (key, games) in enumerate(starts):
            self._start(key, games, j, totals, first, month, day, label)
            first += len(games)

    def _start(self, key: DepotKey, games: list[DepotEntry], j: int, t: Totals, first: int, month: int,
               day: date, label: str) -> None:
        """The start rating of depot `j` (its games' Wx from `first` on in `t`): rows, summary, entry."""
        for d, wx in zip(games, t.wx[first:first + len(games)]):
            self._depot_row(d, label, True, Reason.DEPOT_BOOTSTRAP if d.bootstrap else None, wx)
        tk, coach = key
        rs = t.lpr[j]
        nv = min(self.c.nv_cap, len(games))
        race, variant = tk
        # Nt: the games the start rating rests on; Gt: every game of the key since the month of the
        # oldest of them, counted or not
        oldest = min(d.played_month for d in games)
        played = self.s.unrated_games.pop(key, {})
        gt = sum(n for m, n in played.items() if m >= oldest)
        self.summaries.append(PeriodSummary(
            coach, race, variant, label, day, None, rs, len(games), gt, t.wt[j], 0.0, 0.0,
            t.rct[j], t.wxt[j], rs, LIMIT_NONE, nv, is_start=True))
        self._new_entry(tk, coach, rs, nv, month)
        del self.s.depot[key]
