"""Every chart of the site, drawn on the server as SVG: pages need no JavaScript, and each chart has its table beside it.

Here is the geometry only (scales, ticks, points and paths as plain data, coordinates already written
as SVG numbers); the markup is in templates/charts/. Each chart carries a text alternative (SVG
<title>, and <desc> where there is one) and scales to its container through its viewBox.
"""
from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from functools import cached_property
from itertools import count
from typing import NamedTuple

from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, gettext_lazy
from django_countries import countries

from ratingsite import formatting
from ratingsite.languages import on_page
from ratingsite.ticks import nice_ticks

PALETTE = ["#0b5cad", "#c2410c", "#1b7a3a", "#7c3aed", "#b3261e", "#0e7490", "#a16207", "#be185d"]
DASHES = ["", "6 3", "2 3"]
_ids = count(1)


class Drawn:
    """A chart's data that its template turns into SVG (`svg`)."""

    template: str

    @cached_property
    def svg(self) -> SafeString:
        return render_to_string(self.template, {"chart": self})


def _n(value: float, digits: int = 1) -> str:
    """A coordinate as SVG text."""
    return f"{value:.{digits}f}"


# Line and step charts of the rating pages


@dataclass
class Series:
    label: str
    points: list  # (x, y) pairs; x a number or a date, in increasing order
    titles: list[str] | None = None  # one per point: what its dot says on hover (an SVG <title>)


@dataclass
class Line:
    """One series drawn: its path, its colour and dash, and dots where the points are."""

    label: str
    colour: str
    dash: str
    d: str
    dots: list[tuple[str, str, str]]  # (x, y, title; "" for none)

    @cached_property
    def dots_svg(self) -> SafeString:
        """The dots as SVG, one <circle> a line. Written here, not by a template loop: a coach's
        history chart has a dot a game, and a template took some 40 ms over a thousand of them."""
        colour = conditional_escape(self.colour)
        return mark_safe("".join(  # noqa: S308 - numbers, a palette colour and escaped titles
            f'<circle cx="{x}" cy="{y}" r="3" fill="{colour}"><title>{conditional_escape(title)}</title></circle>\n'
            if title else f'<circle cx="{x}" cy="{y}" r="2.5" fill="{colour}"></circle>\n'
            for x, y, title in self.dots
        ))


@dataclass
class Chart(Drawn):
    """A line chart: plot area, ticks (position, label), guides and lines in SVG coordinates."""

    title: str
    description: str
    legend: list = field(default_factory=list)  # (label, colour, dash) of every series
    uid: int = 0
    width: int = 640
    height: int = 300
    left: int = 56
    top: int = 12
    plot_w: int = 0
    plot_h: int = 0
    y_ticks: list[tuple[str, str, str]] = field(default_factory=list)  # (y, y of the label, label)
    x_ticks: list[tuple[str, str]] = field(default_factory=list)  # (x, label)
    x_label: str = ""
    y_label: str = ""
    guides: list[tuple[str, str, str]] = field(default_factory=list)  # (y, y of the label, label)
    lines: list[Line] = field(default_factory=list)

    template = "charts/line.html"

    @property
    def right_edge(self) -> int:
        return self.left + self.plot_w

    @property
    def bottom_edge(self) -> int:
        return self.top + self.plot_h

    @property
    def x_label_at(self) -> str:
        return f"{self.left + self.plot_w / 2:.0f}"

    @property
    def y_label_at(self) -> str:
        return f"{self.top + self.plot_h / 2:.0f}"


def _date_ticks(low: dt.date, high: dt.date) -> list[tuple[float, str]]:
    """Year ticks, or quarter ticks over a short span."""
    years = high.year - low.year
    if years >= 2:
        stride = max(1, math.ceil(years / 6))
        return [
            (float(dt.date(y, 1, 1).toordinal()), str(y))
            for y in range(low.year + 1, high.year + 1, stride)
        ] or [(float(low.toordinal()), str(low.year))]
    ticks: list[tuple[float, str]] = []
    month = dt.date(low.year, 1, 1)
    while month <= high:
        if month >= low:
            ticks.append((float(month.toordinal()), f"{month:%b %Y}"))
        index = month.year * 12 + month.month - 1 + 3
        month = dt.date(index // 12, index % 12 + 1, 1)
    return ticks or [(float(low.toordinal()), f"{low:%b %Y}")]


def _fmt(value: float) -> str:
    """A tick label: whole from 100 up, else to 0.01 without trailing zeros."""
    if abs(value) >= 100 or value == int(value):
        return formatting.fixed(value, 0)
    return formatting.fixed(value, 2).rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Scale:
    """Data values [low, high] onto `length` SVG units from `start`; `flip` for a y axis (high at the top)."""

    low: float
    high: float
    start: float
    length: float
    flip: bool = False

    def __call__(self, value: float) -> float:
        share = (value - self.low) / (self.high - self.low)
        return self.start + ((1 - share) if self.flip else share) * self.length


def _as_x(value) -> float:
    return float(value.toordinal()) if isinstance(value, dt.date) else float(value)


def _x_ticks(low: float, high: float, is_date: bool) -> list[tuple[float, str]]:
    if is_date:
        return _date_ticks(dt.date.fromordinal(int(low)), dt.date.fromordinal(int(high)))
    return [(t, _fmt(t)) for t in nice_ticks(low, high, 6) if low <= t <= high]


def _ranges(series: list[Series], guides: tuple, x_end, is_date: bool) -> tuple[float, float, float, list[float]]:
    """The x axis (low, high), where step lines end, and the y ticks the y axis starts and ends on."""
    xs = [_as_x(x) for s in series for x, _ in s.points]
    ys = [float(y) for s in series for _, y in s.points] + [float(y) for y, _ in guides]
    end = _as_x(x_end) if x_end is not None else (max(xs) if xs else 1.0)
    if not xs:
        xs, ys = [0.0, 1.0], [0.0, 1.0]
    x_low, x_high = min(xs), max(max(xs), end)
    if x_high == x_low:
        x_high = x_low + (30 if is_date else 1)
    return x_low, x_high, end, nice_ticks(min(ys), max(ys))


def _line(series: Series, index: int, px: Scale, py: Scale, *, step: bool, end: float) -> Line:
    """The path of one series (a step line held up to `end` with `step`), with dots for a single point or a step."""
    colour = PALETTE[index % len(PALETTE)]
    dash = DASHES[(index // len(PALETTE)) % len(DASHES)]
    coords = [(px(_as_x(x)), py(float(y))) for x, y in series.points]
    if not coords:
        return Line(series.label, colour, dash, "", [])
    path = [f"M{coords[0][0]:.1f} {coords[0][1]:.1f}"]
    for x, y in coords[1:]:
        path.append(f"H{x:.1f}V{y:.1f}" if step else f"L{x:.1f} {y:.1f}")
    if step:
        path.append(f"H{px(end):.1f}")
    titles = series.titles or [""] * len(coords)
    dots = [(_n(x), _n(y), title) for (x, y), title in zip(coords, titles)] if len(coords) == 1 or step or series.titles else []
    return Line(series.label, colour, dash, "".join(path), dots)


def line_chart(
    series: list[Series],
    *,
    title: str,
    description: str,
    x_label: str,
    y_label: str,
    step: bool = False,
    x_end=None,
    guides: tuple = (),
    width: int = 640,
    height: int = 300,
) -> Chart:
    """A line (or step) chart of `series`. `guides` are (y, label) horizontal reference lines;
    with `step` every series is held at its last value up to `x_end` (default: the last x)."""
    is_date = any(isinstance(x, dt.date) for s in series for x, _ in s.points)
    x_low, x_high, end, y_ticks = _ranges(series, guides, x_end, is_date)
    left, right, top, bottom = 56, 12, 12, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    px = Scale(x_low, x_high, left, plot_w)
    py = Scale(y_ticks[0], y_ticks[-1] if y_ticks[-1] != y_ticks[0] else y_ticks[0] + 1, top, plot_h, flip=True)
    lines = [_line(s, index, px, py, step=step, end=end) for index, s in enumerate(series)]
    return Chart(
        title=title, description=description, legend=[(line.label, line.colour, line.dash) for line in lines],
        uid=next(_ids), width=width, height=height, left=left, top=top, plot_w=plot_w, plot_h=plot_h,
        y_ticks=[(_n(py(tick)), _n(py(tick) + 4), _fmt(tick)) for tick in y_ticks],
        x_ticks=[(_n(px(value)), text) for value, text in _x_ticks(x_low, x_high, is_date)],
        x_label=x_label, y_label=y_label,
        guides=[(_n(py(float(y))), _n(py(float(y)) - 4), label) for y, label in guides],
        lines=[line for line in lines if line.d],
    )


# Natural Earth's 1:110m countries, equirectangular (x = longitude, y = −latitude): static/vendor/README.md
WORLD_OUTLINE = "vendor/world-110m.svg"


@dataclass
class Pin(Drawn):
    """Where an event took place, on the vendored world outline."""

    title: str
    description: str
    uid: int
    width: int
    height: int
    x: str
    y: str
    head_y: str
    outline: str

    template = "charts/pin.html"


def map_pin(latitude: float, longitude: float, *, label: str, width: int = 360, height: int = 180) -> Pin:
    """A pin on the world outline, stretched over width × height (equirectangular): where an event took place."""
    x = (float(longitude) + 180.0) / 360.0 * width
    y = (90.0 - float(latitude)) / 180.0 * height
    return Pin(
        title=gettext("Where: %(place)s") % {"place": label},
        description=gettext("%(place)s: latitude %(latitude)s, longitude %(longitude)s") % {
            "place": label, "latitude": f"{float(latitude):.4f}", "longitude": f"{float(longitude):.4f}"},
        uid=next(_ids), width=width, height=height, x=_n(x), y=_n(y), head_y=_n(y - 14), outline=static(WORLD_OUTLINE),
    )


# The statistics pages' charts

# Diverging scale for win ratios, colour-blind safe (ColorBrewer PuOr ends): orange below 50 %, purple above.
LOW, MIDDLE, HIGH = (230, 97, 1), (247, 247, 247), (94, 60, 153)
SPREAD = 0.25  # a ratio this far from 50 % gets the full colour


def _luminance(rgb: tuple[int, ...]) -> float:
    """WCAG 2.1's relative luminance of an sRGB colour."""
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (channel / 255 for channel in rgb))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(first: float, second: float) -> float:
    """WCAG 2.1's contrast ratio of two luminances."""
    return (max(first, second) + 0.05) / (min(first, second) + 0.05)


INKS = {"#ffffff": 1.0, "#1d2330": _luminance((0x1D, 0x23, 0x30)), "#000000": 0.0}  # white, the site's ink, black


def ratio_colours(ratio: float) -> tuple[str, str]:
    """(background, text colour) for a win ratio: the number printed on it always reads at 4.5:1 or more
    (WCAG AA): white or the site's ink, whichever contrasts more, or black where neither reaches it."""
    t = max(-1.0, min(1.0, (ratio - 0.5) / SPREAD))
    end = HIGH if t > 0 else LOW
    rgb = tuple(round(m + (e - m) * abs(t)) for m, e in zip(MIDDLE, end))
    background = _luminance(rgb)
    ink = max(("#ffffff", "#1d2330"), key=lambda colour: _contrast(INKS[colour], background))
    if _contrast(INKS[ink], background) < 4.5:
        ink = "#000000"
    return "#{:02x}{:02x}{:02x}".format(*rgb), ink


class GridCell(NamedTuple):
    """One cell of the race grid: the win % over the games (none: no games), coloured unless a mirror match."""

    title: str = ""
    number: str = ""
    games: int = 0
    background: str = ""  # none: a mirror match
    ink: str = ""


@dataclass
class RaceGrid:
    """The rows of the race grid, for templates/charts/race_grid_rows.html: (race name, [GridCell, ...])."""

    rows: list[tuple[str, list[GridCell]]]


def race_grid(grid) -> RaceGrid:
    """The race grid's cells: win % and games, coloured by the win %, mirrors grey (`grid.rows()` as stats gives it)."""
    rows = []
    for race, cells in grid.rows():
        drawn = []
        for opponent, cell in cells:
            if cell is None:
                drawn.append(GridCell())
                continue
            title = gettext("%(race)s against %(opponent)s: %(wins)s W, %(draws)s D, %(losses)s L") % {
                "race": race.name, "opponent": opponent.name, "wins": cell.wins, "draws": cell.draws, "losses": cell.losses}
            colours = ("", "") if race == opponent else ratio_colours(cell.ratio)
            drawn.append(GridCell(title, on_page(formatting.percent(cell.ratio)), cell.games, *colours))
        rows.append((race.name, drawn))
    return RaceGrid(rows)


def _month_after(day: dt.date) -> dt.date:
    return dt.date(day.year + (day.month == 12), day.month % 12 + 1, 1)


def _label(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-9 else f"{value:g}"


@dataclass
class StepChart(Drawn):
    """A step line over monthly values: each value holds until the next list; a missing month breaks the line."""

    points: list[tuple[dt.date, float | None]]
    title: str
    y_label: str
    invert: bool = False  # ranks: 1 at the top
    width: int = 720
    height: int = 240
    left: int = 56
    right: int = 16
    top: int = 12
    bottom: int = 28

    template = "charts/step.html"

    @property
    def id(self) -> str:
        return "chart-" + "".join(c if c.isalnum() else "-" for c in self.title.lower())[:40]

    @cached_property
    def drawing(self) -> dict | None:
        """Ticks (grid lines with labels), year ticks and the path; None when no month has a value."""
        known = [(day, value) for day, value in self.points if value is not None]
        if not known:
            return None
        start = self.points[0][0]
        end = _month_after(self.points[-1][0])
        values = [value for _, value in known]
        low, high = min(values), max(values)
        if self.invert:
            low, high = min(1.0, low), max(high, low + 1)
        elif high - low < 1e-9:
            low, high = low - 1, high + 1
        plot_w = self.width - self.left - self.right
        plot_h = self.height - self.top - self.bottom
        span = max(1, (end - start).days)

        def x(day):
            return self.left + plot_w * (day - start).days / span

        def y(value):
            share = (value - low) / (high - low)
            return self.top + plot_h * (share if self.invert else 1 - share)

        years = list(range(start.year + (start.month > 1), end.year + 1))
        every = max(1, math.ceil(len(years) / 10))
        path = []
        previous_end = None
        for index, (day, value) in enumerate(self.points):
            if value is None:
                previous_end = None
                continue
            following = self.points[index + 1][0] if index + 1 < len(self.points) else end
            until = min(following, _month_after(day))
            command = "L" if previous_end == day else "M"
            path.append(f"{command}{x(day):.1f} {y(value):.1f}H{x(until):.1f}")
            previous_end = until if until == following else None
        return {
            "grid_right": self.width - self.right,
            "plot_bottom": self.top + plot_h,
            "label_x": self.left - 6,
            "year_label_y": self.height - 8,
            "middle": str(self.top + plot_h / 2),
            "ticks": [(_n(y(tick)), _n(y(tick) + 4), _label(tick)) for tick in nice_ticks(low, high, cover=False, whole=self.invert)],
            "years": [(_n(x(dt.date(year, 1, 1))), year) for year in years[::every]],
            "path": " ".join(path),
        }


@dataclass
class Bar:
    """One race's bar: its label, its side of the race average, and where it is drawn."""

    race: str
    side: str  # "above" or "below" the race average
    x: str
    top: int
    width: str
    points: str


@dataclass
class DifferentialBars(Drawn):
    """One bar per race: the coach's win ratio minus the race's average, in percentage points."""

    title: str
    width: int
    height: int
    centre: str
    label_x: int
    row_h: int
    bars: list[Bar]

    template = "charts/bars.html"

    @property
    def bar_height(self) -> int:
        return self.row_h - 6


def differential_bars(rows: list[dict], *, title: str, width: int = 720) -> DifferentialBars | None:
    """The bars of a coach's differentials (rows with race__name and differential), None without rows."""
    if not rows:
        return None
    row_h, label_w, value_w = 22, 170, 60
    reach = max(5.0, max(abs(100 * row["differential"]) for row in rows))
    centre = label_w + (width - label_w - value_w) / 2
    half = (width - label_w - value_w) / 2 - 4
    bars = []
    for index, row in enumerate(rows):
        points = 100 * row["differential"]
        length = half * abs(points) / reach
        bars.append(Bar(
            row["race__name"], "above" if points >= 0 else "below", _n(centre if points >= 0 else centre - length),
            6 + index * row_h, _n(length), formatting.signed(points, 1),
        ))
    return DifferentialBars(title, width, row_h * len(rows) + 24, _n(centre), label_w - 6, row_h, bars)


# Map

REGIONS = {
    # name: (label, west, east, south, north)
    "world": (gettext_lazy("World"), -180, 180, -60, 85),
    "europe": (gettext_lazy("Europe"), -25, 45, 34, 72),
    "north-america": (gettext_lazy("North America"), -170, -50, 10, 75),
    "oceania": (gettext_lazy("Oceania"), 110, 180, -50, -5),
}


@dataclass
class Circle:
    """A place on the map, its area proportional to its games."""

    cx: str
    cy: str
    r: str
    name: str
    games: int
    events: int


@dataclass
class PlacesMap(Drawn):
    """The vendored world outline of a region with one circle per place."""

    view: str
    label: str
    squeeze: str
    outline: str
    stroke_width: str
    circles: list[Circle]

    template = "charts/places_map.html"


def places_map(places: list, *, region: str = "world") -> PlacesMap:
    """The map of `places` (stats.selectors.Place) in a region of REGIONS."""
    label, west, east, south, north = REGIONS[region]
    # Equirectangular, with longitude squeezed by the cosine of the region's middle latitude so shapes look right.
    squeeze = max(0.5, math.cos(math.radians((north + south) / 2))) if region != "world" else 1.0
    view = (west * squeeze, -north, (east - west) * squeeze, north - south)
    scale = (east - west) / 360
    largest = max((place.games for place in places if place.placed_by), default=1)
    circles = []
    for place in sorted((p for p in places if p.placed_by), key=lambda p: -p.games):
        radius = max(0.6, 9 * math.sqrt(place.games / largest)) * scale
        name = ", ".join(part for part in (place.city, countries.name(place.country) if place.country else "") if part)
        circles.append(Circle(
            _n(place.longitude * squeeze, 3), _n(-place.latitude, 3), _n(radius, 3), name or gettext("Unknown place"),
            place.games, place.events,
        ))
    return PlacesMap(
        " ".join(_n(v, 2) for v in view), label, _n(squeeze, 4), static(WORLD_OUTLINE), _n(0.25 * scale, 3), circles,
    )
