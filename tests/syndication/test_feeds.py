"""The public Atom feeds: valid Atom with stable tag ids, the record's figures and dates, public only
(no hidden coach's feed or name, no event that is not public), advertised on the pages they follow."""
import re
import xml.etree.ElementTree as ET

import pytest
from django.core.cache import cache

from ratings.models import PeriodSummary, Publication
from ratingsite.formatting import fixed
from tests.syndication.conftest import HIDDEN_NAME, SUBMITTED_EVENT
from tournaments.models import Event, EventStatus

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def atom(response) -> ET.Element:
    """The feed, checked against RFC 4287's required elements: one id, title and updated for the
    feed and for each entry, each entry with a link, every id a tag URI."""
    assert response.status_code == 200
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    feed = ET.fromstring(response.content)
    assert feed.tag == f"{ATOM}feed"
    for element in (feed, *feed.findall(f"{ATOM}entry")):
        for name in ("id", "title", "updated"):
            assert len(element.findall(f"{ATOM}{name}")) == 1, name
            assert element.find(f"{ATOM}{name}").text
        assert element.find(f"{ATOM}id").text.startswith("tag:127.0.0.1,2026-12-01:")
    for entry in feed.findall(f"{ATOM}entry"):
        assert entry.find(f"{ATOM}link").get("href").startswith("http://testserver/")
    return feed


def entries(feed) -> list[dict]:
    return [{
        "id": entry.find(f"{ATOM}id").text, "title": entry.find(f"{ATOM}title").text,
        "updated": entry.find(f"{ATOM}updated").text, "link": entry.find(f"{ATOM}link").get("href"),
        "summary": entry.find(f"{ATOM}summary").text,
    } for entry in feed.findall(f"{ATOM}entry")]


def test_the_lists_feed_has_each_publication_of_the_system_latest_first(client, federation):
    feed = atom(client.get("/feeds/lists/elo/"))
    assert feed.find(f"{ATOM}title").text == "NAF Elo rating lists"
    published = list(Publication.objects.filter(system__slug="elo").order_by("-published_at", "-edition", "-pk")[:30])
    found = entries(feed)
    assert len(found) == len(published) == 30
    first, newest = found[0], published[0]
    assert newest.date.isoformat() == "2024-09-01"
    assert first["title"] == "NAF Elo list of 2024-09-01"
    assert first["link"] == "http://testserver/lists/elo/2024-09/edition/1/"
    assert first["id"] == "tag:127.0.0.1,2026-12-01:list/elo/2024-09/1"
    assert first["updated"] == newest.published_at.isoformat()
    assert first["summary"] == f"{newest.rated} ratings, {newest.ranked} ranked, {newest.starters} rated for the first time."
    assert ids_stable(client, "/feeds/lists/elo/")


def ids_stable(client, path: str) -> bool:
    """The entries' ids do not change between two renders (the cache emptied between them)."""
    before = [entry["id"] for entry in entries(atom(client.get(path)))]
    cache.clear()
    return before == [entry["id"] for entry in entries(atom(client.get(path)))]


def test_an_unknown_system_has_no_lists_feed(client, federation):
    assert client.get("/feeds/lists/no-such-system/").status_code == 404


def test_the_events_feed_has_the_sanctioned_events_only(client, federation):
    feed = atom(client.get("/feeds/events/"))
    found = entries(feed)
    titles = [entry["title"] for entry in found]
    # open play (Garage Bash) is public but never sanctioned; the submitted event is not public at all
    assert sorted(titles) == ["Dutch Open", "Hidden Derby", "Paris Classic", "Summer League", "Utrecht Cup"]
    assert SUBMITTED_EVENT not in response_text(client, "/feeds/events/")
    derby = next(entry for entry in found if entry["title"] == "Hidden Derby")
    event = federation["summer"]
    event.refresh_from_db()
    assert derby["id"] == f"tag:127.0.0.1,2026-12-01:event/{event.pk}"
    assert derby["link"] == f"http://testserver/events/{event.pk}/"
    assert derby["updated"] == event.updated_at.isoformat()
    assert derby["summary"] == "A Blood Bowl 2020 event from 2024-07-06 to 2024-07-06 in Delft, Netherlands, sanctioned."


def response_text(client, path: str) -> str:
    return client.get(path).content.decode()


def test_a_coachs_feed_has_an_entry_per_rating_change_with_before_after_and_the_breakdown(client, federation):
    anna, derby = federation["anna"], federation["summer"]
    feed = atom(client.get("/feeds/coaches/101/"))
    assert feed.find(f"{ATOM}title").text == "Rating changes of Anna Jansen"
    summary = PeriodSummary.objects.get(system__slug="elo", coach=anna, period=f"event:{derby.pk}")
    before, after = fixed(summary.rl), fixed(summary.rn)
    assert before != after
    entry = next(entry for entry in entries(feed) if entry["title"].endswith("after Hidden Derby"))
    assert entry["title"] == f"NAF Elo (Human, Blood Bowl 2020): {before} → {after} after Hidden Derby"
    assert entry["summary"].startswith(f"Rating before: {before}. Rating after: {after}. Change: ")
    assert entry["link"] == (f"http://testserver/coaches/101/breakdown/elo/?race=human&variant=blood-bowl-2020"
                             f"&period=event%3A{derby.pk}")
    assert entry["id"] == f"tag:127.0.0.1,2026-12-01:coach/101/elo/blood-bowl-2020/human/event:{derby.pk}"
    assert entry["updated"] == "2024-07-06T00:00:00+00:00"
    # her first KNSB rating: none before it
    first = PeriodSummary.objects.get(system__slug="knsb", coach=anna, rl__isnull=True)
    rating = fixed(first.rn, 0)
    entry = next(entry for entry in entries(feed) if entry["title"].startswith("KNSB list rating"))
    assert entry["title"] == f"KNSB list rating (Blood Bowl 2020): first rating {rating} after the period {first.period}"
    assert entry["summary"] == f"First rating: {rating}."
    ids = [entry["id"] for entry in entries(feed)]
    assert len(ids) == len(set(ids))
    assert ids_stable(client, "/feeds/coaches/101/")


def test_a_hidden_coach_has_no_feed_and_his_name_is_in_no_feed(client, federation):
    assert client.get("/feeds/coaches/109/").status_code == 404
    assert client.get("/nl/feeds/coaches/109/").status_code == 404
    assert client.get("/feeds/coaches/999/").status_code == 404
    for path in ("/feeds/events/", "/feeds/lists/elo/", "/feeds/coaches/101/", "/feeds/coaches/103/", "/feeds/coaches/110/"):
        assert HIDDEN_NAME not in response_text(client, path), path


def test_an_event_no_longer_public_leaves_every_feed(client, federation):
    derby = federation["summer"]
    assert "Hidden Derby" in response_text(client, "/feeds/coaches/101/")
    Event.objects.filter(pk=derby.pk).update(status=EventStatus.SUBMITTED)  # its ratings stay until the next run
    cache.clear()
    assert PeriodSummary.objects.filter(period=f"event:{derby.pk}").exists()
    for path in ("/feeds/events/", "/feeds/coaches/101/", "/feeds/coaches/103/"):
        assert "Hidden Derby" not in response_text(client, path), path
    assert [entry["title"] for entry in entries(atom(client.get("/feeds/coaches/101/")))]


def test_a_pseudonymous_coachs_feed_names_him_by_his_pseudonym_only(client, federation):
    text = response_text(client, "/feeds/coaches/110/")
    assert "<title>Rating changes of Jumping Jan</title>" in text
    assert "Echtnaam" not in text


def test_the_feeds_speak_dutch_under_nl(client, federation):
    feed = atom(client.get("/nl/feeds/events/"))
    assert feed.get("{http://www.w3.org/XML/1998/namespace}lang") == "nl"
    assert feed.find(f"{ATOM}title").text == "Nieuw goedgekeurde toernooien"
    coach = atom(client.get("/nl/feeds/coaches/101/"))
    assert coach.find(f"{ATOM}title").text == "Ratingveranderingen van Anna Jansen"
    derby = next(entry for entry in entries(coach) if entry["title"].endswith("Hidden Derby"))
    assert re.fullmatch(r"NAF Elo \(Human, Blood Bowl 2020\): \d+,\d\d → \d+,\d\d na Hidden Derby", derby["title"])
    assert derby["link"].startswith("http://testserver/nl/coaches/101/breakdown/elo/")


def alternates(response) -> list[str]:
    head = response.content.decode().split("</head>")[0]
    return re.findall(r'<link rel="alternate" type="application/atom\+xml" href="([^"]+)"', head)


def test_the_pages_advertise_the_feeds_they_follow(client, federation):
    assert alternates(client.get("/rankings/elo/")) == ["/feeds/lists/elo/"]
    assert alternates(client.get("/rankings/knsb/?country=NL")) == ["/feeds/lists/knsb/"]
    assert alternates(client.get("/events/")) == ["/feeds/events/"]
    assert alternates(client.get("/coaches/101/")) == ["/feeds/coaches/101/"]
    assert alternates(client.get("/nl/rankings/elo/")) == ["/nl/feeds/lists/elo/"]
    # a hidden coach's page (his label only) advertises no feed
    assert alternates(client.get("/coaches/109/")) == []
