"""The members' parts of other apps' pages, loaded by their templates so those apps import nothing
of the members: the follow button of the public coach page, the organiser's claim codes."""
from django import template

from members import selectors, services
from tournaments.models import EventStatus

register = template.Library()


@register.inclusion_tag("members/_follow.html", takes_context=True)
def follow_button(context, coach):
    """Follow or unfollow, for a member who is logged in (nothing for visitors: their page is cached)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"show": False}
    return {
        "show": True, "coach": coach, "following": selectors.is_following(member=user, coach=coach),
        "next": request.get_full_path(), "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("members/_claim_codes.html")
def claim_codes(event, participants):
    """The claim code of each participant whose coach no member has claimed (the organiser's page
    only), once staff have sanctioned the event: an organiser cannot list any coach in a draft to
    get his code."""
    if event.status != EventStatus.SANCTIONED:
        return {"codes": [], "waiting": bool(participants)}
    coaches = {p.coach.pk: p.coach for p in participants if p.coach.user_id is None}
    found = services.claim_codes_for(coach_ids=list(coaches))
    return {"codes": [(coach, found[coach.number]) for coach in sorted(coaches.values(), key=lambda c: c.name)]}
