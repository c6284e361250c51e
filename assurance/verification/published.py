"""Verification 3: each published list on its own, independently of the stored live lists.

1. Its digest: the SHA-256 of its canonical form (services.publication.entries_digest), taken when
   it was published, recomputed from what is stored now.
2. Its ranks from its values and the inactive rule, without a rerun: the ranked entries of each
   race (and of each variant, overall) ranked by value, best first, equal values sharing a rank;
   Glicko: ranked exactly when phi is at most the inactive limit; NAF Elo and KNSB: ranked only
   with a counted game in the months before the list; a complete list's counts.
3. Its entries against the list that the games reported before its publication give: a replay in
   memory of the record as it stood then (the games first reported before the day it was
   published, each with the result then in force), not the live one, which holds later reports.
   A game reported on the day of publication counts as reported after it (the monthly lists are
   published at 00:05 on the 1st), unless the list is what the games reported by that day give
   (a list published again the day a late result came in).
   Where the record as it stood then is the live one on the games played before the list's date,
   the verification's own replay of the live record (in memory, from the first game) gives that
   list; a replay of another record resumes from that replay's state where the two records part.
"""
from __future__ import annotations

import datetime as dt
import pickle
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import cached_property

import lz4.frame
import numpy as np
from django.db.models import Max
from django.utils import timezone

from assurance.verification.differences import Differences
from assurance.verification.stored import _number
from assurance.verification.tables import REPLAY_TOLERANCE, _close
from audit.models import Action, AuditRecord
from rating_engines import methods
from rating_engines.common import CountingRule, GameRecord
from ratings.configuration import list_rules
from ratings.models import Publication, RatingSystem, RecalculationRun, RunStatus, Trigger
from ratings.replay import Entries, Ledger, month_start, months_before, replay
from ratings.selectors import GameHistory, reads_reported
from ratings.services.publication import DIGESTED, entries_digest, publication_header, publications_entries
from tournaments.models import Coach, EventStatus

_KEPT_STATES = 6  # live replay states kept for other replays to resume from (7-16 MB each at 2M games)
_AT = {name: i for i, name in enumerate(DIGESTED)}
_NUMBER, _RACE, _VARIANT = _AT["coach_number"], _AT["race_slug"], _AT["variant_slug"]
_VALUE, _PHI, _RANK, _OVERALL = _AT["value"], _AT["phi"], _AT["rank"], _AT["overall_rank"]
# the replay's figures of an entry, as Entries.arrays() gives them, and their none there
_FIGURES = {"value": np.nan, "mu": np.nan, "phi": np.nan, "sigma": np.nan, "nv": -1, "games": None, "rank": 0,
            "overall_rank": 0, "change": np.nan, "games_counted": None, "games_played": None}


def _label(publication: Publication) -> str:
    edition = f", edition {publication.edition}" if publication.edition > 1 else ""
    return f"published list of {publication.date:%Y-%m-%d}{edition}"


def _entry(publication: Publication, row: tuple) -> str:
    return (f"{_label(publication)} entry of coach {row[_NUMBER]} ({row[_RACE] or 'all races'}, "
            f"{row[_VARIANT]})")


def reported_before(games: Iterable[GameRecord], day: dt.date) -> list[GameRecord]:
    """The games as the record held them before `day`: those first reported before it (a game with
    no report date is history loaded as it stands), each with the result in force then (a
    correction made on or after `day` taken back)."""
    out = []
    for game in games:
        if game.reported_on is not None and game.reported_on >= day:
            continue
        if game.corrections:
            later = next((i for i, c in enumerate(game.corrections) if c.corrected_on >= day), None)
            if later is not None:
                held = game.corrections[later]
                game = replace(game, home_score=held.home_score, kind=held.kind, corrections=game.corrections[:later])
        out.append(game)
    return out


def _report_days(games: Iterable[GameRecord]) -> list[dt.date]:
    """Every day a result entered the record (a first report or a correction), sorted."""
    days = set()
    for game in games:
        if game.reported_on is not None:
            days.add(game.reported_on)
        days.update(c.corrected_on for c in game.corrections)
    return sorted(days)


class _Found:
    """Differences of one publication: counted, the first `limit` kept, then reported together."""

    def __init__(self, limit: int):
        self.limit, self.count, self.lines = limit, 0, []

    def __call__(self, line: str) -> None:
        self.count += 1
        if len(self.lines) < self.limit:
            self.lines.append(line)

    def report(self, diffs: Differences) -> None:
        diffs.publication(self.count, lambda n: iter(self.lines[:n]))


class _Arrivals:
    """When each game entered the record, as arrays: which games the record at one cutoff lacks, or
    holds with another result, against the record at a later one (or the live record)."""

    def __init__(self, games: list):
        n = len(games)
        self.reported = np.fromiter((-1 if g.reported_on is None else g.reported_on.toordinal() for g in games), np.int64, n)
        self.ids = np.fromiter((g.game_id for g in games), np.int64, n)
        self.played = np.array([g.played_at for g in games], dtype="datetime64[us]")
        self.corrected = [(i, [c.corrected_on for c in g.corrections]) for i, g in enumerate(games) if g.corrections]
        self.found: dict[tuple, np.datetime64 | None] = {}  # a pass over every game each: asked again when planned

    def first_lacking(self, cutoff: dt.date, newest: int | None, than: tuple[dt.date, int | None] | None = None):
        """When the first game was played that the record at (`cutoff`, `newest`) lacks (reported on or
        after its cutoff, entered after its newest) or holds with another result (corrected since its
        cutoff), among those of the record at `than` (cutoff, newest; None: the live record); None if none."""
        key = (cutoff, newest, than)
        if key not in self.found:
            self.found[key] = self._first_lacking(cutoff, newest, than)
        return self.found[key]

    def _first_lacking(self, cutoff: dt.date, newest: int | None, than: tuple[dt.date, int | None] | None):
        held = np.ones(len(self.ids), dtype=bool)
        if than is not None:
            held &= self.reported < than[0].toordinal()
            if than[1] is not None:
                held &= self.ids <= than[1]
        lacks = held & (self.reported >= cutoff.toordinal())
        if newest is not None:
            lacks |= held & (self.ids > newest)
        for i, days in self.corrected:
            if held[i] and any(cutoff <= day and (than is None or day < than[0]) for day in days):
                lacks[i] = True
        return self.played[lacks].min() if lacks.any() else None


def _before(first, day: dt.date) -> bool:
    """Whether a list of `day` holds none of the games from `first` on (None: no such game)."""
    return first is None or first >= np.datetime64(dt.datetime.combine(day, dt.time()), "us")


def _drawn(publications: list[Publication]) -> dict[dt.date, bool]:
    """How a group's own replay draws each of its dates: complete or movements, as its last edition was."""
    by_date: dict[dt.date, list[Publication]] = defaultdict(list)
    for publication in publications:
        by_date[publication.date].append(publication)
    return {day: max(pubs, key=lambda p: p.edition).complete for day, pubs in by_date.items()}


def _served_by_one_replay(
    groups: dict[tuple[int, int | None], list[Publication]], cutoffs: dict, arrivals: _Arrivals,
) -> tuple[dict[int, tuple[Publication, dt.date]], tuple[dt.date, int | None]]:
    """The publications that one replay of the latest record (the latest cutoff, the highest
    newest game) checks as their own would: those of groups whose record holds the same games, with
    the same results, as the latest one's among the games played before their list date (no such
    game reported, entered or corrected after their cutoff), and whose list is drawn the same way
    (complete or movements) as the other editions of that date it serves. Returns them (id ->
    (publication, its group's cutoff)) and (cutoff, newest) of that replay."""
    latest_cutoff = max(cutoffs.values())
    newests = [key[1] for key in groups]
    latest_newest = None if None in newests else max(newests)
    if len(groups) == 1:  # its own record is the latest: no game to compare (2.8 s at 2M games)
        [(key, group)] = groups.items()
        return {p.pk: (p, cutoffs[key]) for p in group}, (latest_cutoff, latest_newest)
    candidates: dict[int, tuple[Publication, dt.date, bool]] = {}
    for key, group in groups.items():
        first = arrivals.first_lacking(cutoffs[key], key[1], than=(latest_cutoff, latest_newest))
        draws = _drawn(group)
        for publication in group:
            if _before(first, publication.date):
                candidates[publication.pk] = (publication, cutoffs[key], draws[publication.date])
    # a date whose editions the groups' own replays would draw differently is left to them
    drawn_on: dict[dt.date, set[bool]] = defaultdict(set)
    for publication, _, drawn in candidates.values():
        drawn_on[publication.date].add(drawn)
    served = {pk: (publication, cutoff) for pk, (publication, cutoff, drawn) in candidates.items()
              if len(drawn_on[publication.date]) == 1}
    return served, (latest_cutoff, latest_newest)


class _Publications:
    """The checks of one system's publications."""

    def __init__(self, diffs: Differences, system: RatingSystem, module, config):
        self.diffs, self.system, self.module, self.config = diffs, system, module, config
        self.rules = list_rules(system, config)
        self.numbers: set[int] = set()  # the coach numbers in the record now
        self.live: dict[dt.date, list[tuple[Publication, dt.date, bool]]] = {}  # checked by the live replay's lists
        self.both: set[dt.date] = set()  # the dates whose list the live replay draws both ways
        self.keep: set[dt.date] = set()  # the dates whose live state other replays resume from
        self.states: dict[dt.date, bytes] = {}  # those states, as the live replay kept them

    def begin(self, games: list, replayed: bool, live: Callable[[dt.date], bool] | None = None,
              until: dt.date | None = None) -> None:
        """The publications, and if `replayed` the plan of the replays that check their entries.
        `live`: how the verification's own replay of the live record draws each list date (complete
        or movements), when it runs after this up to `until` and shows its lists to `live_list`. Each publication's
        digest and ranks are checked when its entries are first read (`entries`), the rest by `end`."""
        publications = list(Publication.objects.filter(system=self.system).order_by("date", "edition"))
        # the parameters and inactive rule a publication was made with are not kept: those of now apply from the last change
        self.changed = RecalculationRun.objects.filter(
            system=self.system, trigger=Trigger.PARAMETERS, status=RunStatus.SUCCEEDED,
        ).aggregate(last=Max("finished_at"))["last"]
        self.played = self.days_played(games) if self.rules.inactive_after_months is not None else {}
        self.every = publications
        self.checks: dict[int, _Found] = {}  # each publication's digest and ranks, once its entries are read
        self.replaying = replayed
        self.until = until  # the live replay's last day: it draws no list after it
        self.publications: list[Publication] = []
        if replayed:
            self.plan(publications, games, live)

    def entries(self, publications: list[Publication]) -> dict[int, list[tuple]]:
        """The entries of `publications`, read when a replay compares them (1.6M a system at 2M
        games, too many to hold through the live replay); each checked against its digest and ranks
        when first read."""
        out = {}
        for publication, rows in publications_entries(publications):
            if publication.pk not in self.checks:
                bad = self.checks[publication.pk] = _Found(self.diffs.limit)
                self.digest(bad, publication, rows)
                self.ranks(bad, publication, rows)
            out[publication.pk] = rows
        return out

    def drawn_both(self, day: dt.date) -> bool:
        """Whether the live replay draws the list of `day` both ways (complete and movements)."""
        return day in self.both

    def live_list(self, chunk, ledger: Ledger) -> None:
        """A list of the live record's replay: the publications it checks, and its state kept where
        another replay resumes."""
        if chunk.end in self.keep:
            self.states[chunk.end] = lz4.frame.compress(pickle.dumps(ledger, protocol=pickle.HIGHEST_PROTOCOL))
        served = self.live.pop(chunk.end, [])
        entries = self.entries([publication for publication, *_ in served])
        for publication, named, complete in served:
            drawn = chunk.entries if complete == chunk.complete else chunk.other
            assert drawn is not None, f"the live replay drew the list of {chunk.end} both ways"
            self.compare(self.found[publication.pk], publication, entries[publication.pk], chunk, self.coach_numbers, named,
                         drawn)

    def end(self, games: list) -> None:
        """The replays of the record as reported before each publication not checked by the live
        replay, then every publication's findings: its digest and ranks, then its replay's."""
        if self.replaying:
            self.replayed(games)
        self.entries([publication for publication in self.every if publication.pk not in self.checks])
        for publication in self.every:
            self.checks[publication.pk].report(self.diffs)
        for publication in self.publications:
            self.found[publication.pk].report(self.diffs)

    def replayed(self, games: list) -> None:
        """The publications' own replays, after the live one (whose lists checked the others)."""
        for pubs in self.live.values():  # the live replay drew no list of that date
            for publication, named, _ in pubs:
                self.found[publication.pk](f"{_label(publication)}: the games reported before {named} give no list of that date")
        self.live.clear()
        for replayed, cutoff, newest, resume in self.own:
            self._replay(replayed, self.found, games, cutoff, newest, resume)
        found, publications = self.found, self.publications
        # A report date is a day, not a time: a publication that differs from its replay while results
        # were reported on its own day is checked again with them (published after them, the same
        # day), and the closer reading reported.
        again = [p for p in publications if found[p.pk].count and self.day_of[p.pk] in self.report_days]
        if again:
            later = self.against(again, games, {p.pk: self.day_of[p.pk] + dt.timedelta(days=1) for p in again})
            for publication in again:
                if later[publication.pk].count < found[publication.pk].count:
                    found[publication.pk] = later[publication.pk]

    @cached_property
    def coach_numbers(self) -> dict[int, int]:
        """Each coach's number by id, as the record holds them now (read once for every check)."""
        return dict(Coach.objects.values_list("pk", "number"))

    def record_changes(self) -> list[tuple[dt.datetime, str]]:
        """The latest change of each kind that no replay of the record now can take back: the
        parameters (not kept), a coach merge (his games are the kept coach's now), a sanctioned event
        rejected (its games are out of the record)."""
        merged = AuditRecord.objects.filter(action=Action.COACH_MERGE).aggregate(last=Max("at"))["last"]
        rejected = AuditRecord.objects.filter(
            action=Action.EVENT_REJECT, before__status=EventStatus.SANCTIONED,
        ).aggregate(last=Max("at"))["last"]
        changes = [(self.changed, "the parameters changed"), (merged, "a coach merge"),
                   (rejected, "a sanctioned event was rejected")]
        return [(when, why) for when, why in changes if when is not None]

    def days_played(self, games: list) -> dict[tuple, list[dt.date]]:
        """Each key's days of play of a game that counts in the system, or once did (before a
        correction), sorted: keyed by coach number, race slug ("" pooled) and variant."""
        counts = CountingRule.of(self.config).exclusion
        numbers = self.coach_numbers
        self.numbers = set(numbers.values())
        per_race = self.system.per_race
        out: dict[tuple, set] = defaultdict(set)
        for game in games:
            versions = [game, *(replace(game, home_score=c.home_score, kind=c.kind) for c in game.corrections)]
            if all(counts(version) is not None for version in versions):
                continue
            day = game.played_at.date()
            for coach, race in ((game.home, game.home_race), (game.away, game.away_race)):
                out[(numbers.get(coach), (race or "") if per_race else "", game.variant)].add(day)
        return {key: sorted(days) for key, days in out.items()}

    @staticmethod
    def digest(bad: _Found, publication: Publication, rows: list[tuple]) -> None:
        found = entries_digest(publication_header(publication), rows)
        if not publication.digest:
            bad(f"{_label(publication)}: no digest stored")
        elif found != publication.digest:
            bad(f"{_label(publication)}: digest stored {publication.digest}, its entries and counts as stored now give "
                f"{found} (changed since it was published)")

    def ranks(self, bad: _Found, publication: Publication, rows: list[tuple]) -> None:
        """The ranks from the values and the inactive rule, and a complete list's counts."""
        ranked = [i for i, row in enumerate(rows) if row[_RANK] is not None]
        for row in rows:
            if (row[_RANK] is None) != (row[_OVERALL] is None):
                bad(f"{_entry(publication, row)}: rank {_number(row[_RANK])} but overall_rank "
                    f"{_number(row[_OVERALL])} (a key is ranked in both or in neither)")
        made_by_now = self.changed is None or publication.published_at >= self.changed
        if self.rules.glicko and made_by_now:
            limit = self.rules.inactive_phi
            for row in rows:
                phi = row[_PHI]
                if phi is None:
                    continue
                if row[_RANK] is not None and phi > limit:
                    bad(f"{_entry(publication, row)}: ranked {row[_RANK]}, but its phi {_number(phi)} is above the "
                        f"inactive limit {_number(limit)} (no rank)")
                elif row[_RANK] is None and phi <= limit:
                    bad(f"{_entry(publication, row)}: no rank, but its phi {_number(phi)} is within the inactive "
                        f"limit {_number(limit)} (ranked)")
        months = self.rules.inactive_after_months
        if months is not None and made_by_now:  # ranked: a counted game in the months before the list (a later report only adds one)
            since = months_before(publication.date, months)
            for row in rows:
                if row[_RANK] is None:
                    continue
                if row[_NUMBER] not in self.numbers:  # merged into another since: his games are that coach's
                    continue
                days = self.played.get((row[_NUMBER], row[_RACE], row[_VARIANT]), [])
                at = bisect_left(days, since)
                if at == len(days) or days[at] >= publication.date:
                    bad(f"{_entry(publication, row)}: ranked {row[_RANK]}, but the key has no counted game in the "
                        f"{months} months before the list (from {since}): the inactive rule gives no rank")
        if publication.complete:  # a list of the movements alone holds too few entries to rank
            for column, name, by_race in ((_RANK, "rank", self.system.per_race), (_OVERALL, "overall_rank", False)):
                for i, expected in _competition_ranks(rows, ranked, by_race).items():
                    if rows[i][column] is not None and rows[i][column] != expected:
                        bad(f"{_entry(publication, rows[i])}: {name} published {rows[i][column]}, its value "
                            f"{_number(rows[i][_VALUE])} among the list's ranked entries gives {expected}")
            for name, stored, expected in (("rated", publication.rated, len(rows)),
                                           ("ranked", publication.ranked, len(ranked))):
                if stored != expected:
                    bad(f"{_label(publication)}: {name} published {stored}, its entries give {expected}")

    def plan(self, publications: list[Publication], games: list, live: Callable[[dt.date], bool] | None) -> None:
        """Which replay checks each publication against the games reported before the day it was published."""
        for when, why in self.record_changes():
            kept = [p for p in publications if p.published_at < when]
            if kept:
                self.diffs.notes.append(
                    f"{len(kept)} publication(s) made before {why} on {timezone.localdate(when)} not replayed as reported: "
                    "the record as it stood then is not kept")
            publications = [p for p in publications if p.published_at >= when]
        self.publications = publications
        self.days = _report_days(games)
        self.report_days = set(self.days)
        self.day_of = {p.pk: timezone.localdate(p.published_at) for p in publications}
        self.arrivals = _Arrivals(games) if publications else None
        self.found = {p.pk: _Found(self.diffs.limit) for p in publications}
        self.live, self.own = self.replays(publications, self.day_of, live)
        if live is not None:  # the dates the live replay draws both ways: a publication drawn otherwise than the stored list
            self.both = {day for day, pubs in self.live.items() if any(c != live(day) for *_, c in pubs)}
        self.keep = _thinned({resume for *_, resume in self.own if resume is not None}, _KEPT_STATES)

    def replays(self, publications: list[Publication], cutoff_of: dict, live: Callable[[dt.date], bool] | None):
        """The publications the live replay checks (list date -> [(publication, the cutoff its messages
        name, whether its group's replay draws it complete)]), and the other replays: [(publications
        (id -> (publication, named cutoff)), cutoff, newest game, the list date whose live state it
        resumes from (None: the first game))].

        Publications whose record agrees (no result entered it between their cutoffs) form a group.
        A publication whose record agrees with the live one on the games played before its date (no
        such game reported, entered or corrected since its cutoff) is checked by the live replay's
        list of its date, drawn as its group's own replay would draw it (complete or movements). Of
        the rest, one replay of the latest group's record serves every publication whose record agrees
        with it before its list date, and each group replays what is left on its own: each replay
        resumes from the live replay's state at the last month start before the first game its
        record lacks (or holds with another result) and before its first list."""
        groups: dict[tuple[int, int | None], list[Publication]] = defaultdict(list)
        for publication in publications:
            groups[(bisect_left(self.days, cutoff_of[publication.pk]), publication.newest_game)].append(publication)
        by_live: dict[dt.date, list[tuple[Publication, dt.date, bool]]] = defaultdict(list)
        if not groups:
            return by_live, []
        assert self.arrivals is not None, "planned with the record's arrivals"
        cutoffs = {key: min(cutoff_of[p.pk] for p in group) for key, group in groups.items()}
        rest: dict[tuple[int, int | None], list[Publication]] = {}
        for key, group in groups.items():
            first = self.arrivals.first_lacking(cutoffs[key], key[1]) if live is not None else None
            drawn = _drawn(group)
            left = []
            for publication in group:
                drawn_live = live is not None and (self.until is None or publication.date <= self.until)
                if drawn_live and _before(first, publication.date):
                    by_live[publication.date].append((publication, cutoffs[key], drawn[publication.date]))
                else:
                    left.append(publication)
            if left:
                rest[key] = left
        if not rest:
            return by_live, []
        served, latest = _served_by_one_replay(rest, {key: cutoffs[key] for key in rest}, self.arrivals)
        replays = [(served, *latest)] if served else []
        for key, group in rest.items():
            left = [p for p in group if p.pk not in served]
            if left:
                replays.append(({p.pk: (p, cutoffs[key]) for p in left}, cutoffs[key], key[1]))
        return by_live, [(pubs, cutoff, newest, self.resume_date(pubs, cutoff, newest)) for pubs, cutoff, newest in replays]

    def resume_date(self, publications: dict, cutoff: dt.date, newest: int | None) -> dt.date | None:
        """The last month start before the first game the record at (`cutoff`, `newest`) lacks
        against the live one and before the first of its `publications`' list dates."""
        assert self.arrivals is not None, "planned with the record's arrivals"
        day = min(p.date for p, _ in publications.values()) - dt.timedelta(days=1)
        first = self.arrivals.first_lacking(cutoff, newest)
        if first is not None:
            day = min(day, first.astype(dt.datetime).date())
        return month_start(day)

    def against(self, publications: list[Publication], games: list, cutoff_of: dict) -> dict[int, _Found]:
        """Each publication against the games reported before its cutoff (publication id -> day), by
        replays of their own, after the live replay (resuming from the states it kept)."""
        found = {p.pk: _Found(self.diffs.limit) for p in publications}
        _, replays = self.replays(publications, cutoff_of, None)
        for pubs, cutoff, newest, resume in replays:
            self._replay(pubs, found, games, cutoff, newest, resume)
        return found

    def _replay(self, publications: dict[int, tuple[Publication, dt.date]], found: dict[int, _Found], games: list,
                cutoff: dt.date, newest: int | None, resume: dt.date | None) -> None:
        """One replay of the games reported before `cutoff` (entered up to `newest`), against each
        publication (id -> (publication, the cutoff its messages name)), its list drawn as the
        publication's last edition of that date was (complete or movements); from the live replay's
        state at the latest kept date up to `resume`, else from the first game."""
        until = max(p.date for p, _ in publications.values())
        start = dt.datetime.combine(until, dt.time())
        kept = [day for day in self.states if resume is not None and day <= resume]
        ledger, since = Ledger(), max(kept) if kept else None
        if since is not None:  # the games before it are the live record's (resume_date): only those rated since
            ledger = pickle.loads(lz4.frame.decompress(self.states[since]))
            rated_since = GameHistory(None, games, timezone.now(), reported=True).since(since, reported=reads_reported(self.module))
            assert rated_since is not None, "a history from the first game reaches back to any day"
            games = rated_since
        # a game entered after the list was computed was not in it, whatever its report date
        record = [g for g in reported_before(games, cutoff)
                  if g.played_at < start and (newest is None or g.game_id <= newest)]
        by_date: dict[dt.date, list[tuple[Publication, dt.date]]] = defaultdict(list)
        for publication, named in sorted(publications.values(), key=lambda item: (item[0].date, item[0].edition)):
            by_date[publication.date].append((publication, named))
        complete = {day: pubs[-1][0].complete for day, pubs in by_date.items()}
        for chunk in replay(
            methods.for_replay(self.module, len(record)), self.config, record, ledger, start=since, until=until, rules=self.rules,
            per_race=self.system.per_race, complete=lambda day: complete.get(day, False),
        ):
            if chunk.is_list and chunk.end in by_date:
                served = by_date.pop(chunk.end)
                entries = self.entries([publication for publication, _ in served])
                for publication, named in served:
                    self.compare(found[publication.pk], publication, entries[publication.pk], chunk, self.coach_numbers, named)
        for pubs in by_date.values():  # no list of that date as reported then
            for publication, named in pubs:
                found[publication.pk](f"{_label(publication)}: the games reported before {named} give no list of that date")

    @staticmethod
    def compare(bad: _Found, publication: Publication, rows: list[tuple], chunk, numbers: dict, cutoff: dt.date,
                replayed: Entries | None = None) -> None:
        """A publication's entries and counts against a replay's list (`replayed`: its entries drawn
        as the publication's replay draws them, if not the chunk's own)."""
        given = f"the games reported before {cutoff} give"
        counts = (publication.rated, publication.ranked, publication.starters)
        if counts != (chunk.rated, chunk.ranked, chunk.starters):
            bad(f"{_label(publication)}: counts (rated, ranked, starters) published {counts}, {given} "
                f"{(chunk.rated, chunk.ranked, chunk.starters)}")
        replayed = chunk.entries if replayed is None else replayed
        arrays = replayed.arrays()
        index = {(numbers.get(coach), race or "", variant): i for i, (coach, race, variant) in enumerate(replayed.keys)}
        matched = np.zeros(len(replayed), dtype=bool)
        at = np.array([index.get((row[_NUMBER], row[_RACE], row[_VARIANT]), -1) for row in rows], dtype=np.int64)
        found = np.flatnonzero(at >= 0)
        matched[at[found]] = True
        # each found entry's first figure that differs (-1: none), compared a figure at a time over
        # all entries: one comparison an entry and figure took most of verify_ratings' time
        first = np.full(len(rows), -1, dtype=np.int64)
        names = list(_FIGURES)
        for number, (name, none) in enumerate(_FIGURES.items()):
            column = _AT[name]
            have = np.array([none if rows[j][column] is None else rows[j][column] for j in found.tolist()], dtype=float)
            differs = found[~_close(arrays[name][at[found]].astype(float), have, REPLAY_TOLERANCE)]
            first[differs[first[differs] < 0]] = number
        for j, row in enumerate(rows):  # in the publication's order, as they are reported
            if at[j] < 0:
                bad(f"{_entry(publication, row)}: published, but {given} no such entry")
            elif first[j] >= 0:
                name = names[first[j]]
                none, value, want = _FIGURES[name], row[_AT[name]], arrays[name][at[j]]
                bad(f"{_entry(publication, row)}: {name} published {_number(value)}, {given} "
                    f"{_number(None if none is not None and want == none else want)}")
        for i in np.flatnonzero(~matched).tolist():
            coach, race, variant = replayed.keys[i]
            bad(f"{_label(publication)} entry of coach {numbers.get(coach)} ({race or 'all races'}, {variant}): "
                f"{given} it, but it was not published")


def _competition_ranks(rows: list[tuple], ranked: list[int], by_race: bool) -> dict[int, int]:
    """Each ranked row's rank within its variant (and race, `by_race`): 1 + the ranked rows of
    higher value (equal values share a rank)."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i in ranked:
        groups[(rows[i][_VARIANT], rows[i][_RACE] if by_race else "")].append(i)
    out = {}
    for members in groups.values():
        members.sort(key=lambda i: -rows[i][_VALUE])
        place = 0
        for position, i in enumerate(members):
            if not position or rows[i][_VALUE] != rows[members[position - 1]][_VALUE]:
                place = position + 1
            out[i] = place
    return out


def _thinned(days: set[dt.date], most: int) -> set[dt.date]:
    """At most `most` of `days`, spread over them, the latest kept (a replay resumes from the latest
    kept day at or before its own: fewer states held, less shared)."""
    ordered = sorted(days)
    if len(ordered) <= most or not most:
        return set(ordered[:most])
    step = len(ordered) / most
    return {ordered[len(ordered) - 1 - int(i * step)] for i in range(most)}


def publication_checks(diffs: Differences, system: RatingSystem, module, config, games: list, *, replayed: bool,
                       live: Callable[[dt.date], bool] | None = None, until: dt.date | None = None) -> _Publications:
    """The checks of every publication of `system`: its digest and ranking rule now, and, if
    `replayed`, against a replay of the games as reported before it. Show the live record's replay's
    lists to `live_list` (`live`: how it draws each date, up to `until`), then call `end`, which
    reports them all."""
    checks = _Publications(diffs, system, module, config)
    checks.begin(games, replayed, live, until)
    return checks

