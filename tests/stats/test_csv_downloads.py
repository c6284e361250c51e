"""CSV downloads: a byte order mark first on every one, one header whatever the filters, and the rows
streamed as they are read (the header before any query)."""
import codecs
import csv
import io
import time

import pytest
from django.db import connection
from django.http import StreamingHttpResponse
from django.test.utils import CaptureQueriesContext

from ratingsite import csv_export, page_cache
from stats import export
from tests.roles import anonymous_get, staff
from tests.web.conftest import build_league, recalculate_all, table
from tournaments.models import Race

GAMES_HEADER = [
    "Date", "Event", "Variant", "Country", "Number", "Coach", "Race", "Score", "Opponent", "Opponent number", "Opponent race", "Result",
]
STATS_DOWNLOADS = [
    "/stats/games/?_export=csv",
    "/stats/win-ratios/?_export=csv&_table=races",
    "/stats/win-ratios/?_export=csv&_table=coaches",
    "/stats/race-grid/?_export=csv",
    "/stats/head-to-head/?coach=1001&coach=1002&coach=1003&_export=csv&_table=matrix",
    "/stats/head-to-head/?coach=1001&coach=1002&coach=1003&_export=csv&_table=games",
    "/stats/differentials/?coach=1001&_export=csv",
    *(f"/stats/top/?_export=csv&_table={name}" for name in ("games", "race", "events", "races")),
    *(f"/stats/awards/?_export=csv&_table={name}" for name in ("events", "coaches", "categories")),
    *(f"/stats/legends/?_export=csv&_table={name}" for name in ("races", "countries")),
    "/stats/map/?_export=csv",
]
RATINGS_DOWNLOADS = [
    "/rankings/elo/?_export=csv", "/rankings/glicko/?_export=csv", "/rankings/knsb/?_export=csv",
    "/rankings/elo/2024-07/?_export=csv", "/rankings/knsb/2024-07/?_export=csv",
    "/stats/rank-over-time/?coach=101&system=elo&_export=csv",
]


def body(response) -> bytes:
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    return b"".join(response.streaming_content)


def rows_of(response) -> list[list[str]]:
    data = body(response)
    assert data.startswith(codecs.BOM_UTF8)
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def header_of(client, url: str) -> list[str]:
    return rows_of(client.get(url))[0]


@pytest.fixture
def rated(db):
    """The rankings' league (tests/web/conftest.py), every system computed: its lists of 2024-07 published."""
    data = build_league()
    recalculate_all()
    return data


@pytest.mark.django_db
@pytest.mark.parametrize("url", STATS_DOWNLOADS)
def test_every_statistics_download_starts_with_the_byte_order_mark(client, league, url):
    data = body(client.get(url))
    assert data.startswith(codecs.BOM_UTF8) and data.count(codecs.BOM_UTF8) == 1


@pytest.mark.django_db
@pytest.mark.parametrize("url", RATINGS_DOWNLOADS)
def test_every_ranking_download_starts_with_the_byte_order_mark(client, rated, url):
    rows = rows_of(client.get(url))
    assert len(rows) > 1 and rows[0][0] in ("Overall", "Rank", "List")


@pytest.mark.django_db
def test_an_events_results_download_starts_with_the_byte_order_mark(client, rated):
    client.force_login(staff())
    rows = rows_of(client.get(f"/organiser/events/{rated['dutch'].pk}/upload/results.csv"))
    assert len(rows) == 1 + 4 and rows[1][3:5] == ["101", "Anna Jansen"]


@pytest.mark.django_db
@pytest.mark.parametrize(("base", "filters"), [
    ("/stats/games/?_export=csv", ["country=GB", "year=2023", "race=orc", "coach=1001", "variant=sevens", "sanctioned=yes",
                                   "sort=event", "sort=-date&coach=1002&race=orc"]),
    ("/stats/win-ratios/?_export=csv&_table=races", ["coach=1001", "year=2022&variant=blood-bowl-2020", "min_games=5"]),
    ("/stats/win-ratios/?_export=csv&_table=coaches", ["race=human", "country=NL", "min_games=5"]),
    ("/stats/race-grid/?_export=csv", ["variant=sevens", "coach=1002", "race=orc", "year=2023&country=GB"]),
    ("/stats/head-to-head/?coach=1001&coach=1002&_export=csv&_table=games", ["year=2023", "variant=sevens"]),
    ("/stats/differentials/?coach=1001&_export=csv", ["year=2023", "country=GB"]),
    ("/stats/awards/?_export=csv&_table=events", ["coach=1003", "year=2022"]),
    ("/stats/map/?_export=csv", ["year=2023", "variant=sevens"]),
])
def test_a_statistics_csv_has_one_header_whatever_the_filters(client, league, base, filters):
    header = header_of(client, base)
    assert [header_of(client, f"{base}&{query}") for query in filters] == [header] * len(filters)


@pytest.mark.django_db
def test_the_games_csv_header_is_the_one_readers_know(client, league):
    assert header_of(client, "/stats/games/?_export=csv") == header_of(client, "/stats/games/?_export=csv&coach=1001") == GAMES_HEADER


@pytest.mark.django_db
def test_the_race_grid_csv_has_two_columns_for_every_race_even_one_the_filters_leave_out(client, league):
    names = sorted(Race.objects.values_list("name", flat=True))
    header, *rows = rows_of(client.get("/stats/race-grid/?variant=sevens&_export=csv"))  # one game: human against orc
    assert header == ["Race", *(f"{name} {what}" for name in names for what in ("win %", "games"))]
    assert [row[0] for row in rows] == ["Human", "Orc"]
    cells = dict(zip(header, rows[0]))
    assert (cells["Orc win %"], cells["Orc games"], cells["Wood Elf win %"], cells["Human games"]) == ("100.0", "1", "", "")


@pytest.mark.django_db
@pytest.mark.parametrize(("base", "filters"), [
    ("/rankings/elo/?_export=csv", ["race=human", "variant=blood-bowl-2020", "race=orc&variant=blood-bowl-2020&country=NL",
                                    "active=on&sort=-value", "name=Anna", "race=human&sort=coach"]),
    ("/rankings/elo/2024-07/?_export=csv", ["race=human", "variant=blood-bowl-2020&race=orc"]),
    ("/rankings/knsb/?_export=csv", ["variant=blood-bowl-2020", "country=GB&sort=-value"]),
])
def test_a_ranking_csv_has_one_header_whatever_the_filters(client, rated, base, filters):
    header = header_of(client, base)
    assert [header_of(client, f"{base}&{query}") for query in filters] == [header] * len(filters)


@pytest.mark.django_db
def test_a_ranking_csv_filtered_by_race_and_variant_keeps_its_variant_and_overall_rank_columns(client, rated):
    header, *rows = rows_of(client.get("/rankings/elo/?race=human&variant=blood-bowl-2020&_export=csv"))
    assert header[:6] == ["Overall", "Rank", "Coach", "Number", "Nat.", "Race"] and "Variant" in header
    assert {(row[header.index("Race")], row[header.index("Variant")]) for row in rows} == {("Human", "Blood Bowl 2020")}
    page = table(client.get("/rankings/elo/?race=human&variant=blood-bowl-2020"), "ranking")
    assert page["header"][:2] == ["Rank", "Overall"] and "Variant" not in page["header"]  # the page drops what its filters fix


@pytest.mark.django_db
def test_the_games_csv_streams_its_header_before_any_query_then_its_rows_a_chunk_at_a_time(client, league, monkeypatch):
    monkeypatch.setattr(export, "CHUNK", 3)
    monkeypatch.setattr(csv_export, "ROWS_PER_CHUNK", 2)
    response = client.get("/stats/games/?_export=csv")
    assert isinstance(response, StreamingHttpResponse)
    pieces = iter(response.streaming_content)
    with CaptureQueriesContext(connection) as queries:
        header = next(pieces)
        read_for_header = len(queries)
        first_rows = next(pieces)
        read_for_first_rows = len(queries)
        rest = b"".join(pieces)
    assert header == codecs.BOM_UTF8 + ",".join(GAMES_HEADER).encode() + b"\r\n"
    assert read_for_header == 0
    # the ordered ids, then the first 3 games' values: not the other 6, nor any OFFSET
    assert (read_for_first_rows, len(first_rows.decode().splitlines())) == (2, 2)
    assert len(queries) == 1 + 3 and not any("OFFSET" in query["sql"] for query in queries.captured_queries)
    assert len((first_rows + rest).decode().splitlines()) == 9


@pytest.mark.django_db
def test_a_table_of_totals_streams_by_one_query_without_offsets(client, league, monkeypatch):
    monkeypatch.setattr(export, "CHUNK", 2)
    response = client.get("/stats/win-ratios/?_export=csv&_table=coaches")
    pieces = iter(response.streaming_content)
    with CaptureQueriesContext(connection) as queries:
        next(pieces)
        read_for_header = len(queries)
        rows = list(csv.reader(io.StringIO(b"".join(pieces).decode())))
    assert read_for_header == 0
    assert [row[0] for row in rows] == ["1001", "1004", "1002", "1003"]
    # the totals by one query, each chunk of two coaches named by one more
    assert len(queries) == 1 + 2 and not any("OFFSET" in query["sql"] for query in queries.captured_queries)


@pytest.mark.django_db
def test_the_ranking_csv_streams_its_header_before_any_query(client, rated):
    response = client.get("/rankings/elo/?_export=csv")
    assert isinstance(response, StreamingHttpResponse)
    pieces = iter(response.streaming_content)
    with CaptureQueriesContext(connection) as queries:
        assert next(pieces).startswith(codecs.BOM_UTF8 + b"Overall,Rank,Coach,")
        assert len(queries) == 0
        assert len(b"".join(pieces).decode().splitlines()) == 8
    assert len(queries) == 1



def test_a_download_under_way_holds_back_no_other_download_of_its_address(rf):
    calls = []

    @page_cache.cached_page
    def download(request):
        calls.append(request.path)
        return csv_export.csv_download(["Number", "Coach"], ([number, f"Coach {number}"] for number in range(5000)), filename="games")

    first = download(anonymous_get(rf, "/stats/games/?_export=csv"))
    pieces = iter(first.streaming_content)
    assert next(pieces) == codecs.BOM_UTF8 + b"Number,Coach\r\n"  # and its reader is slow: the rest waits
    began = time.monotonic()
    second = download(anonymous_get(rf, "/stats/games/?_export=csv"))
    assert time.monotonic() - began < page_cache.WAIT / 2  # not held until the first has streamed to its end
    assert second.streaming and len(calls) == 2
    whole = codecs.BOM_UTF8 + b"Number,Coach\r\n" + b"".join(pieces)
    assert b"".join(second.streaming_content) == whole
    hit = download(anonymous_get(rf, "/stats/games/?_export=csv"))
    assert len(calls) == 2 and not hit.streaming and hit.content == whole and hit.content.startswith(codecs.BOM_UTF8)
