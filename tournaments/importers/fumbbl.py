"""FUMBBL games (the CC0 sample in data/naf) into the federation's record.

Follows "How the site imports these games" in data/naf/README.md. Parsing and planning are pure
functions over plain rows; import_matches() is the one service that writes, in one transaction.
"""
from __future__ import annotations

import csv
import datetime as dt
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from tournaments.models import (
    Coach,
    Event,
    EventStatus,
    Game,
    GameKind,
    GameSide,
    Participant,
    Race,
    Round,
    Side,
    Variant,
)
from tournaments.rules import FIRST_PLAY_DATE, last_play_date, play_date_error
from tournaments.services import game_sides_for

ID_COLUMNS = (
    "match_id", "replay_id", "tournament_id", "team1_id", "team2_id",
    "team1_coach_id", "team2_coach_id", "team1_roster_id", "team2_roster_id",
)
COUNT_COLUMNS = (
    "team1_score", "team2_score",
    "team1_cas_bh", "team1_cas_si", "team1_cas_rip", "team2_cas_bh", "team2_cas_si", "team2_cas_rip",
)
MATCH_COLUMNS = ID_COLUMNS + COUNT_COLUMNS + (
    "match_date", "match_time", "match_conceded", "team1_race_name", "team2_race_name",
)
TOURNEY_COLUMNS = ("tournament_id", "tournament_name", "tournament_start", "tournament_end")

# FUMBBL's name for a race the federation spells differently; every other name matches exactly.
FEDERATION_RACE_NAMES = {"Elven Union": "Elf Union"}
CLASSIC = "Classic"
BLOOD_BOWL_2020 = "Blood Bowl 2020"
BLOOD_BOWL_2020_FROM = dt.date(2021, 1, 1)
# Open play is recorded and counted in statistics but never rated: a status of its own, public and
# out of the sanctioning queue.
OPEN_PLAY_STATUS = EventStatus.OPEN_PLAY
CONCEDED_BY = {"None": None, "": None, "Team1": Side.HOME, "Team2": Side.AWAY}

GAME_SOURCE_PREFIX = "fumbbl-match:"
TOURNAMENT_SOURCE_PREFIX = "fumbbl-tournament:"
OPEN_PLAY_SOURCE_PREFIX = "fumbbl-open:"

MAX_ID = 2**31 - 1  # the largest coach number the database takes
MAX_COUNT = 99  # the database refuses touchdowns or casualties above this
BATCH = 2000

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_TIME = re.compile(r"\d{2}:\d{2}:\d{2}", re.ASCII)
_DIGITS = re.compile(r"\d+", re.ASCII)


class FumbblFileError(ValueError):
    """The file is not a FUMBBL export at all (empty, or columns missing from its header)."""


@dataclass(frozen=True)
class BadRow:
    file: str
    line: int  # the file's line number, the header being line 1
    message: str

    def __str__(self) -> str:
        return f"{self.file} line {self.line}: {self.message}"


@dataclass(frozen=True)
class Match:
    """One valid row of the matches file, in the federation's terms (team 1 is home)."""

    line: int
    match_id: int
    tournament_id: int
    played_at: dt.datetime
    home_coach: int
    away_coach: int
    home_race: str
    away_race: str
    home_touchdowns: int
    away_touchdowns: int
    home_casualties: int
    away_casualties: int
    conceded_by: str | None

    @property
    def source(self) -> str:
        return f"{GAME_SOURCE_PREFIX}{self.match_id}"

    @property
    def variant(self) -> str:
        return BLOOD_BOWL_2020 if self.played_at.date() >= BLOOD_BOWL_2020_FROM else CLASSIC

    @property
    def order(self) -> tuple[dt.datetime, int]:
        return (self.played_at, self.match_id)


@dataclass(frozen=True)
class Tourney:
    tournament_id: int
    name: str
    start: dt.date
    end: dt.date


@dataclass
class EventPlan:
    """An event to hold some matches; matches in (time of play, match id) order."""

    source: str
    name: str
    variant: str
    start_date: dt.date
    end_date: dt.date
    status: str
    matches: list[Match]


@dataclass
class ImportReport:
    games_read: int = 0
    games_imported: int = 0
    games_already_present: int = 0
    games_skipped: int = 0
    coaches_created: int = 0
    events_created: int = 0
    races_created: int = 0
    rounds_created: int = 0
    participants_created: int = 0
    bad_rows: list[BadRow] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    aborted: bool = False  # bad rows and no skip_bad: nothing was written
    seconds: float = 0.0


# A factory like tqdm: progress(total=..., desc=...) returns an object with update(n) and close().
Progress = Callable[..., Any]


def _rows(
    lines: Iterable[str], file: str, required: tuple[str, ...]
) -> Iterator[tuple[int, dict | None, BadRow | None]]:
    """(line, row, None) for each well-formed row, (line, None, bad row) for the others."""
    reader = csv.reader(lines)
    header = next(reader, None)
    if not header:
        raise FumbblFileError(f"{file}: empty file, expected a header with {', '.join(required)}")
    missing = [column for column in required if column not in header]
    if missing:
        raise FumbblFileError(f"{file}: header lacks {', '.join(missing)}")
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            yield reader.line_num, None, BadRow(file, reader.line_num, f"unreadable CSV: {error}")
            continue
        if len(values) != len(header):
            yield reader.line_num, None, BadRow(
                file, reader.line_num, f"expected {len(header)} columns, found {len(values)}"
            )
            continue
        yield reader.line_num, dict(zip(header, values)), None


def _id(value: str, column: str, problems: list[str]) -> int | None:
    if not _DIGITS.fullmatch(value) or int(value) > MAX_ID:
        problems.append(f"{column} {value!r} is not an id (a whole number from 0 to {MAX_ID})")
        return None
    return int(value)


def _count(value: str, column: str, problems: list[str]) -> int | None:
    if not _DIGITS.fullmatch(value) or int(value) > MAX_COUNT:
        problems.append(f"{column} {value!r} is not a whole number from 0 to {MAX_COUNT}")
        return None
    return int(value)


def _parsed(value: str, column: str, problems: list[str], pattern, parse, form: str):
    """`value` parsed when it has the form `pattern` checks; otherwise None and a problem naming `form`."""
    try:
        if pattern.fullmatch(value):
            return parse(value)
    except ValueError:
        pass
    problems.append(f"{column} {value!r} is not a {form}")
    return None


def _date(value: str, column: str, problems: list[str], today: dt.date) -> dt.date | None:
    """The date, when it is one and lies within the record's dates of play (rules.play_date_error)."""
    day = _parsed(value, column, problems, _DATE, dt.date.fromisoformat, "date YYYY-MM-DD")
    if day is not None and play_date_error(day, today=today):
        problems.append(f"{column} {value!r} is outside the dates of play "
                        f"({FIRST_PLAY_DATE.isoformat()} to {last_play_date(today).isoformat()})")
        return None
    return day


def _time(value: str, column: str, problems: list[str]) -> dt.time | None:
    return _parsed(value, column, problems, _TIME, dt.time.fromisoformat, "time HH:MM:SS")


def _race(value: str, column: str, problems: list[str]) -> str:
    if not value.strip() or len(value) > 100:
        problems.append(f"{column} {value!r} is not a race name (1 to 100 characters)")
    return FEDERATION_RACE_NAMES.get(value, value)


def parse_matches(
    lines: Iterable[str], *, file: str = "fumbbl_matches.csv", today: dt.date | None = None,
) -> tuple[list[Match], list[BadRow]]:
    """The valid matches of a FUMBBL matches CSV and its bad rows, each with every problem it has
    (a date outside the dates of play as of `today`, default the clock's, among them)."""
    today = today or timezone.localdate()
    matches: list[Match] = []
    bad: list[BadRow] = []
    first_seen: dict[int, int] = {}
    for line, row, bad_row in _rows(lines, file, MATCH_COLUMNS):
        if bad_row:
            bad.append(bad_row)
            continue
        problems: list[str] = []
        ids = {column: _id(row[column], column, problems) for column in ID_COLUMNS}
        counts = {column: _count(row[column], column, problems) for column in COUNT_COLUMNS}
        date = _date(row["match_date"], "match_date", problems, today)
        clock = _time(row["match_time"], "match_time", problems)
        home_race = _race(row["team1_race_name"], "team1_race_name", problems)
        away_race = _race(row["team2_race_name"], "team2_race_name", problems)
        if row["match_conceded"] not in CONCEDED_BY:
            problems.append(f"match_conceded {row['match_conceded']!r} is not None, Team1 or Team2")
        home, away = ids["team1_coach_id"], ids["team2_coach_id"]
        if home is not None and home == away:
            problems.append(f"coach {home} plays against himself")
        match_id = ids["match_id"]
        if match_id is not None:
            if match_id in first_seen:
                problems.append(f"match_id {match_id} already on line {first_seen[match_id]}")
            else:
                first_seen[match_id] = line
        casualties = {}
        for team in ("team1", "team2"):
            parts = [counts[f"{team}_cas_{kind}"] for kind in ("bh", "si", "rip")]
            if None not in parts:
                casualties[team] = sum(parts)
                if casualties[team] > MAX_COUNT:
                    problems.append(f"{team} casualties add up to {casualties[team]}, more than {MAX_COUNT}")
        if problems:
            bad.append(BadRow(file, line, "; ".join(problems)))
            continue
        matches.append(
            Match(
                line=line,
                match_id=match_id,
                tournament_id=ids["tournament_id"],
                played_at=dt.datetime.combine(date, clock, tzinfo=dt.UTC),
                home_coach=home,
                away_coach=away,
                home_race=home_race,
                away_race=away_race,
                home_touchdowns=counts["team1_score"],
                away_touchdowns=counts["team2_score"],
                home_casualties=casualties["team1"],
                away_casualties=casualties["team2"],
                conceded_by=CONCEDED_BY[row["match_conceded"]],
            )
        )
    return matches, bad


def parse_tourneys(
    lines: Iterable[str], *, file: str = "fumbbl_tourneys.csv", today: dt.date | None = None,
) -> tuple[dict[int, Tourney], list[BadRow]]:
    """FUMBBL tournaments by id, and the bad rows of the tourneys CSV (dates as parse_matches checks them)."""
    today = today or timezone.localdate()
    tourneys: dict[int, Tourney] = {}
    first_seen: dict[int, int] = {}
    bad: list[BadRow] = []
    for line, row, bad_row in _rows(lines, file, TOURNEY_COLUMNS):
        if bad_row:
            bad.append(bad_row)
            continue
        problems: list[str] = []
        tournament_id = _id(row["tournament_id"], "tournament_id", problems)
        start = _date(row["tournament_start"], "tournament_start", problems, today)
        end = _date(row["tournament_end"], "tournament_end", problems, today)
        if tournament_id in first_seen:
            problems.append(f"tournament_id {tournament_id} already on line {first_seen[tournament_id]}")
        elif tournament_id is not None:
            first_seen[tournament_id] = line
        if problems:
            bad.append(BadRow(file, line, "; ".join(problems)))
            continue
        tourneys[tournament_id] = Tourney(tournament_id, row["tournament_name"].strip(), start, end)
    return tourneys, bad


def event_source(match: Match) -> str:
    if match.tournament_id:
        return f"{TOURNAMENT_SOURCE_PREFIX}{match.tournament_id}"
    return f"{OPEN_PLAY_SOURCE_PREFIX}{match.played_at:%Y-%m}"


def plan_events(matches: Iterable[Match], tourneys: dict[int, Tourney]) -> tuple[list[EventPlan], list[str]]:
    """One event per FUMBBL tournament and per month of open play, and warnings worth reading.

    A tournament keeps its listed dates widened to cover its games; its variant is its first game's.
    """
    grouped: dict[str, list[Match]] = {}
    for match in sorted(matches, key=lambda m: m.order):
        grouped.setdefault(event_source(match), []).append(match)
    plans, warnings, widened = [], [], 0
    for source, games in grouped.items():
        first, last = games[0].played_at.date(), games[-1].played_at.date()
        tournament_id = games[0].tournament_id
        if not tournament_id:
            name = f"FUMBBL open play {games[0].played_at:%Y-%m}"
            plans.append(EventPlan(source, name, games[0].variant, first, last, OPEN_PLAY_STATUS, games))
            continue
        tourney = tourneys.get(tournament_id)
        name = (tourney.name if tourney else "") or f"FUMBBL tournament {tournament_id}"
        start, end = first, last
        if tourney:
            start, end = min(tourney.start, tourney.end, first), max(tourney.start, tourney.end, last)
            widened += (start, end) != (tourney.start, tourney.end)
        variants = sorted({game.variant for game in games})
        if len(variants) > 1:
            warnings.append(
                f"tournament {tournament_id} has games in {' and '.join(variants)}; "
                f"its event takes {games[0].variant} from its first game (match {games[0].match_id})"
            )
        plans.append(EventPlan(source, name[:200], games[0].variant, start, end, EventStatus.SANCTIONED, games))
    if widened:
        warnings.append(f"{widened} tournaments' listed dates were widened to cover their games")
    return plans, warnings


def round_numbers(matches: Iterable[Match], *, last_round: int = 0, busy: Iterable[int] = ()) -> list[int]:
    """The round number of each match, walked in order: a match joins the current round unless one
    of its coaches already played in it, and then it opens the next round.

    last_round and busy (its coaches) continue an event that already has rounds.
    """
    number, seen, numbers = max(last_round, 1), set(busy), []
    for match in matches:
        if match.home_coach in seen or match.away_coach in seen:
            number += 1
            seen = set()
        seen.update((match.home_coach, match.away_coach))
        numbers.append(number)
    return numbers


def _unique_slug(name: str, taken: set[str]) -> str:
    base = slugify(name)[:90] or "race"
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    taken.add(slug)
    return slug


def _open(path: Path):
    return open(path, newline="", encoding="utf-8-sig")


def import_matches(
    path: str | Path,
    *,
    tourneys_path: str | Path | None = None,
    skip_bad: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Import a FUMBBL matches CSV. Matches already imported (by match id) are left alone.

    With bad rows in either file nothing is written unless skip_bad, which drops just those rows.
    The tourneys file defaults to fumbbl_tourneys.csv beside the matches file, if it is there.
    """
    started = time.perf_counter()
    path = Path(path)
    report = ImportReport()
    with _open(path) as lines:
        matches, bad = parse_matches(lines, file=path.name)
    report.games_read = len(matches) + len(bad)
    report.bad_rows = list(bad)
    tourneys: dict[int, Tourney] = {}
    if tourneys_path is None and path.with_name("fumbbl_tourneys.csv").exists():
        tourneys_path = path.with_name("fumbbl_tourneys.csv")
    if tourneys_path is None:
        report.warnings.append("no tourneys file: tournaments are named and dated by their games")
    else:
        tourneys_path = Path(tourneys_path)
        with _open(tourneys_path) as lines:
            tourneys, bad_tourneys = parse_tourneys(lines, file=tourneys_path.name)
        report.bad_rows += bad_tourneys
    if report.bad_rows and not skip_bad:
        report.aborted = True
    else:
        report.games_skipped = len(bad)
        _write(matches, tourneys, report, progress)
    report.seconds = time.perf_counter() - started
    return report


@transaction.atomic
def _write(matches: list[Match], tourneys: dict[int, Tourney], report: ImportReport, progress: Progress | None) -> None:
    present = set(Game.objects.filter(source__startswith=GAME_SOURCE_PREFIX).values_list("source", flat=True))
    new = [match for match in matches if match.source not in present]
    report.games_already_present = len(matches) - len(new)
    if not new:
        return
    plans, warnings = plan_events(new, tourneys)
    report.warnings += warnings
    races = _races(({m.home_race for m in new} | {m.away_race for m in new}), report)
    coaches = _coaches(({m.home_coach for m in new} | {m.away_coach for m in new}), report)
    events, created_sources = _events(plans, report)

    rounds: dict[tuple[str, int], Round] = {}
    new_rounds: list[Round] = []
    participants: list[Participant] = []
    games: list[tuple[Match, str, int]] = []
    for plan in plans:
        event = events[plan.source]
        last_round, busy, attending = (None, (), set()) if plan.source in created_sources else _continuation(event)
        if last_round:
            rounds[plan.source, last_round.number] = last_round
        numbers = round_numbers(plan.matches, last_round=last_round.number if last_round else 0, busy=busy)
        for match, number in zip(plan.matches, numbers):
            if (plan.source, number) not in rounds:
                round_ = Round(
                    event_id=event.pk, number=number, date=match.played_at.date(), start_time=match.played_at.time()
                )
                rounds[plan.source, number] = round_
                new_rounds.append(round_)
            games.append((match, plan.source, number))
            for coach, race in ((match.home_coach, match.home_race), (match.away_coach, match.away_race)):
                if coach not in attending:
                    attending.add(coach)
                    participants.append(Participant(event_id=event.pk, coach_id=coaches[coach], race_id=races[race]))
    Round.objects.bulk_create(new_rounds, batch_size=BATCH)
    Participant.objects.bulk_create(participants, batch_size=BATCH)
    report.rounds_created = len(new_rounds)
    report.participants_created = len(participants)

    # Game ids follow (time of play, match id), the order the ratings apply games in.
    games.sort(key=lambda item: item[0].order)
    bar = progress(total=len(games), desc="games") if progress else None
    for start in range(0, len(games), BATCH):
        batch = [
            Game(
                round_id=rounds[source, number].pk,
                event_id=events[source].pk,
                home_coach_id=coaches[m.home_coach],
                home_race_id=races[m.home_race],
                away_coach_id=coaches[m.away_coach],
                away_race_id=races[m.away_race],
                home_touchdowns=m.home_touchdowns,
                away_touchdowns=m.away_touchdowns,
                home_casualties=m.home_casualties,
                away_casualties=m.away_casualties,
                conceded_by=m.conceded_by,
                kind=GameKind.PLAYED,
                played_at=m.played_at,
                source=m.source,
                reported_on=Game.reported_in_bulk(events[source]),
            )
            for m, source, number in games[start:start + BATCH]
        ]
        Game.objects.bulk_create(batch)
        GameSide.objects.bulk_create([side for game in batch for side in game_sides_for(game)])
        if bar:
            bar.update(len(batch))
    if bar:
        bar.close()
    report.games_imported = len(games)


def _races(names: set[str], report: ImportReport) -> dict[str, int]:
    """Race ids by name; names the federation does not know become unranked races."""
    races = dict(Race.objects.values_list("name", "id"))
    slugs = set(Race.objects.values_list("slug", flat=True))
    created = Race.objects.bulk_create(
        [Race(name=name, slug=_unique_slug(name, slugs)) for name in sorted(names - races.keys())]
    )
    races.update((race.name, race.pk) for race in created)
    report.races_created = len(created)
    return races


def _coaches(numbers: set[int], report: ImportReport) -> dict[int, int]:
    """Coach ids by FUMBBL coach id (their federation number), creating the missing coaches."""
    coaches = dict(Coach.objects.values_list("number", "id"))
    created = Coach.objects.bulk_create(
        [Coach(number=n, name=f"FUMBBL coach {n}") for n in sorted(numbers - coaches.keys())], batch_size=BATCH
    )
    coaches.update((coach.number, coach.pk) for coach in created)
    report.coaches_created = len(created)
    return coaches


def _events(plans: list[EventPlan], report: ImportReport) -> tuple[dict[str, Event], set[str]]:
    """Events by source, creating the missing ones and widening the others to cover their new games;
    and the sources of the events created."""
    variants = dict(Variant.objects.filter(name__in=[CLASSIC, BLOOD_BOWL_2020]).values_list("name", "id"))
    if len(variants) != 2:
        raise Variant.DoesNotExist(f"the variants {CLASSIC!r} and {BLOOD_BOWL_2020!r} must exist (migration 0002)")
    events = {e.source: e for e in Event.objects.filter(source__in=[plan.source for plan in plans])}
    widened = []
    for plan in plans:
        event = events.get(plan.source)
        if event and (plan.start_date < event.start_date or plan.end_date > event.end_date):
            event.start_date = min(event.start_date, plan.start_date)
            event.end_date = max(event.end_date, plan.end_date)
            widened.append(event)
    Event.objects.bulk_update(widened, ["start_date", "end_date"])
    created = Event.objects.bulk_create(
        [
            Event(
                name=plan.name, variant_id=variants[plan.variant], start_date=plan.start_date,
                end_date=plan.end_date, status=plan.status, source=plan.source,
            )
            for plan in plans
            if plan.source not in events
        ]
    )
    events.update((event.source, event) for event in created)
    report.events_created = len(created)
    return events, {event.source for event in created}


def _continuation(event: Event) -> tuple[Round | None, set[int], set[int]]:
    """Where a walk through an already imported event resumes: its last round, the FUMBBL coach ids
    in that round, and the coach ids already registered at the event."""
    last_round = event.rounds.order_by("-number").first()
    busy = set()
    if last_round:
        busy = set(GameSide.objects.filter(round=last_round).values_list("coach__number", flat=True))
    attending = set(Participant.objects.filter(event=event).values_list("coach__number", flat=True))
    return last_round, busy, attending
