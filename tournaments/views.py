from django.shortcuts import render

from ratingsite.context_processors import reverse_or_none
from ratingsite.page_cache import cached_page

from . import selectors
from .models import ANONYMOUS_LABEL
from .privacy import ERASURE_GRACE


@cached_page
def home(request):
    events = list(selectors.recent_events())
    for event in events:
        event.url = reverse_or_none("event_detail", event.pk)
    return render(
        request,
        "tournaments/home.html",
        {"counts": selectors.federation_counts(), "recent_events": events},
    )


@cached_page
def about_privacy(request):
    """What the site publishes about coaches and members, why, on what legal basis, and their rights."""
    return render(request, "tournaments/about_privacy.html", {"grace_days": ERASURE_GRACE.days, "label": ANONYMOUS_LABEL})
