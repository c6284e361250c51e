"""The public Atom feeds: a system's new rating lists, the newly sanctioned events, and one coach's
rating changes. Public only (a hidden coach has no feed; an event that is not public never shows),
each entry with a tag URI (RFC 4151) that never changes and its dates from the record."""
from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import Http404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _

from ratings import selectors
from ratings.selectors import feeds as reads
from ratingsite.formatting import fixed, rating_places, signed
from ratingsite.languages import on_page

# the day these feeds began: the date of every tag URI they mint, so no correction of a record's dates changes an id
FEEDS_SINCE = dt.date(2026, 12, 1)


def tag_uri(specific: str) -> str:
    """An Atom id that never changes: tag:<the site's host>,<FEEDS_SINCE>:<specific> (RFC 4151)."""
    return f"tag:{urlsplit(settings.SITE_URL).hostname or 'localhost'},{FEEDS_SINCE:%Y-%m-%d}:{specific}"


def _moment(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)


def _figure(value, method: str) -> str:
    return on_page(fixed(value, rating_places(method)))


class PublicFeed(Feed):
    """An Atom feed of the public record: its entries' ids are tag URIs, not addresses."""

    feed_type = Atom1Feed
    description_template = None

    def item_guid_is_permalink(self, item):
        return False


class RatingListFeed(PublicFeed):
    """Every list of one rating system as it is published (a later edition is an entry of its own)."""

    def get_object(self, request, system: str):
        found = selectors.public_system_get(system)
        if found is None:
            raise Http404(f"There is no rating system “{system}”.")
        return found

    def title(self, system):
        return _("%(system)s rating lists") % {"system": system.name}

    def subtitle(self, system):
        return _("Each monthly list of %(system)s as it is published, and each later edition.") % {"system": system.name}

    def link(self, system):
        return reverse("rating_lists", args=[system.slug])

    def feed_guid(self, system):
        return tag_uri(f"lists/{system.slug}")

    def items(self, system):
        return reads.publications_recent(system)

    def item_title(self, publication):
        names = {"system": publication.system.name, "day": f"{publication.date:%Y-%m-%d}", "edition": publication.edition}
        if publication.edition > 1:
            return _("%(system)s list of %(day)s, edition %(edition)s") % names
        return _("%(system)s list of %(day)s") % names

    def item_description(self, publication):
        counts = {"rated": publication.rated, "ranked": publication.ranked, "starters": publication.starters}
        if publication.edition > 1 and publication.reason:
            return _("%(rated)s ratings, %(ranked)s ranked, %(starters)s rated for the first time. Published again: %(reason)s") % {
                **counts, "reason": publication.reason}
        return _("%(rated)s ratings, %(ranked)s ranked, %(starters)s rated for the first time.") % counts

    def item_link(self, publication):
        month = f"{publication.date:%Y-%m}"
        return reverse("rating_list_edition", args=[publication.system.slug, month, publication.edition])

    def item_guid(self, publication):
        return tag_uri(f"list/{publication.system.slug}/{publication.date:%Y-%m}/{publication.edition}")

    def item_pubdate(self, publication):
        return publication.published_at

    def item_updateddate(self, publication):
        return publication.published_at


class SanctionedEventFeed(PublicFeed):
    """The events the staff sanctioned, the most recently changed first."""

    def title(self):
        return _("Newly sanctioned events")

    def subtitle(self):
        return _("Events whose results the federation's staff have sanctioned for the ratings.")

    def link(self):
        return reverse("event_list")

    def feed_guid(self):
        return tag_uri("events/sanctioned")

    def items(self):
        return reads.sanctioned_events_recent()

    def item_title(self, event):
        return event.name

    def item_description(self, event):
        names = {"variant": event.variant.name, "start": f"{event.start_date:%Y-%m-%d}", "end": f"{event.end_date:%Y-%m-%d}"}
        place = ", ".join(part for part in (event.city, str(event.country.name) if event.country else "") if part)
        if place:
            return _("A %(variant)s event from %(start)s to %(end)s in %(place)s, sanctioned.") % {**names, "place": place}
        return _("A %(variant)s event from %(start)s to %(end)s, sanctioned.") % names

    def item_link(self, event):
        return reverse("event_detail", args=[event.pk])

    def item_guid(self, event):
        return tag_uri(f"event/{event.pk}")

    def item_pubdate(self, event):
        return event.updated_at

    def item_updateddate(self, event):
        return event.updated_at


class CoachRatingFeed(PublicFeed):
    """One coach's rating changes: an entry per event or period that changed one of his ratings."""

    def get_object(self, request, number: int):
        coach = reads.syndicated_coach_get(number=number)
        if coach is None:
            raise Http404("There is no coach with a public feed at this number.")
        return coach

    def title(self, coach):
        return _("Rating changes of %(coach)s") % {"coach": coach.public_name}

    def subtitle(self, coach):
        return _("Each event or period that changed one of %(coach)s's ratings, with the rating before and after.") % {
            "coach": coach.public_name}

    def link(self, coach):
        return reverse("coach_detail", args=[coach.number])

    def feed_guid(self, coach):
        return tag_uri(f"coach/{coach.number}/ratings")

    def items(self, coach):
        return reads.coach_rating_changes(coach, selectors.public_systems())

    def item_title(self, change):
        method = change.system.method
        key = ", ".join(part for part in (change.race_name, change.variant_name) if part)
        names = {"system": change.system.name, "key": key, "after": _figure(change.after, method),
                 "before": _figure(change.before, method), "event": change.event_name, "period": change.period}
        if change.before is None and change.event_name:
            return _("%(system)s (%(key)s): first rating %(after)s after %(event)s") % names
        if change.before is None:
            return _("%(system)s (%(key)s): first rating %(after)s after the period %(period)s") % names
        if change.event_name:
            return _("%(system)s (%(key)s): %(before)s → %(after)s after %(event)s") % names
        return _("%(system)s (%(key)s): %(before)s → %(after)s after the period %(period)s") % names

    def item_description(self, change):
        method = change.system.method
        if change.before is None:
            return _("First rating: %(after)s.") % {"after": _figure(change.after, method)}
        return _("Rating before: %(before)s. Rating after: %(after)s. Change: %(change)s.") % {
            "before": _figure(change.before, method), "after": _figure(change.after, method),
            "change": on_page(signed(change.after - change.before, rating_places(method)))}

    def item_link(self, change):
        params = {"race": change.race_slug, "variant": change.variant_slug, "period": change.period} if change.race_slug else {
            "variant": change.variant_slug, "period": change.period}
        return f"{reverse('breakdown', args=[change.coach_number, change.system.slug])}?{urlencode(params)}"

    def item_guid(self, change):
        race = change.race_slug or "all"
        return tag_uri(f"coach/{change.coach_number}/{change.system.slug}/{change.variant_slug}/{race}/{change.period}")

    def item_pubdate(self, change):
        return _moment(change.effective)

    def item_updateddate(self, change):
        return _moment(change.effective)
