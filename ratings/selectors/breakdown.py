"""Reads of the breakdown page: one rating key's periods, one period's rows, its new-rating block
and, for KNSB, its event blocks and the games waiting for a list."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from types import SimpleNamespace

from django.db.models import F, Max

from rating_engines import naf_elo
from rating_engines.common import GLOBAL_REASON_TEXT, REASON_TEXT, Reason
from ratings.models import (
    CalculationRow,
    CurrentRating,
    Method,
    PeriodSummary,
    RatingSystem,
)
from ratings.replay import months_between
from ratings.selectors.common import _day, _event_id, _event_names, period_title
from ratings.selectors.events import _elo_games_between
from ratings.selectors.waiting import WaitingRow, waiting_rows
from tournaments.models import Coach, Race, Variant

SUMMARY_FIELDS = (
    "period", "effective", "rl", "rn", "nt", "games_played", "wt", "wet", "rtt", "rct", "wxt", "lpr", "limitation", "nv",
    "mu", "phi", "sigma", "mu_before", "phi_before", "sigma_before", "is_start",
)


@dataclass
class Period:
    label: str
    title: str
    date: dt.date  # when its new rating took effect; without one, when its last game was played
    summary: SimpleNamespace | None = None  # the stored PeriodSummary's figures, for the periods shown
    has_summary: bool = False  # a new rating came of it (False: none of its games counted)
    event_id: int | None = None
    first: dt.date | None = None  # first and last game: known for the period shown
    last: dt.date | None = None
    change: float | None = None  # NAF Elo, the event shown: the sum of its games' changes
    between: list = field(default_factory=list)  # NAF Elo, the event shown: OtherEvent amid its games

    @property
    def w_minus_we(self) -> float | None:
        s = self.summary
        return s.wt - s.wet if s is not None and s.nt else None

    @property
    def wt_percent(self) -> float | None:
        s = self.summary
        return 100.0 * s.wt / s.nt if s is not None and s.nt else None


@dataclass
class BreakdownRow:
    row: CalculationRow | WaitingRow
    footnote: int | None = None
    w_minus_we: float | None = None
    kind: str = "counted"  # counted, excluded, depot
    rating_after: float | None = None  # NAF Elo: the CR after the game
    late: int | None = None  # KNSB, a result reported late: the number of the footnote saying so


@dataclass
class Breakdown:
    system: RatingSystem
    coach: Coach
    race: Race | None
    variant: Variant
    current: CurrentRating | None
    periods: list  # Period, newest first
    period: Period | None
    rows: list = field(default_factory=list)  # BreakdownRow
    footnotes: list = field(default_factory=list)  # (number, text)
    recent: list = field(default_factory=list)  # the last four periods with a new rating
    blocks: list = field(default_factory=list)  # KNSB: EventBlock, one per event of the list period
    extra_remise: SimpleNamespace | None = None  # KNSB at 0 % or 100 %: the fictitious draw's row
    waiting: list = field(default_factory=list)  # KNSB: WaitingBlock, one per list still to be made


@dataclass
class WaitingBlock:
    """The key's games waiting for one list, as it will rate them: provisional, in no stored total.
    The sums are the events' (counted games; We, W − We and Rt over those with a We)."""

    list_date: dt.date
    items: list  # BreakdownRow of WaitingRow
    events: list  # EventBlock
    nt: int = 0
    wt: float = 0.0
    w_minus_we: float | None = None
    rtt: float | None = None

    @classmethod
    def of(cls, list_date: dt.date, items: list[BreakdownRow]) -> WaitingBlock:
        events = _event_blocks(items)
        rated = [e for e in events if e.rtt is not None]
        return cls(
            list_date, items, events, nt=sum(e.nt for e in events), wt=sum(e.wt for e in events),
            w_minus_we=sum(e.w_minus_we for e in rated) if rated else None, rtt=sum(e.rtt for e in rated) if rated else None,
        )


def coach_keys(coach: Coach, system: RatingSystem) -> list[CurrentRating]:
    """The coach's rating keys in a system (race and variant), most games first."""
    return list(
        CurrentRating.objects.filter(system=system, coach=coach)
        .select_related("race", "variant")
        .order_by("-games", "variant__name", "race__name")
    )


def breakdown(
    *, system: RatingSystem, coach: Coach, race: Race | None, variant: Variant, current: CurrentRating | None,
    period: str | None = None,
) -> Breakdown:
    """The breakdown of one rating key: its periods, and one period's rows and new-rating block.

    `period` None picks the latest period. A label the key never had gives `period` None.
    """
    key = {"system": system, "coach": coach, "race": race, "variant": variant}
    periods, by_label = _key_periods(system, key)
    chosen = periods[0] if periods and period is None else by_label.get(period) if period else None
    recent = [p for p in periods if p.has_summary][:4]
    _add_summaries(key, [*recent, chosen])
    result = Breakdown(
        system=system, coach=coach, race=race, variant=variant, current=current, periods=periods, period=chosen,
        recent=recent,
    )
    knsb = system.method == Method.KNSB
    waiting = _key_waiting(system, coach, race, variant) if knsb else []
    if chosen is None:
        if waiting:
            result.waiting, _, result.footnotes = _waiting_blocks(system, waiting, [])
        return result
    rows = CalculationRow.objects.filter(**key, period=chosen.label).select_related("opponent", "opponent_race")
    if knsb:  # a list period holds the games of several events, each with its own block
        rows = rows.annotate(event_id=F("game__event_id"), event_name=F("game__event__name"), reported_on=F("game__reported_on"))
    rows = list(rows.order_by("played_at", "game_id"))
    if rows:
        chosen.first, chosen.last = _day(rows[0].played_at), _day(rows[-1].played_at)
    if waiting:  # one numbering of footnotes for the waiting rows and the period's
        result.waiting, result.rows, result.footnotes = _waiting_blocks(system, waiting, rows)
    else:
        result.rows, result.footnotes = _breakdown_rows(system, rows)
    changed = [item for item in result.rows if item.rating_after is not None]
    if changed:  # NAF Elo: the event's own change, and other events' games amid its own
        chosen.change = sum(item.rating_after - item.row.r0 for item in changed)
        first, last = changed[0].row, changed[-1].row
        span = [(first.played_at, first.game_id), (last.played_at, last.game_id)]
        between = _elo_games_between(system, {(coach.pk, race and race.pk, variant.pk): span}, exclude=chosen.label)
        chosen.between = between.get(coach.pk, [])
    if knsb:
        result.blocks = _event_blocks(result.rows)
        result.extra_remise = _extra_remise(chosen.summary, result.rows)
    return result


def _key_waiting(system: RatingSystem, coach: Coach, race: Race | None, variant: Variant) -> list[WaitingRow]:
    key = (coach.pk, race.pk if race is not None else None, variant.pk)
    return [row for row in waiting_rows(system, coach_ids={coach.pk}) if row.key == key]


def _waiting_blocks(system: RatingSystem, waiting: list[WaitingRow], rows: list) -> tuple[list, list, list]:
    """(a WaitingBlock per list still to be made, the period's BreakdownRows, the footnotes of both)."""
    items, footnotes = _breakdown_rows(system, [*waiting, *rows])
    by_list: dict[dt.date, list] = {}
    for item in items[:len(waiting)]:
        by_list.setdefault(item.row.waiting_for, []).append(item)
    blocks = [WaitingBlock.of(day, found) for day, found in sorted(by_list.items())]
    return blocks, items[len(waiting):], footnotes


def _key_periods(system: RatingSystem, key: dict) -> tuple[list[Period], dict[str, Period]]:
    """Every period of a key, newest first, and by label: those with a summary, and those none of
    whose games counted (found through the small index of uncounted rows). A busy key has hundreds."""
    by_label: dict[str, Period] = {}
    summaries = PeriodSummary.objects.filter(**key).order_by("-effective", "-id")
    for label, effective in summaries.values_list("period", "effective"):
        by_label.setdefault(label, Period(label=label, title=label, date=effective, has_summary=True, event_id=_event_id(label)))
    uncounted = CalculationRow.objects.filter(**key, counted=False).values("period").annotate(last=Max("played_at")).order_by()
    for item in uncounted:
        if item["period"] not in by_label:
            by_label[item["period"]] = Period(
                label=item["period"], title=item["period"], date=_day(item["last"]), event_id=_event_id(item["period"]),
            )
    event_names = _event_names({p.event_id for p in by_label.values() if p.event_id is not None})
    for entry in by_label.values():
        entry.title = period_title(system, entry.label, event_names)
    return sorted(by_label.values(), key=lambda p: (p.date, p.label), reverse=True), by_label


def _add_summaries(key: dict, periods: list[Period | None]) -> None:
    """The full new-rating block of the periods the page shows (the latest summary of each label)."""
    shown = {p.label: p for p in periods if p is not None and p.has_summary}
    if not shown:
        return
    summaries = PeriodSummary.objects.filter(**key, period__in=list(shown)).order_by("-effective", "-id")
    for values in summaries.values(*SUMMARY_FIELDS):
        entry = shown[values["period"]]
        if entry.summary is None:
            entry.summary = SimpleNamespace(**values)


def _breakdown_rows(system: RatingSystem, rows: list) -> tuple[list[BreakdownRow], list[tuple[int, str]]]:
    """The rows as the page shows them (kind, W − We, the Elo CR after the game, footnote number),
    and the footnotes: one number per reason a game did not count, in order of first use."""
    elo = system.method == Method.NAF_ELO
    knsb = system.method == Method.KNSB
    notes: dict[str, int] = {}
    items = []
    for row in rows:
        item = BreakdownRow(row=row)
        if elo and row.counted and row.rt is not None:
            item.rating_after = naf_elo.rating_after(row.r0, row.rt)
        if row.counted and row.we is not None:
            item.w_minus_we = row.w - row.we
        if row.depot_date is not None or row.reason in (Reason.IN_DEPOT, Reason.DEPOT_BOOTSTRAP):
            item.kind = "depot"
        elif not row.counted:
            item.kind = "excluded"
        if row.reason:
            item.footnote = notes.setdefault(row.reason, len(notes) + 1)
        if knsb and processed_late(row):
            item.late = notes.setdefault(LATE, len(notes) + 1)
        items.append(item)
    texts = GLOBAL_REASON_TEXT if system.method == Method.GLICKO and not system.per_race else REASON_TEXT
    texts = {**texts, LATE: LATE_TEXT}
    return items, [(number, texts.get(reason, reason)) for reason, number in notes.items()]


LATE = "late"  # the footnote of a KNSB result reported late (not a reason: the game counts)


LATE_TEXT = ("reported late, after the list that would have rated it was out: rated in the first list after "
             "its report, with R0 and Rc from the list in force when it was played (Lijstdatum)")


def processed_late(row: CalculationRow | WaitingRow) -> bool:
    """Whether a KNSB row's game went into a later list than the one after its month of play (a
    depot game: entered its depot at a later list)."""
    return months_between(row.played_at.date(), row.depot_date or dt.date.fromisoformat(row.period)) > 1


@dataclass
class EventBlock:
    """One event's games within a list period, under the orange row of their sums and means.

    The sums are over the counted games; We, W − We and Rt only over those with a We (depot games
    going into a start rating have none).
    """

    event_id: int
    name: str
    rows: list = field(default_factory=list)  # BreakdownRow
    first: dt.date | None = None
    last: dt.date | None = None
    nt: int = 0
    wt: float = 0.0
    rct: float | None = None
    wet: float | None = None
    w_minus_we: float | None = None
    rtt: float | None = None
    wxt: float | None = None


def _event_blocks(items: list[BreakdownRow]) -> list[EventBlock]:
    """The rows of a list period grouped by event, in order of each event's first game here."""
    blocks: dict[int, EventBlock] = {}
    for item in items:
        row = item.row
        block = blocks.get(row.event_id)
        if block is None:
            block = blocks[row.event_id] = EventBlock(row.event_id, row.event_name, first=_day(row.played_at))
        block.rows.append(item)
        block.last = _day(row.played_at)
    for block in blocks.values():
        counted = [item.row for item in block.rows if item.row.counted]
        rated = [row for row in counted if row.we is not None]
        block.nt = len(counted)
        block.wt = sum(row.w for row in counted)
        opponents = [row.rc for row in counted if row.rc is not None]
        block.rct = sum(opponents) / len(opponents) if opponents else None
        if rated:
            block.wet = sum(row.we for row in rated)
            block.w_minus_we = sum(row.w - row.we for row in rated)
            block.rtt = sum(row.rt for row in rated)
        with_wx = [row.wx for row in counted if row.wx is not None]
        block.wxt = sum(with_wx) if with_wx else None
    return list(blocks.values())


def _extra_remise(summary, items: list[BreakdownRow]) -> SimpleNamespace | None:
    """The fictitious draw against oneself at 0 % or 100 % (seed 001), which enters the LPR only.

    R0 = Rl (Rs for a start rating); Rc = Rl, or for a start rating the depot games' Rct, which
    the start rating's LPR equation used; We 0.5, Rt 0; its Wx is what Wxt holds beyond the games'.
    """
    if summary is None or not summary.nt or summary.wxt is None or summary.wt not in (0.0, float(summary.nt)):
        return None
    games_wx = sum(item.row.wx for item in items if item.row.counted and item.row.wx is not None)
    start = summary.is_start
    return SimpleNamespace(
        r0=summary.rn if start else summary.rl, rc=summary.rct if start else summary.rl, w=0.5, we=0.5, w_minus_we=0.0,
        rt=0.0, wx=summary.wxt - games_wx, start=start,
    )
