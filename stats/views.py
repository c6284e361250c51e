"""The statistics pages: parse the query string, call the selectors, render a page or its CSV.

Every filter lives in the query string, so the address of a page is its share link. Empty parameters
are dropped with a redirect, coaches typed by name become federation numbers the same way, and a
tampered value gets a message (status 400), never an error page.
"""
from dataclasses import replace
from functools import wraps
from urllib.parse import urlencode

from csp.decorators import csp_update
from django.core.paginator import Paginator
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_tables2 import RequestConfig

from ratings import selectors as ratings_selectors
from ratingsite import charts, formatting
from ratingsite.page_cache import cached_page, table_parameters

from . import selectors
from .export import EXPORT_MAX_ROWS, csv_response, rows_csv_response
from .filters import Filters, StatsFilter
from .forms import HeadToHeadForm, RankOverTimeForm
from .tables import (
    AwardCategoryTable,
    AwardCoachTable,
    AwardTable,
    CoachRecordTable,
    DifferentialTable,
    GamesTable,
    HeadToHeadTable,
    LegendCountriesTable,
    LegendRacesTable,
    PlaceTable,
    RaceRecordTable,
    RankHistoryTable,
    TopEventsTable,
    TopGamesTable,
    TopRacesTable,
    TopRaceTable,
)

GAME_FILTERS = ("variant", "country", "year", "race", "coach", "sanctioned", "races")
EXPORT_PARAMS = {"_export", "_table"}
# what each page reads of the query string beside its tables' paging (ratingsite.page_cache drops the rest)
WIN_RATIO_FILTERS = (*GAME_FILTERS, "min_games")
HEAD_TO_HEAD_FILTERS = ("variant", "year", "sanctioned")
DIFFERENTIAL_FILTERS = ("coach", "variant", "country", "year", "sanctioned", "races")
TOP_FILTERS = ("variant", "country", "nationality", "year", "sanctioned", "races")
AWARD_FILTERS = ("variant", "country", "year", "coach")
LEGEND_FILTERS = ("variant", "sanctioned", "races")
MAP_FILTERS = ("variant", "year", "sanctioned")
PER_PAGE = 50
# races per page on either side of a race grid larger than that (every race and roster: hundreds,
# whose whole grid was 22 MB of HTML): the row races by `page`, the column races by `against_page`
GRID_PAGE = 40
GRID_PAGES = ("page", "against_page")

PAGES = [
    ("stats_games", gettext_lazy("Games"), gettext_lazy("Every recorded game, by variant, country, year, race, coach or event.")),
    ("stats_win_ratios", gettext_lazy("Win ratios"), gettext_lazy("Wins, draws and losses, and the win ratio, per race and per coach.")),
    ("stats_race_grid", gettext_lazy("Race grid"), gettext_lazy("Each race against each other race.")),
    ("stats_rank_over_time", gettext_lazy("Rank over time"), gettext_lazy("A coach's rank and rating with a race, month by month.")),
    ("stats_head_to_head", gettext_lazy("Head-to-head"), gettext_lazy("Up to eight coaches' results against each other.")),
    ("stats_differentials", gettext_lazy("Differentials"), gettext_lazy("A coach's win ratio with each race against that race's average.")),
    ("stats_top", gettext_lazy("Top 10s"), gettext_lazy("Most games, most games with one race, most events, most races.")),
    ("stats_awards", gettext_lazy("Awards"), gettext_lazy("Awards per event, per coach and per category.")),
    ("stats_legends", gettext_lazy("Legends"), gettext_lazy("Coaches with 24 races or more, and those who played in the most countries.")),
    ("stats_map", gettext_lazy("Map"), gettext_lazy("Where games are played.")),
]


def canonical_query(view):
    """Redirect to the same address without empty parameters, so shared links stay short."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        items = [(key, value) for key, values in request.GET.lists() for value in values]
        kept = [(key, value) for key, value in items if value.strip()]
        if len(kept) != len(items):
            return HttpResponseRedirect(f"{request.path}?{urlencode(kept)}" if kept else request.path)
        return view(request, *args, **kwargs)

    return wrapper


def _page(request, template: str, context: dict):
    query = [(key, value) for key, values in request.GET.lists() for value in values if key not in EXPORT_PARAMS]
    context.setdefault("errors", [])
    context.update(
        pages=[(reverse(name), label, text, request.resolver_match.url_name == name) for name, label, text in PAGES],
        share_url=request.build_absolute_uri(f"{request.path}?{urlencode(query)}" if query else request.path),
        refreshed=selectors.last_refresh(),
    )
    return render(request, template, context, status=400 if context["errors"] else 200)


def _filters(request, names: tuple[str, ...], **kwargs) -> tuple[StatsFilter, Filters | None]:
    filterset = StatsFilter(request.GET, names=names, **kwargs)
    return filterset, (filterset.value() if filterset.is_valid() else None)


def _export(request, tables: dict, filename: str):
    """The CSV of the table named by _table (the first one by default), or None when no export is asked."""
    if request.GET.get("_export") != "csv":
        return None
    name = request.GET.get("_table") or next(iter(tables))
    table = tables.get(name)
    if table is None:
        return None
    RequestConfig(request, paginate=False).configure(table)
    return csv_response(table, f"{filename}-{name}" if len(tables) > 1 else filename)


class CountedPaginator(Paginator):
    """A paginator told its count (from the summaries) instead of counting a million games."""

    def __init__(self, object_list, per_page, *args, count: int | None = None, **kwargs):
        super().__init__(object_list, per_page, *args, **kwargs)
        if count is not None:
            self.__dict__["count"] = count


class _WithoutPageSize:
    """The request as django-tables2 reads it, minus the page size: a page is never longer than ours."""

    def __init__(self, request, table):
        self.GET = request.GET.copy()
        self.GET.pop(table.prefixed_per_page_field, None)


def _paginate(request, table, per_page: int = PER_PAGE, *, count: int | None = None):
    paginate = {"per_page": per_page, "paginator_class": CountedPaginator, "count": count}
    RequestConfig(_WithoutPageSize(request, table), paginate=paginate).configure(table)
    table.request = request
    return table


@cached_page
def index(request):
    return _page(request, "stats/index.html", {"title": _("Statistics"), "totals": selectors.event_totals()})


@cached_page(reads=(*GAME_FILTERS, "event", *EXPORT_PARAMS, *table_parameters()))
@canonical_query
def games(request):
    filterset, filters = _filters(request, (*GAME_FILTERS, "event"), queryset=selectors.games_list())
    context = {"title": _("Games"), "filterset": filterset}
    if filters is None:
        return _page(request, "stats/games.html", {**context, "errors": filterset.messages()})
    table = GamesTable(filterset.qs, few=filters.coach is not None)
    if response := _export(request, {"games": table}, "games"):
        return response
    counted = selectors.games_count(filters) if selectors.last_refresh() is not None else None
    _paginate(request, table, count=counted)
    if table.paginator.count > EXPORT_MAX_ROWS:
        note = _("(the first %(games)s games in this order; narrow the filters for the rest)")
        context["export_note"] = note % {"games": f"{EXPORT_MAX_ROWS:,}"}
    context["table"] = table
    return _page(request, "stats/games.html", context)


@cached_page(reads=(*WIN_RATIO_FILTERS, *EXPORT_PARAMS, *table_parameters("race-", "coach-")))
@canonical_query
def win_ratios(request):
    filterset, filters = _filters(request, WIN_RATIO_FILTERS)
    context = {"title": _("Win ratios"), "filterset": filterset}
    if filters is None:
        return _page(request, "stats/win_ratios.html", {**context, "errors": filterset.messages()})
    races = RaceRecordTable(selectors.race_records(filters), prefix="race-")
    coaches = CoachRecordTable(selectors.coach_records(filters, min_games=filters.min_games or 0), prefix="coach-")
    if response := _export(request, {"races": races, "coaches": coaches}, "win-ratios"):
        return response
    RequestConfig(request, paginate=False).configure(races)
    _paginate(request, coaches)
    return _page(request, "stats/win_ratios.html", {**context, "races": races, "coaches": coaches})


# each cell's colour is its own (a continuous scale), written as a style attribute
@csp_update({"style-src-attr": ["'unsafe-inline'"]})
@cached_page(reads=(*GAME_FILTERS, *EXPORT_PARAMS, *GRID_PAGES))
@canonical_query
def race_grid(request):
    filterset, filters = _filters(request, GAME_FILTERS)
    context = {"title": _("Race grid"), "filterset": filterset}
    if filters is None:
        return _page(request, "stats/race_grid.html", {**context, "errors": filterset.messages()})
    grid = selectors.race_grid_kept(filters)
    if request.GET.get("_export") == "csv":
        return rows_csv_response(grid.csv_rows(), "race-grid")
    rows = _grid_part(request, grid.races, "page", _("Row races"))
    columns = _grid_part(request, grid.opponents, "against_page", _("Column races"))
    shown = replace(grid, races=rows["races"], opponents=columns["races"])
    return _page(request, "stats/race_grid.html", {
        **context, "grid": grid, "shown": shown, "grid_rows": charts.race_grid(shown), "grid_parts": [rows, columns],
    })


def _grid_part(request, races: list, parameter: str, label: str) -> dict:
    """The races of one side of the grid on the page asked (all of them up to GRID_PAGE), with the
    links to the pages before and after."""
    page = Paginator(races, GRID_PAGE).get_page(request.GET.get(parameter))
    part = {"races": list(page.object_list), "label": label, "page": page, "links": []}
    if page.paginator.num_pages > 1:
        for number in page.paginator.page_range:
            query = dict(request.GET.lists()) | {parameter: [str(number)]}
            shown = page.paginator.page(number).object_list
            part["links"].append((number, f"?{urlencode(sorted(query.items()), doseq=True)}", f"{shown[0].name} – {shown[-1].name}"))
    return part


@cached_page(reads=(*RankOverTimeForm.base_fields, *EXPORT_PARAMS, *table_parameters()))
@canonical_query
def rank_over_time(request):
    form = RankOverTimeForm(request.GET)
    context = {"title": _("Rank over time"), "form": form}
    if not form.is_valid():
        return _page(request, "stats/rank_over_time.html", {**context, "errors": form.messages()})
    coach, system = form.cleaned_data["coach"], form.cleaned_data["system"]
    if coach is None or system is None:
        return _page(request, "stats/rank_over_time.html", context)
    keys = list(ratings_selectors.rating_keys(coach=coach, system=system))
    race, variant = form.cleaned_data["race"], form.cleaned_data["variant"]
    if not system.per_race:
        race = None
        keys = [key for key in keys if key["race__slug"] is None]
    chosen = next(
        (key for key in keys
         if (race is None or key["race__slug"] == race.slug) and (variant is None or key["variant__slug"] == variant.slug)),
        None,
    )
    context.update(coach=coach, system=system, keys=[
        {**key, "url": "?" + urlencode({
            k: v
            for k, v in {"coach": coach.number, "system": system.slug, "race": key["race__slug"], "variant": key["variant__slug"]}.items()
            if v
        })}
        for key in keys
    ])
    if chosen is None:
        return _page(request, "stats/rank_over_time.html", context)
    race, variant = selectors.rank_subjects(race_slug=chosen["race__slug"], variant_slug=chosen["variant__slug"])
    history = ratings_selectors.rank_history(coach=coach, system=system, race=race, variant=variant)
    table = RankHistoryTable(history, places=formatting.rating_places(system.method))
    if response := _export(request, {"history": table}, "rank-over-time"):
        return response
    what = f"{coach.public_name} ({coach.number}){f', {race.name}' if race else ''}, {variant.name}, {system.name}"
    context.update(
        race=race, variant=variant, table=table, what=what,
        rank_chart=charts.StepChart([(month.date, month.rank) for month in history], _("Rank: %(what)s")
            % {"what": what}, _("Rank"), invert=True),
        rating_chart=charts.StepChart([(month.date, month.value) for month in history], _("Rating: %(what)s")
            % {"what": what}, _("Rating")),
        derived=any(not month.on_list for month in history),
        drifts=ratings_selectors.drifts_while_idle(system),
        published=any(month.published for month in history),
        revised=sum(month.revised for month in history),
    )
    return _page(request, "stats/rank_over_time.html", context)


@cached_page(reads=(*HeadToHeadForm.base_fields, *HEAD_TO_HEAD_FILTERS, *EXPORT_PARAMS, *table_parameters("", "games-")))
@canonical_query
def head_to_head(request):
    form = HeadToHeadForm(request.GET)
    filterset, filters = _filters(request, HEAD_TO_HEAD_FILTERS)
    context = {"title": _("Head-to-head"), "form": form, "filterset": filterset, "max_coaches": selectors.HEAD_TO_HEAD_MAX}
    errors = ([] if form.is_valid() else form.errors["coach"]) + ([] if filters is not None else filterset.messages())
    if errors:
        return _page(request, "stats/head_to_head.html", {**context, "errors": errors, "slots": form.entered()})
    coaches = form.cleaned_data["coach"]
    typed = request.GET.getlist("coach")
    numbers = [str(coach.number) for coach in coaches]
    if typed != numbers:
        query = [(k, v) for k, vs in request.GET.lists() if k != "coach" for v in vs] + [("coach", n) for n in numbers]
        return HttpResponseRedirect(f"{request.path}?{urlencode(query)}")
    context["slots"] = numbers + [""] * max(0, selectors.HEAD_TO_HEAD_MAX - len(numbers))
    if len(coaches) < 2:
        return _page(request, "stats/head_to_head.html", context)
    cells = selectors.head_to_head(coaches, filters)
    matrix = [
        (coach, [(opponent, cells.get((coach.pk, opponent.pk)) if coach != opponent else None) for opponent in coaches])
        for coach in coaches
    ]
    pairs = [
        {"coach_number": coach.number, "coach": coach.public_name, "opponent_number": opponent.number, "opponent": opponent.public_name,
         "games": cell.games, "wins": cell.wins, "draws": cell.draws, "losses": cell.losses}
        for coach, row in matrix for opponent, cell in row if cell is not None
    ]
    matrix_table = HeadToHeadTable(pairs)
    games_table = GamesTable(selectors.head_to_head_games(coaches, filters), prefix="games-", few=True)
    if response := _export(request, {"matrix": matrix_table, "games": games_table}, "head-to-head"):
        return response
    _paginate(request, games_table)
    context.update(coaches=coaches, matrix=matrix, matrix_table=matrix_table, games_table=games_table)
    return _page(request, "stats/head_to_head.html", context)


@cached_page(reads=(*DIFFERENTIAL_FILTERS, *EXPORT_PARAMS, *table_parameters()))
@canonical_query
def differentials(request):
    filterset, filters = _filters(request, DIFFERENTIAL_FILTERS)
    context = {"title": _("Differentials"), "filterset": filterset}
    if filters is None:
        return _page(request, "stats/differentials.html", {**context, "errors": filterset.messages()})
    if filters.coach is None:
        return _page(request, "stats/differentials.html", context)
    rows = selectors.differentials(filters)
    table = DifferentialTable(rows)
    if response := _export(request, {"differentials": table}, "differentials"):
        return response
    context.update(coach=filters.coach, table=table, chart=charts.differential_bars(rows, title=_("Differentials of %(coach)s")
        % {"coach": filters.coach.public_name}))
    return _page(request, "stats/differentials.html", context)


@cached_page(reads=(*TOP_FILTERS, *EXPORT_PARAMS, *table_parameters()))
@canonical_query
def top(request):
    filterset, filters = _filters(request, TOP_FILTERS)
    context = {"title": _("Top 10s"), "filterset": filterset}
    if filters is None:
        return _page(request, "stats/top.html", {**context, "errors": filterset.messages()})
    lists = selectors.top_lists(filters)
    tables = {
        "games": TopGamesTable(lists["games"]),
        "race": TopRaceTable(lists["race"]),
        "events": TopEventsTable(lists["events"]),
        "races": TopRacesTable(lists["races"]),
    }
    if response := _export(request, tables, "top"):
        return response
    sections = [
        ("games", _("Most games"), tables["games"]),
        ("race", _("Most games with one race"), tables["race"]),
        ("events", _("Most events"), tables["events"]),
        ("races", _("Most races played"), tables["races"]),
    ]
    return _page(request, "stats/top.html", {**context, "sections": sections})


@cached_page(reads=(*AWARD_FILTERS, *EXPORT_PARAMS, *table_parameters("event-", "coach-", "category-")))
@canonical_query
def awards(request):
    filterset, filters = _filters(request, AWARD_FILTERS)
    context = {"title": _("Awards"), "filterset": filterset}
    if filters is None:
        return _page(request, "stats/awards.html", {**context, "errors": filterset.messages()})
    tables = {
        "events": AwardTable(selectors.awards(filters), prefix="event-"),
        "coaches": AwardCoachTable(selectors.awards_per_coach(filters), prefix="coach-"),
        "categories": AwardCategoryTable(selectors.awards_per_category(filters), prefix="category-"),
    }
    if response := _export(request, tables, "awards"):
        return response
    for table in tables.values():
        _paginate(request, table)
    return _page(request, "stats/awards.html", {**context, **tables})


@cached_page(reads=(*LEGEND_FILTERS, *EXPORT_PARAMS, *table_parameters()))
@canonical_query
def legends(request):
    filterset, filters = _filters(request, LEGEND_FILTERS)
    context = {"title": _("Legends"), "filterset": filterset, "threshold": selectors.LEGEND_RACES}
    if filters is None:
        return _page(request, "stats/legends.html", {**context, "errors": filterset.messages()})
    tables = {
        "races": LegendRacesTable(selectors.legends_by_races(filters)),
        "countries": LegendCountriesTable(selectors.legends_by_countries(filters)),
    }
    if response := _export(request, tables, "legends"):
        return response
    return _page(request, "stats/legends.html", {**context, **tables})


@cached_page(reads=(*MAP_FILTERS, "region", *EXPORT_PARAMS, *table_parameters()))
@canonical_query
def world_map(request):
    filterset, filters = _filters(request, MAP_FILTERS)
    region = request.GET.get("region", "world")
    context = {
        "title": _("Map"), "filterset": filterset, "regions": [(key, value[0]) for key, value in charts.REGIONS.items()], "region": region,
    }
    errors = [] if filters is not None else filterset.messages()
    if region not in charts.REGIONS:
        errors.append(_("Region: “%(region)s” is not one of %(regions)s.") % {"region": region, "regions": ", ".join(charts.REGIONS)})
    if errors:
        return _page(request, "stats/map.html", {**context, "errors": errors})
    places = selectors.places(filters)
    table = PlaceTable([place.__dict__ for place in places])
    if response := _export(request, {"places": table}, "map"):
        return response
    return _page(request, "stats/map.html", {**context, "map": charts.places_map(places, region=region), "table": table})
