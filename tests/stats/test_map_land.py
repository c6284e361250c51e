"""The land under the maps: the event page's pin and /stats/map/ draw over the vendored Natural Earth outline."""
import datetime as dt
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders

from ratingsite.charts import REGIONS, WORLD_OUTLINE, map_pin
from stats.services import summaries_refresh
from tests.factories import EventFactory, RoundFactory, play

OUTLINE = settings.BASE_DIR / "static" / WORLD_OUTLINE
OUTLINE_URL = "/static/vendor/world-110m.svg"


@pytest.fixture
def leeds(league):
    """The league's events and a sanctioned one in Leeds recorded without coordinates (drawn at Britain's centre)."""
    event = EventFactory(name="Leeds Cup", start_date=dt.date(2023, 6, 3), country="GB", city="Leeds")
    play(RoundFactory(event=event, number=1), league.a, league.b, (1, 0), home_race="human", away_race="orc")
    summaries_refresh()
    return event


def countries() -> dict[str, list[list[tuple[float, float]]]]:
    """The outline's countries: code -> rings of (x, y) in its own coordinates (x = longitude, y = −latitude)."""
    shapes = {}
    for code, d in re.findall(r'<path id="(\w+)" d="([^"]+)"', OUTLINE.read_text()):
        rings = []
        for part in d.split("M")[1:]:
            numbers = [float(value) for value in part.rstrip("Z").split()]
            rings.append(list(zip(numbers[::2], numbers[1::2])))
        shapes[code] = rings
    return shapes


def countries_under(x: float, y: float) -> list[str]:
    """The countries whose outline holds the point (even-odd ray casting)."""
    found = []
    for code, rings in countries().items():
        crossings = 0
        for ring in rings:
            for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1]):
                if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                    crossings += 1
        if crossings % 2:
            found.append(code)
    return found


def figure(body: str, opening: str) -> str:
    """The map's <figure> in a page, from the SVG's opening tag to the figure's end."""
    start = body.index(opening)
    return body[start:body.index("</figure>", start)]


def test_the_outline_is_natural_earth_in_the_maps_projection():
    svg = OUTLINE.read_text()
    assert 'viewBox="-180 -90 360 180"' in svg
    assert "<title>World, Natural Earth 1:110m countries (public domain), equirectangular</title>" in svg
    assert len(countries()) == 176


def test_a_pin_for_amsterdam_lands_on_the_netherlands():
    pin = map_pin(52.37, 4.90, label="Amsterdam", width=360, height=180)
    assert (pin.x, pin.y) == ("184.9", "37.6")
    # the pin's 360 × 180 box is the outline's viewBox moved by (180, 90)
    assert countries_under(float(pin.x) - 180, float(pin.y) - 90) == ["NL"]


def test_a_pin_in_the_sea_is_on_no_land():
    pin = map_pin(54.0, 3.0, label="North Sea", width=360, height=180)
    assert countries_under(float(pin.x) - 180, float(pin.y) - 90) == []


def test_the_outline_is_a_static_file_of_the_site():
    assert Path(finders.find(WORLD_OUTLINE)) == OUTLINE


def test_event_page_draws_the_pin_over_the_land(client, league):
    body = client.get(f"/events/{league.utrecht.pk}/").content.decode()
    pin = figure(body, '<svg class="chart map"')
    assert f'<image href="{OUTLINE_URL}" width="360" height="180" preserveAspectRatio="none"/>' in pin
    assert '<path d="M185.1 37.9 l-6 -12' in pin  # Utrecht: 52.09 N, 5.12 E
    assert countries_under(185.1 - 180, 37.9 - 90) == ["NL"]
    assert "Utrecht, Netherlands: latitude 52.0900, longitude 5.1200. Map data: Natural Earth (public domain)." in pin


def test_event_page_without_coordinates_has_no_map(client, leeds):
    response = client.get(f"/events/{leeds.pk}/")
    body = response.content.decode()
    assert response.status_code == 200
    assert '<svg class="chart map"' not in body and OUTLINE_URL not in body
    assert "<p>Leeds, United Kingdom.</p>" in body


# the cosine of each region's middle latitude (the world is not squeezed)
SQUEEZES = {"world": 1.0, "europe": 0.6018, "north-america": 0.7373, "oceania": 0.887}


@pytest.mark.parametrize("region", list(REGIONS))
def test_stats_map_draws_the_places_over_the_land(client, leeds, region):
    squeeze = SQUEEZES[region]
    body = client.get(f"/stats/map/?region={region}").content.decode()
    chart = figure(body, '<svg class="stats-map"')
    assert f'<g transform="scale({squeeze:.4f} 1)">' in chart
    assert f'<image href="{OUTLINE_URL}" x="-180" y="-90" width="360" height="180" preserveAspectRatio="none"/>' in chart
    assert "Map data: Natural Earth (public domain)" in chart
    circles = dict(
        (name, (float(cx), float(cy)))
        for cx, cy, name in re.findall(r'<circle cx="([-\d.]+)" cy="([-\d.]+)"[^>]*><title>([^:]+):', chart)
    )
    # circles are squeezed with the outline, so undo it to find the land under them
    under = {name: countries_under(cx / squeeze, cy) for name, (cx, cy) in circles.items()}
    assert under == {"Utrecht, Netherlands": ["NL"], "Leeds, United Kingdom": ["GB"], "London, United Kingdom": ["GB"]}


def test_stats_map_without_places_still_draws_the_land(client, db):
    body = client.get("/stats/map/").content.decode()
    chart = figure(body, '<svg class="stats-map"')
    assert OUTLINE_URL in chart and "<circle" not in chart
