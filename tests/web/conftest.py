"""A small federation with every rating system computed, for the public pages.

The first event is the spec's four-coach NAF Elo example (K = 4): Anna, Bert, Cees and Dirk play the
roles of W, X, Y and Z, so the breakdown's figures are known in advance.
"""
import datetime as dt
from decimal import Decimal
from html.parser import HTMLParser

import pytest

from ratings import services
from ratings.models import RatingSystem, Trigger
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.scopes import kept_for_the_module
from tournaments.models import Award, EventStatus, GameKind

TODAY = dt.date(2024, 9, 15)


def recalculate_all(today=TODAY, *, trigger=Trigger.MANUAL, since=None):
    for system in RatingSystem.objects.filter(active=True):
        run = services.recalculation_request(system=system, trigger=trigger, since=since, enqueue=False)
        services.recalculation_execute(run_id=run.pk, today=today)


def build_league():
    anna = CoachFactory(number=101, name="Anna Jansen", nationality="NL")
    bert = CoachFactory(number=102, name="Bert Smith", nationality="GB")
    cees = CoachFactory(number=103, name="Cees de Vries", nationality="NL")
    dirk = CoachFactory(number=104, name="Dirk Müller", nationality="DE")
    eva = CoachFactory(number=105, name="Eva Bakker", nationality="NL")
    fay = CoachFactory(number=106, name="Fay Brown", nationality="GB")
    gus = CoachFactory(number=107, name="Gus Martin", nationality="FR")
    hal = CoachFactory(number=108, name="Hal Dubois", nationality="FR")

    # Long ago: Gus and Hal have not played for more than 24 months, so they have no Elo rank.
    old = EventFactory(name="Paris Classic", start_date=dt.date(2022, 1, 8), country="FR", city="Paris")
    play(RoundFactory(event=old, number=1), gus, hal, (1, 0), home_race="dwarf", away_race="skaven")

    # The four-coach example: round 1 W–X 2-1, Y–Z 1-1; round 2 W–Y 0-1, X–Z 2-0.
    dutch = EventFactory(
        name="Dutch Open", start_date=dt.date(2024, 3, 2), country="NL", city="Utrecht",
        latitude=Decimal("52.09074"), longitude=Decimal("5.12142"), is_major=False,
    )
    r1, r2 = RoundFactory(event=dutch, number=1), RoundFactory(event=dutch, number=2)
    play(r1, anna, bert, (2, 1), home_race="human", away_race="orc")
    play(r1, cees, dirk, (1, 1), home_race="human", away_race="orc")
    play(r2, anna, cees, (0, 1), home_race="human", away_race="human")
    play(r2, bert, dirk, (2, 0), home_race="orc", away_race="orc")
    Award.objects.create(event=dutch, category="Winner", coach=cees)
    Award.objects.create(event=dutch, category="Most touchdowns", coach=anna)

    # A forfeit: Anna's second game here keeps a red, footnoted row.
    cup = EventFactory(name="Utrecht Cup", start_date=dt.date(2024, 4, 6), country="NL", city="Utrecht")
    c1, c2 = RoundFactory(event=cup, number=1), RoundFactory(event=cup, number=2)
    play(c1, anna, eva, (1, 0), home_race="human", away_race="dwarf")
    play(c1, fay, bert, (0, 0), home_race="skaven", away_race="orc")
    play(c2, anna, fay, (0, 0), home_race="human", away_race="skaven", kind=GameKind.FORFEIT)
    play(c2, eva, bert, (2, 1), home_race="dwarf", away_race="orc")

    # Open play, not sanctioned: public, its game counts for no one.
    bash = EventFactory(name="Garage Bash", start_date=dt.date(2024, 5, 4), status=EventStatus.OPEN_PLAY)
    play(RoundFactory(event=bash, number=1), anna, bert, (1, 0), home_race="human", away_race="orc")

    # A league where the six play each other: enough games for KNSB start ratings.
    league = EventFactory(name="Summer League", start_date=dt.date(2024, 6, 1), end_date=dt.date(2024, 6, 2), country="GB", city="Leeds")
    six = [anna, bert, cees, dirk, eva, fay]
    races = {anna: "human", bert: "orc", cees: "human", dirk: "orc", eva: "dwarf", fay: "skaven"}
    for number in range(1, 6):
        round_ = RoundFactory(event=league, number=number, date=dt.date(2024, 6, 1 if number <= 3 else 2))
        rotated = [six[0]] + six[1:][number - 1:] + six[1:][:number - 1]
        for i in range(3):
            home, away = rotated[i], rotated[5 - i]
            score = ((number + i) % 3, 1)
            play(round_, home, away, score, home_race=races[home], away_race=races[away])
    return {c.name.split()[0].lower(): c for c in (anna, bert, cees, dirk, eva, fay, gus, hal)} | {
        "dutch": dutch, "cup": cup, "bash": bash, "league": league, "old": old,
    }


@pytest.fixture(scope="module")
def league_module(django_db_setup, django_db_blocker):
    """Built and recalculated once per test module (kept_for_the_module)."""
    with kept_for_the_module(django_db_blocker):
        data = build_league()
        recalculate_all()
        yield data


@pytest.fixture
def league(league_module, db):
    return league_module


class _Tables(HTMLParser):
    """Every <table> of a page: caption, and rows as (class, [cell texts])."""

    def __init__(self):
        super().__init__()
        self.tables, self._stack, self._cell, self._in_caption = [], [], None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._stack.append({"caption": "", "rows": [], "class": attrs.get("class", "")})
        elif not self._stack:
            return
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr":
            self._stack[-1]["rows"].append((attrs.get("class", "") or "", []))
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if not self._stack:
            return
        if tag == "table":
            self.tables.append(self._stack.pop())
        elif tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th") and self._cell is not None:
            self._stack[-1]["rows"][-1][1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        if not self._stack:
            return
        if self._in_caption:
            self._stack[-1]["caption"] += data
        elif self._cell is not None:
            self._cell.append(data)


def tables_of(response) -> list[dict]:
    parser = _Tables()
    parser.feed(response.content.decode())
    return parser.tables


def table(response, caption: str) -> dict:
    """The table whose caption contains `caption`: {"caption", "header", "rows": [(class, cells)]}."""
    for found in tables_of(response):
        if caption in found["caption"]:
            header, *rows = found["rows"]
            return {"caption": " ".join(found["caption"].split()), "header": header[1], "rows": rows}
    raise AssertionError(f"no table with caption containing {caption!r}")


def column(found: dict, name: str) -> list[str]:
    index = found["header"].index(name)
    return [cells[index] for _, cells in found["rows"] if len(cells) > index]
