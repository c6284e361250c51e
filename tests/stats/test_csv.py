"""Every table downloads as CSV, with the same rows and cells as the page shows."""
import codecs
import csv
import html
import io
import re

import pytest

pytestmark = pytest.mark.django_db


def download(client, url: str) -> list[list[str]]:
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    body = b"".join(response.streaming_content)
    assert body.startswith(codecs.BOM_UTF8)
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


def page_table(client, url: str, index: int = 0) -> list[list[str]]:
    """The header and body cells of the index-th table of a page, as text."""
    body = client.get(url).content.decode()
    table = re.findall(r"<table.*?</table>", body, re.S)[index]
    rows = []
    for row in re.findall(r"<tr.*?</tr>", table, re.S):
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        rows.append([html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in cells])
    return rows


@pytest.mark.parametrize(
    ("url", "table", "index"),
    [
        ("/stats/games/?country=GB", "games", 0),
        ("/stats/games/?sort=event", "games", 0),
        ("/stats/win-ratios/?year=2022", "races", 0),
        ("/stats/win-ratios/?coach-sort=-ratio", "coaches", 1),
        ("/stats/differentials/?coach=1001", "differentials", 0),
        ("/stats/top/?nationality=NL", "games", 0),
        ("/stats/top/", "race", 1),
        ("/stats/top/", "events", 2),
        ("/stats/top/", "races", 3),
        ("/stats/awards/", "events", 0),
        ("/stats/awards/", "coaches", 1),
        ("/stats/awards/", "categories", 2),
        ("/stats/legends/", "countries", 1),
        ("/stats/map/", "places", 0),
        ("/stats/head-to-head/?coach=1001&coach=1002&coach=1003", "games", 1),
    ],
)
def test_csv_equals_the_table(client, league, url, table, index):
    joiner = "&" if "?" in url else "?"
    header, *rows = page_table(client, url, index)
    assert download(client, f"{url}{joiner}_export=csv&_table={table}") == [named_once(header), *rows]


def named_once(header: list[str]) -> list[str]:
    """The page's header as the CSV gives it: the opponent's "Number" and "Race" named as his."""
    seen: set[str] = set()
    named = []
    for name in header:
        named.append(f"Opponent {name.lower()}" if name in seen else name)
        seen.add(name)
    return named


def test_games_csv_has_every_filtered_game_not_only_the_page(client, league):
    rows = download(client, "/stats/games/?_export=csv")
    assert rows[0] == [
        "Date", "Event", "Variant", "Country", "Number", "Coach", "Race", "Score", "Opponent", "Opponent number", "Opponent race", "Result",
    ]
    assert len(rows) == 1 + 9
    assert ["2022-05-07", "Utrecht Open", "Blood Bowl 2020", "Netherlands", "1001", "Anna Alpha", "Human", "2–1",
            "Bert Bravo", "1002", "Orc", "played"] in rows


def test_win_ratio_csv_values(client, league):
    assert download(client, "/stats/win-ratios/?_export=csv&_table=races") == [
        ["Race", "Games", "W", "D", "L", "Win %"],
        ["Human", "7", "3", "3", "1", "64.3"],
        ["Orc", "7", "2", "1", "4", "35.7"],
        ["Wood Elf", "4", "1", "2", "1", "50.0"],
    ]


def test_race_grid_csv_is_the_grid(client, league):
    header, *rows = download(client, "/stats/race-grid/?_export=csv")
    # every race has its two columns (tests/stats/test_csv_downloads.py): those no game met are empty
    met = [header.index(f"{race} {what}") for race in ("Human", "Orc", "Wood Elf") for what in ("win %", "games")]
    assert [[row[0], *(row[i] for i in met)] for row in rows] == [
        ["Human", "50.0", "2", "100.0", "3", "25.0", "2"],
        ["Orc", "0.0", "3", "50.0", "2", "75.0", "2"],
        ["Wood Elf", "75.0", "2", "25.0", "2", "", ""],
    ]
    assert {cell for row in rows for i, cell in enumerate(row) if i and i not in met} == {""}


def test_head_to_head_matrix_csv(client, league):
    rows = download(client, "/stats/head-to-head/?coach=1001&coach=1002&coach=1003&_export=csv&_table=matrix")
    assert rows[0] == ["Number", "Coach", "Opponent number", "Opponent", "Games", "W", "D", "L"]
    assert ["1002", "Bert Bravo", "1003", "Cora Charlie", "1", "0", "0", "1"] in rows
    assert len(rows) == 1 + 6


def test_csv_keeps_the_filters(client, league):
    rows = download(client, "/stats/win-ratios/?country=GB&_export=csv&_table=coaches")
    assert [row[0] for row in rows[1:]] == ["1001", "1002", "1003", "1004"]
    assert all(row[3] == "2" for row in rows[1:])
