"""The body of the site's tables (templates/django_tables2/site_table.html)."""
from django import template
from django.template.base import render_value_in_context
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag(takes_context=True)
def table_rows(context, table) -> SafeString:
    """A `fast_rows` table's rows of the page, each cell written as `{{ cell }}` writes it (localised,
    escaped unless safe), the class as `{{ class }}`: a loop of template nodes a cell cost a ranking
    page of 50 rows about a third of its rendering."""
    out = []
    for row in table.body_rows():
        out.append("<tr>")
        for css, cell in row:
            if css:
                out.append(f'<td class="{render_value_in_context(css, context)}">{render_value_in_context(cell, context)}</td>')
            else:
                out.append(f"<td>{render_value_in_context(cell, context)}</td>")
        out.append("</tr>\n")
    return mark_safe("".join(out))  # each value escaped above, as the template did
