"""The statistics tables. What a cell shows is also what the CSV export writes (`Table.as_values`)."""
from collections.abc import Callable, Sequence
from functools import cache, partial

import django_tables2 as tables
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_countries import countries
from django_tables2.rows import BoundRow

from ratingsite import formatting
from ratingsite.languages import on_page
from tournaments.models import GameKind

from .ordering import game_order
from .selectors import games_relations, with_coach_names


def percent(ratio: float | None) -> str:
    """A win ratio as the pages print it: a percentage with one decimal."""
    return formatting.percent(ratio)


def country_name(code: str) -> str:
    return countries.name(code) if code else ""


# What a game's cells are made of, as the CSV export reads them in one query (values), in game_text's order.
GAME_FIELDS = (
    "played_at", "event__name", "event__variant__name", "event__country", "home_coach__number", "home_coach__public_name",
    "home_race__name", "home_touchdowns", "away_touchdowns", "away_coach__public_name", "away_coach__number", "away_race__name",
    "kind", "conceded_by",
)
KIND_NAMES = dict(GameKind.choices)


def game_text(values: Sequence, name_of: Callable[[str], str] = country_name) -> list:
    """The text of every cell of one game, in column order, from its GAME_FIELDS values: the page and
    the CSV both print these. `name_of` names the event's country from its code."""
    (played_at, event, variant, country, home_number, home_coach, home_race, home_touchdowns, away_touchdowns,
     away_coach, away_number, away_race, kind, conceded_by) = values
    if kind != GameKind.PLAYED:
        result = KIND_NAMES.get(kind, kind)
    else:
        result = gettext("conceded") if conceded_by else gettext("played")
    return [
        f"{played_at:%Y-%m-%d}", event, variant, name_of(country or ""), home_number, home_coach, home_race,
        f"{home_touchdowns}–{away_touchdowns}", away_coach, away_number, away_race, result,
    ]


class EventCountryColumn(tables.Column):
    """The country of a record's event (read from the event, so no choices are looked up per row)."""

    def __init__(self, **kwargs):
        super().__init__(accessor="event", verbose_name=_("Country"), **kwargs)

    def render(self, value):
        return country_name(value.country.code if value.country else "")

    def value(self, value, **kwargs):
        return self.render(value)


class StatsTable(tables.Table):
    fast_rows = True  # the site's table template writes body_rows()

    class Meta:
        attrs = {"class": "stats-table"}
        per_page = 50
        orderable = False
        empty_text = _("Nothing matches these filters.")

    def body_rows(self):
        """The rows of the current page as (cell class, rendered cell) pairs.

        A plain column's cell is its value, read straight from the record; only columns that render
        something else go through django-tables2's cell machinery, the slow part of a page.
        """
        plan = []
        for bound in self.columns:
            plain = getattr(self, f"render_{bound.name}", None) is None and type(bound.column).render is tables.Column.render
            plan.append((bound.column.attrs.get("td", {}).get("class", ""), bound, plain))
        rows = list(self.paginated_rows)
        self.prepare([row.record for row in rows])
        for row in rows:
            cells = []
            for css, bound, plain in plan:
                if plain:
                    value = bound.accessor.resolve(row.record, quiet=True)
                    cells.append((css, bound.default if value in bound.column.empty_values else value))
                else:
                    cells.append((css, row.get_cell(bound.name)))
            yield cells

    def prepare(self, records: list) -> list:
        """Fetch what a batch of records needs before its cells are read (nothing by default)."""
        return records

    # Fields the CSV export reads as plain values, a chunk of rows by id at a time, for a table whose
    # cells need nothing else (`export_cells` makes them); none: the export reads the records.
    export_fields: tuple[str, ...] = ()

    def text_cells(self, record) -> list:
        """What the CSV export writes for one record: the cells' values, as `Table.as_values` gives them."""
        row = BoundRow(record, table=self)
        return [row.get_cell_value(column.name) for column in self.columns.iterall() if not column.column.exclude_from_export]


class PositionColumn(tables.Column):
    """The place in a top list: 1, 2, 3, ..."""

    def __init__(self, **kwargs):
        super().__init__(
            verbose_name="#", empty_values=(), orderable=False, attrs={"td": {"class": "num"}, "th": {"class": "num"}}, **kwargs
        )

    def render(self, bound_row):
        return bound_row.row_counter + 1

    def value(self, bound_row, **kwargs):
        return bound_row.row_counter + 1


class NumberColumn(tables.Column):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("attrs", {"td": {"class": "num"}, "th": {"class": "num"}})
        super().__init__(*args, **kwargs)


class RatioColumn(NumberColumn):
    """A win ratio stored as 0..1, printed as a percentage."""

    def render(self, value):
        return on_page(percent(value))

    def value(self, value, **kwargs):
        return percent(value)


class CoachNumberColumn(NumberColumn):
    """The federation number, linking to the coach's differentials."""

    def render(self, value):
        return format_html('<a href="{}?coach={}">{}</a>', reverse("stats_differentials"), value, value)

    def value(self, value, **kwargs):
        return value


class CountryColumn(tables.Column):
    def render(self, value):
        return country_name(value)

    def value(self, value, **kwargs):
        return country_name(value)


class GamesTable(StatsTable):
    """One line per game. Its cells are built in one pass per game (`game_cells`): a page of the
    explorer is fifty games, and django-tables2's per-cell machinery is the slow part of the page."""

    date = tables.Column(accessor="played_at", verbose_name=_("Date"), orderable=True, order_by=("played_at", "id"))
    event = tables.Column(accessor="event__name", verbose_name=_("Event"), orderable=True, order_by=("event__name", "played_at", "id"))
    variant = tables.Column(accessor="event__variant__name", verbose_name=_("Variant"))
    country = EventCountryColumn()
    home_number = NumberColumn(accessor="home_coach__number", verbose_name=_("Number"))
    home_coach = tables.Column(accessor="home_coach__public_name", verbose_name=_("Coach"))
    home_race = tables.Column(accessor="home_race__name", verbose_name=_("Race"))
    score = tables.Column(accessor="pk", verbose_name=_("Score"))
    away_coach = tables.Column(accessor="away_coach__public_name", verbose_name=_("Opponent"))
    away_number = NumberColumn(accessor="away_coach__number", verbose_name=_("Number"))
    away_race = tables.Column(accessor="away_race__name", verbose_name=_("Race"))
    kind = tables.Column(accessor="pk", verbose_name=_("Result"))

    def __init__(self, *args, few: bool = False, **kwargs):
        self.few = few  # a few known games (one coach's): sorted by the database, see game_order
        super().__init__(*args, **kwargs)

    def order_date(self, queryset, is_descending):
        return queryset.order_by(*game_order(descending=is_descending, few=self.few)), True

    @staticmethod
    def game_cells(game) -> list:
        """game_text of a game read with its event, variant, coaches and races."""
        country = game.event.country
        return game_text((
            game.played_at, game.event.name, game.event.variant.name, country.code if country else "",
            game.home_coach.number, game.home_coach.public_name, game.home_race.name, game.home_touchdowns, game.away_touchdowns,
            game.away_coach.public_name, game.away_coach.number, game.away_race.name, game.kind, game.conceded_by,
        ))

    def text_cells(self, record) -> list:
        return self.game_cells(record)

    # a download reads no instances: making them and fetching their relations was most of its time
    export_fields = GAME_FIELDS

    @staticmethod
    def export_cells() -> Callable[[Sequence], list]:
        """game_text for one download, each country named once (a name is looked up in the active language)."""
        return partial(game_text, name_of=cache(country_name))

    def prepare(self, records: list) -> list:
        return games_relations(records)

    def body_rows(self):
        classes = [column.column.attrs.get("td", {}).get("class", "") for column in self.columns]
        explorer = reverse("stats_games")
        for game in self.prepare([row.record for row in self.paginated_rows]):
            cells = self.game_cells(game)
            cells[1] = format_html('<a href="{}?event={}">{}</a>', explorer, game.event_id, cells[1])
            yield list(zip(classes, cells))

    class Meta(StatsTable.Meta):
        pass


class RaceRecordTable(StatsTable):
    race = tables.Column(accessor="race__name", verbose_name=_("Race"), orderable=True)
    games = NumberColumn(verbose_name=_("Games"), orderable=True)
    wins = NumberColumn(verbose_name=_("W"), orderable=True)
    draws = NumberColumn(verbose_name=_("D"), orderable=True)
    losses = NumberColumn(verbose_name=_("L"), orderable=True)
    ratio = RatioColumn(verbose_name=_("Win %"), orderable=True)

    class Meta(StatsTable.Meta):
        per_page = 100


class NamedCoachesTable(StatsTable):
    """Rows added up per coach id; each page (or CSV chunk) gets its coaches' names in one query."""

    def prepare(self, records: list) -> list:
        return with_coach_names(records)

    class Meta(StatsTable.Meta):
        pass


class CoachRecordTable(NamedCoachesTable):
    number = CoachNumberColumn(accessor="coach__number", verbose_name=_("Number"), orderable=True)
    coach = tables.Column(accessor="coach__public_name", verbose_name=_("Coach"), orderable=True)
    nationality = CountryColumn(accessor="coach__nationality", verbose_name=_("Nationality"))
    games = NumberColumn(verbose_name=_("Games"), orderable=True)
    wins = NumberColumn(verbose_name=_("W"), orderable=True)
    draws = NumberColumn(verbose_name=_("D"), orderable=True)
    losses = NumberColumn(verbose_name=_("L"), orderable=True)
    ratio = RatioColumn(verbose_name=_("Win %"), orderable=True)

    class Meta(StatsTable.Meta):
        pass


class RankHistoryTable(StatsTable):
    """A key's months (ratings.selectors.RankMonth); "no" under On the list: figures derived, not stored;
    a published list's figures as published, the revised ones beside where they differ."""

    month = tables.Column(accessor="date", verbose_name=_("List"))
    rank = NumberColumn(verbose_name=_("Rank"), empty_values=())
    value = NumberColumn(verbose_name=_("Rating"))
    games = NumberColumn(verbose_name=_("Games"))
    on_list = tables.Column(verbose_name=_("On the list"))
    published = tables.Column(verbose_name=_("As published"), empty_values=())
    revised_rank = NumberColumn(verbose_name=_("Revised rank"), empty_values=())
    revised_value = NumberColumn(verbose_name=_("Revised rating"), empty_values=())

    def render_month(self, value):
        return f"{value:%Y-%m}"

    def value_month(self, value):
        return self.render_month(value)

    def render_rank(self, value):
        return "-" if value is None else value

    def value_rank(self, value):
        return self.render_rank(value)

    def __init__(self, *args, places: int = 2, **kwargs):
        super().__init__(*args, **kwargs)
        self.places = places

    def render_value(self, value):
        return on_page(self.value_value(value))

    def value_value(self, value):
        return formatting.fixed(value, self.places)

    def render_on_list(self, value):
        return gettext("yes") if value else gettext("no")

    def value_on_list(self, value):
        return self.render_on_list(value)

    def render_published(self, value):
        return value or gettext("not published")

    def value_published(self, value):
        return self.render_published(value)

    # beside a published figure only where the list as computed now reads otherwise
    def render_revised_rank(self, value, record):
        return ("-" if value is None else value) if record.revised else ""

    def value_revised_rank(self, value, record):
        return self.render_revised_rank(value, record)

    def render_revised_value(self, value):
        return on_page(self.value_revised_value(value))

    def value_revised_value(self, value):
        return "" if value is None else formatting.fixed(value, self.places)

    class Meta(StatsTable.Meta):
        pass


class HeadToHeadTable(StatsTable):
    """The matrix as rows: one line per ordered pair of coaches that met."""

    coach_number = NumberColumn(verbose_name=_("Number"))
    coach = tables.Column(verbose_name=_("Coach"))
    opponent_number = NumberColumn(verbose_name=_("Number"))
    opponent = tables.Column(verbose_name=_("Opponent"))
    games = NumberColumn(verbose_name=_("Games"))
    wins = NumberColumn(verbose_name=_("W"))
    draws = NumberColumn(verbose_name=_("D"))
    losses = NumberColumn(verbose_name=_("L"))

    class Meta(StatsTable.Meta):
        pass


class DifferentialTable(StatsTable):
    race = tables.Column(accessor="race__name", verbose_name=_("Race"))
    games = NumberColumn(verbose_name=_("Games"))
    wins = NumberColumn(verbose_name=_("W"))
    draws = NumberColumn(verbose_name=_("D"))
    losses = NumberColumn(verbose_name=_("L"))
    ratio = RatioColumn(verbose_name=_("Win %"))
    average = RatioColumn(verbose_name=_("Race average %"))
    differential = NumberColumn(verbose_name=_("Differential (points)"))

    def render_differential(self, value):
        return on_page(self.value_differential(value))

    def value_differential(self, value):
        return formatting.signed(100 * value, 1)

    class Meta(StatsTable.Meta):
        pass


class TopGamesTable(StatsTable):
    position = PositionColumn()
    number = CoachNumberColumn(accessor="coach__number", verbose_name=_("Number"))
    coach = tables.Column(accessor="coach__public_name", verbose_name=_("Coach"))
    nationality = CountryColumn(accessor="coach__nationality", verbose_name=_("Nationality"))
    games = NumberColumn(verbose_name=_("Games"))

    class Meta(StatsTable.Meta):
        pass


class TopRaceTable(TopGamesTable):
    race = tables.Column(accessor="race__name", verbose_name=_("Race"))

    class Meta(StatsTable.Meta):
        sequence = ("position", "number", "coach", "nationality", "race", "games")


class TopEventsTable(TopGamesTable):
    events = NumberColumn(verbose_name=_("Events"))

    class Meta(StatsTable.Meta):
        sequence = ("position", "number", "coach", "nationality", "events", "games")


class TopRacesTable(TopGamesTable):
    races = NumberColumn(verbose_name=_("Races"))

    class Meta(StatsTable.Meta):
        sequence = ("position", "number", "coach", "nationality", "races", "games")


class LegendRacesTable(TopRacesTable):
    class Meta(TopRacesTable.Meta):
        pass


class LegendCountriesTable(TopGamesTable):
    countries = NumberColumn(verbose_name=_("Countries"))

    class Meta(StatsTable.Meta):
        sequence = ("position", "number", "coach", "nationality", "countries", "games")


class AwardTable(StatsTable):
    date = tables.DateColumn(accessor="event__start_date", format="Y-m-d", verbose_name=_("Date"))
    event = tables.Column(accessor="event__name", verbose_name=_("Event"))
    country = EventCountryColumn()
    category = tables.Column(verbose_name=_("Award"))
    number = CoachNumberColumn(accessor="coach__number", verbose_name=_("Number"))
    coach = tables.Column(accessor="coach__public_name", verbose_name=_("Coach"))
    race = tables.Column(accessor="race__name", verbose_name=_("Race"), default="")

    class Meta(StatsTable.Meta):
        pass


class AwardCoachTable(NamedCoachesTable):
    number = NumberColumn(accessor="coach__number", verbose_name=_("Number"))
    coach = tables.Column(accessor="coach__public_name", verbose_name=_("Coach"))
    nationality = CountryColumn(accessor="coach__nationality", verbose_name=_("Nationality"))
    awards = NumberColumn(verbose_name=_("Awards"))
    events = NumberColumn(verbose_name=_("Events"))

    def render_number(self, value):
        return format_html('<a href="{}?coach={}">{}</a>', reverse("stats_awards"), value, value)

    def value_number(self, value):
        return value

    class Meta(StatsTable.Meta):
        pass


class AwardCategoryTable(StatsTable):
    position = PositionColumn()
    category = tables.Column(verbose_name=_("Award"))
    awards = NumberColumn(verbose_name=_("Times awarded"))

    class Meta(StatsTable.Meta):
        pass


class PlaceTable(StatsTable):
    country = CountryColumn(verbose_name=_("Country"))
    city = tables.Column(verbose_name=_("City"), default="")
    events = NumberColumn(verbose_name=_("Events"))
    games = NumberColumn(verbose_name=_("Games"))
    placed_by = tables.Column(verbose_name=_("On the map at"))

    def render_placed_by(self, value):
        return {"event": gettext("the events' coordinates"), "country": gettext("the country's centre")}.get(value, gettext("not drawn"))

    def value_placed_by(self, value):
        return self.render_placed_by(value)

    class Meta(StatsTable.Meta):
        pass
