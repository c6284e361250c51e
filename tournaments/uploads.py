"""Results as CSV, and the rules every set of games must keep: plain Python, no database.

The caller passes what the record knows (races by name or slug, known federation numbers, the event's
dates), so each rule can be tested on plain data, and the entry forms run the same checks as uploads.
Every problem is reported with its line and column; nothing is saved unless there are none.
"""
from __future__ import annotations

import codecs
import csv
import datetime as dt
import difflib
import io
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy, gettext_noop

from .rules import MAX_CASUALTIES, MAX_TOUCHDOWNS, play_date_error

MAX_UPLOAD_BYTES = 1024 * 1024
# The largest events (a World Cup: some 1,400 coaches over 7 rounds) have under 5,000 games; a file
# with more is not one event's results, and saving it would outlast a web worker's timeout.
MAX_UPLOAD_GAMES = 5_000
KINDS = ("played", "forfeit", "bye")
SIDES = ("home", "away")


def _meaning(text: str, **values) -> str:
    """A column's meaning (marked with gettext_noop), translated when the page shows it."""
    return lazy(lambda: gettext(text) % values if values else gettext(text), str)()


@dataclass(frozen=True)
class Column:
    name: str
    required: str  # "yes" or "no"; the page words it
    meaning: str
    example: str


COLUMNS = [
    Column("round", "yes", _meaning(gettext_noop("Round number: 1, 2, 3 …")), "1"),
    Column(
        "date", "yes",
        _meaning(gettext_noop("Date of the round, YYYY-MM-DD, within the event's dates; one date per round.")),
        "2024-05-04",
    ),
    Column(
        "time", "no",
        _meaning(gettext_noop("Start of the round, HH:MM (orders the rounds of one day; default 08:00, then every 2½ hours).")),
        "09:30",
    ),
    Column("home_coach", "yes", _meaning(gettext_noop("Federation number of the home coach.")), "10001"),
    Column(
        "home_name", "no",
        _meaning(gettext_noop("The home coach's name: only used to create a coach the federation does not know yet.")),
        "Anna Smit",
    ),
    Column(
        "home_race", "yes",
        _meaning(gettext_noop("A ranked race, by name or slug (Chaos Dwarf or chaos-dwarf). One race per coach per event.")),
        "Human",
    ),
    Column("home_td", "yes", _meaning(gettext_noop("Home touchdowns, 0 to %(most)s (empty for a bye: 0)."), most=MAX_TOUCHDOWNS), "2"),
    Column("away_td", "yes", _meaning(gettext_noop("Away touchdowns, 0 to %(most)s (empty for a bye: 0)."), most=MAX_TOUCHDOWNS), "1"),
    Column("away_coach", "yes", _meaning(gettext_noop("Federation number of the away coach; empty for a bye.")), "10002"),
    Column("away_name", "no", _meaning(gettext_noop("The away coach's name (as home_name).")), "Ben Visser"),
    Column("away_race", "yes", _meaning(gettext_noop("The away coach's ranked race; empty for a bye.")), "Orc"),
    Column(
        "home_cas", "no",
        _meaning(gettext_noop("Casualties caused by the home team, 0 to %(most)s (default 0)."), most=MAX_CASUALTIES),
        "1",
    ),
    Column(
        "away_cas", "no",
        _meaning(gettext_noop("Casualties caused by the away team, 0 to %(most)s (default 0)."), most=MAX_CASUALTIES),
        "0",
    ),
    Column("conceded", "no", _meaning(gettext_noop("Who conceded: home, away, or empty.")), ""),
    Column("kind", "no", _meaning(gettext_noop("played (default), forfeit or bye.")), "played"),
]
COLUMN_NAMES = [c.name for c in COLUMNS]
REQUIRED_COLUMNS = [c.name for c in COLUMNS if c.required == "yes"]


@dataclass(frozen=True)
class RaceRef:
    slug: str
    name: str
    ranked: bool


@dataclass(frozen=True)
class GameEntry:
    """One game as entered: coaches by federation number, races by slug. `line` says where it came from."""

    line: int
    round: int
    date: dt.date
    home_coach: int
    home_race: str
    away_coach: int | None
    away_race: str | None
    home_td: int = 0
    away_td: int = 0
    home_cas: int = 0
    away_cas: int = 0
    conceded: str | None = None
    kind: str = "played"
    time: dt.time | None = None
    home_name: str = ""
    away_name: str = ""

    def coaches(self) -> list[tuple[str, int, str | None]]:
        """(side, federation number, race slug) of each coach in the game."""
        seats = [("home", self.home_coach, self.home_race)]
        if self.away_coach is not None:
            seats.append(("away", self.away_coach, self.away_race))
        return seats


@dataclass(frozen=True)
class RowError:
    """A problem at a line (0: the file as a whole) and column ("" when it is the whole row)."""

    line: int
    column: str
    message: str
    code: str = ""

    def sort_key(self) -> tuple:
        return self.line, COLUMN_NAMES.index(self.column) if self.column in COLUMN_NAMES else -1


@dataclass
class Upload:
    games: list[GameEntry] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    # Federation numbers nobody has, with the name the file gives them (for the offer to create them).
    unknown_coaches: dict[int, str] = field(default_factory=dict)

    def add(self, entry: GameEntry) -> None:
        """Take a game read without a problem, and the names the file gives its coaches (the first
        name wins), to offer creating the coaches the federation does not know."""
        self.games.append(entry)
        for side in SIDES:
            number, name = getattr(entry, f"{side}_coach"), getattr(entry, f"{side}_name")
            if number is not None and name and number not in self.unknown_coaches:
                self.unknown_coaches[number] = name

    @property
    def is_valid(self) -> bool:
        return not self.errors and bool(self.games)

    @property
    def only_unknown_coaches(self) -> bool:
        """True when creating the unknown coaches is all that stands between this upload and a preview."""
        return bool(self.unknown_coaches) and all(e.code == "unknown_coach" for e in self.errors)


class RaceLookup(Mapping):
    """Races as the CSV and the forms name them, by slug as a mapping; find() also takes a name.

    It holds anything with a slug, a name and `ranked` (RaceRef, or Race rows for the forms).
    """

    def __init__(self, races: Iterable):
        self._by_slug = {race.slug: race for race in races}
        self._by_name = {race.name: race for race in self._by_slug.values()}
        self._by_folded: dict[str, list] = {}
        for race in self._by_slug.values():
            self._by_folded.setdefault(race.name.casefold(), []).append(race)
        self._ranked = sorted((race for race in self._by_slug.values() if race.ranked), key=lambda race: race.name)

    @classmethod
    def of(cls, races: Mapping) -> RaceLookup:
        return races if isinstance(races, cls) else cls(set(races.values()))

    def __getitem__(self, slug: str):
        return self._by_slug[slug]

    def __iter__(self):
        return iter(self._by_slug)

    def __len__(self) -> int:
        return len(self._by_slug)

    def ranked(self) -> list:
        """The ranked races in the order they are offered: by name."""
        return self._ranked

    def find(self, text: str):
        """(race, None), or (None, why not): the exact name first, then the slug, then a name whatever
        its case if only one race has it (a ranked "Necromantic Horror" and an unranked roster's
        "Necromantic horror" are two races, so a lower-cased lookup cannot tell them apart)."""
        text = text.strip()
        race = self._by_name.get(text) or self._by_slug.get(text.casefold())
        if race is not None:
            return race, None
        alike = self._by_folded.get(text.casefold(), [])
        if len(alike) == 1:
            return alike[0], None
        if alike:
            names = [f"“{race.name}”" for race in sorted(alike, key=lambda race: race.name)]
            return None, gettext("Race “%(text)s” could be %(names)s: write the name exactly, or the race's slug.") % {
                "text": text, "names": gettext(" or ").join(names),
            }
        return None, self.unknown(text)

    def unknown(self, text: str) -> str:
        """Why `text` names no race, with the closest ranked race's name when one is close."""
        ranked = self.ranked()
        names = {race.name.casefold(): race for race in ranked} | {race.slug: race for race in ranked}
        close = difflib.get_close_matches(text.casefold(), list(names), n=1, cutoff=0.75)
        if close:
            return gettext("Race “%(text)s”: did you mean “%(name)s”?") % {"text": text, "name": names[close[0]].name}
        return gettext("'%(text)s' is not a race the federation knows.") % {"text": text}


def race_lookup(races: Iterable[RaceRef]) -> RaceLookup:
    """Races by slug and by name, as the CSV and the forms may give them (RaceLookup.find)."""
    return RaceLookup(races)


def read_results(data: bytes, *, races: Mapping[str, RaceRef], today: dt.date | None = None) -> Upload:
    """Parse an upload and check every cell on its own (dates of play as of `today`, default the
    clock's); rules across rows are check_results'. A file of more than MAX_UPLOAD_GAMES games is
    refused as a whole, with that one error."""
    today = today or dt.date.today()
    races = RaceLookup.of(races)
    upload = Upload()
    text = _upload_text(data, upload.errors)
    if text is None:
        return upload
    first_line = text.split("\n", 1)[0]
    # commas, or what spreadsheets write in their place: semicolons, tabs ("Unicode text")
    delimiter = max((",", ";", "\t"), key=first_line.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    columns = _upload_columns(reader, upload.errors)
    if columns is None:
        return upload
    for count, (line, cells) in enumerate(_upload_lines(reader, upload.errors), start=1):
        if count > MAX_UPLOAD_GAMES:
            return Upload(errors=[RowError(0, "", gettext(
                "The file has more than %(most)s games (line %(line)s is game %(count)s); one upload "
                "holds at most %(most)s, more than the largest events have. Upload one event's results."
            ) % {"most": f"{MAX_UPLOAD_GAMES:,}", "line": line, "count": f"{count:,}"}, "too_many_games")])
        if len(cells) > len(columns):
            upload.errors.append(RowError(line, "", gettext("This line has %(values)s values but the header names %(columns)s columns.")
                                          % {"values": len(cells), "columns": len(columns)}))
            continue
        entry = _read_row(line, dict(zip(columns, (cell.strip() for cell in cells))), races, upload.errors, today)
        if entry is not None:
            upload.add(entry)
    if not upload.games and not upload.errors:
        upload.errors.append(RowError(0, "", gettext("The file has a header but no games.")))
    return upload


def _looks_like_utf16(data: bytes) -> bool:
    """True when the NUL bytes of a sample fall on one parity, as ASCII text saved as UTF-16 has them."""
    sample = data[:4096]
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    return max(even, odd) >= len(sample) // 4 and min(even, odd) <= max(even, odd) // 20


def upload_text(data: bytes) -> tuple[str | None, str]:
    """An upload as text and "", or None and why it cannot be read. UTF-8 (a spreadsheet's BOM
    dropped) and UTF-16 with a byte order mark, as some spreadsheet programs save "Unicode text"."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), ""
        except UnicodeDecodeError:
            return None, gettext("The file is not UTF-16 text, though it starts as if it were: save it as CSV UTF-8.")
    if b"\x00" in data:
        if _looks_like_utf16(data):
            return None, gettext(
                "The file is UTF-16 text without a byte order mark: save it as CSV UTF-8 (or UTF-8 XML) and upload it again."
            )
        return None, gettext("This is not a text file: save the results as CSV (comma-separated values).")
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError:
        return None, gettext("The file is not UTF-8 text: save it as CSV UTF-8.")


def _upload_text(data: bytes, errors: list[RowError]) -> str | None:
    """The upload as text, or None with the reason noted."""
    text, problem = upload_text(data)
    if text is None:
        errors.append(RowError(0, "", problem))
    return text


def _upload_columns(reader, errors: list[RowError]) -> list[str] | None:
    """The header's column names, lower case, or None with every problem of the header noted."""
    try:
        header = next(reader, None)
    except csv.Error as exc:
        errors.append(RowError(1, "", gettext("The header line cannot be read: %(error)s.") % {"error": exc}))
        return None
    if not header or not any(cell.strip() for cell in header):
        errors.append(RowError(1, "", gettext("The file is empty: the first line must name the columns.")))
        return None
    columns = [cell.strip().lower() for cell in header]
    problems = [
        *(RowError(1, name, gettext("Unknown column '%(name)s'. The columns are: %(columns)s.")
                   % {"name": name, "columns": ", ".join(COLUMN_NAMES)})
          for name in columns if name not in COLUMN_NAMES),
        *(RowError(1, name, gettext("The required column '%(name)s' is missing.") % {"name": name})
          for name in REQUIRED_COLUMNS if name not in columns),
        *(RowError(1, name, gettext("The column '%(name)s' appears more than once.") % {"name": name})
          for name in sorted({name for name in columns if columns.count(name) > 1})),
    ]
    errors.extend(problems)
    return None if problems else columns


def _upload_lines(reader, errors: list[RowError]) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of each line that is not blank; a line that is not CSV ends the reading, noted."""
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            errors.append(RowError(reader.line_num, "", gettext("This line cannot be read as CSV: %(error)s.") % {"error": exc}))
            return
        if any(cell.strip() for cell in cells):
            yield reader.line_num, cells


class NumberWords(NamedTuple):
    """A kind of number's problems, each a whole sentence (no noun fitted into one)."""

    missing: str
    negative: str
    low: str
    high: str


# each kind of number _Cells.integer reads, by the `what` it is given
WHAT = {
    "round number": NumberWords(
        gettext_lazy("Give the round number."),
        gettext_lazy("%(value)s is negative: the round number must be %(low)s or more."),
        gettext_lazy("The round number must be %(low)s or more."),
        gettext_lazy("%(value)s is not a believable round number: at most %(high)s."),
    ),
    "home coach's federation number": NumberWords(
        gettext_lazy("Give the home coach's federation number."),
        gettext_lazy("%(value)s is negative: the home coach's federation number must be %(low)s or more."),
        gettext_lazy("The home coach's federation number must be %(low)s or more."),
        gettext_lazy("%(value)s is not a believable home coach's federation number: at most %(high)s."),
    ),
    "away coach's federation number": NumberWords(
        gettext_lazy("Give the away coach's federation number."),
        gettext_lazy("%(value)s is negative: the away coach's federation number must be %(low)s or more."),
        gettext_lazy("The away coach's federation number must be %(low)s or more."),
        gettext_lazy("%(value)s is not a believable away coach's federation number: at most %(high)s."),
    ),
    "number of touchdowns": NumberWords(
        gettext_lazy("Give the number of touchdowns."),
        gettext_lazy("%(value)s is negative: the number of touchdowns must be %(low)s or more."),
        gettext_lazy("The number of touchdowns must be %(low)s or more."),
        gettext_lazy("%(value)s is not a believable number of touchdowns: at most %(high)s."),
    ),
    "number of casualties": NumberWords(
        gettext_lazy("Give the number of casualties."),
        gettext_lazy("%(value)s is negative: the number of casualties must be %(low)s or more."),
        gettext_lazy("The number of casualties must be %(low)s or more."),
        gettext_lazy("%(value)s is not a believable number of casualties: at most %(high)s."),
    ),
}


class _Cells:
    """Reads typed values out of one row, noting every problem."""

    def __init__(self, line: int, row: dict, errors: list[RowError]):
        self.line, self.row, self.errors, self.ok = line, row, errors, True

    def error(self, column: str, message: str) -> None:
        self.errors.append(RowError(self.line, column, message))
        self.ok = False

    def text(self, column: str) -> str:
        return self.row.get(column, "") or ""

    def integer(self, column: str, *, low: int, high: int, what: str, default: int | None = None) -> int | None:
        """The cell as a whole number from `low` to `high`; `what` (WHAT) names it in the messages."""
        raw = self.text(column)
        words = WHAT[what]
        if raw == "":
            if default is None:
                self.error(column, str(words.missing))
            return default
        try:
            value = int(raw)
        except ValueError:
            self.error(column, gettext("'%(raw)s' is not a whole number.") % {"raw": raw})
            return None
        if value < low:
            self.error(column, str(words.negative if value < 0 else words.low) % {"value": value, "low": low})
            return None
        if value > high:
            self.error(column, str(words.high) % {"value": value, "high": high})
            return None
        return value


def _read_row(line: int, row: dict, races: Mapping[str, RaceRef], errors: list[RowError], today: dt.date) -> GameEntry | None:
    cells = _Cells(line, row, errors)
    kind = cells.text("kind").lower() or "played"
    if kind not in KINDS:
        cells.error("kind", gettext("'%(kind)s' is not a kind of game: use played, forfeit or bye.") % {"kind": cells.text("kind")})
        kind = "played"
    bye = kind == "bye"
    round_number = cells.integer("round", low=1, high=99, what="round number")
    date = None
    raw_date = cells.text("date")
    if not raw_date:
        cells.error("date", gettext("Give the date of the round (YYYY-MM-DD)."))
    else:
        try:
            date = dt.date.fromisoformat(raw_date)
        except ValueError:
            cells.error("date", gettext("'%(raw)s' is not a date: write it as YYYY-MM-DD.") % {"raw": raw_date})
        else:
            if problem := play_date_error(date, today=today, translate=gettext):
                cells.error("date", problem)
    time = None
    raw_time = cells.text("time")
    if raw_time:
        try:
            time = dt.time.fromisoformat(raw_time)
        except ValueError:
            cells.error("time", gettext("'%(raw)s' is not a time: write it as HH:MM.") % {"raw": raw_time})
    home = cells.integer("home_coach", low=1, high=2**31 - 1, what="home coach's federation number")
    home_race = _race(cells, "home_race", races)
    if bye:
        for column in ("away_coach", "away_race", "away_name"):
            if cells.text(column):
                cells.error(column, gettext("A bye has no opponent: leave this empty."))
        away = away_race = None
    else:
        away = cells.integer("away_coach", low=1, high=2**31 - 1, what="away coach's federation number")
        away_race = _race(cells, "away_race", races)
    home_td = cells.integer("home_td", low=0, high=MAX_TOUCHDOWNS, what="number of touchdowns", default=0 if bye else None)
    away_td = cells.integer("away_td", low=0, high=MAX_TOUCHDOWNS, what="number of touchdowns", default=0 if bye else None)
    home_cas = cells.integer("home_cas", low=0, high=MAX_CASUALTIES, what="number of casualties", default=0)
    away_cas = cells.integer("away_cas", low=0, high=MAX_CASUALTIES, what="number of casualties", default=0)
    conceded = cells.text("conceded").lower() or None
    if conceded is not None and conceded not in SIDES:
        cells.error("conceded", gettext("'%(side)s' is not a side: use home, away, or leave it empty.") % {"side": cells.text("conceded")})
    elif conceded is not None and bye:
        cells.error("conceded", gettext("Nobody concedes a bye."))
    if not cells.ok:
        return None
    return GameEntry(
        line=line, round=round_number, date=date, time=time, home_coach=home, home_race=home_race,
        away_coach=away, away_race=away_race, home_td=home_td, away_td=away_td, home_cas=home_cas,
        away_cas=away_cas, conceded=conceded, kind=kind, home_name=cells.text("home_name")[:200],
        away_name="" if bye else cells.text("away_name")[:200],
    )


def _race(cells: _Cells, column: str, races: Mapping[str, RaceRef]) -> str | None:
    raw = cells.text(column)
    if not raw:
        cells.error(column, gettext("Give the race."))
        return None
    race, problem = RaceLookup.of(races).find(raw)
    if race is None:
        cells.error(column, problem)
        return None
    if not race.ranked:
        cells.error(column, not_ranked_message(race.name))
        return None
    return race.slug


def not_ranked_message(name: str) -> str:
    return gettext("%(race)s is not a ranked race: only the federation's ranked races can be sanctioned.") % {"race": name}


def unknown_coach_message(number: int) -> str:
    return gettext("No coach has federation number %(number)s: create the coach first.") % {"number": number}


def outside_event_message(day: dt.date, start: dt.date, end: dt.date) -> str:
    return gettext("%(day)s is outside the event's dates (%(start)s to %(end)s).") % {
        "day": f"{day:%Y-%m-%d}", "start": f"{start:%Y-%m-%d}", "end": f"{end:%Y-%m-%d}",
    }


def check_results(
    games: Iterable[GameEntry], *, start: dt.date, end: dt.date, known_coaches: Container[int],
    race_names: Mapping[str, str] | None = None, today: dt.date | None = None,
) -> list[RowError]:
    """The rules across games: plausible dates (as of `today`, default the clock's) within the event,
    one date per round, known coaches, nobody against himself, no duplicate game, a coach once per
    round, one race per coach. Sorted by line."""
    race_names = race_names or {}
    today = today or dt.date.today()
    errors: list[RowError] = []
    round_dates: dict[int, tuple[dt.date, int]] = {}
    pairings: dict[tuple, int] = {}
    seats: dict[tuple[int, int], int] = {}
    coach_races: dict[int, tuple[str, int]] = {}
    for game in games:
        line = game.line
        if problem := play_date_error(game.date, today=today, translate=gettext):
            errors.append(RowError(line, "date", problem))
        elif not start <= game.date <= end:
            errors.append(RowError(line, "date", outside_event_message(game.date, start, end)))
        first_date = round_dates.setdefault(game.round, (game.date, line))
        if first_date[0] != game.date:
            errors.append(RowError(line, "date", gettext(
                "Round %(round)s is dated %(day)s on line %(line)s: a round has one date."
            ) % {"round": game.round, "day": f"{first_date[0]:%Y-%m-%d}", "line": first_date[1]}))
        for side, number, _ in game.coaches():
            if number not in known_coaches:
                errors.append(RowError(line, f"{side}_coach", unknown_coach_message(number), "unknown_coach"))
        if game.away_coach is not None and game.away_coach == game.home_coach:
            errors.append(RowError(
                line, "away_coach", gettext("Coach %(number)s cannot play against themselves.") % {"number": game.home_coach},
            ))
            continue
        pairing = (game.round, frozenset(number for _, number, _ in game.coaches()))
        if pairing in pairings:
            errors.append(RowError(line, "", gettext(
                "Duplicate game: the same coaches already meet in round %(round)s on line %(line)s."
            ) % {"round": game.round, "line": pairings[pairing]}))
            continue
        pairings[pairing] = line
        for side, number, race in game.coaches():
            seat = (game.round, number)
            if seat in seats:
                errors.append(RowError(line, f"{side}_coach", gettext(
                    "Coach %(number)s already plays in round %(round)s (line %(line)s)."
                ) % {"number": number, "round": game.round, "line": seats[seat]}))
            else:
                seats[seat] = line
            registered = coach_races.setdefault(number, (race, line))
            if registered[0] != race:
                errors.append(RowError(line, f"{side}_race", gettext(
                    "Coach %(number)s plays %(race)s on line %(line)s: a coach brings one race to an event."
                ) % {"number": number, "race": race_names.get(registered[0], registered[0]), "line": registered[1]}))
    return sorted(errors, key=RowError.sort_key)


def played_at_times(games: Iterable[GameEntry]) -> dict[int, dt.datetime]:
    """The time of play of each round (naive, UTC): its own time, else 08:00 then every 2½ hours that day."""
    rounds: dict[int, tuple[dt.date, dt.time | None]] = {}
    for game in games:
        date, time = rounds.get(game.round, (game.date, None))
        rounds[game.round] = (date, time or game.time)
    by_day: dict[dt.date, list[int]] = {}
    for number in sorted(rounds):
        by_day.setdefault(rounds[number][0], []).append(number)
    times = {}
    for day, numbers in by_day.items():
        step = min(150, 900 // len(numbers))
        for index, number in enumerate(numbers):
            time = rounds[number][1]
            start = dt.datetime.combine(day, time) if time else dt.datetime.combine(day, dt.time(8)) + dt.timedelta(minutes=step * index)
            times[number] = start
    return times


def parse_results(
    data: bytes, *, races: Mapping[str, RaceRef], start: dt.date, end: dt.date,
    find_coaches: Callable[[set[int]], Container[int]], today: dt.date | None = None,
) -> Upload:
    """The whole verdict on one upload: every cell, then the rules across the rows that could be read
    (dates of play as of `today`, default the clock's).

    `find_coaches` is given the federation numbers in the file and answers which of them exist.
    """
    today = today or dt.date.today()
    return check_upload(read_results(data, races=races, today=today), races=races, start=start, end=end,
                        find_coaches=find_coaches, today=today)


def check_upload(
    upload: Upload, *, races: Mapping[str, RaceRef], start: dt.date, end: dt.date,
    find_coaches: Callable[[set[int]], Container[int]], today: dt.date,
) -> Upload:
    """The rules across the rows of an upload read by any reader (CSV, tournament programs' files):
    every problem by line, and the unknown federation numbers with the names the file gives them."""
    if not upload.games:
        upload.unknown_coaches = {}
        return upload
    numbers = {number for game in upload.games for _, number, _ in game.coaches()}
    known = find_coaches(numbers)
    names = {race.slug: race.name for race in races.values()}
    upload.errors = sorted(
        upload.errors + check_results(upload.games, start=start, end=end, known_coaches=known, race_names=names, today=today),
        key=RowError.sort_key,
    )
    upload.unknown_coaches = {
        number: upload.unknown_coaches.get(number, "") for number in sorted(numbers) if number not in known
    }
    return upload


@dataclass(frozen=True)
class ParticipantEntry:
    line: int
    coach: int
    race: str


@dataclass(frozen=True)
class RoundEntry:
    line: int
    number: int
    date: dt.date
    time: dt.time | None = None


@dataclass(frozen=True)
class AwardEntry:
    line: int
    category: str
    coach: int
    race: str | None = None


def check_rounds(
    rounds: Iterable[RoundEntry], *, start: dt.date, end: dt.date, today: dt.date | None = None,
) -> list[RowError]:
    """Round numbers once each, plausible dates (as of `today`, default the clock's) within the event."""
    errors, seen = [], {}
    today = today or dt.date.today()
    for entry in rounds:
        if entry.number in seen:
            errors.append(RowError(entry.line, "number", gettext("Round %(round)s is already on row %(row)s.")
                                   % {"round": entry.number, "row": seen[entry.number]}))
        seen.setdefault(entry.number, entry.line)
        if problem := play_date_error(entry.date, today=today, translate=gettext):
            errors.append(RowError(entry.line, "date", problem))
        elif not start <= entry.date <= end:
            errors.append(RowError(entry.line, "date", outside_event_message(entry.date, start, end)))
    return errors


def check_participants(
    participants: Iterable[ParticipantEntry], games: Iterable[GameEntry], *, known_coaches: Container[int],
    race_names: Mapping[str, str] | None = None,
) -> tuple[list[RowError], list[RowError]]:
    """(participant errors, game errors): each coach registered once, and playing the race he is registered with."""
    race_names = race_names or {}
    participant_errors, game_errors, registered = [], [], {}
    for entry in participants:
        if entry.coach not in known_coaches:
            participant_errors.append(RowError(entry.line, "coach", unknown_coach_message(entry.coach), "unknown_coach"))
        if entry.coach in registered:
            participant_errors.append(RowError(entry.line, "coach", gettext(
                "Coach %(number)s is already registered on row %(row)s."
            ) % {"number": entry.coach, "row": registered[entry.coach].line}))
            continue
        registered[entry.coach] = entry
    for game in games:
        for side, number, race in game.coaches():
            entry = registered.get(number)
            if entry is not None and race != entry.race:
                game_errors.append(RowError(game.line, f"{side}_race", gettext(
                    "Coach %(number)s is registered with %(race)s: a coach brings one race to an event."
                ) % {"number": number, "race": race_names.get(entry.race, entry.race)}))
    return participant_errors, game_errors


def check_awards(awards: Iterable[AwardEntry], *, known_coaches: Container[int]) -> list[RowError]:
    """Known coaches, and one award per coach and category."""
    errors, seen = [], {}
    for entry in awards:
        if entry.coach not in known_coaches:
            errors.append(RowError(entry.line, "coach", unknown_coach_message(entry.coach), "unknown_coach"))
        key = (entry.category.casefold(), entry.coach)
        if key in seen:
            errors.append(RowError(entry.line, "category", gettext("Coach %(number)s already has this award on row %(row)s.")
                                   % {"number": entry.coach, "row": seen[key]}))
        seen.setdefault(key, entry.line)
    return errors
