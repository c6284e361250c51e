"""The presentation layer: markup comes from templates, and every name in it is escaped."""
import datetime as dt
from types import SimpleNamespace

from django.template import Context, Template
from django.template.loader import render_to_string

from ratingsite import charts
from ratingsite.widgets import FastSelect
from tournaments.staff_views import _change_lines

NAME = "Zoë <Smith> & Co"
ESCAPED = "Zoë &lt;Smith&gt; &amp; Co"


def test_select_escapes_labels_and_marks_only_the_first_chosen_option():
    html = FastSelect(choices=[("", "All"), ("a&b", NAME), ("a&b", "again")]).render("coach", "a&b")
    assert f'<option value="a&amp;b" selected>{ESCAPED}</option><option value="a&amp;b">again</option>' in html


def test_select_reads_its_options_through_the_cache_it_is_given():
    asked = []

    def cache(build):
        asked.append(True)
        return [("x", "From the cache")]

    assert "From the cache" in FastSelect(choices=[("y", "Not this")], cache=cache).render("race", "")
    assert asked == [True]


def test_race_grid_cells_are_escaped_coloured_and_mirrors_grey():
    race, other = SimpleNamespace(name=NAME), SimpleNamespace(name="Orc")
    cell = SimpleNamespace(wins=3, draws=0, losses=1, games=4, ratio=0.75)
    grid = SimpleNamespace(rows=lambda: [(race, [(race, cell), (other, cell), (other, None)])])
    html = render_to_string("charts/race_grid_rows.html", {"chart": charts.race_grid(grid)})
    assert f'<th scope="row">{ESCAPED}</th>' in html
    assert f'<td class="num mirror" title="{ESCAPED} against {ESCAPED}: 3 W, 0 D, 1 L">75.0<small>4</small></td>' in html
    assert '<td class="num" style="background:#5e3c99;color:#ffffff"' in html
    assert '<td class="empty" title="no games">–</td>' in html


def test_audit_changes_are_one_escaped_line_per_field():
    template = "staff/_audit_change.html"
    lines = _change_lines({"name": "Old", "city": "A"}, {"name": NAME})
    assert render_to_string(template, {"lines": lines}) == f"name: Old → {ESCAPED}<br>city: A → —"
    assert render_to_string(template, {"lines": _change_lines(None, None)}) == "—"
    assert render_to_string(template, {"lines": _change_lines("a", "<b>")}) == "a → &lt;b&gt;"


def test_breakdown_rows_escape_the_opponent_and_link_the_footnote():
    opponent = SimpleNamespace(number=7, name=NAME, public_name=NAME)  # pages show the public name
    row = SimpleNamespace(
        opponent=opponent, opponent_race=SimpleNamespace(name="Orc & Goblin"), played_at=dt.date(2024, 3, 9),
        list_date=None, depot_date=None, r0=150.0, rc=149.5, w=1.0, we=0.5, rt=2.345, k=9.0, wx=0.5,
    )
    item = SimpleNamespace(row=row, footnote=2, kind="excluded", w_minus_we=0.5, rating_after=152.35, late=None)
    html = Template("{% load rating_figures %}{% breakdown_rows items method places %}").render(
        Context({"items": [item], "method": "naf_elo", "places": 2})
    )
    assert html.startswith('<tr class="excluded"><td class="num">7</td><td><a href="/coaches/7/">' + ESCAPED + "</a>")
    assert ('<sup><a href="#fn-2" aria-label="footnote 2">2)</a></sup> <span class="row-kind">not counted</span></td>'
            '<td>Orc &amp; Goblin</td><td>2024-03-09</td>') in html  # the red row says so in words too
    assert html.endswith('<td class="num">+2.35</td><td class="num">152.35</td></tr>\n')
