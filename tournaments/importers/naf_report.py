"""The NAF report: the XML of a tournament's results that tournament programs export for the NAF.

Its structure, as TourMa writes it (Bojo38/tourma, src/tourma/data/Tournament.java, the NAF export)
and warp-scores.net pins it in a test (NafExporterTest.testExportContests):

    <nafReport>
      <organiser>…</organiser>
      <coaches><coach><name>NAF name</name><number>NAF number (optional)</number><team>race</team></coach>…</coaches>
      <game>
        <timeStamp>2024-05-04 09:00</timeStamp>
        <playerRecord><name/><number/><team/><teamRating/><touchDowns/><badlyHurt/></playerRecord>
        <playerRecord>… the opponent …</playerRecord>
      </game>…
    </nafReport>

The first playerRecord is read as home, the second as away; rounds are the report's distinct
timestamps in order. Every game then goes through the CSV's cell checks and the rules across rows,
so an upload of a report is refused, or saved, exactly as a CSV of the same games would be.
Plain Python: the caller hands in the races and the lookups of coaches.
"""
from __future__ import annotations

import codecs
import datetime as dt
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from xml.parsers import expat

from django.utils.translation import gettext

from tournaments.uploads import (
    MAX_UPLOAD_GAMES,
    SIDES,
    RaceLookup,
    RaceRef,
    RowError,
    Upload,
    _read_row,
    check_upload,
    upload_text,
)


@dataclass
class Node:
    tag: str
    line: int
    children: list[Node] = field(default_factory=list)
    text: str = ""

    def child(self, tag: str) -> Node | None:
        return next((node for node in self.children if node.tag == tag), None)

    def value(self, tag: str) -> str:
        node = self.child(tag)
        return node.text.strip() if node is not None else ""


class _Refused(Exception):
    pass


def is_naf_report(data: bytes) -> bool:
    """True for an XML file (a NAF report, or XML that must be told it is not one), UTF-8 or UTF-16."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data[:1024].decode("utf-16", errors="ignore").lstrip(" \t\r\n").startswith("<")
    return data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


def _tree(data: bytes, errors: list[RowError]) -> Node | None:
    """The document as nodes with their line numbers; a DOCTYPE (entities) is refused, not expanded."""
    document, problem = upload_text(data)
    if document is None:
        errors.append(RowError(0, "", problem))
        return None
    parser = expat.ParserCreate()
    stack: list[Node] = []
    root: list[Node] = []

    def start(tag, _attrs):
        node = Node(tag.rsplit(":", 1)[-1], parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(node)
        stack.append(node)

    def end(_tag):
        stack.pop()

    def text(chars):
        if stack:
            stack[-1].text += chars

    def doctype(*_args):
        raise _Refused

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    parser.StartDoctypeDeclHandler = doctype
    try:
        # text, so the declaration's encoding="UTF-16" of a file read as UTF-16 is not applied again
        parser.Parse(document, True)
    except _Refused:
        errors.append(RowError(
            parser.CurrentLineNumber, "", gettext("A NAF report has no DOCTYPE: remove it and upload the file again."),
        ))
        return None
    except expat.ExpatError as exc:
        errors.append(RowError(
            exc.lineno, "", gettext("This is not well-formed XML: %(error)s.") % {"error": expat.ErrorString(exc.code)},
        ))
        return None
    if root[0].tag != "nafReport":
        errors.append(RowError(
            root[0].line, "", gettext("This XML is not a NAF report: it starts with <%(tag)s>, not <nafReport>.") % {"tag": root[0].tag},
        ))
        return None
    return root[0]


def _timestamp(raw: str) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(raw)
    except ValueError:
        return None


def read_naf_report(
    data: bytes, *, races: Mapping[str, RaceRef], today: dt.date | None = None,
    find_names: Callable[[set[str]], Mapping[str, int]] = lambda names: {},
) -> Upload:
    """Every game of a NAF report as the CSV reader gives it, each problem at the line of its <game>.

    A coach without a <number> (TourMa writes none) is found by name through `find_names`, which
    answers the federation number of each name that belongs to exactly one coach."""
    today = today or dt.date.today()
    races = RaceLookup.of(races)
    upload = Upload()
    report = _tree(data, upload.errors)
    games = _games(report, upload.errors) if report is not None else None
    if report is None or games is None:
        return upload
    coaches = _listed_coaches(report)
    records = [[r for r in game.children if r.tag == "playerRecord"] for game in games]
    unnumbered = _unnumbered_names(records, coaches)
    by_name = find_names(unnumbered) if unnumbered else {}
    stamps = {game.line: _timestamp(game.value("timeStamp")) for game in games}
    rounds = _rounds(stamps.values())
    for game, pair in zip(games, records):
        if len(pair) != 2:
            upload.errors.append(RowError(
                game.line, "", gettext("A game has two <playerRecord>s; this one has %(count)s.") % {"count": len(pair)},
            ))
            continue
        stamp = stamps[game.line]
        row, errors = _when(game, stamp, rounds)
        for side, record in zip(SIDES, pair):
            row |= _side(game.line, side, record, coaches, by_name, errors)
        _read_game(upload, game.line, row, errors, races=races, today=today, dated=stamp is not None)
    upload.errors.sort(key=RowError.sort_key)
    return upload


def _rounds(stamps: Iterable[dt.datetime | None]) -> dict[dt.datetime, int]:
    """Each distinct time stamp's round: 1 for the earliest, and so on."""
    return {stamp: number for number, stamp in enumerate(sorted({s for s in stamps if s}), start=1)}


def _read_game(
    upload: Upload, line: int, row: dict[str, str], errors: list[RowError], *, races: RaceLookup, today: dt.date, dated: bool,
) -> None:
    """The game's row through the CSV's cell checks: added to the upload when neither the report nor
    the cells have a problem with it; each problem reported once."""
    # the round comes from the time stamp: its problem is the date's
    reported = {error.column for error in errors} | (set() if dated else {"round"})
    cells: list[RowError] = []
    entry = _read_row(line, row, races, cells, today)
    upload.errors.extend(errors + [error for error in cells if error.column not in reported])
    if entry is not None and not errors:
        upload.add(entry)


def _games(report: Node, errors: list[RowError]) -> list[Node] | None:
    """The report's <game>s, or None with the reason when there are none or more than an upload holds."""
    games = [node for node in report.children if node.tag == "game"]
    if len(games) > MAX_UPLOAD_GAMES:
        errors.append(RowError(0, "", gettext(
            "The report has %(count)s games; one upload holds at most %(most)s. Upload one event's results."
        ) % {"count": f"{len(games):,}", "most": f"{MAX_UPLOAD_GAMES:,}"}, "too_many_games"))
        return None
    if not games:
        errors.append(RowError(report.line, "", gettext("The NAF report has no <game>.")))
        return None
    return games


def _listed_coaches(report: Node) -> dict[str, tuple[str, str]]:
    """The <coaches> list: each named coach's (number, race) as the report gives them."""
    coaches = {}
    for node in (report.child("coaches") or Node("coaches", 0)).children:
        if node.tag == "coach" and node.value("name"):
            coaches[node.value("name")] = (node.value("number"), node.value("team"))
    return coaches


def _unnumbered_names(records: list[list[Node]], coaches: Mapping[str, tuple[str, str]]) -> set[str]:
    """Names of the players whom neither their record nor the <coaches> list gives a number."""
    return {
        r.value("name") for pair in records for r in pair
        if r.value("name") and not (r.value("number") or coaches.get(r.value("name"), ("", ""))[0])
    }


def _when(game: Node, stamp: dt.datetime | None, rounds: Mapping[dt.datetime, int]) -> tuple[dict[str, str], list[RowError]]:
    """The row's kind, round, date and time from the game's time stamp, or the stamp's problem."""
    row = {"kind": "played"}
    if stamp is not None:
        return row | {"round": str(rounds[stamp]), "date": stamp.date().isoformat(), "time": stamp.strftime("%H:%M")}, []
    raw = game.value("timeStamp")
    return row, [RowError(game.line, "date", gettext("'%(raw)s' is not a time stamp: write it as YYYY-MM-DD HH:MM.") % {"raw": raw}
                          if raw else gettext("Give the game's <timeStamp> (YYYY-MM-DD HH:MM)."))]


def _side(
    line: int, side: str, record: Node, coaches: Mapping[str, tuple[str, str]], by_name: Mapping[str, int], errors: list[RowError],
) -> dict[str, str]:
    """One <playerRecord> as the CSV's cells of its side; a coach no number is found for is a problem."""
    name = record.value("name")
    listed_number, listed_race = coaches.get(name, ("", ""))
    number = record.value("number") or listed_number or str(by_name.get(name, ""))
    if not number:
        errors.append(RowError(line, f"{side}_coach", (
            gettext("Coach “%(name)s” has no <number> in the report, and no one coach of the federation has that name.")
            % {"name": name} if name else gettext("Give each <playerRecord> the coach's <name> or <number>.")
        )))
    return {
        f"{side}_coach": number, f"{side}_name": name, f"{side}_race": record.value("team") or listed_race,
        f"{side}_td": record.value("touchDowns"), f"{side}_cas": record.value("badlyHurt") or "0",
    }


def parse_naf_report(
    data: bytes, *, races: Mapping[str, RaceRef], start: dt.date, end: dt.date,
    find_coaches: Callable[[set[int]], Container[int]], today: dt.date | None = None,
    find_names: Callable[[set[str]], Mapping[str, int]] = lambda names: {},
) -> Upload:
    """The whole verdict on a NAF report, as parse_results gives it on a CSV."""
    today = today or dt.date.today()
    upload = read_naf_report(data, races=races, today=today, find_names=find_names)
    return check_upload(upload, races=races, start=start, end=end, find_coaches=find_coaches, today=today)
