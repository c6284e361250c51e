"""Reads for the statistics pages. Every aggregate is a GROUP BY in the database, over the summary
tables where one serves (see stats.models) and over a handful of coaches' game sides where not."""
from array import array
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from decimal import Decimal

from django.core.cache import cache
from django.db.models import Avg, Case, Count, F, FloatField, Q, QuerySet, Sum, Value, When, prefetch_related_objects
from django.db.models.functions import Cast

from ratingsite import formatting
from tournaments.models import Award, Coach, Game, GameSide, Race, Variant, public_q

from .filters import RACES_ALL, Filters
from .geo import COUNTRY_POINTS
from .models import CoachRaceSummary, CoachSummary, EventSummary, RaceMatchupSummary, SummaryRefresh
from .ordering import game_order

LEGEND_RACES = 24
TOP = 10
MOST_COUNTRIES = 25
HEAD_TO_HEAD_MAX = 8


def win_ratio(wins="wins", draws="draws", games="games"):
    """(wins + draws / 2) / games as a database expression (0 when there are no games)."""
    return Case(
        When(**{f"{games}__gt": 0}, then=Cast(F(wins) * 2 + F(draws), FloatField()) / Cast(F(games) * 2, FloatField())),
        default=Value(0.0),
        output_field=FloatField(),
    )


def _totals(**extra) -> dict:
    return {"games": Sum("games"), "wins": Sum("wins"), "draws": Sum("draws"), "losses": Sum("losses"), **extra}


def _side_totals() -> dict:
    return {
        "games": Count("id"),
        "wins": Count("id", filter=Q(score=1)),
        "draws": Count("id", filter=Q(score=Decimal("0.5"))),
        "losses": Count("id", filter=Q(score=0)),
    }


def _coach_sides(filters: Filters) -> QuerySet:
    """The sides (with an opponent) of the filtered coach, for the pages a coach narrows to a few rows."""
    return GameSide.objects.filter(filters.event_q(), coach=filters.coach, opponent__isnull=False).order_by()


def event_totals() -> dict:
    """The games and events the summaries count: {"games": ..., "events": ...}."""
    return EventSummary.objects.aggregate(games=Sum("games"), events=Count("id"))


def rank_subjects(*, race_slug: str | None, variant_slug: str) -> tuple[Race | None, Variant]:
    """The race (None for a system rated across races) and variant a rank history is kept for."""
    return (Race.objects.get(slug=race_slug) if race_slug else None), Variant.objects.get(slug=variant_slug)


def last_refresh() -> SummaryRefresh | None:
    return SummaryRefresh.objects.order_by("-finished_at", "-id").first()


# Games explorer

GAME_RELATIONS = ("event__variant", "home_coach", "away_coach", "home_race", "away_race")


def games_list(queryset: QuerySet | None = None, *, few: bool = False) -> QuerySet:
    """Every game of a public event with an opponent, newest first. What the explorer shows of its event, coaches and
    races is fetched for one page at a time (`games_relations`), not joined into the sort."""
    queryset = Game.objects.all() if queryset is None else queryset
    return queryset.filter(public_q("event__"), away_coach__isnull=False).order_by(*game_order(descending=True, few=few))


def games_relations(games: list[Game]) -> list[Game]:
    prefetch_related_objects(games, *GAME_RELATIONS)
    return games


def games_count(filters: Filters) -> int | None:
    """How many games the explorer lists, summed from the summaries when its filters allow (else None)."""
    if filters.event is not None or filters.nationality or (filters.coach is not None and filters.race is not None):
        return None
    if filters.coach is not None:
        return CoachSummary.objects.filter(filters.slice_q()).aggregate(n=Sum("games"))["n"] or 0
    if filters.race is None:
        return EventSummary.objects.filter(filters.slice_q(rolled_up=False)).aggregate(n=Sum("games"))["n"] or 0
    # Each game is two rows of the matchup summary; a mirror match puts both in the (race, race) row.
    counts = RaceMatchupSummary.objects.filter(filters.slice_q()).aggregate(
        sides=Sum("games"), mirror=Sum("games", filter=Q(opponent_race=filters.race))
    )
    return (counts["sides"] or 0) - (counts["mirror"] or 0) // 2


# Win ratios

def race_records(filters: Filters) -> QuerySet:
    """Per race: games, wins, draws, losses and win ratio, most games first."""
    if filters.coach is not None:
        rows = CoachRaceSummary.objects.filter(filters.slice_q(), filters.race_scope_q())
    else:
        rows = RaceMatchupSummary.objects.filter(filters.slice_q(), filters.race_scope_q())
    return (
        rows.values("race__slug", "race__name").order_by()
        .annotate(**_totals()).annotate(ratio=win_ratio())
        .order_by("-games", "race__name")
    )


def coach_records(filters: Filters, *, min_games: int = 0) -> QuerySet:
    """Per coach: games, wins, draws, losses and win ratio, most games first (with a race: with that race)."""
    source = CoachRaceSummary if filters.race is not None else CoachSummary
    rows = source.objects.filter(filters.slice_q()).values("coach").order_by().annotate(**_totals()).annotate(ratio=win_ratio())
    if min_games:
        rows = rows.filter(games__gte=min_games)
    return rows.order_by("-games", "coach")


# Race grid

@dataclass(frozen=True)
class Cell:
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def ratio(self) -> float:
        return (2 * self.wins + self.draws) / (2 * self.games) if self.games else 0.0


@dataclass(frozen=True)
class Grid:
    races: list[Race]
    opponents: list[Race]
    cells: Mapping[tuple[int, int], Cell]
    every_race: list[Race]  # the CSV's columns, the same whatever the filters

    def rows(self):
        """(race, [(opponent race, cell or None), ...]) for each row race."""
        for race in self.races:
            yield race, [(opponent, self.cells.get((race.pk, opponent.pk))) for opponent in self.opponents]

    def csv_rows(self):
        """The grid as the CSV export writes it: per race, met under the filters or not, the win % and the games."""
        yield ["Race", *(f"{o.name} {what}" for o in self.every_race for what in ("win %", "games"))]
        for race in self.races:
            cells = [self.cells.get((race.pk, opponent.pk)) for opponent in self.every_race]
            yield [race.name, *(value for cell in cells for value in ((_percent(cell.ratio), cell.games) if cell else ("", "")))]


def race_matchups(filters: Filters) -> QuerySet:
    """Per pair of races: the row race's games, wins, draws, losses and win ratio against the other."""
    if filters.coach is not None:
        rows = _coach_sides(filters).filter(filters.race_scope_q("race", "opponent_race"))
        if filters.race is not None:
            rows = rows.filter(race=filters.race)
        rows = rows.values("race__slug", "race__name", "opponent_race__slug", "opponent_race__name").annotate(**_side_totals())
    else:
        rows = (
            RaceMatchupSummary.objects.filter(filters.slice_q(), filters.race_scope_q("race", "opponent_race"))
            .values("race__slug", "race__name", "opponent_race__slug", "opponent_race__name").order_by()
            .annotate(**_totals())
        )
    return rows.annotate(ratio=win_ratio()).order_by("race__name", "opponent_race__name")


def race_grid(rows, filters: Filters | None = None) -> Grid:
    """Each race against each other race, from the rows of `race_matchups` (the CSV's columns: every
    race in the filters' scope, ranked ones by default)."""
    scope = Race.objects.filter(ranked=True) if (filters or Filters()).ranked_only else Race.objects.all()
    races = {race.slug: race for race in scope}
    cells = {}
    row_races, opponents = set(), set()
    for row in rows:
        race, opponent = races[row["race__slug"]], races[row["opponent_race__slug"]]
        cells[race.pk, opponent.pk] = Cell(row["games"], row["wins"], row["draws"], row["losses"])
        row_races.add(race)
        opponents.add(opponent)
    by_name = lambda race: race.name  # noqa: E731
    return Grid(sorted(row_races, key=by_name), sorted(opponents, key=by_name), cells, sorted(races.values(), key=by_name))


# The race grid kept per statistics refresh: with every race and roster (hundreds) it adds up some
# hundred thousand summary rows, seconds a request; built once by the refresh, each page reads it.
GRID_TIMEOUT = 7 * 24 * 3600  # a refresh's grid is never read after the next refresh: this only frees memory


def race_grid_kept(filters: Filters) -> Grid:
    """The race grid of the filters as of the last statistics refresh, built on its first request
    (or by the refresh, for the unfiltered grids) and read from the cache until the next refresh.
    A coach's grid counts his few games at once."""
    refresh = last_refresh()
    if filters.coach is not None or refresh is None:
        return race_grid(race_matchups(filters), filters)
    key = f"stats:race-grid:{refresh.pk}:{refresh.finished_at.isoformat()}:{_filters_key(filters)}"
    grid = cache.get(key)
    if grid is None:
        grid = race_grid(race_matchups(filters), filters)
        grid = replace(grid, cells=PackedCells(grid.cells))
        cache.set(key, grid, GRID_TIMEOUT)
    return grid


class PackedCells(Mapping):
    """A grid's cells as one array of four counts per pair of races played (a read: a fraction of
    a second for hundreds of races, where a dict of Cell took 0.8 s to unpickle)."""

    def __init__(self, cells: dict[tuple[int, int], Cell]):
        self.positions = {pk: n for n, pk in enumerate(sorted({pk for pair in cells for pk in pair}))}
        size = len(self.positions)
        self.counts = array("I", bytes(array("I").itemsize * 4 * size * size))
        for (race, opponent), cell in cells.items():
            at = 4 * (self.positions[race] * size + self.positions[opponent])
            self.counts[at:at + 4] = array("I", (cell.games, cell.wins, cell.draws, cell.losses))

    def _at(self, key) -> int | None:
        race, opponent = (self.positions.get(pk) for pk in key)
        if race is None or opponent is None:
            return None
        at = 4 * (race * len(self.positions) + opponent)
        return at if self.counts[at] else None

    def __getitem__(self, key) -> Cell:
        at = self._at(key)
        if at is None:
            raise KeyError(key)
        return Cell(*self.counts[at:at + 4])

    def __iter__(self):
        return (key for key in ((race, opponent) for race in self.positions for opponent in self.positions) if self._at(key) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def race_grids_build() -> None:
    """Build the unfiltered race grids (ranked races, every race) of the last refresh into the cache."""
    for races in ("", RACES_ALL):
        race_grid_kept(Filters(races=races))


def _filters_key(filters: Filters) -> str:
    return "|".join(
        str(value.pk if hasattr(value, "pk") else value) for value in (getattr(filters, f.name) for f in fields(filters))
    )


def _percent(ratio: float) -> str:
    return formatting.percent(ratio)


# Head-to-head

def head_to_head(coaches: list[Coach], filters: Filters) -> dict[tuple[int, int], Cell]:
    """(coach id, opponent id) -> the coach's wins, draws and losses against that opponent."""
    ids = [coach.pk for coach in coaches]
    rows = (
        GameSide.objects.filter(filters.event_q(), coach__in=ids, opponent__in=ids).order_by()
        .values("coach", "opponent").annotate(**_side_totals())
    )
    return {(r["coach"], r["opponent"]): Cell(r["games"], r["wins"], r["draws"], r["losses"]) for r in rows}


def head_to_head_games(coaches: list[Coach], filters: Filters) -> QuerySet:
    """The games between the chosen coaches, sorted as a few games (see game_order)."""
    ids = [coach.pk for coach in coaches]
    return games_list(Game.objects.filter(filters.event_q(), home_coach__in=ids, away_coach__in=ids), few=True)


# Differentials

def differentials(filters: Filters) -> list[dict]:
    """Per race the coach played: his record and win ratio, the race's average and the difference."""
    mine = list(
        CoachRaceSummary.objects.filter(filters.slice_q(race=False), filters.race_scope_q())
        .values("race", "race__slug", "race__name").order_by()
        .annotate(**_totals()).annotate(ratio=win_ratio())
        .order_by("-games", "race__name")
    )
    averages = {
        row["race"]: row["ratio"]
        for row in RaceMatchupSummary.objects.filter(
            Filters(variant=filters.variant, country=filters.country, year=filters.year, sanctioned=filters.sanctioned).slice_q(),
            race__in=[row["race"] for row in mine],
        ).values("race").order_by().annotate(**_totals()).annotate(ratio=win_ratio())
    }
    for row in mine:
        row["average"] = averages.get(row["race"], 0.0)
        row["differential"] = row["ratio"] - row["average"]
    return mine


# Top-10 lists and legends: added up per coach id, the coaches' names fetched for the few rows shown.

def with_coach_names(*row_lists) -> list[dict] | tuple[list[dict], ...]:
    """The rows (lists of dicts with a coach id) with each coach's number, name and nationality, in one query."""
    lists = [list(rows) for rows in row_lists]
    coaches = Coach.objects.in_bulk([row["coach"] for rows in lists for row in rows])
    for row in (row for rows in lists for row in rows):
        coach = coaches[row["coach"]]
        nationality = coach.nationality.code if coach.public_details_shown else ""  # a hidden coach: his label only
        row.update(coach__number=coach.number, coach__public_name=coach.public_name, coach__nationality=nationality)
    return lists[0] if len(lists) == 1 else tuple(lists)


def top_lists(filters: Filters, limit: int = TOP) -> dict[str, list[dict]]:
    """The four top lists, named with one query for all their coaches."""
    per_coach = _per_coach(CoachSummary, filters)
    lists = {
        "games": per_coach.annotate(games=Sum("games")).order_by("-games", "coach")[:limit],
        "race": (
            _per_coach(CoachRaceSummary, filters).filter(filters.race_scope_q()).values("coach", "race__slug", "race__name")
            .annotate(games=Sum("games")).order_by("-games", "coach", "race__name")[:limit]
        ),
        "events": per_coach.annotate(events=Sum("events"), games=Sum("games")).order_by("-events", "-games", "coach")[:limit],
        "races": races_played(filters).order_by("-races", "-games", "coach")[:limit],
    }
    return dict(zip(lists, with_coach_names(*lists.values())))


def _per_coach(model, filters: Filters):
    return model.objects.filter(filters.slice_q(race=False, coach=False)).order_by().values("coach")


def races_played(filters: Filters) -> QuerySet:
    """Per coach id: how many different races he played (ranked ones, unless every race was asked
    for), and his games with them."""
    rows = _per_coach(CoachRaceSummary, filters).filter(filters.race_scope_q())
    return rows.annotate(races=Count("race", distinct=True), games=Sum("games"))


def legends_by_races(filters: Filters, threshold: int = LEGEND_RACES) -> list[dict]:
    return with_coach_names(races_played(filters).filter(races__gte=threshold).order_by("-races", "-games", "coach"))


def legends_by_countries(filters: Filters, limit: int = MOST_COUNTRIES) -> list[dict]:
    """The coaches who played in the most countries (events without a country do not count).

    Read from the roll-up over countries, whose `countries` column is the distinct count.
    """
    over_countries = Filters(variant=filters.variant, sanctioned=filters.sanctioned, nationality=filters.nationality)
    rows = _per_coach(CoachSummary, over_countries).annotate(countries=Sum("countries"), games=Sum("games"))
    return with_coach_names(rows.filter(countries__gt=0).order_by("-countries", "-games", "coach")[:limit])


# Awards

def awards(filters: Filters) -> QuerySet:
    rows = Award.objects.filter(filters.event_q())
    if filters.coach is not None:
        rows = rows.filter(coach=filters.coach)
    return rows.select_related("event", "coach", "race").order_by("-event__start_date", "event__name", "category", "coach__number")


def awards_per_coach(filters: Filters) -> QuerySet:
    """Per coach id (names: `with_coach_names`): awards and the events they came from, most first."""
    return (
        awards(filters).values("coach").order_by()
        .annotate(awards=Count("id"), events=Count("event", distinct=True))
        .order_by("-awards", "coach")
    )


def awards_per_category(filters: Filters) -> QuerySet:
    return awards(filters).values("category").order_by().annotate(awards=Count("id")).order_by("-awards", "category")


# Map

@dataclass
class Place:
    country: str
    city: str
    events: int
    games: int
    latitude: float | None
    longitude: float | None
    placed_by: str  # "event" (the events' coordinates), "country" (the country's centre) or "" (not placed)


def places(filters: Filters) -> list[Place]:
    """Where games are played: per city and country, the events, games and a point, most games first."""
    rows = (
        EventSummary.objects.filter(filters.slice_q(race=False, coach=False, rolled_up=False))
        .values("event__country", "event__city").order_by()
        .annotate(
            events=Count("id"), games=Sum("games"),
            latitude=Avg("event__latitude", output_field=FloatField()),
            longitude=Avg("event__longitude", output_field=FloatField()),
        )
        .order_by("-games", "event__country", "event__city")
    )
    result = []
    for row in rows:
        latitude, longitude, placed_by = row["latitude"], row["longitude"], "event"
        if latitude is None or longitude is None:
            latitude, longitude = COUNTRY_POINTS.get(row["event__country"], (None, None))
            placed_by = "country" if latitude is not None else ""
        result.append(Place(row["event__country"], row["event__city"], row["events"], row["games"], latitude, longitude, placed_by))
    return result
