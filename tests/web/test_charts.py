"""Server-side SVG charts: scales, step lines, text alternatives."""
import datetime as dt

from ratingsite import charts


def test_step_chart_holds_each_value_until_the_next_and_to_the_end():
    chart = charts.line_chart(
        [charts.Series("Orc", [(dt.date(2024, 1, 1), 150.0), (dt.date(2024, 7, 1), 160.0)])],
        title="History", description="Orc from 150 to 160", x_label="Date", y_label="Rating", step=True,
        x_end=dt.date(2024, 12, 31),
    )
    svg = str(chart.svg)
    path = svg[svg.index('<path d="') + 9:]
    path = path[:path.index('"')]
    assert path.count("H") == 2 and path.count("V") == 1  # across, up, across to the end
    assert '<title id="chart' in svg and "<desc id=" in svg and "Orc from 150 to 160" in svg


def test_labels_are_escaped():
    chart = charts.line_chart([charts.Series("<b>", [(0, 1), (1, 2)])], title="<script>", description="&",
                              x_label="x", y_label="y")
    assert "<script>" not in str(chart.svg) and "&lt;script&gt;" in str(chart.svg)


def test_map_pin_sits_at_the_coordinates():
    pin = charts.map_pin(0, 0, label="Null Island", width=360, height=180)
    assert 'd="M180.0 90.0' in str(pin.svg)
    assert "latitude 0.0000, longitude 0.0000" in pin.description
