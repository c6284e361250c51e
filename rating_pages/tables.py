"""django-tables2 tables of the public pages.

django-tables2 does the headers, sorting, pagination and the CSV export; the body rows and the
exported values come from one cell function per column (`cell_<name>(record) -> (text, html)`, the
html a plain text the template escapes, or a link or span made with format_html), so the CSV holds
exactly what the table shows, and the site's table template writes the rows in one loop instead of
tables2's per-cell machinery (a signature inspection per cell).
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace
from urllib.parse import urlencode

import django_tables2 as tables
from django.db.models import F, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_str
from django.utils.html import format_html
from django.utils.translation import get_language, gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django_countries import countries

from rating_pages.columns import presentation
from ratingsite.formatting import fixed, rating_places, signed
from ratingsite.languages import on_page
from tournaments.models import EventStatus, Visibility

TABLE_ATTRS = {"class": "data"}
NUM = {"th": {"class": "num"}, "td": {"class": "num"}}


@lru_cache(maxsize=2048)
def _country_name(code: str, language: str | None) -> str:
    """A country's name in a language: looked up once, not once per row (a translation lookup each)."""
    return str(countries.name(code))


def breakdown_url(system_slug: str, coach_number: int, race_slug: str | None, variant_slug: str, **extra) -> str:
    """The breakdown page of one rating key."""
    params = {"variant": variant_slug}
    if race_slug:
        params = {"race": race_slug, **params}
    params.update({k: v for k, v in extra.items() if v})
    return f"{reverse('breakdown', args=[coach_number, system_slug])}?{urlencode(params)}"


def _plain(text: str) -> tuple[str, str]:
    """A cell of plain text (a name, a number, a date): the template escapes it."""
    return text, text


def _figure(text: str) -> tuple[str, str]:
    """A cell of a figure: the export keeps its point, the page writes it in its language ("2,68")."""
    return text, on_page(text)


_SENTINEL = 918273645


def url_maker(name: str, *args):
    """A fast reverse() for one URL with an integer first argument (one per table row):
    reversed once with a stand-in number, then filled in."""
    pattern = reverse(name, args=[_SENTINEL, *args]).replace(str(_SENTINEL), "{}", 1)
    return pattern.format


def _link(url: str, text: str) -> str:
    return format_html('<a href="{}">{}</a>', url, text)


def _with_badge(html: str, badge: str) -> str:
    return format_html('{} <span class="badge">{}</span>', html, badge)


def provisional_mark(text: str, tip: str) -> str:
    """A rating with lichess's "?": the rule and the number that lifts it on hover, and for screen readers."""
    return format_html(
        '{}<abbr class="provisional" title="{}" role="img" aria-label="{}">?</abbr>', text, tip, tip,
    )


class FastRowsTable(tables.Table):
    """A table whose body and export values come from its cell functions."""

    class Meta:
        attrs = TABLE_ATTRS

    def cell_function(self, name: str):
        """The function giving (plain text, HTML) of a column's cell for a record.

        A column whose HTML costs more than its text (a link, a country's name) may also have a
        `plain_<name>` method giving (text, None): the export uses that."""
        method = getattr(self, f"cell_{name}", None)
        if method is not None:
            return method
        accessor = self.columns[name].accessor

        def cell(record):
            value = accessor.resolve(record, quiet=True)
            return _plain("" if value is None else str(value))
        return cell

    fast_rows = True  # the site's table template writes body_rows()

    def get_column_class_names(self, classes_set, bound_column):
        """Each header and cell also names its column ("col-rank"), so the stylesheet can hide columns on phones."""
        return {*super().get_column_class_names(classes_set, bound_column), f"col-{bound_column.name}"}

    def _in_total_order(self) -> None:
        """Rows that tie on the order asked for (the same rating, a coach's two races at one value)
        keep one order, so that no row is on two pages or on none: the primary key breaks ties."""
        data = getattr(self.data, "data", None)
        if isinstance(data, QuerySet) and not getattr(self, "_total", False):
            ordering = list(data.query.order_by) or list(data.model._meta.ordering)
            self.data.data = data.order_by(*ordering, "pk")
            self._total = True

    def paginate(self, *args, **kwargs):
        self._in_total_order()
        return super().paginate(*args, **kwargs)

    # Fields the export reads as plain rows instead of model instances, for a table whose cells use
    # nothing else (a 61,000-row ranking: 0.2 s of SQL, 1.7 s making its 245,000 instances); none:
    # the export reads the instances.
    export_fields: tuple[str, ...] = ()

    def _export_records(self):
        data = getattr(self.data, "data", None)
        if not (self.export_fields and isinstance(data, QuerySet)):
            yield from self.data
            return
        for row in data.values(*self.export_fields).iterator(chunk_size=5000):
            yield _plain_record(row)

    def body_rows(self) -> list[list[tuple[str, str]]]:
        """Every row of the current page (or of all the data) as (cell class, cell HTML) pairs."""
        columns = [(self.cell_function(c.name), " ".join(filter(None, (c.column.attrs.get("td", {}).get("class"), f"col-{c.name}"))))
                   for c in self.columns]
        # tables2 paginates its BoundRows; their records are the model instances
        rows = self.page.object_list if getattr(self, "page", None) else self.rows
        return [[(css, cell(record)[1]) for cell, css in columns] for record in (row.record for row in rows)]

    def as_values(self, exclude_columns=None):
        """Header, then every row of the (ordered, unpaginated) data: what the CSV export writes."""
        exclude = set(exclude_columns or ())
        names = [c.name for c in self.columns if c.name not in exclude and not c.column.exclude_from_export]
        yield [force_str(self.columns[name].header, strings_only=True) for name in names]
        cells = [getattr(self, f"plain_{name}", None) or self.cell_function(name) for name in names]
        self._in_total_order()
        for record in self._export_records():
            yield [cell(record)[0] for cell in cells]


def _public_nationality(coach: dict) -> str:
    """A coach's nationality code as the public sees it: none for a hidden coach (his label stands alone)."""
    return "" if coach.get("visibility") == Visibility.HIDDEN else coach["nationality"] or ""


def _plain_record(row: dict) -> SimpleNamespace:
    """A values() row as the cells read a model instance: "coach__public_name" as record.coach.public_name."""
    record, related = SimpleNamespace(), {}
    for name, value in row.items():
        owner, _, field = name.partition("__")
        if field:
            related.setdefault(owner, {})[field] = value
        else:
            setattr(record, name, value)
    for owner, fields in related.items():
        setattr(record, owner, SimpleNamespace(**fields))
    return record


RANKING_FIELDS = (
    "rank", "overall_rank", "coach__public_name", "coach__number", "coach__nationality", "coach__visibility",
    "race_id", "race__name", "race__slug",
    "variant__name", "variant__slug", "value", "mu", "phi", "nv", "games",
)


def _rank_order(field: str, coach: str = "coach"):
    def order(self, queryset, is_descending):
        expression = F(field).desc(nulls_last=True) if is_descending else F(field).asc(nulls_last=True)
        return queryset.order_by(expression, "-value", coach), True
    return order


class RankingTable(FastRowsTable):
    """One row per rating key: the ranking of a system (current or a stored list)."""

    rank = tables.Column(verbose_name=_("Rank"), attrs=NUM)
    overall_rank = tables.Column(verbose_name=_("Overall"), attrs=NUM)
    coach = tables.Column(accessor="coach__public_name", verbose_name=_("Coach"), order_by=("coach__public_name", "coach__number"))
    number = tables.Column(accessor="coach__number", verbose_name=_("Number"), attrs=NUM)
    nationality = tables.Column(verbose_name=_("Nat."), accessor="coach_id", order_by=("coach__nationality", "coach__number"))
    race = tables.Column(accessor="race__name", verbose_name=_("Race"), order_by="race__name")
    variant = tables.Column(accessor="variant__name", verbose_name=_("Variant"), order_by="variant__name")
    value = tables.Column(verbose_name=_("Rating"), attrs=NUM)
    mu = tables.Column(verbose_name="μ", attrs=NUM)
    phi = tables.Column(verbose_name="φ", attrs=NUM)
    nv = tables.Column(verbose_name="Nv", attrs=NUM)
    games = tables.Column(verbose_name=_("Games"), attrs=NUM)
    value_change = tables.Column(verbose_name=_("Change"), attrs=NUM)
    rank_change = tables.Column(verbose_name=_("Rank change"), attrs=NUM)
    last_played = tables.Column(verbose_name=_("Last played"), attrs={"td": {"class": "date"}})

    order_rank = _rank_order("rank")
    order_overall_rank = _rank_order("overall_rank")
    export_fields = (*RANKING_FIELDS, "value_change", "rank_change", "last_played")

    class Meta(FastRowsTable.Meta):
        orderable = True
        empty_text = _("No ratings match these filters.")

    def __init__(self, *args, system, inactive_rule: str, caption: str = "", provisional=None, **kwargs):
        """`provisional`: the system's provisional rule (rules.provisional_rule), whose "?" marks
        the values it calls provisional; the CSV keeps the bare value."""
        # an exclude argument replaces Meta.exclude in django-tables2: keep both
        exclude = [*(self._meta.exclude or ()), *kwargs.pop("exclude", ())]
        if not system.per_race:
            exclude += ["race", "overall_rank"]
        exclude += presentation(system.method).ranking_hides
        super().__init__(*args, exclude=exclude, **kwargs)
        self.system = system
        self.places = rating_places(system.method)
        self.caption = caption
        self.provisional = provisional
        self._dash = format_html('<abbr title="{}" class="norank">-</abbr>', inactive_rule)
        self.waiting: dict = {}  # KNSB, the current ranking: (coach, race, variant) ids -> WaitingCount

    def _waiting(self, record):
        """The key's games waiting for the next list that will count, if any (they are in no figure yet)."""
        count = self.waiting.get((record.coach_id, record.race_id, record.variant_id)) if self.waiting else None
        return count if count is not None and count.games else None

    def _rank(self, value):
        return ("-", self._dash) if value is None else _plain(str(value))

    def cell_rank(self, record):
        return self._rank(record.rank)

    def cell_overall_rank(self, record):
        return self._rank(record.overall_rank)

    def cell_coach(self, record):
        if not hasattr(self, "_breakdown"):
            self._breakdown = url_maker("breakdown", self.system.slug)
        params = {"race": record.race.slug, "variant": record.variant.slug} if record.race_id else {"variant": record.variant.slug}
        name = record.coach.public_name
        return name, _link(f"{self._breakdown(record.coach.number)}?{urlencode(params)}", name)

    def plain_coach(self, record):
        return record.coach.public_name, None

    def cell_number(self, record):
        return _plain(str(record.coach.number))

    def cell_nationality(self, record):
        code = _public_nationality(vars(record.coach))  # the stored code, without a Country object per row
        if not hasattr(self, "_language"):
            self._language = get_language()
        return code, format_html('<abbr title="{}">{}</abbr>', _country_name(code, self._language), code) if code else ""

    def plain_nationality(self, record):
        return _public_nationality(vars(record.coach)), None

    def cell_race(self, record):
        return _plain(record.race.name if record.race_id else "")

    def cell_variant(self, record):
        return _plain(record.variant.name)

    def cell_value(self, record):
        text = fixed(record.value, self.places)
        tip = self.provisional.mark(nv=record.nv, phi=record.phi) if self.provisional is not None else None
        return text, provisional_mark(on_page(text), tip) if tip else on_page(text)

    def plain_value(self, record):
        return fixed(record.value, self.places), None

    def cell_mu(self, record):
        return _figure(fixed(record.mu))

    def cell_phi(self, record):
        return _figure(fixed(record.phi))

    def cell_nv(self, record):
        return _plain("" if record.nv is None else str(record.nv))

    def cell_games(self, record):
        text = str(record.games)
        count = self._waiting(record)
        if count is None:
            return _plain(text)
        extra = gettext("+ %(games)s waiting") % {"games": count.games}
        tip = ngettext(
            "%(games)s game waiting for the list of %(day)s: not counted yet",
            "%(games)s games waiting for the list of %(day)s: not counted yet", count.games,
        ) % {"games": count.games, "day": f"{count.list_date:%Y-%m-%d}"}
        return f"{text} {extra}", format_html('{} <abbr class="waiting-note" title="{}">{}</abbr>', text, tip, extra)

    def plain_games(self, record):
        return str(record.games), None

    def cell_value_change(self, record):
        return _figure(signed(record.value_change, self.places))

    def cell_rank_change(self, record):
        change = record.rank_change
        return _plain("" if change is None else f"{change:+d}" if change else "0")

    def cell_last_played(self, record):
        count = self._waiting(record)
        if count is not None and (record.last_played is None or count.last_played > record.last_played):
            text = gettext("%(day)s (waiting)") % {"day": f"{count.last_played:%Y-%m-%d}"}
            waiting = f"{count.list_date:%Y-%m-%d}"
            tip = gettext("a game waiting for the list of %(day)s; the last counted was %(last)s") % {
                "day": waiting, "last": f"{record.last_played:%Y-%m-%d}"} if record.last_played else gettext(
                "a game waiting for the list of %(day)s; the last counted was none") % {"day": waiting}
            return text, format_html('<span class="waiting-note" title="{}">{}</span>', tip, text)
        return _plain(f"{record.last_played:%Y-%m-%d}" if record.last_played else "")

    def plain_last_played(self, record):
        return f"{record.last_played:%Y-%m-%d}" if record.last_played else "", None


class ListRankingTable(RankingTable):
    """A stored monthly list: changes are since the previous list; counted and played games of the month."""

    change = tables.Column(verbose_name=_("Change"), attrs=NUM)
    games_counted = tables.Column(verbose_name=_("Counted"), attrs=NUM)
    games_played = tables.Column(verbose_name=_("Played"), attrs=NUM)

    export_fields = (*RANKING_FIELDS, "change", "games_counted", "games_played")

    class Meta(RankingTable.Meta):
        exclude = ("value_change", "rank_change", "last_played")

    def cell_change(self, record):
        return _figure(signed(record.change, self.places))


class PublishedRankingTable(ListRankingTable):
    """A list as published (ratings.models.PublishedEntry): sorted by the names of the day, and its
    CSV says when it was published."""

    coach = tables.Column(accessor="coach_name", verbose_name=_("Coach"), order_by=("coach_name", "coach_number"))
    number = tables.Column(accessor="coach_number", verbose_name=_("Number"), attrs=NUM)
    nationality = tables.Column(verbose_name=_("Nat."), accessor="nationality", order_by=("nationality", "coach_number"))
    race = tables.Column(accessor="race_name", verbose_name=_("Race"), order_by=("race_name", "coach_number"))
    variant = tables.Column(accessor="variant_name", verbose_name=_("Variant"), order_by=("variant_name", "coach_number"))

    revised = tables.Column(verbose_name=_("Revised"), orderable=False, exclude_from_export=True, attrs=NUM)

    order_rank = _rank_order("rank", "coach_number")
    order_overall_rank = _rank_order("overall_rank", "coach_number")
    export_fields = ()  # the entries' own names, read from the instances

    def __init__(self, *args, publication, **kwargs):
        super().__init__(*args, **kwargs)
        self.publication = publication
        self.revisions: dict = {}  # the page's keys -> their value as computed now (None: no longer on the list)
        self.columns.hide("revised")

    def page_records(self) -> list:
        return [row.record for row in self.page.object_list]

    def show_revisions(self, values: dict) -> None:
        """Show beside each published value of the page the value computed now (`values`, by key),
        in a column of its own if any differs."""
        self.revisions = values
        if any(self._revision(record) is not None for record in self.page_records()):
            self.columns.show("revised")

    def _revision(self, record) -> str | None:
        key = (record.coach_number, record.race_slug, record.variant_slug)
        if key not in self.revisions:
            return None
        now = self.revisions[key]
        if now is None:
            return gettext("no longer on it")
        return None if fixed(now, self.places) == fixed(record.value, self.places) else fixed(now, self.places)

    def cell_revised(self, record):
        return _plain(self._revision(record) or "")

    def as_values(self, exclude_columns=None):
        published = f"{timezone.localtime(self.publication.published_at):%Y-%m-%d %H:%M}"
        values = super().as_values(exclude_columns)
        yield [*next(values), "Published"]
        for row in values:
            yield [*row, published]


class ListEntryTable(FastRowsTable):
    """Entries of a monthly list: starters, risers and fallers."""

    coach = tables.Column(accessor="coach__public_name", verbose_name=_("Coach"), orderable=False)
    number = tables.Column(accessor="coach__number", verbose_name=_("Number"), orderable=False, attrs=NUM)
    race = tables.Column(accessor="race__name", verbose_name=_("Race"), orderable=False)
    variant = tables.Column(accessor="variant__name", verbose_name=_("Variant"), orderable=False)
    value = tables.Column(verbose_name=_("Rating"), orderable=False, attrs=NUM)
    change = tables.Column(verbose_name=_("Change"), orderable=False, attrs=NUM)
    games_counted = tables.Column(verbose_name=_("Games counted"), orderable=False, attrs=NUM)
    games_played = tables.Column(verbose_name=_("Games played"), orderable=False, attrs=NUM)

    class Meta(FastRowsTable.Meta):
        empty_text = _("None on this list.")

    def __init__(self, *args, system, caption: str = "", starters: bool = False, **kwargs):
        exclude = list(kwargs.pop("exclude", ()))
        if not system.per_race:
            exclude.append("race")
        super().__init__(*args, exclude=exclude, **kwargs)
        self.system = system
        self.places = rating_places(system.method)
        self.caption = caption
        for name, header in presentation(system.method).starter_headers if starters else ():  # KNSB: seed 004's
            self.columns[name].column.verbose_name = header

    cell_coach = RankingTable.cell_coach
    cell_number = RankingTable.cell_number
    cell_race = RankingTable.cell_race
    cell_variant = RankingTable.cell_variant
    cell_change = ListRankingTable.cell_change

    def cell_value(self, record):
        return _figure(fixed(record.value, self.places))


class RatingListTable(FastRowsTable):
    """The monthly lists of one system."""

    date = tables.Column(verbose_name=_("List of"))
    rated = tables.Column(verbose_name=_("Entries"), attrs=NUM)
    ranked = tables.Column(verbose_name=_("Ranked"), attrs=NUM)
    starters = tables.Column(verbose_name=_("Starters"), attrs=NUM)

    class Meta(FastRowsTable.Meta):
        orderable = False
        empty_text = _("No list has been published yet.")

    def __init__(self, *args, system, caption: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.system = system
        self.caption = caption

    def cell_date(self, record):
        text = f"{record.date:%Y-%m-%d}"
        url = reverse("rating_list_detail", args=[self.system.slug, f"{record.date:%Y-%m}"])
        return text, _link(url, text)


class EventTable(FastRowsTable):
    """The public event list."""

    name = tables.Column(verbose_name=_("Event"), order_by=("name", "id"))
    start_date = tables.Column(verbose_name=_("Dates"))
    variant = tables.Column(accessor="variant__name", verbose_name=_("Variant"), order_by="variant__name")
    where = tables.Column(accessor="city", verbose_name=_("Where"), order_by=("country", "city"))
    game_count = tables.Column(verbose_name=_("Games"), attrs=NUM)
    status = tables.Column(verbose_name=_("Status"))

    class Meta(FastRowsTable.Meta):
        empty_text = _("No events match these filters.")

    def __init__(self, *args, caption: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.caption = caption

    def cell_name(self, record):
        if not hasattr(self, "_event_url"):
            self._event_url = url_maker("event_detail")
        link = _link(self._event_url(record.pk), record.name)
        return record.name, _with_badge(link, gettext("major")) if record.is_major else link

    def cell_start_date(self, record):
        if record.end_date != record.start_date:
            return _plain(f"{record.start_date:%Y-%m-%d} – {record.end_date:%Y-%m-%d}")
        return _plain(f"{record.start_date:%Y-%m-%d}")

    def cell_variant(self, record):
        return _plain(record.variant.name)

    def cell_where(self, record):
        country = record.country.name if record.country else ""
        return _plain(", ".join(part for part in (record.city, country) if part))

    def cell_game_count(self, record):
        return _plain(str(record.game_count or 0))

    def cell_status(self, record):
        return _plain(record.get_status_display())


class CoachEventTable(FastRowsTable):
    """The events a coach attended (rows from selectors.coach_events)."""

    date = tables.Column(verbose_name=_("Date"), orderable=False)
    event = tables.Column(verbose_name=_("Event"), orderable=False)
    country = tables.Column(verbose_name=_("Country"), orderable=False)
    race = tables.Column(verbose_name=_("Race"), orderable=False)
    games = tables.Column(verbose_name=_("Games"), orderable=False, attrs=NUM)
    record = tables.Column(verbose_name=_("W-D-L"), orderable=False, attrs=NUM)

    class Meta(FastRowsTable.Meta):
        empty_text = _("No events.")

    def __init__(self, *args, caption: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.caption = caption

    def cell_date(self, row):
        return _plain(f"{row['event__start_date']:%Y-%m-%d}")

    def cell_event(self, row):
        if not hasattr(self, "_event_url"):
            self._event_url = url_maker("event_detail")
        html = _link(self._event_url(row["event_id"]), row["event__name"])
        if row["event__is_major"]:
            html = _with_badge(html, gettext("major"))
        if row["event__status"] != EventStatus.SANCTIONED:  # open play: the only other status a public page shows
            html = _with_badge(html, gettext("open play"))
        return row["event__name"], html

    def cell_country(self, row):
        return _plain(str(row["event__country"] or ""))

    def cell_race(self, row):
        return _plain(row["race__name"])

    def cell_games(self, row):
        return _plain(str(row["games"]))

    def cell_record(self, row):
        return _plain(f"{row['wins']}-{row['draws']}-{row['losses']}")


class HistoryTable(FastRowsTable):
    """A coach's rating after each event or period (rows from selectors.coach_history): the chart's data."""

    effective = tables.Column(verbose_name=_("From"), orderable=False)
    race = tables.Column(verbose_name=_("Race"), orderable=False)
    variant = tables.Column(verbose_name=_("Variant"), orderable=False)
    period = tables.Column(verbose_name=_("Period"), orderable=False)
    rl = tables.Column(verbose_name=_("Before"), orderable=False, attrs=NUM)
    rn = tables.Column(verbose_name=_("After"), orderable=False, attrs=NUM)
    nt = tables.Column(verbose_name=_("Games"), orderable=False, attrs=NUM)

    class Meta(FastRowsTable.Meta):
        empty_text = _("No history.")

    def __init__(self, *args, caption: str = "", places: int = 2, **kwargs):
        super().__init__(*args, **kwargs)
        self.caption = caption
        self.places = places

    def cell_effective(self, row):
        return _plain(f"{row['effective']:%Y-%m-%d}")

    def cell_race(self, row):
        return _plain(row["race__name"] or gettext("All races"))

    def cell_variant(self, row):
        return _plain(row["variant__name"])

    def cell_period(self, row):
        return _plain(row.get("title") or row["period"])

    def cell_rl(self, row):
        return _figure(fixed(row["rl"], self.places))

    def cell_rn(self, row):
        return _figure(fixed(row["rn"], self.places))

    def cell_nt(self, row):
        return _plain(str(row["nt"]))


class CoachTable(FastRowsTable):
    """The coach directory: number, name (a link to the coach page), country and games played."""

    number = tables.Column(verbose_name=_("Number"), attrs=NUM, order_by=("number",))
    name = tables.Column(verbose_name=_("Coach"), accessor="public_name", order_by=("public_search_name", "number"))
    nationality = tables.Column(verbose_name=_("Country"), order_by=("nationality", "public_search_name", "number"))
    games = tables.Column(verbose_name=_("Games"), accessor="pk", orderable=False, attrs=NUM)

    class Meta(FastRowsTable.Meta):
        orderable = True
        empty_text = _("No coach matches this search.")

    def __init__(self, *args, caption: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.caption = caption
        self.game_counts: dict[int, int] = {}  # of the rows shown, by coach id: the view reads them for one page

    def page_ids(self) -> list[int]:
        return [row.record.pk for row in self.page.object_list]

    def cell_number(self, record):
        return _plain(str(record.number))

    def cell_name(self, record):
        if not hasattr(self, "_coach_url"):
            self._coach_url = url_maker("coach_detail")
        return record.public_name, _link(self._coach_url(record.number), record.public_name)

    def cell_nationality(self, record):
        code = _public_nationality(vars(record))  # the stored code, without a Country object per row
        if not hasattr(self, "_language"):
            self._language = get_language()
        return _plain(_country_name(code, self._language) if code else "")

    def cell_games(self, record):
        return _plain(str(self.game_counts.get(record.pk, 0)))
