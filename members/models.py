"""The members' own records: their claims on coach records, the claim codes' secrets, whom they
follow, their preferences and the notices recorded for them. A claimed coach's account is
`tournaments.Coach.user`; a Claim is the history behind it (how, by whom, released, restored)."""
import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _


class ClaimMethod(models.TextChoices):
    CODE = "code", _("claim code")
    REQUEST = "request", _("asked of staff")
    LINK = "link", _("linked by staff")


class ClaimStatus(models.TextChoices):
    PENDING = "pending", _("waiting for staff")
    ACTIVE = "active", _("claimed")
    REFUSED = "refused", _("refused")
    RELEASED = "released", _("released by staff")


class Claim(models.Model):
    """A member's claim on a coach record: asked of staff (pending, then active or refused), made at
    once with a claim code (active), released by staff and maybe restored (active again)."""

    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="coach_claims")
    coach = models.ForeignKey("tournaments.Coach", on_delete=models.CASCADE, related_name="claims")
    method = models.CharField(max_length=10, choices=ClaimMethod.choices)
    status = models.CharField(max_length=10, choices=ClaimStatus.choices, db_index=True)
    note = models.TextField(blank=True, help_text="What the member told staff (a request).")
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.TextField(blank=True, help_text="Why staff refused or released it.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["coach"], condition=Q(status="active"), name="claim_one_member_per_coach"),
            models.UniqueConstraint(fields=["member"], condition=Q(status="active"), name="claim_one_coach_per_member"),
            models.UniqueConstraint(fields=["member", "coach"], condition=Q(status="pending"), name="claim_asked_once"),
        ]

    def __str__(self):
        return f"claim of {self.coach_id} by {self.member_id} ({self.status})"


class ClaimSecret(models.Model):
    """The random secret a coach's claim code is derived from (members.codes): the code itself is
    stored nowhere. A new secret (after a claim or a release) makes every printed code void."""

    coach = models.OneToOneField("tournaments.Coach", on_delete=models.CASCADE, related_name="claim_secret")
    secret = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"claim secret of coach {self.coach_id}"


class Follow(models.Model):
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows")
    coach = models.ForeignKey("tournaments.Coach", on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["coach__name"]
        constraints = [models.UniqueConstraint(fields=["member", "coach"], name="follow_once")]

    def __str__(self):
        return f"{self.member_id} follows {self.coach_id}"


def new_feed_token() -> str:
    return secrets.token_urlsafe(24)


class Preferences(models.Model):
    """What a member wants to hear of: notices by e-mail or not, for which rating systems (none
    chosen: every system), the secret of his private feed's address, and the language the site's
    e-mails to him are written in (the one he signed up in, until he chooses another)."""

    member = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="member_preferences")
    email_notices = models.BooleanField(default=False)
    language = models.CharField(
        max_length=10, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE,
        help_text="The language of the e-mails the site sends the member: notices, confirmations, password resets.",
    )
    systems = models.ManyToManyField("ratings.RatingSystem", blank=True, related_name="+")
    feed_token = models.CharField(max_length=64, unique=True, default=new_feed_token)

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self):
        return f"preferences of {self.member_id}"


class NoticeKind(models.TextChoices):
    OWN_RATING = "own", _("your rating changed")
    FOLLOWED_RATING = "followed", _("a followed coach's rating changed")
    LIST_PUBLISHED = "list", _("a rating list was published")


class Notice(models.Model):
    """Something a member is told of: recorded once, shown on his page and in his feed, mailed if he
    wants. What it is about is stored (kind, system, coach, before and after, params); its words are
    written when it is read, in the reader's language (members.wording)."""

    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=10, choices=NoticeKind.choices)
    system = models.ForeignKey("ratings.RatingSystem", null=True, on_delete=models.CASCADE, related_name="+")
    coach = models.ForeignKey("tournaments.Coach", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    run_id = models.BigIntegerField(null=True, blank=True, help_text="The recalculation run that caused it.")
    params = models.JSONField(
        default=dict, blank=True,
        help_text="What the words need besides the columns: race and variant of a rating, date and coaches rated of a list.",
    )
    fallback_title = models.CharField(
        max_length=300, blank=True,
        help_text="The English title a notice recorded before notices were worded when read: shown when its params are empty.",
    )
    path = models.CharField(max_length=300, help_text="The page it points to, from the site's root.")
    before = models.FloatField(null=True, blank=True)
    after = models.FloatField(null=True, blank=True)
    email_wanted = models.BooleanField(default=False, help_text="Its member wanted it mailed when it was recorded.")
    emailed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["member", "-created_at"], name="notice_member_newest_idx")]

    def __str__(self):
        return self.title

    @property
    def title(self) -> str:
        """Its title in the active language."""
        from members.wording import notice_title

        return notice_title(self)

    @title.setter
    def title(self, value: str) -> None:
        self.fallback_title = value

    @property
    def text(self) -> str:
        """Its text (a feed entry's summary) in the active language."""
        from members.wording import notice_text

        return notice_text(self)

    @property
    def href(self) -> str:
        """The page it points to, in the active language (its Dutch address under /nl/)."""
        from ratingsite.languages import in_language

        return in_language(self.path, translation.get_language() or settings.LANGUAGE_CODE)


class NoticeRun(models.Model):
    """A committed run the members are owed the notices of: the outbox of members.tasks.notices_for_run.
    Recorded when the run commits (`enqueued_at` once its message went out); `noticed_at` once its
    notices are recorded (once: the unique run), `mailed_at` once every e-mail they owe went out. A
    mail server that fails leaves `mailed_at` unset and the error here, and the dispatcher sends the
    task again (`mail_attempts` counts the tries, up to MAIL_ATTEMPTS)."""

    run_id = models.BigIntegerField(unique=True, help_text="The recalculation run (ratings.RecalculationRun).")
    system_id = models.BigIntegerField()
    published = models.JSONField(default=list, blank=True, help_text="The ids of the publications the run made, oldest first.")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    noticed_at = models.DateTimeField(null=True, blank=True)
    mailed_at = models.DateTimeField(null=True, blank=True)
    mail_attempts = models.PositiveSmallIntegerField(default=0)
    mail_error = models.TextField(blank=True)

    def __str__(self):
        return f"notices of run {self.run_id}"


class SeenRating(models.Model):
    """The last current rating of a watched coach's key the notices compared with: a run that leaves
    it as it was tells nobody anything."""

    system = models.ForeignKey("ratings.RatingSystem", on_delete=models.CASCADE, related_name="+")
    coach = models.ForeignKey("tournaments.Coach", on_delete=models.CASCADE, related_name="+")
    race_key = models.BigIntegerField(default=0, help_text="The race's id; 0 for a pooled rating (all races).")
    variant_id = models.BigIntegerField()
    value = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["system", "coach", "race_key", "variant_id"], name="seen_rating_once_per_key"),
        ]

    def __str__(self):
        return f"{self.system_id}/{self.coach_id}/{self.race_key}/{self.variant_id}: {self.value}"
