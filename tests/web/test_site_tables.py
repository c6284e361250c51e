"""The site's table body (ratingsite/templatetags/site_tables.py): what the template loop wrote before it."""
from types import SimpleNamespace

from django.template import Context, Template
from django.utils import translation
from django.utils.safestring import mark_safe

# the loop of templates/django_tables2/site_table.html before table_rows, a template node a cell
LOOP = Template(
    '{% for row in rows %}<tr>{% for class, cell in row %}<td{% if class %} class="{{ class }}"{% endif %}>'
    "{{ cell }}</td>{% endfor %}</tr>\n{% endfor %}"
)
TAG = Template("{% load site_tables %}{% table_rows table %}")

ROWS = [
    [("num col-rank", 1), ("col-coach", mark_safe('<a href="/coaches/7/">Anna &amp; Bert</a>')), ("", "<b>x</b> & y")],
    [("num", 1234.5), ("", None), ("col-x", ""), (None, 0.1 + 0.2), ("", "Zoë")],
]


def test_table_rows_write_each_cell_as_the_template_loop_did_in_every_language():
    table = SimpleNamespace(body_rows=lambda: iter(ROWS))
    for language in ("en", "nl"):
        with translation.override(language):
            written = TAG.render(Context({"table": table}))
            assert written == LOOP.render(Context({"rows": ROWS}))
    assert "<td>&lt;b&gt;x&lt;/b&gt; &amp; y</td>" in written  # text escaped, HTML kept
    assert '<td class="col-coach"><a href="/coaches/7/">Anna &amp; Bert</a></td>' in written
    with translation.override("nl"):
        assert '<td class="num">1234,5</td>' in TAG.render(Context({"table": table}))


def test_a_table_without_rows_writes_nothing():
    assert TAG.render(Context({"table": SimpleNamespace(body_rows=lambda: iter([]))})) == ""
