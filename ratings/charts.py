"""Server-side SVG charts: line and step charts, and a map pin. No JavaScript, no external assets.

Each chart comes with a text alternative (SVG <title> and <desc>) and its pages also show the
data as a table; the SVG scales to its container through its viewBox.
"""
from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from itertools import count

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ratingsite.formatting import fixed
from ratingsite.ticks import nice_ticks

PALETTE = ["#0b5cad", "#c2410c", "#1b7a3a", "#7c3aed", "#b3261e", "#0e7490", "#a16207", "#be185d"]
DASHES = ["", "6 3", "2 3"]
_ids = count(1)


@dataclass
class Series:
    label: str
    points: list  # (x, y) pairs; x a number or a date, in increasing order


@dataclass
class Chart:
    title: str
    description: str
    svg: SafeString
    legend: list = field(default_factory=list)  # (label, colour, dash)


def _date_ticks(low: dt.date, high: dt.date) -> list[tuple[float, str]]:
    """Year ticks, or quarter ticks over a short span."""
    years = high.year - low.year
    if years >= 2:
        stride = max(1, math.ceil(years / 6))
        return [
            (dt.date(y, 1, 1).toordinal(), str(y))
            for y in range(low.year + 1, high.year + 1, stride)
        ] or [(low.toordinal(), str(low.year))]
    ticks = []
    month = dt.date(low.year, 1, 1)
    while month <= high:
        if month >= low:
            ticks.append((month.toordinal(), f"{month:%b %Y}"))
        index = month.year * 12 + month.month - 1 + 3
        month = dt.date(index // 12, index % 12 + 1, 1)
    return ticks or [(low.toordinal(), f"{low:%b %Y}")]


def _fmt(value: float) -> str:
    """A tick label: whole from 100 up, else to 0.01 without trailing zeros."""
    if abs(value) >= 100 or value == int(value):
        return fixed(value, 0)
    return fixed(value, 2).rstrip("0").rstrip(".")


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

    def as_x(value) -> float:
        return float(value.toordinal()) if isinstance(value, dt.date) else float(value)

    xs = [as_x(x) for s in series for x, _ in s.points]
    ys = [float(y) for s in series for _, y in s.points] + [float(y) for y, _ in guides]
    end = as_x(x_end) if x_end is not None else (max(xs) if xs else 1.0)
    if not xs:
        xs, ys = [0.0, 1.0], [0.0, 1.0]
    x_low, x_high = min(xs), max(max(xs), end)
    if x_high == x_low:
        x_high = x_low + (30 if is_date else 1)
    y_ticks = nice_ticks(min(ys), max(ys))
    y_low, y_high = y_ticks[0], y_ticks[-1]
    if y_high == y_low:
        y_high = y_low + 1
    left, right, top, bottom = 56, 12, 12, 44
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(x: float) -> float:
        return left + (x - x_low) / (x_high - x_low) * plot_w

    def py(y: float) -> float:
        return top + (1 - (y - y_low) / (y_high - y_low)) * plot_h

    uid = next(_ids)
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="chart{uid}-t chart{uid}-d" preserveAspectRatio="xMidYMid meet">',
        f'<title id="chart{uid}-t">{escape(title)}</title>',
        f'<desc id="chart{uid}-d">{escape(description)}</desc>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fff" stroke="#d9dde5"/>',
    ]
    for tick in y_ticks:
        y = py(tick)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eef0f4"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{_fmt(tick)}</text>')
    if is_date:
        x_ticks = _date_ticks(dt.date.fromordinal(int(x_low)), dt.date.fromordinal(int(x_high)))
    else:
        x_ticks = [(t, _fmt(t)) for t in nice_ticks(x_low, x_high, 6) if x_low <= t <= x_high]
    for value, text in x_ticks:
        x = px(value)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + plot_h}" stroke="#eef0f4"/>')
        parts.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle" font-size="11">{escape(text)}</text>')
    parts.append(
        f'<text x="{left + plot_w / 2:.0f}" y="{height - 6}" text-anchor="middle" font-size="12">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text x="14" y="{top + plot_h / 2:.0f}" text-anchor="middle" font-size="12" '
        f'transform="rotate(-90 14 {top + plot_h / 2:.0f})">{escape(y_label)}</text>'
    )
    for y_value, label in guides:
        y = py(float(y_value))
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#b3261e" stroke-dasharray="4 3"/>'
        )
        parts.append(
            f'<text x="{left + plot_w - 4}" y="{y - 4:.1f}" text-anchor="end" font-size="11" fill="#b3261e">{escape(label)}</text>'
        )
    legend = []
    for index, s in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        dash = DASHES[(index // len(PALETTE)) % len(DASHES)]
        legend.append((s.label, colour, dash))
        if not s.points:
            continue
        coords = [(px(as_x(x)), py(float(y))) for x, y in s.points]
        path = [f"M{coords[0][0]:.1f} {coords[0][1]:.1f}"]
        for x, y in coords[1:]:
            path.append(f"H{x:.1f}V{y:.1f}" if step else f"L{x:.1f} {y:.1f}")
        if step:
            path.append(f"H{px(end):.1f}")
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<path d="{"".join(path)}" fill="none" stroke="{colour}" stroke-width="2"{dash_attr}>'
            f"<title>{escape(s.label)}</title></path>"
        )
        if len(coords) == 1 or step:
            for x, y in coords:
                parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')
    parts.append("</svg>")
    return Chart(title=title, description=description, svg=mark_safe("".join(parts)), legend=legend)


def map_pin(latitude: float, longitude: float, *, label: str, width: int = 360, height: int = 180) -> Chart:
    """A pin on a plain longitude/latitude grid (equirectangular): where an event took place."""
    x = (float(longitude) + 180.0) / 360.0 * width
    y = (90.0 - float(latitude)) / 180.0 * height
    uid = next(_ids)
    description = f"{label}: latitude {float(latitude):.4f}, longitude {float(longitude):.4f}"
    parts = [
        f'<svg class="chart map" viewBox="0 0 {width} {height}" role="img" aria-labelledby="map{uid}-t map{uid}-d">',
        f'<title id="map{uid}-t">Where: {escape(label)}</title><desc id="map{uid}-d">{escape(description)}</desc>',
        f'<rect width="{width}" height="{height}" fill="#e6f0fb" stroke="#d9dde5"/>',
    ]
    for lon in range(-150, 181, 30):
        gx = (lon + 180) / 360 * width
        parts.append(f'<line x1="{gx:.1f}" x2="{gx:.1f}" y1="0" y2="{height}" stroke="#c8d6ea"/>')
    for lat in range(-60, 91, 30):
        gy = (90 - lat) / 180 * height
        stroke = "#8fa7c7" if lat == 0 else "#c8d6ea"
        parts.append(f'<line x1="0" x2="{width}" y1="{gy:.1f}" y2="{gy:.1f}" stroke="{stroke}"/>')
    parts.append(
        f'<path d="M{x:.1f} {y:.1f} l-6 -12 a6 6 0 1 1 12 0 z" fill="#b3261e" stroke="#fff" stroke-width="1"/>'
        f'<circle cx="{x:.1f}" cy="{y - 14:.1f}" r="2.2" fill="#fff"/>'
    )
    parts.append("</svg>")
    return Chart(title=f"Where: {label}", description=description, svg=mark_safe("".join(parts)))
