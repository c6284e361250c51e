"""CSV export of a statistics table: the same columns and cell values as the page, every filtered row."""
import csv
from itertools import count

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils.encoding import force_str

EXPORT_MAX_ROWS = 100_000  # the games explorer's longest export; narrower filters give the rest
CHUNK = 2_000


class _Echo:
    """A file-like object whose write hands the line back, so csv.writer can feed a streaming response."""

    def write(self, value):
        return value


def table_rows(table):
    """The header and then every row of the table (not only the current page), as the cells' values."""
    columns = [column for column in table.columns.iterall() if not column.column.exclude_from_export]
    yield [force_str(column.header, strings_only=True) for column in columns]
    table._counter = count()
    for chunk in _chunks(table.data.data):
        for record in table.prepare(chunk):
            yield [force_str(value, strings_only=True) for value in table.text_cells(record)]


def _chunks(data):
    """A queryset in chunks (its order kept, at most EXPORT_MAX_ROWS rows), anything else whole."""
    if not isinstance(data, QuerySet):
        yield list(data)
        return
    for start in range(0, EXPORT_MAX_ROWS, CHUNK):
        chunk = list(data[start:start + CHUNK])
        yield chunk
        if len(chunk) < CHUNK:
            return


def csv_response(table, filename: str) -> StreamingHttpResponse:
    return rows_csv_response(table_rows(table), filename)


def rows_csv_response(rows, filename: str) -> StreamingHttpResponse:
    """Rows (the header first) streamed as a CSV download."""
    writer = csv.writer(_Echo())
    response = StreamingHttpResponse((writer.writerow(row) for row in rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    return response
