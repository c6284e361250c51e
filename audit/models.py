"""The audit trail: who changed what, when, from what to what. Written by the services, never by views."""
from django.conf import settings
from django.db import models


class Action(models.TextChoices):
    """Every change a person makes through a service."""

    EVENT_CREATE = "event.create", "event entered"
    EVENT_UPDATE = "event.update", "event changed"
    EVENT_UPLOAD = "event.upload", "event uploaded"
    EVENT_SUBMIT = "event.submit", "event submitted"
    EVENT_SANCTION = "event.sanction", "event sanctioned"
    EVENT_SANCTION_DUPLICATE = "event.sanction_duplicate", "likely duplicate sanctioned"
    EVENT_REJECT = "event.reject", "event rejected"
    GAME_CORRECT = "game.correct", "game corrected"
    COACH_CREATE = "coach.create", "coach added"
    COACH_MERGE = "coach.merge", "coaches merged"
    COACH_PRIVACY = "coach.privacy", "coach's public name chosen"
    COACH_ERASURE_REQUEST = "coach.erasure_request", "coach's erasure asked for"
    COACH_ERASURE_CANCEL = "coach.erasure_cancel", "coach's erasure cancelled"
    COACH_ERASE = "coach.erase", "coach erased"
    COACH_EXPORT = "coach.export", "coach's data exported"
    USER_LINK_COACH = "user.link_coach", "account linked to a coach"
    USER_UNLOCK = "user.unlock", "account's login lock lifted"
    RATING_SYSTEM_UPDATE = "rating_system.update", "rating system changed"
    RUN_RERUN = "run.rerun", "run queued again"
    RUN_CANCEL = "run.cancel", "queued run cancelled"
    LIST_REPUBLISH = "list.republish", "rating list published again"
    MEMBER_SIGN_UP = "member.sign_up", "member signed up"
    MEMBER_CONFIRM = "member.confirm", "member's e-mail address confirmed"
    MEMBER_FEED_RESET = "member.feed_reset", "member's feed address renewed"
    MEMBER_PREFERENCES = "member.preferences", "member's notice preferences changed"
    COACH_FOLLOW = "coach.follow", "coach followed"
    COACH_UNFOLLOW = "coach.unfollow", "coach no longer followed"
    COACH_CLAIM = "coach.claim", "coach claimed with a code"
    CLAIM_REQUEST = "claim.request", "coach claim asked of staff"
    CLAIM_APPROVE = "claim.approve", "coach claim approved"
    CLAIM_REFUSE = "claim.refuse", "coach claim refused"
    CLAIM_RELEASE = "claim.release", "coach claim released"
    CLAIM_RESTORE = "claim.restore", "released coach claim restored"


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
