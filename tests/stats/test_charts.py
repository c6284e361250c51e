"""The server-side SVG helpers."""
import datetime as dt

from ratingsite.charts import REGIONS, StepChart, places_map, ratio_colours
from ratingsite.ticks import nice_ticks
from stats.selectors import Place


def test_ratio_colours_are_neutral_at_fifty_percent():
    assert ratio_colours(0.5) == ("#f7f7f7", "#1d2330")


def test_ratio_colours_diverge_and_keep_the_number_readable():
    assert ratio_colours(1.0) == ("#5e3c99", "#ffffff")
    assert ratio_colours(0.0)[0] == "#e66101"
    assert ratio_colours(0.6)[1] == "#1d2330"


def _contrast(first: str, second: str) -> float:
    """WCAG 2.1's contrast ratio of two #rrggbb colours."""
    def luminance(colour: str) -> float:
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_every_win_ratio_is_printed_at_a_contrast_of_at_least_4_5_to_1():
    """WCAG 2.1 AA (1.4.3) for the race grid's small numbers: axe found 4.25 at 62 % and 3.5 at 0 %."""
    worst = min((_contrast(*ratio_colours(step / 100)), step) for step in range(101))
    assert worst[0] >= 4.5, worst
    assert ratio_colours(0.0) == ("#e66101", "#1d2330")  # white on this orange reads at 3.5:1 only


def test_nice_ticks():
    assert nice_ticks(0, 100, cover=False) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(151.3, 163.9, cover=False) == [155, 160]
    assert nice_ticks(1, 3, cover=False) == [1.0, 1.5, 2.0, 2.5, 3.0]
    # covering the range: an axis starts and ends on a tick
    assert nice_ticks(151.3, 163.9) == [150, 155, 160, 165]
    assert nice_ticks(0, 1) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(143, 157) == [140, 145, 150, 155, 160]


def test_step_chart_holds_each_value_until_the_next_list():
    chart = StepChart([(dt.date(2024, 1, 1), 10.0), (dt.date(2024, 2, 1), 20.0)], "t", "y").svg
    path = chart.split('class="line" d="')[1].split('"')[0]
    assert path.startswith("M56.0 ") and " L" in path and path.count("H") == 2


def test_step_chart_without_values_says_so():
    assert "nothing to draw" in StepChart([(dt.date(2024, 1, 1), None)], "Rank", "Rank").svg


def test_map_circles_are_sized_by_games_and_escaped():
    svg = places_map([
        Place("NL", "Utrecht", 2, 100, 52.1, 5.1, "event"),
        Place("GB", "<London>", 1, 25, 51.5, -0.1, "country"),
        Place("", "Nowhere", 1, 5, None, None, ""),
    ]).svg
    assert svg.count("<circle") == 2
    assert 'r="9.000"' in svg and 'r="4.500"' in svg
    assert "&lt;London&gt;, United Kingdom: 25 games at 1 events" in svg


def test_every_region_draws():
    for region in REGIONS:
        assert places_map([], region=region).svg.startswith('<svg class="stats-map"')


def test_rank_ticks_are_whole_numbers():
    assert nice_ticks(1, 12, cover=False, whole=True) == [5, 10]  # not 2.5, 5, 7.5, 10
    assert nice_ticks(1, 3, cover=False, whole=True) == [1, 2, 3]  # never halves
    assert nice_ticks(1, 12, cover=False) == [2.5, 5.0, 7.5, 10.0]  # a rating axis may take 2.5


def test_a_rank_chart_labels_whole_ranks_only():
    chart = StepChart([(dt.date(2024, m, 1), rank) for m, rank in ((1, 1), (2, 3), (3, 12))], "Rank", "Rank", invert=True)
    labels = [label for _, _, label in chart.drawing["ticks"]]
    assert labels and all(label.isdigit() for label in labels)
