"""Each method's presentation, written once: the columns of its breakdown's game table (symbol,
name, tooltip, accessor, decimals), and the words its pages use for its periods. The breakdown's
header and its rows (rating_figures.breakdown_rows) are drawn from these; no page compares a method
by name where its presentation lives here."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ratings.choices import Method
from ratingsite.formatting import fixed, rating_places, signed

RATING = None  # the decimals of a rating of the method (KNSB whole numbers, the others 0.01)


@dataclass(frozen=True)
class Column:
    """One figure of a breakdown's game row: `accessor` reads it from the row's BreakdownRow."""

    symbol: str  # the header as shown
    name: str  # what the figure is, in words
    tooltip: str
    accessor: Callable[[Any], Any]
    decimals: int | None = RATING
    signed: bool = False

    def cell(self, item, rating_decimals: int) -> str:
        places = rating_decimals if self.decimals is RATING else self.decimals
        return (signed if self.signed else fixed)(self.accessor(item), places)


@dataclass(frozen=True)
class Presentation:
    """How one method's figures are shown."""

    method: str
    games: tuple[Column, ...]  # the game table's figures, after ID, opponent, race and date
    lists: bool = False  # KNSB rates by monthly lists: the Lijstdatum (and depot) column, games waiting for a list
    period_word: str = "Rating period"  # the period chooser's label
    noun: str = "period"  # what a new rating comes of: "no new rating from this …", "the last four …s"
    block_noun: str = "event"  # what the game table's orange rows sum up
    game_caption: str = "game by game"
    chart_step: str = "rating period"  # the coach page's history chart: "the rating after every …"
    ranking_hides: tuple[str, ...] = ("mu", "phi", "nv")  # the ranking's columns of the other methods
    starter_headers: tuple[tuple[str, str], ...] = ()  # a list's starters: (column, header) renamed
    starters_caption: str = "with the games counted and played since the previous list"
    provisional_figure: str = "φ"  # the ranking's column whose figure lifts the "?" mark
    value_multiplier: bool = False  # Glicko: the value is μ − multiplier·φ
    shows_phi: bool = False  # Glicko: a rating comes with its φ
    rating_after: bool = False  # NAF Elo: an event's standings show the rating after it
    standings_change: str = ""  # how an event's standings add up the change (after the caption)
    rated_note: str = ""  # how an event's stored We were worked out, beyond "from the ratings before the game"
    uncounted: str = ""  # why an event's rating columns can be empty (after "did not count in …")
    not_rated_yet: str = "not rated yet"  # a prediction's note where the system has not rated a game yet

    @property
    def predictions_template(self) -> str:
        """How the method predicts an event not rated yet, on the event's predictions page."""
        return f"rating_pages/predictions/_{self.method}.html"

    @property
    def about_template(self) -> str:
        """The method's formulas and figures on the about page."""
        return f"rating_pages/about/_{self.method}.html"

    def places(self) -> int:
        return rating_places(self.method)


def _row(name: str) -> Callable[[Any], Any]:
    return lambda item: getattr(item.row, name)


def _item(name: str) -> Callable[[Any], Any]:
    return lambda item: getattr(item, name)


_R0 = Column("R0", "rating before the game", "the coach's rating before the game", _row("r0"))
_RC = Column("Rc", "opponent's rating", "the opponent's rating the game is rated against", _row("rc"))
_W = Column("W", "score", "1 a win, ½ a draw, 0 a loss", _row("w"), 1)
_WE = Column("We", "expected score", "the expected score against that opponent", _row("we"), 3)
_W_WE = Column("W−We", "score above expectation", "W − We", _item("w_minus_we"), 3, signed=True)
_K = Column("k", "development coefficient", "how far one game moves the rating", _row("k"), 2)
_RT = Column("Rt", "rating change", "k · (W − We)", _row("rt"), 2, signed=True)

PRESENTATIONS = {
    Method.NAF_ELO: Presentation(
        Method.NAF_ELO,
        (_R0, _RC, _W, _WE, _W_WE, _K, _RT,
         Column("Rn", "rating after the game", "the coach's rating after the game", _item("rating_after"))),
        period_word="Event", noun="event", chart_step="event", rating_after=True,
        standings_change=" (the change: the sum of this event's games' changes)",
        rated_note=" (a later round's from the rating after the earlier rounds)",
    ),
    Method.GLICKO: Presentation(
        Method.GLICKO,
        (
            Column("μ", "rating before the period", "the coach's μ before the period", _row("r0"), 2),
            Column("Opp. μ", "opponent's rating", "the opponent's μ", _row("rc"), 2),
            Column("Opp. φ", "opponent's deviation", "the opponent's φ", _row("opponent_phi"), 2),
            Column("g(φ)", "weight of the opponent's deviation", "g(φ): an uncertain opponent's game weighs less",
                   _row("g"), 4),
            _W,
            Column("E", "expected score", "the expected score against that opponent", _row("we"), 3),
            Column("W−E", "score above expectation", "W − E", _item("w_minus_we"), 3, signed=True),
            Column("Δμ", "change of μ", "the game's share of the period's change of μ", _row("rt"), 2, signed=True),
        ),
        block_noun="period", game_caption="the period's opponents with their μ, φ, g(φ) and E", ranking_hides=("nv",),
        value_multiplier=True, shows_phi=True, uncounted=" or belong to a period that has not closed yet",
        not_rated_yet="not rated yet: its rating period has not closed",
    ),
    Method.KNSB: Presentation(
        Method.KNSB,
        (_R0, _RC, _W, _WE, _W_WE, _K, _RT,
         Column("Wx", "expected score at the performance rating", "the expected score at the LPR", _row("wx"), 3)),
        lists=True, period_word="List", ranking_hides=("mu", "phi"),
        starter_headers=(("games_counted", "Nt"), ("games_played", "Gt")),
        starters_caption=(
            "with Nt, the games counted for the start rating, and Gt, every game played in the variant "
            "(counted or not) from the month of the oldest of them"
        ),
        provisional_figure="Nv", uncounted=" (“not counted” under List)",
        not_rated_yet="not rated yet: waiting for the next monthly list",
    ),
}


def presentation(method: str) -> Presentation:
    return PRESENTATIONS[Method(method)]
