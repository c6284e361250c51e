"""Each method's presentation, written once: the columns of its breakdown's game table (symbol,
name, tooltip, accessor, decimals), and the words its pages use for its periods. The breakdown's
header and its rows (rating_figures.breakdown_rows) are drawn from these; no page compares a method
by name where its presentation lives here.

Its words are in the page's language (gettext_lazy) and each is a whole sentence or a whole name:
a sentence that differs by method is written out once per method, never glued from a noun; the
symbols (R0, Rc, W, We, Wx, μ, φ) stay as they are in every language."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from ratings.choices import Method
from ratingsite.formatting import fixed, rating_places, signed

RATING = None  # the decimals of a rating of the method (KNSB whole numbers, the others 0.01)


@dataclass(frozen=True)
class Column:
    """One figure of a breakdown's game row: `accessor` reads it from the row's BreakdownRow."""

    symbol: str  # the header as shown, in every language
    name: str | Promise  # what the figure is, in words
    tooltip: str | Promise
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
    period_word: str | Promise = _("Rating period")  # the period chooser's label
    noun: str | Promise = _("Period")  # what a new rating comes of: the last four's first column
    block_noun: str | Promise = _("event")  # what the game table's orange rows sum up
    game_caption: str | Promise = _("game by game")
    no_new_rating: str | Promise = _("No new rating from this period: none of its games counted.")
    last_four: str | Promise = _("Last four periods")
    last_four_caption: str | Promise = _("The ratings of the last four periods")
    history_caption: str | Promise = _("%(system)s: rating after each period")  # the coach page's history table
    chart_description: str | Promise = _(  # the coach page's history chart
        "Step line of the rating after every rating period, one line per variant; the same figures are in the table below."
    )
    chart_description_per_race: str | Promise = _(
        "Step line of the rating after every rating period, one line per race; the same figures are in the table below."
    )
    ranking_hides: tuple[str, ...] = ("mu", "phi", "nv")  # the ranking's columns of the other methods
    starter_headers: tuple[tuple[str, str], ...] = ()  # a list's starters: (column, header) renamed
    starters_caption: str | Promise = _(  # a list's starters: %(label)s names the list
        "Starters: new ratings on the %(label)s, with the games counted and played since the previous list"
    )
    provisional_figure: str = "φ"  # the ranking's column whose figure lifts the "?" mark
    value_multiplier: bool = False  # Glicko: the value is μ − multiplier·φ
    shows_phi: bool = False  # Glicko: a rating comes with its φ
    rating_after: bool = False  # NAF Elo: an event's standings show the rating after it
    standings_change: str = ""  # how an event's standings add up the change (after the caption)
    rated_note: str = ""  # how an event's stored We were worked out, beyond "from the ratings before the game"
    uncounted: str = ""  # why an event's rating columns can be empty (after "did not count in …")
    not_rated_yet: str = _("not rated yet")  # a prediction's note where the system has not rated a game yet

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


_R0 = Column("R0", _("rating before the game"), _("the coach's rating before the game"), _row("r0"))
_RC = Column("Rc", _("opponent's rating"), _("the opponent's rating the game is rated against"), _row("rc"))
_W = Column("W", _("score"), _("1 a win, ½ a draw, 0 a loss"), _row("w"), 1)
_WE = Column("We", _("expected score"), _("the expected score against that opponent"), _row("we"), 3)
_W_WE = Column("W−We", _("score above expectation"), "W − We", _item("w_minus_we"), 3, signed=True)
_K = Column("k", _("development coefficient"), _("how far one game moves the rating"), _row("k"), 2)
_RT = Column("Rt", _("rating change"), "k · (W − We)", _row("rt"), 2, signed=True)

PRESENTATIONS = {
    Method.NAF_ELO: Presentation(
        Method.NAF_ELO,
        (_R0, _RC, _W, _WE, _W_WE, _K, _RT,
         Column("Rn", _("rating after the game"), _("the coach's rating after the game"), _item("rating_after"))),
        period_word=_("Event"), noun=_("Event"), rating_after=True,
        no_new_rating=_("No new rating from this event: none of its games counted."),
        last_four=_("Last four events"), last_four_caption=_("The ratings of the last four events"),
        history_caption=_("%(system)s: rating after each event"),
        chart_description=_(
            "Step line of the rating after every event, one line per variant; the same figures are in the table below."
        ),
        chart_description_per_race=_(
            "Step line of the rating after every event, one line per race; the same figures are in the table below."
        ),
        standings_change=" (the change: the sum of this event's games' changes)",
        rated_note=" (a later round's from the rating after the earlier rounds)",
    ),
    Method.GLICKO: Presentation(
        Method.GLICKO,
        (
            Column("μ", _("rating before the period"), _("the coach's μ before the period"), _row("r0"), 2),
            Column("Opp. μ", _("opponent's rating"), _("the opponent's μ"), _row("rc"), 2),
            Column("Opp. φ", _("opponent's deviation"), _("the opponent's φ"), _row("opponent_phi"), 2),
            Column("g(φ)", _("weight of the opponent's deviation"), _("g(φ): an uncertain opponent's game weighs less"),
                   _row("g"), 4),
            _W,
            Column("E", _("expected score"), _("the expected score against that opponent"), _row("we"), 3),
            Column("W−E", _("score above expectation"), "W − E", _item("w_minus_we"), 3, signed=True),
            Column("Δμ", _("change of μ"), _("the game's share of the period's change of μ"), _row("rt"), 2, signed=True),
        ),
        block_noun=_("period"), game_caption=_("the period's opponents with their μ, φ, g(φ) and E"), ranking_hides=("nv",),
        value_multiplier=True, shows_phi=True, uncounted=" or belong to a period that has not closed yet",
        not_rated_yet=_("not rated yet: its rating period has not closed"),
    ),
    Method.KNSB: Presentation(
        Method.KNSB,
        (_R0, _RC, _W, _WE, _W_WE, _K, _RT,
         Column("Wx", _("expected score at the performance rating"), _("the expected score at the LPR"), _row("wx"), 3)),
        lists=True, period_word=_("List"), ranking_hides=("mu", "phi"),
        no_new_rating=_(
            "No new rating from this period: none of its games counted, or they wait in the depot for a start rating."
        ),
        starter_headers=(("games_counted", "Nt"), ("games_played", "Gt")),
        starters_caption=_(
            "Starters: new ratings on the %(label)s, with Nt, the games counted for the start rating, and Gt, every game "
            "played in the variant (counted or not) from the month of the oldest of them"
        ),
        provisional_figure="Nv", uncounted=" (“not counted” under List)",
        not_rated_yet=_("not rated yet: waiting for the next monthly list"),
    ),
}


def presentation(method: str) -> Presentation:
    return PRESENTATIONS[Method(method)]
