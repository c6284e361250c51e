"""Verification 2: every stored figure against the stored rows it rests on, by its method's formula."""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial

import numpy as np

from assurance.verification.differences import Differences
from assurance.verification.stored import Stored, _date, _month, _Names, _number
from assurance.verification.tables import (
    _ORDINAL,
    DAY_US,
    FORMULA_TOLERANCE,
    NO_DAY,
    REASONS,
    SIDES,
    Table,
    _close,
    _count_before,
    _day,
    _find,
    _first_last,
    _latest,
    _map,
    _packed,
    _sum,
    _vectorised,
)
from rating_engines import glicko, knsb, naf_elo
from rating_engines.common import Reason, round_half_away
from ratings.models import (
    Method,
    RatingSystem,
)


class _Checks:
    """The stored figures of one system against their own rows and formulas (engines/*)."""

    def __init__(self, diffs: Differences, system: RatingSystem, config, stored: Stored, names: _Names,
                 games: list, today: dt.date):
        self.diffs, self.system, self.config, self.names = diffs, system, config, names
        self.games, self.today = games, today
        self.method = system.method
        self.multiplier = getattr(config, "value_phi_multiplier", 2.5)
        R, S, E, C = stored.rows, stored.summaries, stored.entries, stored.current
        self.R, self.S, self.E, self.C = R, S, E, C
        # every key as one int64: the row's own, its opponent's (pooled systems: no race), summaries, entries, current
        opponent_race = R["opponent_race"] if system.per_race else np.zeros(len(R), dtype=np.int64)
        self.kR, self.kO, self.kS, self.kE, self.kC = _packed([
            [R["coach"], R["race"], R["variant"]], [R["opponent"], opponent_race, R["variant"]],
            [S["coach"], S["race"], S["variant"]], [E["coach"], E["race"], E["variant"]],
            [C["coach"], C["race"], C["variant"]],
        ])
        # summaries in order of their key, then date
        self.s_order = np.lexsort((S["period"], S["effective"], self.kS))
        ordered = self.kS[self.s_order]
        previous = np.full(len(S), -1, dtype=np.int64)
        follows = np.flatnonzero(ordered[1:] == ordered[:-1]) + 1
        previous[self.s_order[follows]] = self.s_order[follows - 1]
        self.s_previous = previous
        # the counted rows, in order of play per key (as the engines take them)
        counted = np.flatnonzero(R["counted"])
        self.c = counted[np.lexsort((R["game"][counted], R["played_at"][counted], self.kR[counted]))]
        # each row's own summary (the key's, in the row's period)
        self.r_summary = _find([self.kS, S["period"]], [self.kR, R["period"]])
        # KNSB: the rows taking an old result back, in the list after its correction
        self.reversed = np.flatnonzero(R["reason"] == REASONS.index(Reason.REVERSED))

    # -- reporting --

    def row(self, i) -> str:
        R = self.R
        return (f"calculation row (game {R['game'][i]}, {SIDES[R['side'][i]] if 0 <= R['side'][i] < 2 else '?'}, "
                f"{self.names.codes['period'].label(R['period'][i])}) of "
                f"{self.names.key(R['coach'][i], R['race'][i], R['variant'][i])}")

    def summary(self, i) -> str:
        S = self.S
        return (f"summary {self.names.codes['period'].label(S['period'][i])} of "
                f"{self.names.key(S['coach'][i], S['race'][i], S['variant'][i])}")

    def current(self, i) -> str:
        return f"current rating of {self.names.key(self.C['coach'][i], self.C['race'][i], self.C['variant'][i])}"

    def entry(self, i) -> str:
        E = self.E
        return f"list {_date(E['rating_list'][i])} entry of {self.names.key(E['coach'][i], E['race'][i], E['variant'][i])}"

    def bad(self, where: np.ndarray, line: Callable[[int], str]) -> None:
        """Report the rows at `where` (indices, or a mask), each described by `line(i)`."""
        where = np.flatnonzero(where) if where.dtype == bool else where
        self.diffs.inconsistency(len(where), lambda n: (line(int(i)) for i in where[:n]))

    def expect(self, describe: Callable[[int], str], name: str, stored: np.ndarray, expected: np.ndarray, why,
               rows: np.ndarray | None = None, tolerance: dict = FORMULA_TOLERANCE) -> None:
        """stored[rows] must equal expected (the figure `name`, from `why`: text, or a function of the row)."""
        rows = np.arange(len(stored)) if rows is None else rows
        got = stored[rows]
        if got.dtype.kind == "f" or np.asarray(expected).dtype.kind == "f":
            same = _close(got.astype(float), np.asarray(expected, dtype=float), tolerance)
        else:
            same = got == expected
        wrong = np.flatnonzero(~same)
        expected = np.broadcast_to(expected, got.shape)

        def lines(n):
            for j in wrong[:n]:
                i = int(rows[j])
                reason = why(i, j) if callable(why) else why
                yield f"{describe(i)}: {name} stored {_number(got[j])}, {reason} gives {_number(expected[j])}"

        self.diffs.inconsistency(len(wrong), lines)

    # -- shared by the methods --

    def partner(self, rows: np.ndarray) -> np.ndarray:
        """For each row, the other side's row of the same game and period (-1: none)."""
        R = self.R
        return _find([R["game"], R["side"], R["period"], R["reason"]],
                     [R["game"][rows], 1 - R["side"][rows], R["period"][rows], R["reason"][rows]])

    def summary_totals(self, rated: np.ndarray) -> dict:
        """Per summary, the totals of its key's counted rows in its period (in order of play); `rated`:
        the rows with an expected score (We, Rt)."""
        R, S = self.R, self.S
        rows = self.c
        own = self.r_summary[rows]
        self.bad(rows[own < 0], lambda i: f"{self.row(i)}: counted, but the key has no summary for its period")
        rows, own = rows[own >= 0], own[own >= 0]
        n = len(S)
        scored = rated[rows]
        totals = {
            "nt": np.bincount(own, minlength=n),
            "wt": _sum(own, R["w"][rows], n),
            "wet": _sum(own[scored], R["we"][rows][scored], n),
            "rtt": _sum(own[scored], R["rt"][rows][scored], n),
            "wx": _sum(own, np.nan_to_num(R["wx"][rows]), n),
        }
        with np.errstate(invalid="ignore", divide="ignore"):
            totals["rct"] = np.where(totals["nt"] > 0, _sum(own, R["rc"][rows], n) / totals["nt"], np.nan)
        first, last = _first_last(own, n)
        totals["first"] = np.where(first >= 0, rows[np.maximum(first, 0)], -1)
        totals["last"] = np.where(last >= 0, rows[np.maximum(last, 0)], -1)
        every = self.r_summary[self.r_summary >= 0]
        totals["played"] = np.bincount(every, minlength=n)
        return totals

    def sums(self, totals: dict, fields=("nt", "wt", "wet", "rtt", "rct"), where: np.ndarray | None = None) -> None:
        S = self.S
        has = totals["nt"] > 0
        self.bad(~has & (S["nt"] > 0) if "nt" in fields else np.zeros(len(S), bool),
                 lambda i: f"{self.summary(i)}: nt {S['nt'][i]} but no counted row of the key in that period")
        rows = np.flatnonzero(has if where is None else has & where)
        for name in fields:
            self.expect(self.summary, name, S[name], totals[name][rows], "its counted rows", rows)

    def record(self, table: Table, describe, keys: np.ndarray) -> None:
        """games, wins, draws, losses and the last day played of each key of `table` (at `keys`),
        from its counted rows."""
        R = self.R
        rows = self.c
        n = len(keys)
        group = _find([keys], [self.kR[rows]])
        ok = group >= 0
        group, w = group[ok], R["w"][rows][ok]
        back = _find([keys], [self.kR[self.reversed]])  # KNSB: an old result taken back leaves the record
        taken, w_taken = back[back >= 0], R["w"][self.reversed][back >= 0]
        games = np.bincount(group, minlength=n) - np.bincount(taken, minlength=n)
        wins = np.bincount(group[w == 1.0], minlength=n) - np.bincount(taken[w_taken == 1.0], minlength=n)
        losses = np.bincount(group[w == 0.0], minlength=n) - np.bincount(taken[w_taken == 0.0], minlength=n)
        last = np.full(n, -1, dtype=np.int64)
        np.maximum.at(last, group, R["played_at"][rows][ok] // DAY_US)
        for name, values in (("games", games), ("wins", wins), ("draws", games - wins - losses), ("losses", losses),
                             ("last_played", np.where(last < 0, NO_DAY, last))):
            self.expect(describe, name, table[name], values, "its counted rows")

    def keys_match(self, keys: np.ndarray, describe, with_summary: np.ndarray, what: str) -> np.ndarray:
        """The current ratings (at `keys`) must be exactly the keys with a summary; returns each one's
        latest summary (-1: none)."""
        S = self.S
        latest = _latest(self.kS[self.s_order], S["effective"][self.s_order], keys,
                         np.full(len(keys), NO_DAY, dtype=np.int64), inclusive=True)
        latest = np.where(latest >= 0, self.s_order[np.maximum(latest, 0)], -1)
        self.bad(latest < 0, lambda i: f"{describe(i)}: the key has no {what}")
        having = np.unique(with_summary)
        missing = having[_find([keys], [having]) < 0]
        lookup = _find([self.kS], [missing])
        self.bad(lookup, lambda i: f"{self.summary(i)}: the key has a summary but no current rating")
        return latest

    # -- the methods --

    def run(self) -> None:
        if self.method == Method.NAF_ELO:
            self.elo()
        elif self.method == Method.KNSB:
            self.knsb()
        elif self.method == Method.GLICKO:
            self.glicko()

    def elo(self) -> None:
        R, S, E, C, config = self.R, self.S, self.E, self.C, self.config
        rows = self.c
        r0, rc, w, we, k, rt = (R[name][rows] for name in ("r0", "rc", "w", "we", "k", "rt"))
        self.expect(self.row, "we", R["we"], _map(naf_elo.win_probability, r0, rc), "win_probability(R0, Rc)", rows)
        self.expect(self.row, "rt", R["rt"], k * (w - we), "k·(W − We)", rows)
        # k: the event's, from its number of coaches and whether it is a major
        games = self.games
        ids = np.fromiter((g.game_id for g in games), np.int64, len(games))
        coaches = np.fromiter((g.event_coaches for g in games), np.int64, len(games))
        major = np.fromiter((g.major for g in games), bool, len(games))
        k_of = config.k
        game = _find([ids], [R["game"][rows]])
        known = game >= 0
        event_k = _map(lambda n, m: k_of(int(n), major=bool(m)), coaches[game[known]], major[game[known]])
        self.expect(self.row, "k", R["k"], event_k, lambda i, j: "the event's K (its coaches, major or not)",
                    rows[known])
        allowed = np.array(sorted({k_of(n, major=False) for n in range(config.non_major_max + 1)} | {k_of(0, major=True)}))
        unknown = rows[~known]
        self.bad(unknown[~np.isin(R["k"][unknown], allowed)], lambda i: f"{self.row(i)}: k {_number(R['k'][i])} is "
                 "not a K the configuration allows")
        self.opponents(rows)
        # the chain: each counted row starts from the rating after the key's previous one
        after = _map(naf_elo.rating_after, r0, rt)
        key = self.kR[rows]
        first = np.ones(len(rows), dtype=bool)
        first[1:] = key[1:] != key[:-1]
        before = np.where(first, config.start_rating, np.roll(after, 1))
        self.expect(self.row, "r0", R["r0"], before, lambda i, j: (
            "the start rating (the key's first counted game)" if first[j] else
            f"the rating after the key's previous counted game (game {R['game'][rows[j - 1]]})"), rows)
        # summaries: one per key and event, from its rows
        totals = self.summary_totals(np.ones(len(R), dtype=bool))
        self.sums(totals)
        position = np.empty(len(R), dtype=np.int64)
        position[rows] = np.arange(len(rows))
        has = np.flatnonzero(totals["first"] >= 0)
        first_row, last_row = totals["first"][has], totals["last"][has]
        self.expect(self.summary, "rl", S["rl"], R["r0"][first_row], "its first counted row's R0", has)
        self.expect(self.summary, "rn", S["rn"], after[position[last_row]], "its last counted row (R0 + Rt, to 0.01)", has)
        self.expect(self.summary, "is_start", S["is_start"], first[position[first_row]],
                    "whether its first counted row is the key's first", has)
        self.expect(self.summary, "games_played", S["games_played"], totals["played"][has], "its rows", has)
        self.expect(self.summary, "effective", S["effective"], R["played_at"][last_row] // DAY_US,
                    "the day of its last counted row", has)
        # the current ratings and list entries: the rating after the key's last counted game before their date
        latest = _latest(key, R["played_at"][rows], self.kC, np.full(len(C), np.iinfo(np.int64).max), inclusive=True)
        self.keys_match(self.kC, self.current, self.kS, "summary")
        self.bad(latest < 0, lambda i: f"{self.current(i)}: the key has no counted game")
        have = np.flatnonzero(latest >= 0)
        self.expect(self.current, "value", C["value"], after[latest[have]], lambda i, j: (
            f"the rating after its last counted game (game {R['game'][rows[latest[have[j]]]]} on "
            f"{_date(R['played_at'][rows[latest[have[j]]]] // DAY_US)})"), have)
        self.record(C, self.current, self.kC)
        day = E["rating_list"]
        start = np.where(day == NO_DAY, np.iinfo(np.int64).max, day * DAY_US)
        latest = _latest(key, R["played_at"][rows], self.kE, start, inclusive=False)
        self.bad(latest < 0, lambda i: f"{self.entry(i)}: the key has no counted game before that date")
        have = np.flatnonzero(latest >= 0)
        self.expect(self.entry, "value", E["value"], after[latest[have]], lambda i, j: (
            f"the rating after its last counted game before that date (game {R['game'][rows[latest[have[j]]]]})"), have)
        games_before = _count_before(key, R["played_at"][rows], self.kE, start, inclusive=False)
        self.expect(self.entry, "games", E["games"], games_before, "its counted rows before that date")

    def opponents(self, rows: np.ndarray) -> None:
        """Each counted row's Rc is the opponent's R0 in the same game, and the two scores add up to 1."""
        R = self.R
        other = self.partner(rows)
        self.bad(rows[other < 0], lambda i: f"{self.row(i)}: counted, but the opponent's row of that game is missing")
        paired, other = rows[other >= 0], other[other >= 0]
        self.expect(self.row, "rc", R["rc"], R["r0"][other], "the opponent's R0 in that game", paired)
        self.expect(self.row, "w", R["w"], 1.0 - R["w"][other], "1 − the opponent's W", paired)

    def taken_back(self) -> None:
        """A row taking an old result back: the old result's figures on its Lijstdatum, Rt negated,
        beside the other side's (Rc its R0, the two W adding up to 1)."""
        R, config = self.R, self.config
        rows = self.reversed
        if not len(rows):
            return
        self.expect(self.row, "we", R["we"], _map(partial(knsb.expected_score, sigma=config.sigma, table=config.we_table),
                                                  R["r0"][rows] - R["rc"][rows]), "Φ((R0 − Rc)/σ)", rows)
        self.expect(self.row, "rt", R["rt"], -R["k"][rows] * (R["w"][rows] - R["we"][rows]), "−k·(W − We): taken back", rows)
        self.opponents(rows)

    def knsb(self) -> None:
        R, S, C, config = self.R, self.S, self.C, self.config
        rows = self.c
        initial = {coach: (rating, min(config.nv_cap, games), born) for coach, rating, games, born in config.initial_list}
        # each rated row's R0, Nv and k: the key's on the list in force at its list date
        rated_mask = R["counted"] & ~np.isnan(R["we"])
        rated = rows[rated_mask[rows]]
        on_list = _latest(self.kS[self.s_order], S["effective"][self.s_order], self.kR[rated], R["list_date"][rated],
                          inclusive=True)
        on_list = np.where(on_list >= 0, self.s_order[np.maximum(on_list, 0)], -1)
        coach = R["coach"][rated]
        imported = np.array([c in initial for c in coach.tolist()], dtype=bool) if initial else np.zeros(len(rated), bool)
        rating = np.where(on_list >= 0, S["rn"][np.maximum(on_list, 0)], np.nan)
        nv = np.where(on_list >= 0, S["nv"][np.maximum(on_list, 0)], -1)
        if initial:
            from_import = (on_list < 0) & imported
            rating[from_import] = [initial[c][0] for c in coach[from_import].tolist()]
            nv[from_import] = [initial[c][1] for c in coach[from_import].tolist()]
        unrated = (on_list < 0) & ~imported
        self.bad(rated[unrated], lambda i: f"{self.row(i)}: counted with an R0, but the key has no rating on the list "
                                           f"of {_date(R['list_date'][i])}")
        known = ~unrated
        self.expect(self.row, "r0", R["r0"], rating[known], lambda i, j: f"the key's rating on the list of "
                    f"{_date(R['list_date'][i])}", rated[known])
        junior = np.zeros(len(rated), dtype=bool)
        if config.junior_age is not None and any(born is not None for _, _, born in initial.values()):
            year = (R["list_date"][rated] + _ORDINAL)
            years = np.array([dt.date.fromordinal(int(d)).year for d in year.tolist()], dtype=np.int64)
            born = np.array([initial.get(c, (0, 0, None))[2] or -10_000 for c in coach.tolist()], dtype=np.int64)
            junior = (born > -10_000) & (years - born <= config.junior_age)
        k = _map(lambda r, n, j: knsb.k_factor(r, int(n), junior=bool(j)) if n >= 1 else np.nan,
                 R["r0"][rated][known], nv[known], junior[known], distinct=True)
        self.expect(self.row, "k", R["k"], k, "k_factor(R0, the Nv of its list)", rated[known])
        self.expect(self.row, "we", R["we"], _map(partial(knsb.expected_score, sigma=config.sigma, table=config.we_table),
                                                  R["r0"][rated] - R["rc"][rated]), "Φ((R0 − Rc)/σ)", rated)
        self.expect(self.row, "rt", R["rt"], R["k"][rated] * (R["w"][rated] - R["we"][rated]), "k·(W − We)", rated)
        self.opponents(rated)
        self.taken_back()
        # Wx: each counted row's expected score at its summary's LPR
        own = self.r_summary[rows]
        with_summary = rows[own >= 0]
        lpr = S["lpr"][own[own >= 0]]
        phi = partial(knsb.expected_score, sigma=config.sigma)
        self.expect(self.row, "wx", R["wx"], _map(phi, lpr - R["rc"][with_summary]), "Φ((LPR − Rc)/σ)", with_summary)
        # summaries: their totals, LPR, Rn and Nv from their rows and the previous list
        totals = self.summary_totals(rated_mask)
        back = self.r_summary[self.reversed]
        self.bad(self.reversed[back < 0], lambda i: f"{self.row(i)}: takes a result back, but the key has no summary for its period")
        n = len(S)
        back_rows = self.reversed[back >= 0]
        back = back[back >= 0]
        taken = np.bincount(back, minlength=n)  # results taken back: off Nv, their Rt in Rtt
        totals["rtt"] = totals["rtt"] + _sum(back, R["rt"][back_rows], n)
        self.sums(totals, fields=("nt", "wt", "wet", "rct"))
        touched = np.flatnonzero((totals["nt"] > 0) | (taken > 0))
        self.expect(self.summary, "rtt", S["rtt"], totals["rtt"][touched], "its counted rows and those taking a result back",
                    touched)
        start = S["is_start"]
        has = totals["nt"] > 0
        extra = has & ((S["wt"] == 0) | (S["wt"] == S["nt"]))
        against = np.where(start, S["rct"], S["rl"])
        wx_extra = np.where(extra, _map(phi, np.where(extra, S["lpr"] - against, 0.0)), 0.0)
        rows_with = np.flatnonzero(has)
        self.expect(self.summary, "wxt", S["wxt"], (totals["wx"] + wx_extra)[rows_with],
                    "its rows' Wx (and the extra remise's)", rows_with)
        self.lpr(totals, extra, against)
        previous = self.s_previous
        prior = np.maximum(previous, 0)
        prior_rn = np.where(previous >= 0, S["rn"][prior], np.nan)
        prior_nv = np.where(previous >= 0, S["nv"][prior], -1)
        if initial:
            first_imported = np.flatnonzero((previous < 0) & np.isin(S["coach"], list(initial)))
            prior_rn[first_imported] = [initial[c][0] for c in S["coach"][first_imported].tolist()]
            prior_nv[first_imported] = [initial[c][1] for c in S["coach"][first_imported].tolist()]
        rated_before = ~np.isnan(prior_rn)
        self.expect(self.summary, "is_start", S["is_start"], ~rated_before, "whether the key was rated on the list before")
        chained = np.flatnonzero(rated_before & ~start)
        self.expect(self.summary, "rl", S["rl"], prior_rn[chained], "the key's previous summary (Rn)", chained)
        self.expect(self.summary, "nv", S["nv"],
                    np.maximum(0, np.minimum(config.nv_cap, prior_nv[chained] + S["nt"][chained] - taken[chained])),
                    "min(cap, the previous Nv + Nt − the results taken back)", chained)
        starts = np.flatnonzero(start)
        self.expect(self.summary, "rn", S["rn"], S["lpr"][starts], "a start rating's LPR", starts)
        self.expect(self.summary, "nv", S["nv"], np.minimum(config.nv_cap, S["nt"][starts]), "min(cap, Nt)", starts)
        idle = np.flatnonzero(~start & ~has & (taken == 0))
        self.expect(self.summary, "rn", S["rn"], S["rl"][idle], "Rl (no counted game)", idle)
        only_back = np.flatnonzero(~start & ~has & (taken > 0))
        self.expect(self.summary, "rn", S["rn"], _map(round_half_away, S["rl"][only_back] + S["rtt"][only_back]),
                    "round(Rl + Rtt): results taken back, no counted game", only_back)
        self.limits(np.flatnonzero(~start & has))
        # current ratings and list entries: the key's latest summary in force at their date
        latest = self.keys_match(self.kC, self.current, self.kS, "summary")
        have = np.flatnonzero(latest >= 0)
        self.expect(self.current, "value", C["value"], S["rn"][latest[have]], "its latest summary (Rn)", have)
        self.expect(self.current, "nv", C["nv"], S["nv"][latest[have]], "its latest summary", have)
        self.record(C, self.current, self.kC)
        self.entries_from_summaries(lambda latest, have, day: (S["rn"][latest], {"nv": S["nv"][latest]}))

    def lpr(self, totals: dict, extra: np.ndarray, against: np.ndarray) -> None:
        """The LPR is the rounded solution x of Σ We(x − Rc) = Wt (with the extra remise at 0 % or 100 %):
        the sum at LPR − ½ is at most Wt, at LPR + ½ at least."""
        R, S, config = self.R, self.S, self.config
        rows = self.c
        own = self.r_summary[rows]
        rows, own = rows[own >= 0], own[own >= 0]
        n = len(S)
        phi = partial(knsb.expected_score, sigma=config.sigma)
        has = totals["nt"] > 0
        target = S["wt"] + 0.5 * extra
        sums = []
        for shift in (-0.5, 0.5):
            total = _sum(own, _map(phi, S["lpr"][own] + shift - R["rc"][rows]), n)
            total += np.where(extra, _map(phi, np.where(extra, S["lpr"] + shift - against, 0.0)), 0.0)
            sums.append(total)
        slack = 1e-9
        wrong = np.flatnonzero(has & ~((sums[0] <= target + slack) & (sums[1] >= target - slack)))
        self.bad(wrong, lambda i: f"{self.summary(i)}: lpr stored {_number(S['lpr'][i])} is not the rounded solution of "
                                  f"Σ We(LPR − Rc) = Wt{' + ½ (extra remise)' if extra[i] else ''}: the sum is "
                                  f"{_number(sums[0][i])} at LPR − ½ and {_number(sums[1][i])} at LPR + ½, "
                                  f"for {_number(target[i])}")

    def limits(self, where: np.ndarray) -> None:
        """Rn = round(Rl + Rtt), kept between Rl and LPR (± the margin on the LPR side), and which limit applied."""
        S, margin = self.S, self.config.lpr_margin
        rl, lpr = S["rl"][where], S["lpr"][where]
        raw = _map(round_half_away, rl + S["rtt"][where])
        up, down = rl < lpr, rl > lpr
        low = np.where(up, rl, lpr - margin)
        high = np.where(down, rl, lpr + margin)
        above, below = raw > high, raw < low
        rn = np.where(above, high, np.where(below, low, raw))
        code = np.where(above, np.where(down, 2, 1), np.where(below, np.where(up, 2, 1), 0))
        self.expect(self.summary, "rn", S["rn"], rn, "round(Rl + Rtt) kept between Rl and LPR", where)
        self.expect(self.summary, "limitation", S["limitation"], code, "round(Rl + Rtt) against Rl and LPR", where)

    def entries_from_summaries(self, figures: Callable) -> None:
        """Each list entry from the key's latest summary in force at the list's date."""
        S, E = self.S, self.E
        latest = _latest(self.kS[self.s_order], S["effective"][self.s_order], self.kE, E["rating_list"], inclusive=True)
        latest = np.where(latest >= 0, self.s_order[np.maximum(latest, 0)], -1)
        self.bad(latest < 0, lambda i: f"{self.entry(i)}: the key has no summary in force at that date")
        have = np.flatnonzero(latest >= 0)
        value, others = figures(latest[have], have, E["rating_list"][have])
        self.expect(self.entry, "value", E["value"], value, "its latest summary in force at that date", have)
        for name, expected in others.items():
            self.expect(self.entry, name, E[name], expected, "its latest summary in force at that date", have)
        # games: the counted rows of the lists up to its date (a row's chunk ends at the next list)
        rows = self.c
        games = _count_before(self.kR[rows], self.R["chunk"][rows], self.kE, E["rating_list"], inclusive=False)
        back = self.reversed
        games -= _count_before(self.kR[back], self.R["chunk"][back], self.kE, E["rating_list"], inclusive=False)
        self.expect(self.entry, "games", E["games"], games, "its counted rows up to that date, less the results taken back")

    def glicko(self) -> None:
        R, S, C, config = self.R, self.S, self.C, self.config
        rows = self.c
        scale = glicko.SCALE
        # each counted row against its own summary and the opponent's (start-of-period ratings)
        own = self.r_summary[rows]
        theirs = _find([self.kS, S["period"]], [self.kO[rows], R["period"][rows]])
        self.bad(rows[theirs < 0], lambda i: f"{self.row(i)}: counted, but the opponent has no summary for the period")
        ok = (own >= 0) & (theirs >= 0)
        rows, own, theirs = rows[ok], own[ok], theirs[ok]
        self.expect(self.row, "r0", R["r0"], S["mu_before"][own], "the key's mu before the period", rows)
        self.expect(self.row, "rc", R["rc"], S["mu_before"][theirs], "the opponent's mu before the period", rows)
        self.expect(self.row, "opponent_phi", R["opponent_phi"], S["phi_before"][theirs],
                    "the opponent's phi before the period", rows)
        self.expect(self.row, "g", R["g"], _map(glicko.g_factor, R["opponent_phi"][rows]), "g(opponent phi)", rows)
        g, w, we = R["g"][rows], R["w"][rows], R["we"][rows]
        r0, rc, opponent_phi, phi_after = R["r0"][rows], R["rc"][rows], R["opponent_phi"][rows], S["phi"][own]
        e = _vectorised(lambda mu, mu_j, phi_j: glicko.expected_score(mu, glicko.GlickoRating(mu_j, phi_j)),
                        1.0 / (1.0 + np.exp(-_map(glicko.g_factor, opponent_phi) * (r0 - rc) / scale)),
                        r0, rc, opponent_phi)
        self.expect(self.row, "we", R["we"], e, "E = 1/(1 + exp(−g·(μ − μj)))", rows)
        phi_new = phi_after / scale
        rt = _vectorised(lambda mu, phi, mu_j, phi_j, score: glicko.game_change(mu, phi, glicko.GlickoRating(mu_j, phi_j), score),
                         phi_new * phi_new * scale * g * (w - e), r0, phi_after, rc, opponent_phi, w)
        self.expect(self.row, "rt", R["rt"], rt, "φ′²·g·(W − E)", rows)
        # summaries: totals, the new mu and phi from the rows, and the values
        totals = self.summary_totals(R["counted"])
        self.sums(totals)
        n = len(S)
        has = np.flatnonzero(totals["nt"] > 0)
        inv_v = _sum(own, g * g * we * (1.0 - we), n)
        self.expect(self.summary, "mu", S["mu"], S["mu_before"][has] + S["rtt"][has], "mu before + Rtt", has)
        phi_b, sigma = S["phi_before"][has] / scale, S["sigma"][has]
        self.expect(self.summary, "phi", S["phi"], scale / np.sqrt(1.0 / (phi_b * phi_b + sigma * sigma) + inv_v[has]),
                    "1/√(1/(φ² + σ′²) + 1/v)", has)
        m = self.multiplier
        self.expect(self.summary, "rl", S["rl"], S["mu_before"] - m * S["phi_before"], f"mu before − {m}·phi before")
        self.expect(self.summary, "rn", S["rn"], S["mu"] - m * S["phi"], f"mu − {m}·phi")
        self.expect(self.summary, "games_played", S["games_played"], totals["played"][has], "its rows", has)
        # the chain: a period starts from the previous one's mu, sigma and phi, decayed over the idle periods
        previous = self.s_previous
        chained = np.flatnonzero(previous >= 0)
        before = previous[chained]
        self.expect(self.summary, "is_start", S["is_start"], previous < 0, "whether the key has an earlier summary")
        self.expect(self.summary, "mu_before", S["mu_before"], S["mu"][before], "the previous period's mu", chained)
        self.expect(self.summary, "sigma_before", S["sigma_before"], S["sigma"][before], "the previous period's sigma",
                    chained)
        index = self.period_index()
        if index is not None:
            idle = index[S["period"][chained]] - index[S["period"][before]] - 1
            decayed = glicko.decayed_phi(S["phi"][before], S["sigma"][before], idle, config.decay_cap)
            self.expect(self.summary, "phi_before", S["phi_before"], decayed,
                        lambda i, j: f"the previous period's phi decayed over {idle[j]} idle period(s)", chained)
        starts = np.flatnonzero(previous < 0)
        self.expect(self.summary, "sigma_before", S["sigma_before"], np.full(len(starts), config.sigma0), "sigma0",
                    starts)
        if not (self.system.per_race and config.cross_race_start):
            self.expect(self.summary, "mu_before", S["mu_before"], np.full(len(starts), config.mu0), "mu0", starts)
            self.expect(self.summary, "phi_before", S["phi_before"], np.full(len(starts), config.phi0), "phi0", starts)
        # current ratings and list entries: the latest summary, phi decayed to their date (Board.standing)
        latest = self.keys_match(self.kC, self.current, self.kS, "summary")
        have = np.flatnonzero(latest >= 0)
        today = _day(self.today)
        value, phi = self.standing(latest[have], np.full(len(have), today))
        self.expect(self.current, "value", C["value"], value, "its latest summary, phi decayed to today", have)
        self.expect(self.current, "phi", C["phi"], phi, "its latest summary, phi decayed to today", have)
        self.expect(self.current, "mu", C["mu"], S["mu"][latest[have]], "its latest summary", have)
        self.expect(self.current, "sigma", C["sigma"], S["sigma"][latest[have]], "its latest summary", have)
        self.record(C, self.current, self.kC)

        def figures(latest, have, day):
            value, phi = self.standing(latest, day)
            return value, {"phi": phi, "mu": S["mu"][latest], "sigma": S["sigma"][latest]}

        self.entries_from_summaries(figures)

    def period_index(self) -> np.ndarray | None:
        """Each period code's number (glicko.calendar_period); None for event periods."""
        config = self.config
        if config.period == "event":
            return None
        labels = self.names.codes["period"].labels
        index = np.zeros(len(labels), dtype=np.int64)
        for code, label in enumerate(labels):
            try:
                day = dt.date.fromisoformat(label if len(label) == 10 else f"{label}-01")
            except ValueError:
                continue
            index[code] = glicko.calendar_period(day, config)[0]
        return index

    def standing(self, summaries: np.ndarray, days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(value, phi) of the summaries' keys on those days: phi decayed over every idle period since
        the summary took effect, as Board.standing does."""
        S, config = self.S, self.config
        effective, on = S["effective"][summaries], np.asarray(days, dtype=np.int64)
        if config.period == "two_weeks":
            idle = (on - effective) // 14
        else:
            idle = _month(on) - _month(effective)
        phi = glicko.decayed_phi(S["phi"][summaries], S["sigma"][summaries], idle, config.decay_cap)
        return S["mu"][summaries] - self.multiplier * phi, phi


def check_stored(diffs: Differences, system: RatingSystem, config, stored: Stored, names: _Names, games: list,
                 today: dt.date) -> None:
    """The stored figures against their own rows and formulas, independently of any replay."""
    _Checks(diffs, system, config, stored, names, games, today).run()
