"""Reads for the public pages: rankings, coach pages, breakdowns, events and rating lists.

Every figure comes from stored rows (CurrentRating, RatingListEntry, CalculationRow, PeriodSummary);
each function makes a fixed number of queries, whatever the size of the history.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from types import SimpleNamespace

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, F, Max, Min, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.expressions import RawSQL

from audit.models import Action, AuditRecord
from rating_engines import glicko, naf_elo
from rating_engines.common import GLOBAL_REASON_TEXT, REASON_TEXT, Reason
from ratings.configuration import build_config
from ratings.models import (
    RANKING_ORDER,
    CalculationRow,
    CurrentRating,
    Method,
    PeriodSummary,
    Publication,
    PublishedEntry,
    RatingList,
    RatingListEntry,
    RatingSystem,
)
from ratings.replay import months_between
from ratings.selectors.waiting import WaitingCount, WaitingRow, waiting_counts, waiting_rows
from ratingsite.formatting import fixed
from tournaments.models import Award, Coach, Event, EventStatus, Game, GameSide, Race, Variant, public_q

EVENT_PREFIX = "event:"


# --- rating systems and rankings ------------------------------------------------------------------


def public_systems() -> list[RatingSystem]:
    """The active rating systems, in display order."""
    return list(RatingSystem.objects.filter(active=True).order_by("display_order", "name"))


def public_system_get(slug: str, systems: list[RatingSystem] | None = None) -> RatingSystem | None:
    """The active system of that slug, found among `systems` (public_systems(), read here if not given)."""
    return next((s for s in (public_systems() if systems is None else systems) if s.slug == slug), None)


def stored_config(system: RatingSystem):
    """The engine configuration of a system's stored (validated) parameters: each one not set is
    the engine's default. Its variants and excluded races are not read (see engine_for)."""
    return build_config(method=system.method, per_race=system.per_race, parameters=system.parameters)


def inactive_rule(system: RatingSystem, config=None) -> str:
    """One sentence: when an entry of this system shows "-" instead of a rank."""
    if system.method == Method.GLICKO:
        limit = (config or stored_config(system)).inactive_phi
        return (
            f"No rank while φ is above {limit:g}: the rating grows less certain with every idle period. "
            "The rating itself is kept, and the rank returns with the next games."
        )
    if system.inactive_after_months:
        return (
            f"No rank after {system.inactive_after_months} months without a counted game. "
            "The rating itself is kept, and the rank returns with the next game."
        )
    return "Every rated entry is ranked."


def ranking_current(system: RatingSystem):
    """The current ratings of a system, best first, unranked entries after the ranked ones."""
    return (
        CurrentRating.objects.filter(system=system)
        .select_related("coach", "race", "variant")
        .order_by(*RANKING_ORDER)
        .counted_as_of(system.recalculated_at and f"{system.pk}:{system.recalculated_at.isoformat()}")
    )


def ranking_variants(system: RatingSystem) -> list[dict]:
    """The variants the system rates, the most played first (by the games its current ratings hold):
    a ranking shows one at a time, the first by default. Kept until the system's next run commits."""
    def build():
        return list(
            CurrentRating.objects.filter(system=system).order_by().values("variant__slug", "variant__name")
            .annotate(played=Sum("games")).order_by("-played", "variant__name")
        )
    if system.recalculated_at is None:
        return build()
    return cache.get_or_set(f"ranking-variants:{system.pk}:{system.recalculated_at.isoformat()}", build, 24 * 3600) or []


def ranking_of_list(rating_list: RatingList):
    """The entries of a stored monthly list, best first."""
    return (
        RatingListEntry.objects.filter(rating_list=rating_list)
        .select_related("coach", "race", "variant")
        .order_by(*RANKING_ORDER)
        .counted_as_of(f"list:{rating_list.pk}")  # a recomputed list is stored anew, under another id
    )


def rating_list_on(system: RatingSystem, year: int, month: int) -> RatingList | None:
    """The stored list of a system dated the 1st of that month, if there is one."""
    return RatingList.objects.filter(system=system, date=dt.date(year, month, 1)).first()


def publication_on(system: RatingSystem, year: int, month: int, edition: int | None = None) -> Publication | None:
    """The list of that month as published (that edition, else the latest), if it has been published."""
    editions = Publication.objects.filter(system=system, date=dt.date(year, month, 1))
    return (editions.filter(edition=edition) if edition else editions).select_related("published_by").order_by("-edition").first()


def publication_editions(publication: Publication) -> list[Publication]:
    """Every edition of a published list, the first first."""
    return list(Publication.objects.filter(system_id=publication.system_id, date=publication.date).order_by("edition"))


PUBLISHED_ORDER = (F("overall_rank").asc(nulls_last=True), F("value").desc(), F("coach_number"))


def ranking_of_publication(publication: Publication):
    """The entries of a list as published, best first."""
    return (
        PublishedEntry.objects.filter(publication=publication).order_by(*PUBLISHED_ORDER)
        .counted_as_of(f"publication:{publication.pk}")
    )


def published_entries(publication: Publication, variant: Variant | None = None):
    entries = PublishedEntry.objects.filter(publication=publication)
    return entries.filter(variant_slug=variant.slug) if variant is not None else entries


def published_starters(publication: Publication, variant: Variant | None = None):
    """New ratings on the list as published, best first."""
    return _starters(published_entries(publication, variant), "coach_number")


def published_movers(publication: Publication, variant: Variant | None = None, *, rising: bool, limit: int = 20) -> list:
    """The largest gains (or losses) since the previous list, as published."""
    return _movers(published_entries(publication, variant), "coach_number", rising=rising, limit=limit)


def published_counts(publication: Publication, variant: Variant | None = None) -> dict:
    """Counts of the list as published (overall from the publication; per variant when one is chosen)."""
    return _list_counts(published_entries(publication, variant), publication, variant)


def rating_lists_of(*, system: RatingSystem) -> QuerySet[RatingList]:
    """The stored monthly lists of a system, newest first."""
    return RatingList.objects.filter(system=system).order_by("-date")


def latest_list_dates(systems: list[RatingSystem]) -> dict:
    """system id -> (date of its latest list, number of lists)."""
    rows = (
        RatingList.objects.filter(system__in=systems)
        .values("system_id")
        .annotate(latest=Max("date"), lists=Count("id"))
        .order_by()
    )
    return {row["system_id"]: (row["latest"], row["lists"]) for row in rows}


# --- coach page -----------------------------------------------------------------------------------


def coach_ratings(coach: Coach) -> list[CurrentRating]:
    """Every current rating of the coach, in every system, race and variant."""
    return list(
        CurrentRating.objects.filter(coach=coach, system__active=True)
        .select_related("system", "race", "variant")
        .order_by("system__display_order", "variant__name", "race__name")
    )


def _record_counts(*, byes: bool = True) -> dict:
    """Games, wins, draws and losses of grouped game sides: a bye is a game (and never a draw), or
    with `byes` False no game at all."""
    played = Q() if byes else Q(opponent__isnull=False)  # an empty filter is none (Django leaves it out)
    return {
        "games": Count("id", filter=played),
        "wins": Count("id", filter=played & Q(score=1)),
        "draws": Count("id", filter=Q(score=0.5, opponent__isnull=False)),
        "losses": Count("id", filter=played & Q(score=0)),
    }


EVENT_FIELDS = ("name", "start_date", "country", "is_major", "status")
_EVENT_KEYS = tuple(f"event__{name}" for name in EVENT_FIELDS)
_TOTALS = ("games", "wins", "draws", "losses", "td_for", "td_against", "cas_for", "cas_against")


def coach_record(coach: Coach) -> tuple[list[dict], list[dict]]:
    """(record per race, events) of a coach, from one count of the coach's game sides per event and
    race (a busy coach's thousands of games are read once, and never meet the whole events table).

    Per race: games, wins, draws, losses, touchdowns and casualties, most games first, and byes apart
    (a bye is no game: no opponent, no result). Events: newest first, with race and record there.
    Only public events count (sanctioned, and open play).
    """
    played = Q(opponent__isnull=False)
    counts = (
        GameSide.objects.filter(coach=coach)
        .values("event_id", "race_id")
        .annotate(
            **_record_counts(byes=False),
            td_for=Sum("touchdowns_for", filter=played),
            td_against=Sum("touchdowns_against", filter=played),
            cas_for=Sum("casualties_for", filter=played),
            cas_against=Sum("casualties_against", filter=played),
            byes=Count("id", filter=Q(opponent__isnull=True)),
        )
        .order_by()
    )
    # integers only: read as the driver gives them (Django's conversion per row costs more than the count)
    sql, params = counts.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = [dict(zip(("event_id", "race_id", *_TOTALS, "byes"), values)) for values in cursor.fetchall()]
    events = {
        values[0]: dict(zip(_EVENT_KEYS, values[1:]))
        for values in _by_ids(Event.objects.public(), {row["event_id"] for row in rows})
        .values_list("id", *EVENT_FIELDS)
    }
    races = {race.pk: race for race in Race.objects.all()}
    per_race: dict[int, dict] = {}
    found = []
    for row in rows:
        event = events.get(row["event_id"])
        if event is None:
            continue
        race = races[row["race_id"]]
        totals = per_race.setdefault(
            race.pk, {"race__name": race.name, "race__slug": race.slug, **dict.fromkeys((*_TOTALS, "byes"), 0)},
        )
        for name in (*_TOTALS, "byes"):
            totals[name] += row[name] or 0
        found.append({
            "event_id": row["event_id"], "race__name": race.name, "games": row["games"], "wins": row["wins"],
            "draws": row["draws"], "losses": row["losses"], "byes": row["byes"], **event,
        })
    # newest event first, races in name order within it (two stable sorts: dates do not negate)
    found.sort(key=lambda row: row["race__name"])
    found.sort(key=lambda row: (row["event__start_date"], row["event_id"]), reverse=True)
    return sorted(per_race.values(), key=lambda r: (-r["games"], r["race__name"])), found


def _by_ids(queryset, ids: set):
    """`queryset` narrowed to primary keys `ids`: one array parameter on PostgreSQL, not one placeholder each."""
    if connection.vendor == "postgresql":
        return queryset.filter(pk__in=RawSQL("SELECT unnest(%s::bigint[])", [list(ids)]))
    return queryset.filter(pk__in=ids)


def coach_awards(coach: Coach) -> list[Award]:
    return list(
        Award.objects.filter(coach=coach, event__status=EventStatus.SANCTIONED)
        .select_related("event", "race")
        .order_by("-event__start_date", "category")
    )


def coach_history(coach: Coach, system: RatingSystem) -> list[dict]:
    """The coach's rating after every event or period of a system, oldest first; "title" names the
    period as the page reads it (an event's name, not its label "event:<id>")."""
    rows = list(
        PeriodSummary.objects.filter(system=system, coach=coach)
        .values("race__name", "race__slug", "variant__name", "variant__slug", "period", "effective", "rl", "rn", "nt")
        .order_by("effective", "race__name", "variant__name")
    )
    names = _event_names({pk for pk in map(_event_id, {row["period"] for row in rows}) if pk is not None})
    for row in rows:
        row["title"] = period_title(system, row["period"], names)
    return rows


HEAD_TO_HEAD_SHORTCUTS = 10


def coach_opponents(coach: Coach, *, limit: int = HEAD_TO_HEAD_SHORTCUTS) -> list[dict]:
    """The coach's most frequent opponents at public events (most games first, then by name), each
    with the coach's games, wins, draws and losses against them."""
    return list(
        GameSide.objects.filter(public_q("event__"), coach=coach, opponent__isnull=False)
        .values("opponent__number", "opponent__name")
        .annotate(**_record_counts())
        .order_by("-games", "opponent__name", "opponent__number")[:limit]
    )


# Provisional marks (lichess's "?"): the pages and the about page read these thresholds.
KNSB_FIRM_AFTER_START = 6  # KNSB: firm once Nv reaches the depot minimum (the start rating's games) plus this many
GLICKO_NEAR_LIMIT = 0.10  # Glicko: provisional while ranked but within this share of the φ limit


@dataclass(frozen=True)
class ProvisionalRule:
    """When a rating of one system gets the "?" mark: KNSB below `firm_nv` games, Glicko with φ above
    `firm_phi` but still within the rank limit `limit`."""

    method: str
    firm_nv: int | None = None
    firm_phi: float | None = None
    limit: float | None = None

    @property
    def text(self) -> str:
        if self.method == Method.KNSB:
            return (f"A KNSB rating resting on fewer than {self.firm_nv} games (the start rating’s depot games "
                    f"plus {KNSB_FIRM_AFTER_START}) is provisional: each game still moves it a lot.")
        return (f"A ranked Glicko rating with φ above {self.firm_phi:g} (within {GLICKO_NEAR_LIMIT:.0%} of the rank "
                f"limit {self.limit:g}) is provisional: a few idle periods more and it loses its rank.")

    def mark(self, *, nv: int | None = None, phi: float | None = None) -> str | None:
        """The tooltip of a provisional rating ("provisional: rests on 7 games; firm from 12"), None if firm."""
        if self.method == Method.KNSB:
            if nv is None or nv >= self.firm_nv:
                return None
            return f"provisional: rests on {nv} game{'s' if nv != 1 else ''}; firm from {self.firm_nv}"
        if phi is None or not self.firm_phi < phi <= self.limit:
            return None
        return f"provisional: φ {fixed(phi)}, near the rank limit {self.limit:g}; firm below φ {self.firm_phi:g}"


def provisional_rule(system: RatingSystem) -> ProvisionalRule | None:
    """The "?" rule of a system (None: NAF Elo has none), from its stored (validated) parameters."""
    if system.method == Method.KNSB:
        return ProvisionalRule(system.method, firm_nv=stored_config(system).depot_min_games + KNSB_FIRM_AFTER_START)
    if system.method == Method.GLICKO:
        limit = float(stored_config(system).inactive_phi)
        return ProvisionalRule(system.method, firm_phi=round(limit * (1 - GLICKO_NEAR_LIMIT), 2), limit=limit)
    return None


def coach_rating_notes(coach: Coach, ratings: list[CurrentRating]) -> None:
    """Set on each of the coach's ratings `provisional` (the "?" tooltip, or None) and, for a Glicko
    rating whose value moved since its last period, `idle` (date, φ before, φ now, value lost): the
    idle decay, from the last stored summary of its key (one query)."""
    rules = {}
    for rating in ratings:
        if rating.system_id not in rules:
            rules[rating.system_id] = provisional_rule(rating.system)
        rule = rules[rating.system_id]
        rating.provisional = rule.mark(nv=rating.nv, phi=rating.phi) if rule is not None else None
        rating.idle = None
    glicko_ratings = [r for r in ratings if r.system.method == Method.GLICKO]
    if not glicko_ratings:
        return
    last = {}
    summaries = (
        PeriodSummary.objects.filter(coach=coach, system__in={r.system_id for r in glicko_ratings})
        .values_list("system_id", "race_id", "variant_id", "effective", "rn", "phi")
        .order_by("effective", "id")
    )
    for system_id, race_id, variant_id, effective, rn, phi in summaries:
        last[(system_id, race_id, variant_id)] = (effective, rn, phi)
    for rating in glicko_ratings:
        found = last.get((rating.system_id, rating.race_id, rating.variant_id))
        if found is None or rating.phi is None or found[2] is None:
            continue
        effective, rn, phi = found
        if fixed(rn) != fixed(rating.value):
            rating.idle = SimpleNamespace(since=effective, phi_before=phi, phi_now=rating.phi, value_lost=rn - rating.value)


# --- breakdown ------------------------------------------------------------------------------------


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


def period_title(system: RatingSystem, label: str, event_names: dict) -> str:
    """How a period label reads on the page."""
    if label.startswith(EVENT_PREFIX):
        name = event_names.get(int(label[len(EVENT_PREFIX):]))
        return name or label
    if system.method == Method.KNSB:
        return f"List of {label}"
    if len(label) == 7:
        return dt.date.fromisoformat(f"{label}-01").strftime("%B %Y")
    try:
        start = dt.date.fromisoformat(label)
    except ValueError:
        return label
    return f"Two weeks from {start:%Y-%m-%d}"


def _event_id(label: str) -> int | None:
    if label.startswith(EVENT_PREFIX):
        try:
            return int(label[len(EVENT_PREFIX):])
        except ValueError:
            return None
    return None


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


@dataclass
class WaitingNote:
    """A coach's games in one rating key waiting for a list (rated or not yet: the depot)."""

    system: RatingSystem
    race: Race | None
    variant: Variant
    count: WaitingCount
    rated: bool = False  # the key has a rating (False: its games wait for the depot)

    @property
    def games(self) -> int:
        """The waiting games, counting or not."""
        return len(self.count.played)


def coach_waiting(coach: Coach, systems: list[RatingSystem]) -> list[WaitingNote]:
    """The coach's games waiting for a list, per rating key (KNSB), by system, variant and race."""
    counts = {}
    for system in systems:
        rows = [row for row in waiting_rows(system, coach_ids={coach.pk}) if row.coach_id == coach.pk]
        for key, count in waiting_counts(rows).items():
            counts[(system, key[1], key[2])] = count
    if not counts:
        return []
    races = Race.objects.in_bulk({race for _, race, _ in counts if race is not None})
    variants = Variant.objects.in_bulk({variant for *_, variant in counts})
    rated = set(CurrentRating.objects.filter(coach=coach, system__in={s for s, _, _ in counts}).values_list(
        "system_id", "race_id", "variant_id"))
    notes = [
        WaitingNote(system, races.get(race) if race is not None else None, variants[variant], count,
                    rated=(system.pk, race, variant) in rated)
        for (system, race, variant), count in counts.items()
    ]
    return sorted(notes, key=lambda n: (n.system.display_order, n.system.name, n.variant.name, n.race.name if n.race else ""))


def ranking_waiting(system: RatingSystem, *, coach_ids: set[int]) -> dict[tuple, WaitingCount]:
    """(coach id, race id, variant id) -> the games of those coaches' keys waiting for the next list
    (KNSB; empty otherwise)."""
    if system.method != Method.KNSB or not coach_ids:
        return {}
    return waiting_counts([row for row in waiting_rows(system, coach_ids=coach_ids) if row.coach_id in coach_ids])


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


def _event_names(ids: set[int]) -> dict[int, str]:
    return dict(_by_ids(Event.objects.all(), ids).values_list("pk", "name")) if ids else {}


def _day(value) -> dt.date | None:
    if value is None:
        return None
    return value.date() if isinstance(value, dt.datetime) else value


# --- events ---------------------------------------------------------------------------------------


def public_events():
    """Events anyone may see (sanctioned, and open play), newest first, with their game count."""
    games = Game.objects.filter(event=OuterRef("pk")).order_by().values("event").annotate(n=Count("id")).values("n")
    return (
        Event.objects.public()
        .select_related("variant")
        .annotate(game_count=Subquery(games))
        .order_by("-start_date", "name", "id")
    )


def public_event_get(*, pk: int) -> Event:
    """The public event (sanctioned, or open play) of that id, with its variant; raises Event.DoesNotExist."""
    return Event.objects.select_related("variant").public().get(pk=pk)


def event_years() -> list[int]:
    """The years with public events, newest first."""
    return sorted(
        {d.year for d in Event.objects.public().dates("start_date", "year")}, reverse=True
    )


@dataclass
class Standing:
    coach: Coach
    race: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    td_for: int = 0
    td_against: int = 0
    cas_for: int = 0
    cas_against: int = 0
    counted: int = 0
    wt: float | None = None
    w_minus_we: float | None = None
    change: float | None = None  # NAF Elo: the sum of its games' changes (each kept to 0.01); else ΣRt
    rating_after: float | None = None
    race_slug: str | None = None
    position: int = 0
    without_we: int = 0  # counted games without We (KNSB depot and start rating), left out of W − We
    between: list = field(default_factory=list)  # NAF Elo: OtherEvent, games of other events amid these
    waiting: SimpleNamespace | None = None  # KNSB: the coach's games here waiting for a list, as it will rate them
    lists: list = field(default_factory=list)  # KNSB: the lists that rated the coach's counted games here


def event_standings(event: Event, system: RatingSystem) -> list[Standing]:
    """Every coach of the event with record, Wt, Σ(W − We) and rating change in `system`.

    Wt adds up the coach's counted rows of this event's games, Σ(W − We) those of them with a We.
    The change is the event's own: ΣRt of those rows, for NAF Elo the sum of its games' changes,
    each the difference of the ratings kept to 0.01. Where games of other events fall between a
    coach's first and last game here (NAF Elo), `between` names them with their change, so that
    the rating before + this change + theirs = the rating after.
    """
    standings = _event_records(event)
    spans = _add_rating_figures(standings, event, system)
    _add_waiting(standings, event, system)
    if system.method == Method.NAF_ELO:
        label = f"{EVENT_PREFIX}{event.pk}"
        after = PeriodSummary.objects.filter(system=system, period=label, rl__isnull=False)
        for coach_id, rn in after.values_list("coach_id", "rn"):
            if coach_id in standings:
                standings[coach_id].rating_after = rn
        for coach_id, between in _elo_games_between(system, spans, exclude=label).items():
            standings[coach_id].between = between
    ordered = sorted(
        standings.values(),
        key=lambda s: (-s.points, -(s.td_for - s.td_against), -(s.cas_for - s.cas_against), s.coach.name),
    )
    for position, standing in enumerate(ordered, start=1):
        standing.position = position
    return ordered


_RECORD_SUMS = ("games", "wins", "draws", "losses", "td_for", "td_against", "cas_for", "cas_against")


def _event_records(event: Event) -> dict[int, Standing]:
    """coach id -> the coach's record at the event (every race he played there, in one standing)."""
    sides = (
        GameSide.objects.filter(event=event)
        .values("coach_id", "race__name", "race__slug")
        .annotate(
            **_record_counts(),
            points=Sum("score"),
            td_for=Sum("touchdowns_for"),
            td_against=Sum("touchdowns_against"),
            cas_for=Sum("casualties_for"),
            cas_against=Sum("casualties_against"),
        )
        .order_by()
    )
    coaches = Coach.objects.in_bulk({s["coach_id"] for s in sides})
    standings: dict[int, Standing] = {}
    for s in sides:
        standing = standings.get(s["coach_id"])
        if standing is None:
            standing = standings[s["coach_id"]] = Standing(
                coach=coaches[s["coach_id"]], race=s["race__name"], race_slug=s["race__slug"]
            )
        else:
            standing.race = f"{standing.race}, {s['race__name']}"
        for name in _RECORD_SUMS:
            setattr(standing, name, getattr(standing, name) + (s[name] or 0))
        standing.points += float(s["points"] or 0)
    return standings


def _add_rating_figures(standings: dict[int, Standing], event: Event, system: RatingSystem) -> dict[tuple, list]:
    """Add each coach's Wt, Σ(W − We) and change from his counted rows of the event's games.
    Returns, for NAF Elo, each key's first and last (played_at, game_id) there."""
    rows = (
        CalculationRow.objects.filter(system=system, game__event=event, counted=True)
        .values_list("coach_id", "race_id", "variant_id", "played_at", "game_id", "w", "we", "rt", "r0", "period")
        .order_by("played_at", "game_id")
    )
    elo = system.method == Method.NAF_ELO
    knsb = system.method == Method.KNSB
    spans: dict[tuple, list] = {}
    for coach_id, race_id, variant_id, played_at, game_id, w, we, rt, r0, period in rows:
        standing = standings.get(coach_id)
        if standing is None:
            continue
        if knsb and period not in standing.lists:
            standing.lists.append(period)
        standing.counted += 1
        standing.wt = (standing.wt or 0.0) + w
        if we is None:  # W − We is per game: depot and start-rating games have no We
            standing.without_we += 1
        else:
            standing.w_minus_we = (standing.w_minus_we or 0.0) + (w - we)
        if rt is not None:
            change = naf_elo.game_change(r0, rt) if elo else rt
            standing.change = (standing.change or 0.0) + change
        if elo:
            span = spans.setdefault((coach_id, race_id, variant_id), [(played_at, game_id), None])
            span[1] = (played_at, game_id)
    return spans


def _add_waiting(standings: dict[int, Standing], event: Event, system: RatingSystem) -> None:
    """Each coach's games here waiting for a KNSB list: the list, and Wt, Σ(W − We) and ΣRt as it
    will rate them (provisional: kept apart from the stored figures)."""
    for row in waiting_rows(system, event=event):
        standing = standings.get(row.coach_id)
        if standing is None:
            continue
        waiting = standing.waiting
        if waiting is None:
            waiting = standing.waiting = SimpleNamespace(
                lists=[], games=set(), counted=0, wt=None, w_minus_we=None, change=None, list_date=None,
            )
        if row.waiting_for not in waiting.lists:
            waiting.lists = sorted([*waiting.lists, row.waiting_for])
            waiting.list_date = waiting.lists[0]
        waiting.games.add(row.game_id)
        if row.counted:
            waiting.counted += 1
            waiting.wt = (waiting.wt or 0.0) + row.w
        if row.counted and row.we is not None:
            waiting.w_minus_we = (waiting.w_minus_we or 0.0) + (row.w - row.we)
        if row.rt is not None:  # a correction's row taking the old result back has a (negative) Rt
            waiting.change = (waiting.change or 0.0) + row.rt


@dataclass
class OtherEvent:
    """Games of another event that fell between a key's first and last game of an event."""

    event_id: int | None
    name: str
    games: int = 0
    change: float = 0.0


def _elo_games_between(system: RatingSystem, spans: dict, *, exclude: str) -> dict[int, list[OtherEvent]]:
    """coach id -> the other events whose counted games fell within the coach's span of an event.

    `spans` maps a key (coach, race, variant ids) to the first and last (played_at, game_id) of
    its games in the event labelled `exclude`.
    """
    if not spans:
        return {}
    first = min(span[0][0] for span in spans.values())
    last = max(span[1][0] for span in spans.values())
    rows = (
        CalculationRow.objects.filter(
            system=system, coach_id__in={key[0] for key in spans}, counted=True, played_at__range=(first, last),
        )
        .exclude(period=exclude)
        .values_list("coach_id", "race_id", "variant_id", "played_at", "game_id", "period", "r0", "rt")
        .order_by("played_at", "game_id")
    )
    found: dict[int, dict[str, OtherEvent]] = {}
    for coach_id, race_id, variant_id, played_at, game_id, period, r0, rt in rows:
        span = spans.get((coach_id, race_id, variant_id))
        if span is None or not span[0] < (played_at, game_id) < span[1]:
            continue
        other = found.setdefault(coach_id, {}).setdefault(period, OtherEvent(_event_id(period), period))
        other.games += 1
        other.change += naf_elo.game_change(r0, rt)
    names = _event_names({o.event_id for others in found.values() for o in others.values() if o.event_id})
    out = {}
    for coach_id, others in found.items():
        for other in others.values():
            other.name = names.get(other.event_id, other.name)
        out[coach_id] = list(others.values())
    return out


def event_games(event: Event) -> list[Game]:
    """The event's games, round by round."""
    return list(
        Game.objects.filter(event=event)
        .select_related("round", "home_coach", "away_coach", "home_race", "away_race")
        .order_by("round__number", "played_at", "id")
    )


def event_awards(event: Event) -> list[Award]:
    return list(Award.objects.filter(event=event).select_related("coach", "race").order_by("category", "coach__name"))


# --- rating lists ---------------------------------------------------------------------------------


def variants_by_name() -> list[Variant]:
    """Every variant, by name: the choices of a list's variant filter."""
    return list(Variant.objects.order_by("name"))


def list_neighbours(rating_list: RatingList) -> tuple[RatingList | None, RatingList | None]:
    """The lists just before and just after this one."""
    dates = RatingList.objects.filter(system_id=rating_list.system_id)
    before = dates.filter(date__lt=rating_list.date).order_by("-date").first()
    after = dates.filter(date__gt=rating_list.date).order_by("date").first()
    return before, after


def list_entries(rating_list: RatingList, variant: Variant | None = None):
    entries = RatingListEntry.objects.filter(rating_list=rating_list).select_related("coach", "race", "variant")
    return entries.filter(variant=variant) if variant is not None else entries


def list_starters(rating_list: RatingList, variant: Variant | None = None):
    """New ratings on this list (no value on the previous one), best first."""
    return _starters(list_entries(rating_list, variant), "coach__number")


def list_movers(rating_list: RatingList, variant: Variant | None = None, *, rising: bool, limit: int = 20) -> list:
    """The largest gains (or losses) since the previous list."""
    return _movers(list_entries(rating_list, variant), "coach__number", rising=rising, limit=limit)


def list_counts(rating_list: RatingList, variant: Variant | None = None) -> dict:
    """Counts of the list (overall from the list row; per variant when one is chosen)."""
    entries = RatingListEntry.objects.filter(rating_list=rating_list)
    return _list_counts(entries.filter(variant=variant) if variant is not None else entries, rating_list, variant)


# A list's entries as computed (RatingListEntry) and as published (PublishedEntry) alike; `coach`
# is the path to the coach's number, `head` the list or publication (its totals and completeness).

def _starters(entries, coach: str):
    return entries.filter(change__isnull=True).order_by("-value", coach)


def _movers(entries, coach: str, *, rising: bool, limit: int) -> list:
    if rising:
        entries = entries.filter(change__gt=0).order_by("-change", coach)
    else:
        entries = entries.filter(change__lt=0).order_by("change", coach)
    return list(entries[:limit])


def _list_counts(entries, head, variant: Variant | None) -> dict:
    if variant is None:
        changed = entries.filter(change__isnull=False).exclude(change=0).count()
        return {"rated": head.rated, "ranked": head.ranked, "starters": head.starters, "changed": changed}
    counts = entries.aggregate(
        rated=Count("id"),
        ranked=Count("id", filter=Q(rank__isnull=False)),
        starters=Count("id", filter=Q(change__isnull=True)),
        changed=Count("id", filter=Q(change__isnull=False) & ~Q(change=0)),
    )
    if not head.complete:  # only the month's movements are stored: no per-variant totals
        counts.update(rated=None, ranked=None)
    return counts


# --- about the ratings ----------------------------------------------------------------------------


def idle_periods_until_unranked(config, phi: float, sigma: float | None = None) -> int:
    """How many idle periods until φ rises above the inactive limit (0: already unranked)."""
    sigma = config.sigma0 if sigma is None else sigma
    limit = config.inactive_phi
    if phi > limit:
        return 0
    step = glicko.decay_step(sigma)
    if config.decay_cap <= limit:
        return -1  # never: the cap keeps φ within the limit
    periods = int((limit * limit - phi * phi) // step) + 1
    while glicko.decay(glicko.GlickoRating(0.0, phi, sigma), periods=periods - 1, phi_cap=config.decay_cap).phi > limit:
        periods -= 1
    return periods


def period_name(config) -> str:
    return {"month": "month", "two_weeks": "two-week period", "event": "event"}[config.period]


# --- revisions of a published list -----------------------------------------------------------------


@dataclass
class Revision:
    """One key whose figures the live recomputation gives otherwise than its list as published."""

    coach_number: int
    coach_name: str
    race: str
    variant: str
    published: float | None  # None: not on the list as published
    revised: float | None  # None: no longer on the list

    @property
    def difference(self) -> float | None:
        return None if self.published is None or self.revised is None else self.revised - self.published


@dataclass
class Revisions:
    """How the live recomputation of a published list differs from it, and why."""

    rows: list[Revision]
    total: int
    reasons: list[str]


def _computed_now(publication: Publication, numbers: set[int] | None = None) -> dict[tuple, tuple]:
    """The list of the publication's date as computed now (of those coaches, if given): by (coach
    number, race slug, variant slug), its coach, race and variant names and value."""
    entries = RatingListEntry.objects.filter(
        system_id=publication.system_id, rating_list__system_id=publication.system_id, rating_list__date=publication.date,
    )
    if numbers is not None:
        entries = entries.filter(coach__number__in=numbers)
    return {
        (number, race or "", variant): (name, race_name, variant_name, value)
        for number, name, race, race_name, variant, variant_name, value in entries.values_list(
            "coach__number", "coach__name", "race__slug", "race__name", "variant__slug", "variant__name", "value",
        )
    }


def revised_values(publication: Publication, entries) -> dict[tuple, float | None]:
    """The value each of these published entries has on the list as computed now, by (coach number,
    race slug, variant slug); None: no longer on it."""
    now = _computed_now(publication, {e.coach_number for e in entries})
    keys = [(e.coach_number, e.race_slug, e.variant_slug) for e in entries]
    return {key: now[key][3] if key in now else None for key in keys}


def publication_revisions(publication: Publication, *, places: int, limit: int = 50) -> Revisions:
    """Where the list as computed now (RatingListEntry) differs from the list as published, at the
    precision the list shows (`places`), the largest differences first; and the changes to the record
    reported since its publication that reach back before its date."""
    published = {
        (number, race, variant): (name, race_name, variant_name, value)
        for number, name, race, race_name, variant, variant_name, value in PublishedEntry.objects.filter(publication=publication)
        .values_list("coach_number", "coach_name", "race_slug", "race_name", "variant_slug", "variant_name", "value")
    }
    computed = _computed_now(publication)
    rows = []
    for key in published.keys() | computed.keys():
        was, now = published.get(key), computed.get(key)
        before, after = (was[3] if was else None), (now[3] if now else None)
        if before is not None and after is not None and fixed(before, places) == fixed(after, places):
            continue  # the same as the list shows it (the site's one rounding)
        name, race, variant, _ = was or now
        rows.append(Revision(key[0], name, race or "", variant, before, after))
    rows.sort(key=lambda r: (-abs((r.revised or 0) - (r.published or 0)), r.coach_number, r.race, r.variant))
    return Revisions(rows=rows[:limit], total=len(rows), reasons=_revision_reasons(publication) if rows else [])


def _revision_reasons(publication: Publication) -> list[str]:
    """The changes reported after a list's publication that reach back before its date, oldest first.
    A game carries the day it was reported: one of the publication's own day may have come after it."""
    after = publication.published_at
    reasons: list[tuple] = []
    late = (
        Game.objects.filter(event__status=EventStatus.SANCTIONED, played_at__date__lt=publication.date,
                            reported_on__gte=after.date())
        .values("event_id", "event__name").annotate(games=Count("id"), reported=Max("reported_on"))
    )
    firsts = dict(
        Game.objects.filter(event_id__in=[row["event_id"] for row in late]).values("event_id")
        .annotate(first=Min("reported_on")).values_list("event_id", "first")
    )
    for row in late:
        games = f"{row['games']} game{'s' if row['games'] > 1 else ''}"
        if firsts.get(row["event_id"]) and firsts[row["event_id"]] >= after.date():
            reasons.append((row["reported"], f"{row['event__name']}: reported {row['reported']:%Y-%m-%d}, after this list ({games})"))
        else:
            reasons.append((row["reported"], f"{row['event__name']}: {games} corrected on {row['reported']:%Y-%m-%d}"))
    for record in AuditRecord.objects.filter(
        at__gt=after, action__in=[Action.COACH_MERGE, Action.EVENT_REJECT, Action.RATING_SYSTEM_UPDATE],
    ).order_by("at"):
        if record.action == Action.RATING_SYSTEM_UPDATE and record.rating_system_id != publication.system_id:
            continue
        if record.action == Action.EVENT_REJECT and (record.before or {}).get("status") != EventStatus.SANCTIONED:
            continue
        reasons.append((record.at.date(), f"{record.get_action_display().capitalize()}: {record.object_repr} ({record.at:%Y-%m-%d})"))
    return [text for _, text in sorted(reasons, key=lambda r: r[0])]
