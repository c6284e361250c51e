"""The audit trail: who changed what, when, from what to what. Written by the services, never by views."""
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Action(models.TextChoices):
    """Every change a person makes through a service."""

    EVENT_CREATE = "event.create", _("event entered")
    EVENT_UPDATE = "event.update", _("event changed")
    EVENT_UPLOAD = "event.upload", _("event uploaded")
    EVENT_SUBMIT = "event.submit", _("event submitted")
    EVENT_SANCTION = "event.sanction", _("event sanctioned")
    EVENT_SANCTION_DUPLICATE = "event.sanction_duplicate", _("likely duplicate sanctioned")
    EVENT_REJECT = "event.reject", _("event rejected")
    GAME_CORRECT = "game.correct", _("game corrected")
    COACH_CREATE = "coach.create", _("coach added")
    COACH_MERGE = "coach.merge", _("coaches merged")
    COACH_PRIVACY = "coach.privacy", _("coach's public name chosen")
    COACH_ERASURE_REQUEST = "coach.erasure_request", _("coach's erasure asked for")
    COACH_ERASURE_CANCEL = "coach.erasure_cancel", _("coach's erasure cancelled")
    COACH_ERASE = "coach.erase", _("coach erased")
    COACH_EXPORT = "coach.export", _("coach's data exported")
    USER_LINK_COACH = "user.link_coach", _("account linked to a coach")
    USER_UNLOCK = "user.unlock", _("account's login lock lifted")
    RATING_SYSTEM_UPDATE = "rating_system.update", _("rating system changed")
    RUN_RERUN = "run.rerun", _("run queued again")
    RUN_CANCEL = "run.cancel", _("queued run cancelled")
    LIST_REPUBLISH = "list.republish", _("rating list published again")
    MEMBER_SIGN_UP = "member.sign_up", _("member signed up")
    MEMBER_CONFIRM = "member.confirm", _("member's e-mail address confirmed")
    MEMBER_FEED_RESET = "member.feed_reset", _("member's feed address renewed")
    MEMBER_PREFERENCES = "member.preferences", _("member's notice preferences changed")
    COACH_FOLLOW = "coach.follow", _("coach followed")
    COACH_UNFOLLOW = "coach.unfollow", _("coach no longer followed")
    COACH_CLAIM = "coach.claim", _("coach claimed with a code")
    CLAIM_REQUEST = "claim.request", _("coach claim asked of staff")
    CLAIM_APPROVE = "claim.approve", _("coach claim approved")
    CLAIM_REFUSE = "claim.refuse", _("coach claim refused")
    CLAIM_RELEASE = "claim.release", _("coach claim released")
    CLAIM_RESTORE = "claim.restore", _("released coach claim restored")


# what changed, by its model's label: the typed link each kind of subject fills
SUBJECT_LINKS = {
    "tournaments.event": "event",
    "tournaments.game": "game",
    "tournaments.coach": "coach",
    "ratings.ratingsystem": "rating_system",
    "ratings.recalculationrun": "run",
    settings.AUTH_USER_MODEL.lower(): "member",
}


def _link(to: str):
    # the record outlives what it names: a deleted game or a merged coach leaves the label
    return models.ForeignKey(to, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_constraint=False)


class AuditRecord(models.Model):
    """One change: its typed link to what changed (event, game, coach, rating system, run or
    account) beside a readable label, and the fields before and after."""

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=50, choices=Action.choices, db_index=True)
    event = _link("tournaments.Event")
    game = _link("tournaments.Game")
    coach = _link("tournaments.Coach")
    rating_system = _link("ratings.RatingSystem")
    run = _link("ratings.RecalculationRun")
    member = _link(settings.AUTH_USER_MODEL)
    object_type = models.CharField(max_length=50, db_index=True)
    object_id = models.CharField(max_length=50, db_index=True)
    object_repr = models.CharField(max_length=300)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    note = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        db_table = "tournaments_auditrecord"  # moved from the record's app with its rows
        ordering = ["-at", "-id"]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.object_repr}"
