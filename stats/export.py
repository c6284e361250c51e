"""CSV export of a statistics table: the same columns and cell values as the page, every filtered row.

The header goes out before any query, then the rows as they are read: never by an OFFSET, which
sorts again and skips everything sent before for each chunk.
"""
from itertools import count, islice

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
    data = table.data.data
    if table.export_fields and isinstance(data, QuerySet):
        yield from _value_rows(table, data)
        return
    table._counter = count()
    for chunk in _chunks(data):
        for record in table.prepare(chunk):
            yield table.text_cells(record)


def _chunks(data):
    """A queryset in chunks (its order kept, at most EXPORT_MAX_ROWS rows, read by one query), anything else whole."""
    if not isinstance(data, QuerySet):
        yield list(data)
        return
    records = data[:EXPORT_MAX_ROWS].iterator(chunk_size=CHUNK)
    while chunk := list(islice(records, CHUNK)):
        yield chunk


def _value_rows(table, data: QuerySet):
    """The cells of a table that reads plain values (`export_fields`), in the queryset's order: its ids
    first (at most EXPORT_MAX_ROWS, one query), then the values of CHUNK rows at a time by id."""
    ids = list(data.values_list("pk", flat=True)[:EXPORT_MAX_ROWS])
    values = data.model._default_manager.values_list("pk", *table.export_fields)
    cells = table.export_cells()
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start:start + CHUNK]
        found = {row[0]: row[1:] for row in values.filter(pk__in=chunk)}
        yield from (cells(found[pk]) for pk in chunk if pk in found)  # a row deleted since the ids were read is left out


def csv_response(table, filename: str) -> StreamingHttpResponse:
    """The table streamed as the download `<filename>.csv`."""
    return csv_download(table_header(table), table_body(table), filename=filename)


def rows_csv_response(rows, filename: str) -> StreamingHttpResponse:
    """Rows (the header first) streamed as the download `<filename>.csv`."""
    rows = iter(rows)
    return csv_download(next(rows), rows, filename=filename)
