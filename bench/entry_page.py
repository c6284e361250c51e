"""The organiser's edit page of an 80- and a 160-game event: bytes and render time of each part
(issue 30, point 6: they were 604 KB and 1.15 MB on one page). Prints figures beside the machine
reference (bench.machine) and the load average; asserts nothing but that the pages answer.

Targets: none set by an issue in figures (issue 30 asked for the page in parts).

    .venv/bin/python -m pytest bench/entry_page.py -s -p no:cacheprovider
"""
import os
import time

import pytest

from bench.machine import reference
from tests.factories import EventFactory
from tests.tournaments import test_big_event as big_event
from tests.tournaments.test_big_event import post_as_a_browser, tournament
from tests.tournaments.test_organiser_events import END, START
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db
owner, numbers, browser = big_event.owner, big_event.numbers, big_event.browser


def fastest(client, url: str, times: int = 5) -> tuple[int, float]:
    """(bytes, fastest of `times` GETs in seconds) of a page."""
    best, size = float("inf"), 0
    for _ in range(times):
        started = time.perf_counter()
        response = client.get(url)
        best = min(best, time.perf_counter() - started)
        assert response.status_code == 200
        size = len(response.content)
    return size, best


def test_the_edit_page_of_an_80_and_a_160_game_event(browser, owner, numbers):
    print(f"\nload average {os.getloadavg()[0]:.2f}; {reference(database=False)}")
    for coaches in (32, 64):
        event = EventFactory(name=f"{coaches} coaches", start_date=START, end_date=END, status=EventStatus.DRAFT, organiser=owner)
        saved, _ = post_as_a_browser(browser, event, tournament(event, numbers[:coaches], rounds=5))
        assert saved.status_code == 302
        url = f"/organiser/events/{event.pk}/edit/"
        for part, query in (("the event and its participants", ""), ("a round", "?round=3")):
            size, seconds = fastest(browser, url + query)
            print(f"\n{coaches * 5 // 2} games, {part}: {size / 1024:.0f} KB, {seconds * 1000:.0f} ms")
