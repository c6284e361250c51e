"""Charts drawn on the server as SVG: pages need no JavaScript, and each chart has its table beside it."""
import datetime as dt
import math
from dataclasses import dataclass

from django.templatetags.static import static
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django_countries import countries

from ratingsite import formatting
from ratingsite.ticks import nice_ticks

from .selectors import Place

# Diverging scale for win ratios, colour-blind safe (ColorBrewer PuOr ends): orange below 50 %, purple above.
LOW, MIDDLE, HIGH = (230, 97, 1), (247, 247, 247), (94, 60, 153)
SPREAD = 0.25  # a ratio this far from 50 % gets the full colour


def ratio_colours(ratio: float) -> tuple[str, str]:
    """(background, text colour) for a win ratio: the number printed on it always stays readable."""
    t = max(-1.0, min(1.0, (ratio - 0.5) / SPREAD))
    end = HIGH if t > 0 else LOW
    rgb = tuple(round(m + (e - m) * abs(t)) for m, e in zip(MIDDLE, end))
    luminance = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255
    return "#{:02x}{:02x}{:02x}".format(*rgb), "#ffffff" if luminance < 0.5 else "#1d2330"


def race_grid_body(grid) -> SafeString:
    """The rows of the race grid: win % and games in every cell, coloured by the win %, mirrors grey.

    Written in Python: 900 cells through the template engine cost more than the whole query.
    """
    rows = []
    for race, cells in grid.rows():
        tds = []
        for opponent, cell in cells:
            if cell is None:
                tds.append(mark_safe('<td class="empty" title="no games">–</td>'))
                continue
            title = f"{race.name} against {opponent.name}: {cell.wins} W, {cell.draws} D, {cell.losses} L"
            number = formatting.percent(cell.ratio)
            if race == opponent:
                tds.append(format_html('<td class="num mirror" title="{}">{}<small>{}</small></td>', title, number, cell.games))
            else:
                background, ink = ratio_colours(cell.ratio)
                tds.append(format_html(
                    '<td class="num" style="background:{};color:{}" title="{}">{}<small>{}</small></td>',
                    background, ink, title, number, cell.games,
                ))
        rows.append(format_html('<tr><th scope="row">{}</th>{}</tr>', race.name, mark_safe("".join(tds))))
    return mark_safe("\n".join(rows))


def _month_after(day: dt.date) -> dt.date:
    return dt.date(day.year + (day.month == 12), day.month % 12 + 1, 1)


@dataclass
class StepChart:
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

    def svg(self) -> SafeString:
        known = [(day, value) for day, value in self.points if value is not None]
        if not known:
            return format_html('<p class="chart-empty">{}: nothing to draw.</p>', self.title)
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

        parts = [
            format_html(
                '<svg class="stats-chart" viewBox="0 0 {} {}" role="img" aria-labelledby="{}-title" preserveAspectRatio="xMinYMin meet">'
                '<title id="{}-title">{}</title>',
                self.width, self.height, self._id, self._id, self.title,
            )
        ]
        for tick in nice_ticks(low, high, cover=False):
            parts.append(format_html(
                '<line class="grid" x1="{}" x2="{}" y1="{}" y2="{}"/><text class="tick" x="{}" y="{}" text-anchor="end">{}</text>',
                self.left, self.width - self.right, _n(y(tick)), _n(y(tick)), self.left - 6, _n(y(tick) + 4), _label(tick),
            ))
        years = list(range(start.year + (start.month > 1), end.year + 1))
        every = max(1, math.ceil(len(years) / 10))
        for year in years[::every]:
            at = x(dt.date(year, 1, 1))
            parts.append(format_html(
                '<line class="grid" x1="{}" x2="{}" y1="{}" y2="{}"/><text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>',
                _n(at), _n(at), self.top, self.top + plot_h, _n(at), self.height - 8, year,
            ))
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
        parts.append(format_html('<path class="line" d="{}"/>', " ".join(path)))
        parts.append(format_html(
            '<text class="axis-label" x="12" y="{}" transform="rotate(-90 12 {})" text-anchor="middle">{}</text></svg>',
            self.top + plot_h / 2, self.top + plot_h / 2, self.y_label,
        ))
        return mark_safe("".join(parts))

    @property
    def _id(self) -> str:
        return "chart-" + "".join(c if c.isalnum() else "-" for c in self.title.lower())[:40]


def _n(value: float, digits: int = 1) -> str:
    """A coordinate as SVG text."""
    return f"{value:.{digits}f}"


def _label(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-9 else f"{value:g}"


def differential_bars(rows: list[dict], *, title: str, width: int = 720) -> SafeString:
    """One bar per race: the coach's win ratio minus the race's average, in percentage points."""
    if not rows:
        return mark_safe("")
    row_h, label_w, value_w = 22, 170, 60
    height = row_h * len(rows) + 24
    reach = max(5.0, max(abs(100 * row["differential"]) for row in rows))
    centre = label_w + (width - label_w - value_w) / 2
    half = (width - label_w - value_w) / 2 - 4
    parts = [format_html(
        '<svg class="stats-chart bars" viewBox="0 0 {} {}" role="img" aria-labelledby="bars-title"><title id="bars-title">{}</title>'
        '<line class="axis" x1="{}" x2="{}" y1="4" y2="{}"/>',
        width, height, title, _n(centre), _n(centre), height - 18,
    )]
    for index, row in enumerate(rows):
        points = 100 * row["differential"]
        top = 6 + index * row_h
        length = half * abs(points) / reach
        x = centre if points >= 0 else centre - length
        parts.append(format_html(
            '<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>'
            '<rect class="{}" x="{}" y="{}" width="{}" height="{}"/>'
            '<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>',
            label_w - 6, top + 14, row["race__name"], "above" if points >= 0 else "below", _n(x), top + 2, _n(length), row_h - 6,
            width - 4, top + 14, formatting.signed(points, 1),
        ))
    parts.append(format_html(
        '<text class="tick" x="{}" y="{}" text-anchor="middle">race average</text></svg>', _n(centre), height - 4
    ))
    return mark_safe("".join(str(part) for part in parts))


# Map

REGIONS = {
    # name: (label, west, east, south, north)
    "world": ("World", -180, 180, -60, 85),
    "europe": ("Europe", -25, 45, 34, 72),
    "north-america": ("North America", -170, -50, 10, 75),
    "oceania": ("Oceania", 110, 180, -50, -5),
}


def map_svg(places: list[Place], *, region: str = "world") -> SafeString:
    """The vendored world outline with one circle per place, its area proportional to the games."""
    label, west, east, south, north = REGIONS[region]
    # Equirectangular, with longitude squeezed by the cosine of the region's middle latitude so shapes look right.
    squeeze = max(0.5, math.cos(math.radians((north + south) / 2))) if region != "world" else 1.0
    view = (west * squeeze, -north, (east - west) * squeeze, north - south)
    scale = (east - west) / 360
    largest = max((place.games for place in places if place.placed_by), default=1)
    parts = [
        format_html(
            '<svg class="stats-map" viewBox="{} {} {} {}" role="img" aria-labelledby="map-title">'
            '<title id="map-title">Where games are played: {}, circles sized by games</title>'
            '<g transform="scale({} 1)"><image href="{}" x="-180" y="-90" width="360" height="180" preserveAspectRatio="none"/></g>',
            *(_n(v, 2) for v in view), label, _n(squeeze, 4), static("vendor/world-110m.svg"),
        )
    ]
    for place in sorted((p for p in places if p.placed_by), key=lambda p: -p.games):
        radius = max(0.6, 9 * math.sqrt(place.games / largest)) * scale
        name = ", ".join(part for part in (place.city, countries.name(place.country) if place.country else "") if part)
        parts.append(format_html(
            '<circle cx="{}" cy="{}" r="{}" stroke-width="{}"><title>{}: {} games at {} events</title></circle>',
            _n(place.longitude * squeeze, 3), _n(-place.latitude, 3), _n(radius, 3), _n(0.25 * scale, 3),
            name or "Unknown place", place.games, place.events,
        ))
    parts.append("</svg>")
    return mark_safe("".join(str(part) for part in parts))

