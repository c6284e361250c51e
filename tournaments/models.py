"""The federation's record: coaches, races, variants, events, rounds, games and awards.

Rules that must never be broken live in database constraints, not only in forms.
"""
import datetime as dt
import re
import unicodedata

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _
from django_countries.fields import CountryField

from .rules import play_date_error


@deconstructible
class PlayDateValidator:
    """Refuses a date (or time) of play outside the record's window, as of today (rules.play_date_error).

    The window moves with the clock, so it is a validator, not a database constraint."""

    code = "implausible_date"

    def __call__(self, value):
        day = value.astimezone(dt.UTC).date() if isinstance(value, dt.datetime) and value.tzinfo else value
        day = day.date() if isinstance(day, dt.datetime) else day
        if problem := play_date_error(day, today=timezone.localdate(), translate=gettext):
            raise ValidationError(problem, code=self.code)

    def __eq__(self, other):
        return isinstance(other, PlayDateValidator)


class Race(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    ranked = models.BooleanField(default=False, help_text="One of the federation's ranked races.")
    stunty = models.BooleanField(default=False)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Variant(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


# Letters NFKD leaves whole (no base letter plus accent), as a search types them.
_UNDECOMPOSED = str.maketrans({
    "ø": "o", "đ": "d", "ð": "d", "ł": "l", "ß": "ss", "æ": "ae", "œ": "oe", "þ": "th", "ı": "i", "ħ": "h",
    "ŧ": "t", "ŋ": "n", "ĸ": "k", "ə": "e",
})
_APOSTROPHES = str.maketrans("", "", "'’‘ʼ`´")
SEARCH_NAME_LENGTH = 400  # a key can be longer than its name (ß gives ss)


# What people type for ü, ö, ä, ø, æ and å (ue, oe, ae, aa), folded to the plain vowel: with the
# accent dropped too, "Müller", "Mueller" and "Muller" all give "muller".
_TRANSLITERATIONS = re.compile(r"([aou])e|(a)a")


def search_key(text: str) -> str:
    """A name as searches compare it, the same on every database: casefolded, accents dropped (NFKD
    and the letters that do not decompose), the transliterations of umlauts and the like folded (ue,
    oe, ae, aa to u, o, a, a), apostrophes removed, other punctuation a space, words separated by one
    space. "Tóth" and "toth" give "toth", "Černý" "cerny", "Müller" and "Mueller" "muller", "Åse" and
    "Aase" "ase", "O'Brien" "obrien"."""
    folded = unicodedata.normalize("NFKD", text.translate(_APOSTROPHES).casefold())
    plain = "".join(c for c in folded if unicodedata.category(c) != "Mn").translate(_UNDECOMPOSED)
    words = "".join(c if c.isalnum() else " " for c in plain).split()
    return " ".join(_TRANSLITERATIONS.sub(lambda m: m.group(1) or m.group(2), word) for word in words)


class Visibility(models.TextChoices):
    """What the public pages show of a coach (the staff pages always show the name)."""

    PUBLIC = "public", _("Name shown")
    PSEUDONYM = "pseudonym", _("Pseudonym shown")
    HIDDEN = "hidden", _("Hidden: an anonymous label shown")


ANONYMOUS_LABEL = "Anonymous coach"


def coach_label(pk: int) -> str:
    """The stable anonymous label of coach `pk` ("Anonymous coach 7F3A9C"): a keyed hash (HMAC with
    COACH_LABEL_KEY, else SECRET_KEY) of its id, which no one without the key can trace back to the coach."""
    code = salted_hmac("tournaments.coach_label", str(pk), secret=settings.COACH_LABEL_KEY or None).hexdigest()
    return f"{ANONYMOUS_LABEL} {code[:6].upper()}"


_KEPT_FIELDS = ("name", "visibility", "pseudonym")
_DERIVED_FIELDS = ("search_name", "public_name", "public_search_name")


class CoachQuerySet(models.QuerySet):
    """Writes in bulk keep `search_name` and the public name in step with `name`, as Coach.save() does."""

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for coach in objs:
            coach.derive_names()
        return super().bulk_create(objs, *args, **kwargs)

    def bulk_update(self, objs, fields, *args, **kwargs):
        objs = list(objs)
        if set(fields) & set(_KEPT_FIELDS):
            fields = [*fields, *_DERIVED_FIELDS]
            for coach in objs:
                coach.derive_names()
        return super().bulk_update(objs, fields, *args, **kwargs)

    def update(self, **kwargs):
        if isinstance(kwargs.get("name"), str):
            kwargs["search_name"] = search_key(kwargs["name"])[:SEARCH_NAME_LENGTH]
            # the public name follows the name only where the name is what the public sees
            public = Q(visibility=Visibility.PUBLIC)
            kwargs["public_name"] = Case(When(public, then=Value(kwargs["name"])), default=F("public_name"))
            kwargs["public_search_name"] = Case(When(public, then=Value(kwargs["search_name"])), default=F("public_search_name"))
        return super().update(**kwargs)


class Coach(models.Model):
    number = models.PositiveIntegerField(unique=True, help_text="Federation number.")
    name = models.CharField(max_length=200, db_index=True)
    search_name = models.CharField(
        max_length=SEARCH_NAME_LENGTH, blank=True, editable=False, db_index=True, db_default="",
        help_text="The name as searches compare it (search_key), kept by save() and the bulk writes.",
    )
    nationality = CountryField(blank=True, db_index=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="coach"
    )
    member_since = models.DateField(null=True, blank=True)
    member_until = models.DateField(null=True, blank=True)
    birth_year = models.PositiveSmallIntegerField(null=True, blank=True)
    # privacy (tournaments.privacy): what the public sees of the coach, and the erasure asked for
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC, db_default=Visibility.PUBLIC)
    pseudonym = models.CharField(max_length=100, blank=True, db_default="")
    public_name = models.CharField(
        max_length=200, blank=True, editable=False, db_index=True, db_default="",
        help_text="The name every public page, export and search shows (the name, the pseudonym or the anonymous label), kept by save().",
    )
    public_search_name = models.CharField(
        max_length=SEARCH_NAME_LENGTH, blank=True, editable=False, db_index=True, db_default="",
        help_text="The public name as searches compare it: the public search finds a coach by it only.",
    )
    erasure_requested_at = models.DateTimeField(null=True, blank=True)
    erased_at = models.DateTimeField(null=True, blank=True)

    objects = CoachQuerySet.as_manager()

    class Meta:
        ordering = ["number"]
        verbose_name_plural = "coaches"
        constraints = [
            models.CheckConstraint(
                condition=Q(member_until__isnull=True)
                | Q(member_since__isnull=True)
                | Q(member_until__gte=F("member_since")),
                name="coach_membership_ends_after_it_starts",
            ),
            models.CheckConstraint(
                condition=Q(birth_year__isnull=True) | Q(birth_year__gte=1900, birth_year__lte=2100),
                name="coach_birth_year_plausible",
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.number})"

    def save(self, *args, **kwargs):
        if self.pk is None and self.visibility != Visibility.PUBLIC:
            super().save(*args, **kwargs)  # the anonymous label needs the id
            kwargs = {**kwargs, "force_insert": False, "update_fields": {*_KEPT_FIELDS}}
        self.derive_names()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and set(update_fields) & set(_KEPT_FIELDS):
            kwargs["update_fields"] = {*update_fields, *_DERIVED_FIELDS}
        super().save(*args, **kwargs)

    def name_key(self) -> str:
        return search_key(self.name)[:SEARCH_NAME_LENGTH]

    @property
    def label(self) -> str:
        return coach_label(self.pk)

    @property
    def public_details_shown(self) -> bool:
        """Whether the public pages may show more of the coach than his public name (his nationality,
        his membership): not for a hidden or erased coach, whom only the anonymous label stands for."""
        return self.visibility != Visibility.HIDDEN and self.erased_at is None

    def public_name_now(self) -> str:
        """The one display rule: the name, the pseudonym, or the anonymous label (hidden or erased)."""
        if self.visibility == Visibility.PSEUDONYM and self.pseudonym.strip():
            return self.pseudonym.strip()
        if self.visibility == Visibility.PUBLIC and self.erased_at is None:
            return self.name
        return self.label

    def derive_names(self) -> None:
        """Keep the search key and the public name (and its key) in step with the name and the choice."""
        self.search_name = self.name_key()
        self.public_name = self.public_name_now()
        self.public_search_name = search_key(self.public_name)[:SEARCH_NAME_LENGTH]


class EventStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    SUBMITTED = "submitted", _("Submitted")
    SANCTIONED = "sanctioned", _("Sanctioned")
    REJECTED = "rejected", _("Rejected")
    # recorded play that is no sanctioned event (the real data's open-play months): public, never rated
    OPEN_PLAY = "open_play", _("Open play (unsanctioned)")


# What the public sees: sanctioned events and open play. Drafts, submitted and rejected events are
# their organiser's and the staff's alone, on every page, export and count.
PUBLIC_STATUSES = (EventStatus.SANCTIONED, EventStatus.OPEN_PLAY)


def public_q(prefix: str = "") -> Q:
    """The public events, as a condition on a model reaching Event through `prefix` ("event__" from a game)."""
    return Q(**{f"{prefix}status__in": PUBLIC_STATUSES})


class EventQuerySet(models.QuerySet):
    def public(self) -> "EventQuerySet":
        return self.filter(public_q())


class Event(models.Model):
    name = models.CharField(max_length=200)
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="events")
    start_date = models.DateField(db_index=True, validators=[PlayDateValidator()])
    end_date = models.DateField(validators=[PlayDateValidator()])
    country = CountryField(blank=True, db_index=True)
    city = models.CharField(max_length=100, blank=True)
    latitude = models.DecimalField(max_digits=8, decimal_places=5, null=True, blank=True)
    longitude = models.DecimalField(max_digits=8, decimal_places=5, null=True, blank=True)
    is_major = models.BooleanField("major", default=False)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="organised_events"
    )
    status = models.CharField(max_length=12, choices=EventStatus.choices, default=EventStatus.DRAFT, db_index=True)
    # Where an imported event came from (e.g. "fumbbl-tournament:51427"), so a re-import finds it.
    source = models.CharField(max_length=100, null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["-start_date", "name"]
        constraints = [
            models.CheckConstraint(condition=Q(end_date__gte=F("start_date")), name="event_ends_after_it_starts"),
            models.CheckConstraint(
                condition=Q(latitude__isnull=True) | Q(latitude__gte=-90, latitude__lte=90),
                name="event_latitude_in_range",
            ),
            models.CheckConstraint(
                condition=Q(longitude__isnull=True) | Q(longitude__gte=-180, longitude__lte=180),
                name="event_longitude_in_range",
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.start_date:%Y-%m-%d})"

    @property
    def is_sanctioned(self) -> bool:
        return self.status == EventStatus.SANCTIONED

    @property
    def is_public(self) -> bool:
        return self.status in PUBLIC_STATUSES


class Participant(models.Model):
    """A coach registered at an event with the race he brings."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="participants")
    coach = models.ForeignKey(Coach, on_delete=models.PROTECT, related_name="participations")
    race = models.ForeignKey(Race, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["event", "coach__number"]
        constraints = [models.UniqueConstraint(fields=["event", "coach"], name="participant_once_per_event")]

    def __str__(self):
        return f"{self.coach} with {self.race} at {self.event}"


class Round(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    date = models.DateField(validators=[PlayDateValidator()])
    start_time = models.TimeField(null=True, blank=True)

    class Meta:
        ordering = ["event", "number"]
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="round_number_unique_in_event"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
        ]

    def __str__(self):
        return f"{self.event.name}, round {self.number}"


class GameKind(models.TextChoices):
    PLAYED = "played", _("Played")
    FORFEIT = "forfeit", _("Forfeit")
    BYE = "bye", _("Bye")


class Side(models.TextChoices):
    HOME = "home", pgettext_lazy("side", "Home")
    AWAY = "away", _("Away")


class Game(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="games")
    # Kept equal to round.event by the services: lets statistics filter games without a join.
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="games")
    home_coach = models.ForeignKey(Coach, on_delete=models.PROTECT, related_name="home_games")
    home_race = models.ForeignKey(Race, on_delete=models.PROTECT, related_name="+")
    away_coach = models.ForeignKey(Coach, null=True, blank=True, on_delete=models.PROTECT, related_name="away_games")
    away_race = models.ForeignKey(Race, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    home_touchdowns = models.PositiveSmallIntegerField(default=0)
    away_touchdowns = models.PositiveSmallIntegerField(default=0)
    home_casualties = models.PositiveSmallIntegerField(default=0)
    away_casualties = models.PositiveSmallIntegerField(default=0)
    conceded_by = models.CharField(max_length=4, choices=Side.choices, null=True, blank=True)
    kind = models.CharField(max_length=8, choices=GameKind.choices, default=GameKind.PLAYED)
    played_at = models.DateTimeField(
        db_index=True, validators=[PlayDateValidator()], help_text="Time of play: orders games for the ratings.",
    )
    source = models.CharField(max_length=100, null=True, blank=True, unique=True)
    reported_on = models.DateField(
        null=True, blank=True,
        help_text="When the result entered the record: its event's sanction, or the correction applied to it "
                  "(history loaded in bulk: its event's end). None while its event is not sanctioned.",
    )

    class Meta:
        ordering = ["played_at", "id"]
        indexes = [
            models.Index(fields=["event", "played_at"], name="game_event_played_idx"),
            # a replay from a checkpoint also takes the games reported since (played earlier): without it
            # each of its reads scanned every game
            models.Index(fields=["reported_on"], name="game_reported_idx"),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(home_coach=F("away_coach")), name="game_coach_not_against_himself"),
            models.CheckConstraint(
                condition=Q(home_touchdowns__gte=0, away_touchdowns__gte=0, home_casualties__gte=0, away_casualties__gte=0)
                & Q(home_touchdowns__lte=99, away_touchdowns__lte=99, home_casualties__lte=99, away_casualties__lte=99),
                name="game_scores_non_negative_and_sane",
            ),
            models.CheckConstraint(
                condition=(Q(kind=GameKind.BYE) & Q(away_coach__isnull=True) & Q(away_race__isnull=True))
                | (~Q(kind=GameKind.BYE) & Q(away_coach__isnull=False) & Q(away_race__isnull=False)),
                name="game_bye_has_no_opponent",
            ),
        ]

    def __str__(self):
        away = self.away_coach.name if self.away_coach_id else "bye"
        return f"{self.home_coach.name} {self.home_touchdowns}-{self.away_touchdowns} {away}"

    @staticmethod
    def reported_in_bulk(event) -> dt.date | None:
        """The report date of a game loaded with its history: its event's end, if it is sanctioned."""
        return event.end_date if event.status == EventStatus.SANCTIONED else None

    @property
    def home_score(self) -> float:
        """W of the home coach from touchdowns: 1 win, 0.5 draw, 0 loss."""
        if self.home_touchdowns > self.away_touchdowns:
            return 1.0
        if self.home_touchdowns < self.away_touchdowns:
            return 0.0
        return 0.5


class GameCorrection(models.Model):
    """A correction applied to a game of a sanctioned event: the result it replaced, and since when
    that result was in the record. A KNSB list already out keeps the old result: the next list
    takes it back and rates the new one."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="corrections")
    corrected_on = models.DateField(help_text="When the corrected result entered the record.")
    home_touchdowns = models.PositiveSmallIntegerField()
    away_touchdowns = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=8, choices=GameKind.choices)
    reported_on = models.DateField(null=True, blank=True, help_text="When the replaced result had entered the record.")

    class Meta:
        ordering = ["game", "id"]

    def __str__(self):
        return f"game {self.game_id} corrected on {self.corrected_on}"


class GameSide(models.Model):
    """One coach's seat in one game: lets the database refuse a coach twice in a round, and
    lets statistics count per coach and race without unions."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="sides")
    side = models.CharField(max_length=4, choices=Side.choices)
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
    coach = models.ForeignKey(Coach, on_delete=models.PROTECT, related_name="game_sides")
    race = models.ForeignKey(Race, on_delete=models.PROTECT, related_name="+")
    opponent = models.ForeignKey(Coach, null=True, on_delete=models.PROTECT, related_name="+")
    opponent_race = models.ForeignKey(Race, null=True, on_delete=models.PROTECT, related_name="+")
    touchdowns_for = models.PositiveSmallIntegerField()
    touchdowns_against = models.PositiveSmallIntegerField()
    casualties_for = models.PositiveSmallIntegerField(default=0)
    casualties_against = models.PositiveSmallIntegerField(default=0)
    score = models.DecimalField(max_digits=2, decimal_places=1, help_text="W: 1, 0.5 or 0.")
    played_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "coach"], name="coach_once_per_round"),
            models.UniqueConstraint(fields=["game", "side"], name="game_side_unique"),
        ]
        indexes = [
            # a coach page's records read from the index alone (PostgreSQL; elsewhere a plain index)
            models.Index(
                fields=["coach", "race"], name="gameside_coach_race_idx",
                include=["id", "event", "score", "opponent", "touchdowns_for", "touchdowns_against", "casualties_for",
                         "casualties_against"],
            ),
            models.Index(fields=["race", "opponent_race"], name="gameside_race_opp_idx"),
            models.Index(fields=["event", "coach"], name="gameside_event_coach_idx"),
        ]

    def __str__(self):
        return f"{self.coach_id} in game {self.game_id} ({self.side})"


class Award(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="awards")
    category = models.CharField(max_length=100)
    coach = models.ForeignKey(Coach, on_delete=models.PROTECT, related_name="awards")
    race = models.ForeignKey(Race, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["event", "category"]
        constraints = [
            models.UniqueConstraint(fields=["event", "category", "coach"], name="award_once_per_coach_and_category"),
        ]

    def __str__(self):
        return f"{self.category}: {self.coach} at {self.event}"



class ResultsUpload(models.Model):
    """A results file checked but not confirmed yet, one per event and uploader: kept here rather than
    in the session (a session travels with every request), re-read for each page of its preview and
    for the confirmation, and deleted when the results are saved."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=200)
    digest = models.CharField(max_length=64, help_text="SHA-256 of the file: ties a confirmation to what was previewed.")
    data = models.BinaryField()
    uploaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["event", "uploaded_by"], name="results_upload_once_per_uploader")]

    def __str__(self):
        return f"{self.name} for {self.event_id} by {self.uploaded_by_id}"


class CoachErasure(models.Model):
    """The erasure log: which coach was erased and when, nothing personal, so that the erasures can be
    applied again after a backup taken before them is restored (manage.py replay_erasures)."""

    coach_id = models.PositiveBigIntegerField(unique=True, help_text="The erased coach's id (no key: the log outlives a restore).")
    erased_on = models.DateField()

    class Meta:
        ordering = ["erased_on", "coach_id"]

    def __str__(self):
        return f"coach {self.coach_id} erased on {self.erased_on:%Y-%m-%d}"
