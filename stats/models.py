"""Summary tables behind the statistics pages, rebuilt from GameSide by `stats.services.summaries_refresh`.

Each table counts games (byes left out) per slice: variant, event country, event year (the year the
event started, so an event never straddles two slices) and whether the event is sanctioned. Every
filter of the statistics pages is one of these columns, so a page reads rows instead of games.

Except in EventSummary, a slice column may also be NULL, meaning "all values": the refresh adds
roll-up rows for the filter combinations that would otherwise add up most rows (see ROLL_UPS), so
an unfiltered page reads one row per coach or race instead of adding up hundreds of thousands.
"""
from django.db import models
from django.utils import timezone

from tournaments.models import Coach, Event, Race, Variant


# The tables are rebuilt wholesale from the record, so their foreign keys carry no database
# constraint: checking millions of derived rows at commit would cost more than the rebuild itself.
class Slice(models.Model):
    """The columns every statistics filter works on (NULL: the roll-up over all values)."""

    variant = models.ForeignKey(Variant, null=True, on_delete=models.CASCADE, related_name="+", db_constraint=False)
    country = models.CharField(max_length=2, null=True, help_text="The event's country ('' when unknown).")
    year = models.PositiveSmallIntegerField(null=True, help_text="The year the event started.")
    sanctioned = models.BooleanField(null=True)
    games = models.PositiveIntegerField()

    class Meta:
        abstract = True


SLICE = ("variant", "country", "year", "sanctioned")
# The filter combinations stored as roll-up rows (their other slice columns NULL). Any other
# combination sets a country or a year beside another filter, which leaves few base rows to add up.
ROLL_UPS = [frozenset(), *(frozenset({column}) for column in SLICE), frozenset({"variant", "sanctioned"})]
SLICE_INDEX = ["variant", "sanctioned", "year", "country"]


class Record(Slice):
    wins = models.PositiveIntegerField()
    draws = models.PositiveIntegerField()
    losses = models.PositiveIntegerField()

    class Meta:
        abstract = True


class EventSummary(Slice):
    """Games per event (no roll-up rows): the map and the counts of the games explorer."""

    event = models.OneToOneField(Event, on_delete=models.CASCADE, related_name="+", db_constraint=False)


class RaceMatchupSummary(Record):
    """A race's record against one opponent race in one slice: the race grid and the race averages."""

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="+", db_constraint=False)
    opponent_race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="+", db_constraint=False)

    class Meta:
        indexes = [models.Index(fields=SLICE_INDEX, name="stats_matchup_slice_idx")]


class CoachSummary(Record):
    """A coach's record in one slice, with the number of events played in it."""

    coach = models.ForeignKey(Coach, on_delete=models.CASCADE, related_name="+", db_constraint=False)
    events = models.PositiveIntegerField()
    countries = models.PositiveSmallIntegerField(
        help_text="Known event countries played in: 1 or 0 on a row of one country, the distinct count on a roll-up over countries."
    )

    class Meta:
        indexes = [
            models.Index(fields=SLICE_INDEX, name="stats_coach_slice_idx"),
            models.Index(fields=["coach"], name="stats_coach_idx"),
        ]


class CoachRaceSummary(Record):
    """A coach's record with one race in one slice: per-coach ratios by race, differentials, legends."""

    coach = models.ForeignKey(Coach, on_delete=models.CASCADE, related_name="+", db_constraint=False)
    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="+", db_constraint=False)

    class Meta:
        indexes = [
            models.Index(fields=SLICE_INDEX, name="stats_coach_race_slice_idx"),
            models.Index(fields=["race", *SLICE_INDEX], name="stats_race_slice_idx"),
            models.Index(fields=["coach", "race"], name="stats_coach_race_idx"),
        ]


class SummaryRefresh(models.Model):
    """One rebuild of the summary tables: the pages say how fresh their figures are."""

    finished_at = models.DateTimeField(db_index=True)
    games = models.PositiveIntegerField()
    duration = models.FloatField(help_text="Seconds.")

    class Meta:
        ordering = ["-finished_at", "-id"]
        get_latest_by = "finished_at"

    def __str__(self):
        return f"statistics refreshed {self.finished_at:%Y-%m-%d %H:%M} ({self.games} games)"


class SummaryRefreshRequest(models.Model):
    """A change the summary tables do not count yet: the outbox of the refresh messages. Written in
    the change's own transaction; a refresh takes away the requests it counted; one whose message a
    broker outage kept back (`enqueued_at` unset) is sent by the dispatcher."""

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"statistics refresh owed since {self.created_at:%Y-%m-%d %H:%M:%S}"
