"""CSV export of a statistics table: the same columns and cell values as the page, every filtered row."""
from itertools import count

from django.db.models import QuerySet
from django.http import StreamingHttpResponse

from ratingsite.csv_export import csv_download

from .tables import GamesTable, HeadToHeadTable

EXPORT_MAX_ROWS = 100_000  # the games explorer's longest export; narrower filters give the rest
CHUNK = 2_000

# The page heads the opponent's columns "Number" and "Race" under "Opponent"; a CSV header names
# each column once, so that it can be read by name.
EXPORT_HEADERS = {
    GamesTable: {"away_number": "Opponent number", "away_race": "Opponent race"},
    HeadToHeadTable: {"opponent_number": "Opponent number"},
}


def _exported_columns(table):
    return [column for column in table.columns.iterall() if not column.column.exclude_from_export]


def table_header(table) -> list[str]:
    """The table's column headers, in its column order (the opponent's named as such)."""
    renamed = next((names for kind, names in EXPORT_HEADERS.items() if isinstance(table, kind)), {})
    return [renamed.get(column.name, str(column.header)) for column in _exported_columns(table)]


def table_body(table):
    """Every row of the table (not only the current page), as the cells' values."""
    table._counter = count()
    for chunk in _chunks(table.data.data):
        for record in table.prepare(chunk):
            yield table.text_cells(record)


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
    """The table streamed as the download `<filename>.csv`."""
    return csv_download(table_header(table), table_body(table), filename=filename)


def rows_csv_response(rows, filename: str) -> StreamingHttpResponse:
    """Rows (the header first) streamed as the download `<filename>.csv`."""
    rows = iter(rows)
    return csv_download(next(rows), rows, filename=filename)
