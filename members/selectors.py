"""The members' reads: a member's page, his feed, the staff's queue of claims."""
from __future__ import annotations

from django.db.models import QuerySet

from members.models import Claim, ClaimStatus, Follow, Notice, Preferences
from ratings import selectors as rating_selectors
from tournaments.models import Coach

NOTICES_SHOWN = 50


def claimed_coach(*, member) -> Coach | None:
    return Coach.objects.filter(user=member).first()


def claimed_coaches(*, member) -> list[Coach]:
    """Every coach record the member holds (one today: a claim is one coach per member)."""
    return list(Coach.objects.filter(user=member).order_by("number"))


def claimed_coach_get(*, member, number: int) -> Coach | None:
    """The member's own coach with this number, or None (another's coach, or no such number)."""
    return Coach.objects.filter(user=member, number=number).first()


def member_ratings(*, coach: Coach | None) -> list:
    """The claimed coach's current ratings in every rating system (none without a coach)."""
    return rating_selectors.coach_ratings(coach) if coach is not None else []


def member_claims(*, member) -> QuerySet[Claim]:
    return Claim.objects.filter(member=member).select_related("coach").order_by("-created_at", "-id")


def member_follows(*, member) -> QuerySet[Follow]:
    return Follow.objects.filter(member=member).select_related("coach").order_by("coach__public_name")


def is_following(*, member, coach: Coach) -> bool:
    return Follow.objects.filter(member=member, coach=coach).exists()


def member_notices(*, member, limit: int = NOTICES_SHOWN) -> list[Notice]:
    """His newest notices, with what their words need (members.wording: the system, the coach)."""
    return list(Notice.objects.filter(member=member).select_related("system", "coach").order_by("-created_at", "-id")[:limit])


def feed_owner(*, token: str):
    """The member whose feed has this secret address, or None."""
    preferences = Preferences.objects.filter(feed_token=token, member__is_active=True).select_related("member").first()
    return preferences.member if preferences is not None else None


def notice_systems() -> list[tuple[int, str]]:
    return rating_selectors.notice_systems()


def claim_queue() -> QuerySet[Claim]:
    """The requests waiting for staff, oldest first."""
    return Claim.objects.filter(status=ClaimStatus.PENDING).select_related("member", "coach").order_by("created_at", "id")


def claims_recent(*, limit: int = 50) -> QuerySet[Claim]:
    """The latest claims that hold or were released (staff release or restore them from here)."""
    return Claim.objects.filter(status__in=[ClaimStatus.ACTIVE, ClaimStatus.RELEASED]).select_related(
        "member", "coach", "decided_by",
    ).order_by("-decided_at", "-id")[:limit]


def linked_without_claim() -> QuerySet[Coach]:
    """Coaches linked to an account on the staff's member page, with no claim behind them."""
    return Coach.objects.filter(user__isnull=False).exclude(claims__status=ClaimStatus.ACTIVE).select_related("user")
