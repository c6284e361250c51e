"""Reads of the federation's record."""
from django.db.models import Count, Max, Min

from .models import Coach, Event, EventStatus, Game


def federation_counts() -> dict:
    """Headline counts for the home page."""
    events = Event.objects.aggregate(
        total=Count("id"), first=Min("start_date"), last=Max("end_date")
    )
    return {
        "coaches": Coach.objects.count(),
        "events": events["total"],
        "sanctioned_events": Event.objects.filter(status=EventStatus.SANCTIONED).count(),
        "games": Game.objects.count(),
        "first_date": events["first"],
        "last_date": events["last"],
    }


def recent_events(*, limit: int = 10):
    return (
        Event.objects.filter(status=EventStatus.SANCTIONED)
        .select_related("variant")
        .order_by("-end_date", "-id")[:limit]
    )
