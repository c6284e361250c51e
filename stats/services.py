"""Writes of the statistics app: rebuilding the summary tables from the federation's record, and
the outbox of the refresh messages."""
import datetime as dt
import time

from celery import signature
from django.db import connection, transaction
from django.db.models import BooleanField, Case, Count, F, Max, Q, QuerySet, Sum, Value, When
from django.db.models.functions import ExtractYear
from django.utils import timezone

from ratingsite.broker import SETTLED, owed_again, sent, sent_later
from tournaments.models import EventStatus, Game, GameSide, public_q

from .models import (
    ROLL_UPS,
    SLICE,
    CoachRaceSummary,
    CoachSummary,
    EventSummary,
    RaceMatchupSummary,
    SummaryRefresh,
    SummaryRefreshRequest,
)
from .selectors import race_grids_build

REFRESH_TASK = "stats.tasks.refresh_summaries"


def summaries_request() -> SummaryRefreshRequest:
    """The record changed: the summary tables are owed a refresh, recorded with the change and sent
    once it commits (a broker outage leaves it owed, for the dispatcher)."""
    owed = SummaryRefreshRequest.objects.create()
    transaction.on_commit(summaries_enqueue)
    return owed


def summaries_enqueue() -> bool:
    """Send one refresh for every request still owed its message; whether one went out."""
    owed = list(SummaryRefreshRequest.objects.filter(enqueued_at=None).values_list("pk", flat=True))
    if not owed:
        return False
    message, what = signature(REFRESH_TASK), f"statistics refresh requests {owed}"
    # without a broker, in a web request: after the response, as the runs go (it takes seconds on the demo)
    if not sent_later(message, owed=what) and not sent(message, owed=what):
        return False
    SummaryRefreshRequest.objects.filter(pk__in=owed, enqueued_at=None).update(enqueued_at=timezone.now())
    return True


def summaries_dispatch(*, settled: dt.timedelta = SETTLED) -> bool:
    """Send the refresh a broker outage kept back, once owed for `settled` (a younger request's
    transaction may still be committing, and sends its own message when it does), or the broker lost."""
    owed_again(SummaryRefreshRequest.objects.all(), what="statistics refresh requests")
    if SummaryRefreshRequest.objects.filter(enqueued_at=None, created_at__lt=timezone.now() - settled).exists():
        return summaries_enqueue()
    return False


def _slice_of(prefix: str) -> dict:
    """The slice columns of a row reached through its event (`prefix` is the path to the event)."""
    return {
        "s_variant": F(f"{prefix}variant"),
        "s_country": F(f"{prefix}country"),
        "s_year": ExtractYear(f"{prefix}start_date"),
        "s_sanctioned": Case(
            When(**{f"{prefix}status": EventStatus.SANCTIONED}, then=Value(True)),
            default=Value(False),
            output_field=BooleanField(),
        ),
    }


def _record() -> dict:
    return {
        "s_games": Count("id"),
        "s_wins": Count("id", filter=Q(score=1)),
        "s_draws": Count("id", filter=Q(score=0.5)),
        "s_losses": Count("id", filter=Q(score=0)),
    }


def _insert_select(model, queryset: QuerySet, columns: list[str]) -> None:
    """INSERT INTO the model's table the rows of a grouped queryset, in one statement in the database.

    `columns` are model field names; the queryset names each one `s_<field>`.
    """
    sql, params = queryset.query.sql_with_params()
    quote = connection.ops.quote_name
    targets = ", ".join(quote(model._meta.get_field(name).column) for name in columns)
    sources = ", ".join(quote(f"s_{name}") for name in columns)
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {quote(model._meta.db_table)} ({targets}) SELECT {sources} FROM ({sql}) sub", params)


RECORD = ("games", "wins", "draws", "losses")


def _roll_up(model, keys: list[str], totals: tuple[str, ...]) -> None:
    """Add the roll-up rows: for each combination in ROLL_UPS, the sums over all values (NULL) of the other columns.

    Sums are exact because an event lies in exactly one slice (so even events add up).
    """
    base = model.objects.filter(**{f"{column}__isnull": False for column in SLICE}).order_by()
    for kept in ROLL_UPS:
        kept = [column for column in SLICE if column in kept]
        sums = {f"s_{name}": Sum(name) for name in totals}
        if "countries" in totals and "country" not in kept:
            sums["s_countries"] = Count("country", distinct=True, filter=~Q(country=""))
        rows = base.values(**{f"s_{name}": F(name) for name in (*keys, *kept)}).annotate(**sums)
        _insert_select(model, rows, [*keys, *kept, *totals])


def _played_sides() -> QuerySet:
    """Every coach's side of every game of a public event with an opponent (byes are not games for statistics)."""
    return GameSide.objects.filter(public_q("event__"), opponent__isnull=False).order_by()


REFRESH_LOCK = 72_615  # the advisory lock a statistics refresh holds until it commits


SUMMARIES = (EventSummary, RaceMatchupSummary, CoachSummary, CoachRaceSummary)


def summaries_refresh() -> SummaryRefresh:
    """Rebuild every summary table from the games as they are now; readers see the old figures until
    the new ones commit, all at once.

    Call it after anything changes games or events: a recalculation run, an import, a merge.
    On SQLite, outside a transaction, the tables are built beside the stored ones and the database's
    one write lock is held only to copy them in (_refresh_beside).
    """
    started = time.perf_counter()
    if connection.vendor == "sqlite" and not connection.in_atomic_block:
        return _refresh_beside(started)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # one refresh at a time: a second one's DELETE would miss the first's uncommitted rows, and
            # its inserts then collide with them at commit
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [REFRESH_LOCK])
        counted = _counted()
        _build()
        return _recorded(counted, started)


def _counted() -> int | None:
    """The last refresh request committed by now: its change is committed too, so the refresh counts it."""
    return SummaryRefreshRequest.objects.aggregate(last=Max("pk"))["last"]


def _refresh_beside(started: float) -> SummaryRefresh:
    """SQLite has one writer at a time, and a refresh takes seconds (5 to 31 s on the demo): built in
    one transaction it held every request's write up that long. Here it is built in temporary
    tables of this connection named as the summary tables (SQLite finds a name in "temp" before
    "main"), which reads the record and writes no shared table, so takes no lock; the write lock is
    held only to copy them in. A change that commits during the build is owed its own refresh."""
    quote = connection.ops.quote_name
    tables = [quote(model._meta.db_table) for model in SUMMARIES]
    counted = _counted()
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"CREATE TEMP TABLE {table} AS SELECT * FROM main.{table} WHERE 0")
    try:
        _build()
        with transaction.atomic(), connection.cursor() as cursor:
            for table in tables:
                cursor.execute(f"DELETE FROM main.{table}")
                cursor.execute(f"INSERT INTO main.{table} SELECT * FROM temp.{table}")
            return _recorded(counted, started)
    finally:
        with connection.cursor() as cursor:
            for table in tables:
                cursor.execute(f"DROP TABLE IF EXISTS temp.{table}")


def _build() -> None:
    """Empty the summary tables and fill them from the games, roll-ups included."""
    for model in SUMMARIES:
        model.objects.all().delete()
    record_columns = [*SLICE, "games", "wins", "draws", "losses"]

    events = (
        Game.objects.filter(public_q("event__"), away_coach__isnull=False).order_by()
        .values(s_event=F("event"), **_slice_of("event__"))
        .annotate(s_games=Count("id"))
    )
    _insert_select(EventSummary, events, ["event", *SLICE, "games"])

    matchups = (
        _played_sides()
        .values(s_race=F("race"), s_opponent_race=F("opponent_race"), **_slice_of("event__"))
        .annotate(**_record())
    )
    _insert_select(RaceMatchupSummary, matchups, ["race", "opponent_race", *record_columns])

    coaches = (
        _played_sides()
        .values(s_coach=F("coach"), **_slice_of("event__"))
        .annotate(**_record(), s_events=Count("event", distinct=True), s_countries=Count(
            "event__country", distinct=True, filter=~Q(event__country="")
        ))
    )
    _insert_select(CoachSummary, coaches, ["coach", *record_columns, "events", "countries"])

    coach_races = (
        _played_sides()
        .values(s_coach=F("coach"), s_race=F("race"), **_slice_of("event__"))
        .annotate(**_record())
    )
    _insert_select(CoachRaceSummary, coach_races, ["coach", "race", *record_columns])

    for model, keys, totals in (
        (RaceMatchupSummary, ["race", "opponent_race"], RECORD),
        (CoachSummary, ["coach"], (*RECORD, "events", "countries")),
        (CoachRaceSummary, ["coach", "race"], RECORD),
    ):
        _roll_up(model, keys, totals)


def _recorded(counted: int | None, started: float) -> SummaryRefresh:
    """The refresh's own record, last, and the requests it counted answered."""
    games = EventSummary.objects.aggregate(total=Sum("games"))["total"] or 0
    if counted is not None:
        SummaryRefreshRequest.objects.filter(pk__lte=counted).delete()
    refresh = SummaryRefresh.objects.create(
        finished_at=timezone.now(), games=games, duration=time.perf_counter() - started
    )
    # the grid of every race and roster takes seconds to add up: built here once, read by the pages
    transaction.on_commit(race_grids_build, robust=True)  # a failed build leaves it to the first page
    return refresh
