from django.shortcuts import render

from ratingsite.context_processors import reverse_or_none
from ratingsite.page_cache import cached_page

from . import selectors


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
