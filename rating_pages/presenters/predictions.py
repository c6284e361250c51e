"""The notes of an event's predictions and of the calculator's pairing: why a side has no expected
score, in the system's words (the selectors give the reason)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _

from rating_pages.columns import presentation
from rating_pages.presenters.periods import reason_texts
from ratings import selectors

if TYPE_CHECKING:
    from ratings.models import RatingSystem

NOTES = {
    selectors.NO_LIST_RATING: _("no list rating yet"),
    selectors.OPPONENT_NO_LIST_RATING: _("opponent has no list rating yet"),
    selectors.START_RATING: _("no expected score (start rating)"),
}


def note_text(system: RatingSystem, note: str) -> str:
    """A side's note (a reason the game does not count, or why it has no We) as the page says it."""
    if note == selectors.NOT_RATED_YET:
        return presentation(system.method).not_rated_yet
    return str(NOTES.get(note) or reason_texts(system).get(note, note))


def worded_event(predictions):
    """An event's predictions (selectors.event_predictions) with each side's note worded."""
    for round_ in predictions.rounds:
        for pairing in round_.pairings:
            for column, pair in zip(predictions.systems, pairing.cells, strict=True):
                _word(column.system, pair)
    return predictions


def worded_pairing(rows: list) -> list:
    """The calculator's pairing rows (selectors.coach_pairing, rating_pairing) with their notes worded."""
    for row in rows:
        _word(row.system, row.sides)
    return rows


def _word(system: RatingSystem, sides) -> None:
    for side in {id(side): side for side in sides}.values():  # a bye's one prediction speaks for both: worded once
        if side.note:
            side.note = note_text(system, side.note)
