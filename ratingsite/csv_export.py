"""The one way the site writes CSV: a header named in a fixed order, then the rows, as UTF-8.

Downloads stream, with a byte order mark first so that spreadsheets read accented names (Søren,
Zoë) as UTF-8. Commands that print CSV for other programs write the mark only when asked.
Figures arrive as text already formatted by `ratingsite.formatting`: a bare float or Decimal is refused.
Text that a spreadsheet would run as a formula is written so that it shows as text.
A CSV is the same file in every language of the site: its header and cells are made in the site's
own language (English), figures and dates never localised, whatever the page's address.
Apps call this module; it imports none of them.
"""
from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal
from itertools import islice
from typing import Any, Protocol

from django.conf import settings
from django.http import StreamingHttpResponse
from django.utils import translation

BOM = "\ufeff"
CONTENT_TYPE = "text/csv; charset=utf-8"
DOWNLOAD_LINE_END = "\r\n"  # RFC 4180's, as the downloads always had
ROWS_PER_CHUNK = 500  # rows joined into one piece of the stream: far fewer writes for the same bytes


class TextStream(Protocol):
    """Anything text can be written to, such as a command's stdout."""

    def write(self, text: str, /) -> Any: ...


class DuplicateHeaderError(ValueError):
    """A header names a column twice, so a reader by name would lose one of them."""


def checked_header(names: Iterable[Any]) -> tuple[str, ...]:
    """The header as text, in the order given; raises DuplicateHeaderError if a name comes twice."""
    header = tuple(str(name) for name in names)
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:
        raise DuplicateHeaderError(f"The CSV header names {', '.join(repr(name) for name in twice)} more than once: {list(header)}.")
    return header


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (float, Decimal)):
        raise TypeError(f"The figure {value!r} reached the CSV unformatted: format it with ratingsite.formatting first.")
    return spreadsheet_text(str(value))


def spreadsheet_text(text: str) -> str:
    """The cell as a spreadsheet shows it, never run as a formula: text starting with = + - @, a tab
    or a carriage return gets a leading apostrophe; numbers (-12.50, +3) and a lone "-" stay as they are."""
    if not text.startswith(FORMULA_STARTS) or text in ("-", "+") or _is_number(text):
        return text
    return "'" + text


def _is_number(text: str) -> bool:
    digits = text[1:] if text[:1] in "+-" else text
    if not digits[:1].isdigit() and not (digits[:1] == "." and digits[1:2].isdigit()):
        return False  # float() also reads "inf", "nan" and surrounding blanks
    try:
        float(text)
    except ValueError:
        return False
    return True


class _Echo:
    """A file-like object whose write hands the line back, so csv.writer can feed a generator."""

    def write(self, line: str) -> str:
        return line


def _csv_chunks(
    header: Sequence[str], rows: Iterable[Iterable[Any]], *, bom: bool, line_end: str = DOWNLOAD_LINE_END,
) -> Iterator[str]:
    """The CSV text in pieces: the header line (after the BOM when `bom`), then the rows, ROWS_PER_CHUNK at a time.

    The header is checked before the first piece is asked for, so a bad one fails at once and not
    half-way through a download.
    """
    with translation.override(settings.LANGUAGE_CODE):
        names = checked_header(header)
    writer = csv.writer(_Echo(), lineterminator=line_end)

    def chunks() -> Iterator[str]:
        yield (BOM if bom else "") + writer.writerow(names)
        remaining = iter(rows)
        while True:
            # the rows are read as the download goes, after the view has returned: each batch in English
            with translation.override(settings.LANGUAGE_CODE):
                batch = [[_cell(value) for value in row] for row in islice(remaining, ROWS_PER_CHUNK)]
            if not batch:
                return
            yield "".join([writer.writerow(row) for row in batch])
    return chunks()


def csv_download(
    header: Sequence[str], rows: Iterable[Iterable[Any]], *, filename: str,
) -> StreamingHttpResponse:
    """A streamed CSV attachment `<filename>.csv` (a slug: it is not quoted further): UTF-8 with a BOM,
    the header, then the rows, read as the download goes."""
    response = StreamingHttpResponse(_csv_chunks(header, rows, bom=True), content_type=CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    return response


def csv_write(stream: TextStream, header: Sequence[str], rows: Iterable[Iterable[Any]], *, bom: bool = False) -> None:
    """Write the CSV to a text stream (a command's stdout), lines ending in "\\n", the BOM only when `bom`."""
    for chunk in _csv_chunks(header, rows, bom=bom, line_end="\n"):
        stream.write(chunk)



def csv_file_text(header: Sequence[str], rows: Iterable[Iterable[Any]]) -> Iterator[str]:
    """The text of a CSV file kept for download (the open data's list files): the same as a CSV
    download's, byte for byte (the BOM, the header, the rows, RFC 4180's line ends), in pieces."""
    return _csv_chunks(header, rows, bom=True)
