"""One CSV writer: UTF-8 with a byte order mark for downloads, the header as given, no name twice."""
import codecs
import csv
import io
from decimal import Decimal

import pytest

from ratingsite.csv_export import ROWS_PER_CHUNK, DuplicateHeaderError, checked_header, csv_download, csv_write, spreadsheet_text
from ratingsite.formatting import fixed

HEADER = ["coach_number", "coach", "race", "rating"]


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def test_a_download_is_a_named_utf8_attachment_starting_with_the_byte_order_mark():
    response = csv_download(HEADER, [["101", "Anna Jansen", "Human", "151.41"]], filename="elo-ranking-2024-07")
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="elo-ranking-2024-07.csv"'
    assert body(response) == codecs.BOM_UTF8 + b"coach_number,coach,race,rating\r\n101,Anna Jansen,Human,151.41\r\n"


def test_the_header_keeps_the_order_it_is_given():
    header = ["Rank", "Overall", "Coach", "Number", "Nat.", "Race", "Rating", "μ", "φ"]
    response = csv_download(header, [], filename="ranking")
    assert next(csv.reader(io.StringIO(body(response).decode("utf-8-sig")))) == header


def test_a_header_naming_a_column_twice_is_refused_where_it_is_defined():
    with pytest.raises(DuplicateHeaderError, match="'coach'"):
        checked_header(["coach_number", "coach", "race", "coach"])


def test_a_download_with_a_repeated_header_fails_before_a_byte_is_sent():
    rows_read = []

    def rows():
        rows_read.append(1)
        yield ["1", "2"]
    with pytest.raises(DuplicateHeaderError):
        csv_download(["Number", "Number"], rows(), filename="games")
    out = io.StringIO()
    with pytest.raises(DuplicateHeaderError):
        csv_write(out, ["rank", "rank"], rows())
    assert out.getvalue() == "" and rows_read == []


def test_a_header_naming_a_column_twice_is_refused_with_every_repeated_name():
    with pytest.raises(DuplicateHeaderError, match="'Number', 'Race'"):
        checked_header(["Date", "Number", "Coach", "Race", "Opponent", "Number", "Race"])
    assert checked_header(["Number", "Coach", "Opponent number"]) == ("Number", "Coach", "Opponent number")


def test_accented_names_read_back_through_csv_with_utf8_sig(tmp_path):
    rows = [["1001", "Søren Ærø", "Dwarf"], ["1002", "Zoë Müller-Łukasz", "Wood Elf"], ["1003", "Renée « Bó » Ñandú", "Human"]]
    path = tmp_path / "coaches.csv"
    path.write_bytes(body(csv_download(["number", "coach", "race"], rows, filename="coaches")))
    with open(path, encoding="utf-8-sig", newline="") as handle:
        assert list(csv.reader(handle)) == [["number", "coach", "race"], *rows]


def test_cells_with_commas_quotes_and_line_breaks_are_quoted():
    rows = [["Smith, John", 'The "Hammer"', "two\nlines"]]
    text = body(csv_download(["a", "b", "c"], rows, filename="x")).decode("utf-8-sig")
    assert list(csv.reader(io.StringIO(text, newline=""))) == [["a", "b", "c"], *rows]


def test_many_rows_stream_as_they_are_read():
    read = 0

    def rows():
        nonlocal read
        for number in range(100_000):
            read += 1
            yield [number, f"Coach {number}", "Orc", fixed(150 + number / 1000)]
    response = csv_download(HEADER, rows(), filename="many")
    assert read == 0
    chunks = iter(response.streaming_content)
    assert next(chunks) == codecs.BOM_UTF8 + b"coach_number,coach,race,rating\r\n"
    assert read == 0
    first = next(chunks).decode().splitlines()
    assert (read, len(first), first[0]) == (ROWS_PER_CHUNK, ROWS_PER_CHUNK, "0,Coach 0,Orc,150.00")
    rest = b"".join(chunks).decode().splitlines()
    assert (read, len(rest), rest[-1]) == (100_000, 100_000 - ROWS_PER_CHUNK, "99999,Coach 99999,Orc,250.00")


def test_figures_must_come_formatted_and_none_is_an_empty_cell():
    assert body(csv_download(["rank", "rating"], [[None, fixed(2.675)], [3, "148.59"]], filename="x")).decode("utf-8-sig") == (
        "rank,rating\r\n,2.68\r\n3,148.59\r\n"
    )
    for figure in (151.41, Decimal("151.41")):
        with pytest.raises(TypeError, match="ratingsite.formatting"):
            body(csv_download(["rating"], [[figure]], filename="x"))


def test_a_command_writes_lines_ending_in_newline_and_the_byte_order_mark_only_when_asked():
    plain, marked = io.StringIO(), io.StringIO()
    csv_write(plain, HEADER, [["101", "Dirk Müller", "", "149.97"]])
    csv_write(marked, HEADER, [["101", "Dirk Müller", "", "149.97"]], bom=True)
    assert plain.getvalue() == "coach_number,coach,race,rating\n101,Dirk Müller,,149.97\n"
    assert marked.getvalue() == "\ufeff" + plain.getvalue()


@pytest.mark.parametrize(("value", "cell"), [
    ('=HYPERLINK("http://evil")', '\'=HYPERLINK("http://evil")'), ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
    ("+31 6", "'+31 6"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"), ("-inf", "'-inf"), ("- 2", "'- 2"),
    ("-1", "-1"), ("-12.50", "-12.50"), ("+3", "+3"), ("-.5", "-.5"), ("-", "-"), ("Anna", "Anna"), ("Zoë = Zoe", "Zoë = Zoe"),
])
def test_no_text_cell_runs_as_a_formula_and_numbers_stay_numbers(value, cell):
    assert spreadsheet_text(value) == cell


def test_every_csv_neutralises_formulas_in_its_text_cells():
    rows = [["=1+1", "-3.25", "-", 7, None]]
    assert body(csv_download(["a", "b", "c", "d", "e"], rows, filename="x")).decode("utf-8-sig").splitlines()[1] == "'=1+1,-3.25,-,7,"
    out = io.StringIO()
    csv_write(out, ["a"], [["@evil"]])
    assert out.getvalue() == "a\n'@evil\n"
