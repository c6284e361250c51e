"""The KNSB's names for the figures of a calculation, shown as they are in every language (a Dutch
chess player reads R0 and Lijstdatum on the federation's own viewer), each with its meaning in the
page's language: a page lists the ones it shows (`{% rating_terms "R0" "Rc" %}`, page_figures)."""
from django.utils.translation import gettext_lazy as _

TERMS = {
    "Lijstdatum": _(
        "list date: the rating list whose ratings (R0 and Rc) the game is rated with, the latest on or before its date of play",
    ),
    "R0": _("the coach's rating used for this game"),
    "Rc": _("the opponent's rating used for this game (empty: the opponent is unrated and the game does not count)"),
    "W": _("score: 1 for a win, ½ for a draw, 0 for a loss"),
    "We": _("expected score, from R0 and Rc"),
    "W−We": _("score minus expected score"),
    "k": _("the development coefficient used for this game"),
    "Rt": _("rating change from this game: k·(W − We)"),
    "Wx": _("expected score had the coach been rated at the performance rating (LPR)"),
    "Rl": _("rating before the period or event (on the previous list)"),
    "Rn": _("rating after the period or event (on the new list)"),
    "Rct": _("mean rating of the opponents of the counted games"),
    "Wt": _("total score over the counted games"),
    "Wt%": _("total score as a percentage of the counted games"),
    "Nt": _("number of counted games"),
    "Wet": _("total expected score: ΣWe"),
    "Rtt": _("total rating change: ΣRt"),
    "Wxt": _("total of Wx: ΣWx"),
    "LPR": _("performance rating: the rating at which the expected score against these opponents equals Wt"),
    "Nv": _("number of games the rating rests on (at most 100)"),
}


def rating_terms(*symbols: str) -> list[tuple[str, str]]:
    """(symbol, meaning in the active language) of each symbol asked, in the order asked."""
    return [(symbol, str(TERMS[symbol])) for symbol in symbols]
