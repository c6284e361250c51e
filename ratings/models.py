"""Rating systems, recalculation runs, rating lists, current ratings and stored calculation rows.

Every figure a page shows about a rating is read from these tables; nothing is recomputed per request.
"""
from __future__ import annotations

import hashlib
from types import SimpleNamespace

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import EmptyResultSet
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from ratings.choices import Method, RunStatus, Trigger
from tournaments.models import Coach, Game, Race, Variant


class RatingSystem(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=50, unique=True)
    method = models.CharField(max_length=10, choices=Method.choices)
    per_race = models.BooleanField(default=True, help_text="One rating per race; otherwise races are pooled.")
    variants = models.ManyToManyField(Variant, blank=True, related_name="+", help_text="Empty: every variant.")
    excluded_races = models.ManyToManyField(Race, blank=True, related_name="+")
    parameters = models.JSONField(default=dict, blank=True, help_text="Engine parameters; validated on save.")
    inactive_after_months = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Elo/KNSB: no rank after this many months without a counted game."
    )
    description = models.TextField(blank=True)
    active = models.BooleanField(default=True)
    recalculated_at = models.DateTimeField(
        null=True, blank=True, editable=False,
        help_text="When a run last committed: the version of the stored ratings, which page caches key on.",
    )
    display_order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["display_order", "name"]

    def __str__(self):
        return self.name

    @property
    def is_glicko(self) -> bool:
        return self.method == Method.GLICKO


class RecalculationRun(models.Model):
    system = models.ForeignKey(RatingSystem, on_delete=models.CASCADE, related_name="runs")
    trigger = models.CharField(max_length=12, choices=Trigger.choices)
    reason = models.CharField(max_length=300, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    from_date = models.DateField(null=True, blank=True, help_text="Earliest affected date; empty: from the start.")
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True)
    recomputed_from = models.DateField(null=True, blank=True, help_text="The stored state the run started from.")
    games_processed = models.PositiveIntegerField(default=0)
    rows_written = models.PositiveIntegerField(default=0)
    duration = models.FloatField(null=True, blank=True, help_text="Seconds.")
    log = models.TextField(blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    # the outbox: a queued run whose message has not reached the broker yet has none
    enqueued_at = models.DateTimeField(null=True, blank=True)
    # who holds the run's lease: "host:pid" of the process carrying it out (or, queued, of the command that will)
    worker = models.CharField(max_length=100, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # the run the sweep failed (its process lost) that this one carries out again, once: a retry is never retried
    retry_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="retries")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.system.slug} run {self.pk} ({self.status})"


class EngineCheckpoint(models.Model):
    """The engine state after every game before `as_of` (pickled plain data): where recalculations resume."""

    system = models.ForeignKey(RatingSystem, on_delete=models.CASCADE, related_name="checkpoints")
    as_of = models.DateField()
    state = models.BinaryField()
    games = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["system", "as_of"]
        constraints = [models.UniqueConstraint(fields=["system", "as_of"], name="checkpoint_once_per_date")]


class ReplayTail(models.Model):
    """Where the last run of a system left its replay, at its last rated game: the engine's state
    after that game with no period closed after it, every key's standing as of the month start
    before it (`start`), and the rows and summaries of the games since then. A run for games that
    all come after that game continues from here instead of replaying the month. Each run replaces
    it (or deletes it, when its replay had none) in its own transaction, so it always describes the
    stored figures."""

    system = models.OneToOneField(RatingSystem, on_delete=models.CASCADE, primary_key=True, related_name="+")
    start = models.DateField(help_text="The month start the replay's last chunk starts from.")
    last_played = models.DateTimeField(help_text="The last game given to the engine: its time of play ...")
    last_game = models.BigIntegerField(help_text="... and its id (games are rated in that order).")
    record = models.CharField(
        max_length=64, default="",
        help_text="SHA-256 of the recorded games of its month up to its last game, as its run read them: a run goes "
                  "on from the tail only if the record still holds exactly these (a change that asked for no run, "
                  "or whose run failed, sends it back to the checkpoint).",
    )
    state = models.BinaryField()


# How ranking pages order entries: ranked ones first, by rank, then value; the coach breaks ties.
RANKING_ORDER = (F("overall_rank").asc(nulls_last=True), F("value").desc(), F("coach"))


# Foreign keys of the derived tables: neither checked nor indexed on their own by the database
# (their composite indexes serve every query; millions of checks and index entries per run do not pay).
DERIVED = {"on_delete": models.CASCADE, "db_constraint": False, "db_index": False, "related_name": "+"}
# Their indexes leave the system out: on PostgreSQL each system's rows are a partition of their own
# (partitions.py), where the column is one value that only widens every key of every index that a
# full run builds over millions of rows.


class ChunkIndex(models.Index):
    """The recalculation chunk a row was written by, for a partial run deleting from one on. Rows
    are written in chunk order, so on PostgreSQL a block-range (BRIN) index: a few pages, built
    in a fraction of a B-tree's time. A B-tree elsewhere."""

    def create_sql(self, model, schema_editor, using="", **kwargs):
        if schema_editor.connection.vendor == "postgresql":
            using = " USING brin"
        return super().create_sql(model, schema_editor, using=using, **kwargs)


class RankingQuerySet(models.QuerySet):
    """Ratings read page by page: a deep page finds its rows' ids on the ranking index alone and
    only then joins coach, race and variant for those rows (not for every row it skips).

    `counted_as_of(version)` keeps the row count (whatever filters follow) in the cache under that
    version of the stored ratings: counting tens of thousands of rows for every page of a ranking
    that changes only when a run commits is most of its database time.
    """

    _count_version = None

    def counted_as_of(self, version) -> RankingQuerySet:
        clone = self._chain()
        clone._count_version = version
        return clone

    def _clone(self):
        clone = super()._clone()
        clone._count_version = self._count_version
        return clone

    def of_variant(self, variant) -> RankingQuerySet:
        """The entries of one variant (a Variant, or its slug), in the order they were in: RANKING_ORDER
        becomes the model's VARIANT_ORDER where it has one (the same rows in the same order, on the
        index it keeps)."""
        found = self.filter(variant__slug=variant) if isinstance(variant, str) else self.filter(variant=variant)
        order = getattr(self.model, "VARIANT_ORDER", None)
        if order is not None and tuple(self.query.order_by) == RANKING_ORDER:
            found = found.order_by(*order)
        return found

    def count(self) -> int:
        if self._count_version is None or self._result_cache is not None:
            return super().count()
        try:
            sql, params = self.query.sql_with_params()
        except EmptyResultSet:  # .none(): nothing to count
            return super().count()
        key = "ranking-count:" + hashlib.sha256(f"{self._count_version}|{sql}|{params!r}".encode()).hexdigest()
        return cache.get_or_set(key, super().count, timeout=24 * 3600)

    def __getitem__(self, k):
        if isinstance(k, slice) and k.start and self._result_cache is None and self.query.select_related:
            ids = list(self.values_list("pk", flat=True)[k])
            found = {rating.pk: rating for rating in self.filter(pk__in=ids).order_by()}
            return [found[pk] for pk in ids]
        return super().__getitem__(k)


class RatingFields(models.Model):
    """What one rating key holds at one moment: shared by current ratings and list entries.

    The tables below are derived: recalculation rewrites them from the record, so their foreign
    keys are not checked by the database (deferred checks of millions of rows cost more than the
    calculation); deletes still cascade through the ORM.
    """

    system = models.ForeignKey(RatingSystem, **DERIVED)
    coach = models.ForeignKey(Coach, **DERIVED)
    race = models.ForeignKey(Race, null=True, blank=True, **DERIVED)
    variant = models.ForeignKey(Variant, **DERIVED)
    value = models.FloatField(help_text="The ranking value: CR, mu − 2.5·phi, or the list rating.")
    mu = models.FloatField(null=True, blank=True)
    phi = models.FloatField(null=True, blank=True)
    sigma = models.FloatField(null=True, blank=True)
    nv = models.PositiveSmallIntegerField(null=True, blank=True)
    games = models.PositiveIntegerField(default=0)
    rank = models.PositiveIntegerField(null=True, blank=True, help_text="Within system, variant (and race): none when inactive.")
    overall_rank = models.PositiveIntegerField(null=True, blank=True, help_text="Within system and variant, all races.")

    objects = RankingQuerySet.as_manager()

    class Meta:
        abstract = True

    @property
    def is_active(self) -> bool:
        return self.rank is not None


class CurrentRating(RatingFields):
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    last_played = models.DateField(null=True, blank=True)
    value_change = models.FloatField(null=True, blank=True, help_text="Since the list of the last full month.")
    rank_change = models.IntegerField(null=True, blank=True, help_text="Positions gained since the last full month.")
    ranked = models.GeneratedField(
        expression=Q(overall_rank__isnull=False), output_field=models.BooleanField(), db_persist=True,
        help_text="Has a rank: what the ranking indexes hold instead of the rank itself.",
    )

    # RANKING_ORDER within one variant (ranks follow the values there, equal values sharing a rank).
    # No index holds a rank: an event that moves thousands of ranks updates them in place, without an
    # index entry per row (PostgreSQL's HOT updates, in the room the table's fillfactor leaves).
    VARIANT_ORDER = (F("ranked").desc(), F("value").desc(), F("coach"))

    class Meta:
        constraints = [
            # also a coach's ratings in a system (its first two columns): no index of (system, coach) besides
            models.UniqueConstraint(fields=["system", "coach", "race", "variant"], name="current_rating_once_per_key"),
        ]
        indexes = [
            models.Index(fields=["system", "-value"], name="current_value_idx"),
            # VARIANT_ORDER for one variant, and for one race of it (ranks within a race follow the overall ones)
            models.Index(fields=["system", "variant", "-ranked", "-value", "coach"], name="current_variant_order_idx"),
            models.Index(fields=["system", "variant", "race", "-ranked", "-value", "coach"], name="current_race_order_idx"),
        ]


class CurrentSnapshot(models.Model):
    """The current ratings a run last wrote for a system, as compressed columns: the next run finds
    what changed by comparing arrays instead of reading every stored rating back. `rows` and
    `last_id` say which stored rows it describes; if they no longer match, it is ignored."""

    system = models.OneToOneField(RatingSystem, on_delete=models.CASCADE, primary_key=True, related_name="+")
    rows = models.PositiveIntegerField()
    last_id = models.BigIntegerField()
    columns = models.BinaryField()


class RatingList(models.Model):
    """A published list: the state of a system as of `date` (every period ended before it)."""

    system = models.ForeignKey(RatingSystem, on_delete=models.CASCADE, db_constraint=False, related_name="lists")
    date = models.DateField()
    provisional = models.BooleanField(default=False)
    rated = models.PositiveIntegerField(default=0, help_text="Keys with a rating on this list.")
    ranked = models.PositiveIntegerField(default=0)
    starters = models.PositiveIntegerField(default=0, help_text="Keys rated for the first time on this list.")
    complete = models.BooleanField(
        default=True,
        help_text="Every ranked key is stored (January lists and the last 13 months); otherwise only the month's movements.",
    )

    class Meta:
        ordering = ["system", "-date"]
        constraints = [models.UniqueConstraint(fields=["system", "date"], name="rating_list_once_per_date")]

    def __str__(self):
        return f"{self.system.name} list of {self.date:%Y-%m-%d}"


class RatingListEntry(RatingFields):
    """One key on a list: every ranked key, and every key that played since the previous list."""

    rating_list = models.ForeignKey(RatingList, **{**DERIVED, "related_name": "entries"})
    change = models.FloatField(null=True, blank=True, help_text="Value change since the previous list (none: starter).")
    games_counted = models.PositiveIntegerField(default=0, help_text="Games counted since the previous list.")
    games_played = models.PositiveIntegerField(default=0, help_text="Games played since the previous list.")

    class Meta:
        indexes = [
            models.Index(fields=["rating_list", "rank"], name="entry_list_rank_idx"),
            models.Index(fields=["coach", "race", "variant"], name="entry_key_idx"),
            models.Index(fields=["rating_list", "overall_rank", "-value", "coach"], name="entry_list_ranking_idx"),
            models.Index(fields=["rating_list", "change"], name="entry_list_change_idx"),
        ]


class Publication(models.Model):
    """A rating list as published: a record. No run, correction, merge or parameter change rewrites
    it; a list is published once, by the run that first makes it on or after its date. A deliberate
    republication is a later edition beside it."""

    system = models.ForeignKey(RatingSystem, on_delete=models.PROTECT, related_name="publications")
    date = models.DateField(help_text="The list's date (the 1st of its month).")
    edition = models.PositiveSmallIntegerField(default=1)
    published_at = models.DateTimeField()
    published_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.TextField(blank=True, help_text="Why it was published again (a later edition).")
    rated = models.PositiveIntegerField(default=0)
    ranked = models.PositiveIntegerField(default=0)
    starters = models.PositiveIntegerField(default=0)
    complete = models.BooleanField(default=True)
    newest_game = models.BigIntegerField(
        null=True, blank=True, editable=False,
        help_text="The id of the newest game on record when the list was computed: a game entered later, "
                  "whatever its report date (history loaded in bulk), was not in it. None: published before this was kept.",
    )
    digest = models.CharField(
        max_length=64, blank=True, editable=False,
        help_text="SHA-256 of the publication and its entries as published (services.publication.publication_digest): "
                  "verify_ratings recomputes it.",
    )

    class Meta:
        ordering = ["system", "-date", "-edition"]
        constraints = [models.UniqueConstraint(fields=["system", "date", "edition"], name="publication_once_per_edition")]

    def __str__(self):
        edition = f", edition {self.edition}" if self.edition > 1 else ""
        return f"{self.system.name} list of {self.date:%Y-%m-%d}{edition}, published {self.published_at:%Y-%m-%d %H:%M}"


class PublishedEntry(models.Model):
    """One key of a published list, as published: the coach, race and variant by their number, slug
    and name of the day, so that a later merge or renaming leaves the record as it was."""

    # No constraint and no index of its own: a first run publishes millions of entries, which the
    # deferred key checks held up at commit for seconds; both ranking indexes start with it.
    publication = models.ForeignKey(
        Publication, on_delete=models.CASCADE, related_name="entries", db_constraint=False, db_index=False,
    )
    coach_number = models.PositiveIntegerField()
    coach_name = models.CharField(max_length=200)
    nationality = models.CharField(max_length=2, blank=True)
    race_slug = models.CharField(max_length=100, blank=True)
    race_name = models.CharField(max_length=100, blank=True)
    variant_slug = models.CharField(max_length=100)
    variant_name = models.CharField(max_length=100)
    value = models.FloatField()
    mu = models.FloatField(null=True, blank=True)
    phi = models.FloatField(null=True, blank=True)
    sigma = models.FloatField(null=True, blank=True)
    nv = models.PositiveSmallIntegerField(null=True, blank=True)
    games = models.PositiveIntegerField(default=0)
    rank = models.PositiveIntegerField(null=True, blank=True)
    overall_rank = models.PositiveIntegerField(null=True, blank=True)
    change = models.FloatField(null=True, blank=True)
    games_counted = models.PositiveIntegerField(default=0)
    games_played = models.PositiveIntegerField(default=0)

    objects = RankingQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["publication", "overall_rank", "-value", "coach_number"], name="published_ranking_idx"),
            models.Index(fields=["publication", "variant_slug", "race_slug", "overall_rank"], name="published_filter_idx"),
            # a key's published figures month by month (rank over time): without it, every entry of
            # its group on every publication is read, millions for a system rated across races
            models.Index(fields=["coach_number", "variant_slug", "race_slug", "publication"], name="published_key_idx"),
        ]

    def __str__(self):
        return f"{self.coach_name} ({self.race_name or 'all races'}, {self.variant_name}): {self.value}"

    # what the ranking tables read of a list entry (coach, race, variant), from the names of the day
    @property
    def coach(self) -> SimpleNamespace:
        return SimpleNamespace(number=self.coach_number, public_name=self.coach_name, nationality=self.nationality)

    @property
    def race(self) -> SimpleNamespace | None:
        return SimpleNamespace(slug=self.race_slug, name=self.race_name) if self.race_slug else None

    @property
    def race_id(self) -> str | None:
        return self.race_slug or None

    @property
    def variant(self) -> SimpleNamespace:
        return SimpleNamespace(slug=self.variant_slug, name=self.variant_name)

    @property
    def is_active(self) -> bool:
        return self.rank is not None

class CalculationRow(models.Model):
    """One game seen from one side in one system: every column of the breakdown, stored at calculation time."""

    system = models.ForeignKey(RatingSystem, **DERIVED)
    game = models.ForeignKey(Game, **DERIVED)
    side = models.CharField(max_length=4)
    coach = models.ForeignKey(Coach, **DERIVED)
    race = models.ForeignKey(Race, null=True, blank=True, **DERIVED)
    variant = models.ForeignKey(Variant, **DERIVED)
    opponent = models.ForeignKey(Coach, null=True, blank=True, **DERIVED)
    opponent_race = models.ForeignKey(Race, null=True, blank=True, **DERIVED)
    played_at = models.DateTimeField()
    period = models.CharField(max_length=20)
    # The month start of the recalculation chunk that wrote it (a period closes after its games).
    chunk = models.DateField()
    w = models.FloatField()
    counted = models.BooleanField()
    reason = models.CharField(max_length=24, blank=True)
    r0 = models.FloatField(null=True)
    rc = models.FloatField(null=True)
    we = models.FloatField(null=True)
    k = models.FloatField(null=True)
    rt = models.FloatField(null=True)
    wx = models.FloatField(null=True)
    list_date = models.DateField(null=True)
    depot_date = models.DateField(null=True)
    opponent_phi = models.FloatField(null=True)
    g = models.FloatField(null=True)

    class Meta:
        indexes = [
            models.Index(fields=["game"], name="calc_row_game_idx"),
            ChunkIndex(fields=["chunk"], name="calc_row_chunk_idx"),
            # the breakdown page: one period of a coach, and the periods none of whose games counted
            models.Index(fields=["coach", "period"], name="calc_row_period_idx"),
            models.Index(fields=["coach"], condition=Q(counted=False), name="calc_row_uncounted_idx"),
        ]


class PeriodSummary(models.Model):
    """The new-rating block for one key after one event or period (Rl, Rn, LPR, Rct, Wt, Nt, ...)."""

    system = models.ForeignKey(RatingSystem, **DERIVED)
    coach = models.ForeignKey(Coach, **DERIVED)
    race = models.ForeignKey(Race, null=True, blank=True, **DERIVED)
    variant = models.ForeignKey(Variant, **DERIVED)
    period = models.CharField(max_length=20)
    effective = models.DateField()
    # The month start of the recalculation chunk that wrote it: a rerun from a checkpoint replaces these.
    chunk = models.DateField()
    rl = models.FloatField(null=True)
    rn = models.FloatField()
    nt = models.PositiveIntegerField(default=0)
    games_played = models.PositiveIntegerField(default=0)
    wt = models.FloatField(default=0)
    wet = models.FloatField(default=0)
    rtt = models.FloatField(default=0)
    rct = models.FloatField(null=True)
    wxt = models.FloatField(null=True)
    lpr = models.FloatField(null=True)
    limitation = models.CharField(max_length=5, default="none")
    nv = models.PositiveSmallIntegerField(null=True)
    mu = models.FloatField(null=True)
    phi = models.FloatField(null=True)
    sigma = models.FloatField(null=True)
    mu_before = models.FloatField(null=True)
    phi_before = models.FloatField(null=True)
    sigma_before = models.FloatField(null=True)
    is_start = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(fields=["coach", "effective"], name="summary_coach_idx"),
            ChunkIndex(fields=["chunk"], name="summary_chunk_idx"),
            models.Index(fields=["period"], name="summary_period_idx"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(limitation__in=["none", "lpr", "rl"]), name="summary_limitation_known"),
        ]


class SearchedParameter(models.TextChoices):
    K_SCALE = "k_scale", "K scale"
    TAU = "tau", "τ"
    SIGMA = "sigma", "σ"


class ParameterSearch(models.Model):
    """One system's parameter search (manage.py tune_methods): the grid's log losses over a tuning
    window and a later evaluation window, and the best value found there. A record of figures: the
    configured system is never changed by it."""

    system = models.ForeignKey(RatingSystem, on_delete=models.CASCADE, related_name="parameter_searches")
    parameter = models.CharField(max_length=20, choices=SearchedParameter.choices, help_text="The engine's parameter searched.")
    configured = models.FloatField(help_text="Its configured value when the search ran.")
    best = models.FloatField(help_text="The value of the grid with the lowest log loss in the tuning window.")
    tuning_from = models.DateField(help_text="The first day of play scored in the tuning window.")
    tuning_to = models.DateField(help_text="The last day of the tuning window (the day before the split).")
    tuning_games = models.PositiveIntegerField()
    evaluation_from = models.DateField(help_text="The split: the first day of the evaluation window.")
    evaluation_to = models.DateField(help_text="The record's last day of play.")
    evaluation_games = models.PositiveIntegerField()
    grid = models.JSONField(help_text='[{"value": v, "tuning": log loss, "evaluation": log loss}, ...] by value.')
    seconds = models.FloatField(help_text="How long the search took.")
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["system", "-computed_at", "-id"]
        indexes = [models.Index(fields=["system", "-computed_at"], name="parameter_search_latest_idx")]

    def point(self, value: float) -> dict:
        """The grid's point at `value`: its log loss in each window."""
        return next(point for point in self.grid if point["value"] == value)

    @property
    def configured_point(self) -> dict:
        return self.point(self.configured)

    @property
    def best_point(self) -> dict:
        return self.point(self.best)

    @property
    def at_edge(self) -> bool:
        """Whether the best value is the grid's lowest or highest: one beyond it may do better still."""
        return self.best in (self.grid[0]["value"], self.grid[-1]["value"])

    @property
    def places(self) -> int:
        """Decimals its values are shown to: σ is some hundreds, the others near 1."""
        return 1 if self.parameter == SearchedParameter.SIGMA else 2


class AccuracyReport(models.Model):
    """How well a rating system's stored predictions matched the results over every counted game
    (assurance.accuracy.report), refreshed after each run of the system so its page is a read."""

    system = models.OneToOneField(RatingSystem, on_delete=models.CASCADE, primary_key=True, related_name="accuracy")
    computed_at = models.DateTimeField()
    run = models.ForeignKey(RecalculationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    figures = models.JSONField()

    def __str__(self):
        return f"Accuracy of {self.system.name} ({self.computed_at:%Y-%m-%d})"


class AccuracyRefreshRequest(models.Model):
    """A system whose accuracy report a successful run left owed a refresh: the outbox of the refresh
    messages. A refresh takes away the requests of its systems it saw when it began; one whose
    message a broker outage kept back (`enqueued_at` unset) is sent by the dispatcher."""

    system = models.ForeignKey(RatingSystem, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"accuracy refresh of system {self.system_id} owed since {self.created_at:%Y-%m-%d %H:%M:%S}"
