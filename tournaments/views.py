from collections import defaultdict

from django.http import Http404
from django.shortcuts import render
from django_tables2 import RequestConfig

from ratingsite.context_processors import reverse_or_none

from . import selectors
from .models import Event, EventStatus


def home(request):
    events = list(selectors.recent_events())
    for event in events:
        event.url = reverse_or_none("event_detail", event.pk)
    return render(
        request,
        "tournaments/home.html",
        {"counts": selectors.federation_counts(), "recent_events": events},
    )


def event_list(request):
    """Public events (sanctioned by default), filtered by year, country, variant, major and status."""
    from ratings import pages
    from ratings.filters import EventFilter
    from ratings.tables import EventTable

    queryset = pages.public_events()
    filterset = EventFilter(request.GET, queryset=queryset, years=pages.event_years())
    valid = filterset.is_valid()
    table = EventTable(filterset.qs if valid else queryset.none(), caption="Events, newest first")
    RequestConfig(request, paginate={"per_page": 50}).configure(table)
    return render(request, "tournaments/event_list.html", {"filter": filterset, "table": table}, status=200 if valid else 400)


def event_detail(request, pk: int):
    """An event: standings with Wt, Σ(W − We) and rating change in a chosen system, rounds, awards, map pin."""
    from ratings import charts, pages

    try:
        event = Event.objects.select_related("variant").exclude(status=EventStatus.DRAFT).get(pk=pk)
    except Event.DoesNotExist:
        raise Http404("There is no public event with this number.") from None
    systems = pages.public_systems()
    slug = request.GET.get("system") or "elo"
    system = next((s for s in systems if s.slug == slug), None)
    if system is None:
        if request.GET.get("system") or not systems:
            raise Http404(f"There is no rating system “{slug}”.")
        system = systems[0]
    rounds = defaultdict(list)
    for game in pages.event_games(event):
        rounds[game.round].append(game)
    pin = None
    if event.latitude is not None and event.longitude is not None:
        pin = charts.map_pin(event.latitude, event.longitude, label=", ".join(p for p in (event.city, event.country.name if event.country else "") if p) or event.name)
    return render(request, "tournaments/event_detail.html", {
        "event": event,
        "system": system,
        "systems": systems,
        "standings": pages.event_standings(event, system),
        "rounds": sorted(rounds.items(), key=lambda item: item[0].number),
        "awards": pages.event_awards(event),
        "pin": pin,
    })
