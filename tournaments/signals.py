"""The one seam between the record and what is derived from it (ratings, statistics).

The record's services say what changed by sending these signals; the apps downstream connect
their receivers when they start (their AppConfig.ready), so the record imports neither of them.
"""
from enum import StrEnum

from django.dispatch import Signal


class ResultsTrigger(StrEnum):
    """Why rated results changed: the record's own words, sent as `trigger` with results_changed
    (the ratings keep the same values among their run triggers)."""

    SANCTIONED = "sanctioned"
    BACKDATED = "backdated"  # sanctioned late, its games dated before lists already published
    CORRECTED = "corrected"  # a sanctioned game corrected, or a sanctioned event rejected
    MERGE = "merge"  # two coaches became one


# Rated results changed from `since` on (a sanction, a correction, a merge...): the ratings
# recompute forward from that date. Sent with trigger (a ResultsTrigger), since, reason and actor.
results_changed = Signal()

# Games changed that no rating counts (a draft, an event not sanctioned): only the statistics
# are rebuilt. Sent without arguments.
record_changed = Signal()

# Two coaches became one: what is derived from the duplicate goes with it. Sent with keep and
# duplicate, before the duplicate is deleted.
coach_merged = Signal()

# May this event's games change now? Each receiver answers None, or the reason it may not
# (a recalculation covering the event's dates). Sent with event.
event_change_blocked = Signal()

# What would sanctioning this event change downstream? Each receiver answers an HTML fragment for
# the staff review page (the ratings: each system's preview), or None. Sent with event.
sanction_previewed = Signal()

# What the public sees of a coach changed (a pseudonym chosen, a profile hidden, an erasure): what
# keeps his name downstream (the published lists' names of the day) follows. Sent with coach, before, after.
coach_public_name_changed = Signal()

# A copy of everything held about a coach is being made: each receiver answers a dict of its own
# sections (the ratings: his figures), merged into the copy. Sent with coach.
coach_data_collected = Signal()
