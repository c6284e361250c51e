"""The accuracy page (/about/accuracy/): a read of the stored reports, with the figures
`evaluate_methods` prints, and no game of an event the public cannot see."""
import io
import re

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ratings.models import AccuracyReport, CalculationRow, RatingSystem
from tests.web.conftest import table, tables_of
from tournaments.models import Event, EventStatus, Game

pytestmark = pytest.mark.django_db

PREDICTORS = ("The rating system", "Race against race", "0.5 for every game")


def evaluate() -> str:
    out = io.StringIO()
    call_command("evaluate_methods", stdout=out)
    return out.getvalue()


def printed(text: str) -> dict[str, dict]:
    """Per system name, what the command printed: games, each predictor's four figures, each split
    group's games, log losses, Brier and favourite's share, the calibration bins with games."""
    found, current, kind = {}, None, None
    for line in text.splitlines():
        if header := re.match(r"(\S.*) \([\w-]+\): ([\d,]+) games", line):
            current = found[header[1]] = {"games": header[2].replace(",", ""), "predictors": {}, "splits": {}, "bins": []}
            kind = None
        elif kind is None and line.strip().startswith(PREDICTORS):
            label = next(p for p in PREDICTORS if line.strip().startswith(p))
            current["predictors"][label] = line.strip()[len(label):].split()
        elif heading := re.match(r"  (by \w+|calibration)\s+games", line):
            kind = heading[1].removeprefix("by ")
            current["splits"].setdefault(kind, [])
        elif kind == "calibration":
            low_high, games, expected, observed = line.split()
            if games != "0":
                current["bins"].append((low_high, expected, observed, games.replace(",", "")))
        elif kind:
            label, games, *figures = re.match(r"  (.+?)\s+([\d,]+)((?:\s+\S+){4})$", line).groups()
            current["splits"][kind].append((label, games.replace(",", ""), *figures[0].split()))
    return found


def shown(response, name: str) -> dict:
    """The same figures, from the page's tables of one system."""
    overall = table(response, f"{name}: every counted game")
    splits = {}
    for kind in ("variant", "year", "major"):
        rows = table(response, f"{name}: log loss by {kind}")["rows"]
        splits[kind] = [(cells[0], cells[1].replace(",", ""), *(c.replace(" %", "%") for c in cells[2:])) for _, cells in rows]
    bins = [(cells[0], cells[2], cells[3], cells[1].replace(",", "")) for _, cells in table(response, f"{name}: calibration")["rows"]
            if cells[1] != "0"]
    return {"predictors": {cells[0]: [c.replace(" %", "%") for c in cells[1:]] for _, cells in overall["rows"]},
            "splits": splits, "bins": bins}


def test_the_page_and_the_command_print_the_same_figures(client, league):
    text = evaluate()
    response = client.get("/about/accuracy/")
    assert response.status_code == 200
    from_command = printed(text)
    assert set(from_command) == set(RatingSystem.objects.filter(active=True).values_list("name", flat=True))
    html = response.content.decode()
    for name, figures in from_command.items():
        if figures["games"] == "0":  # KNSB: the league's games only made start ratings, from depots (no We)
            slug = RatingSystem.objects.get(name=name).slug
            assert not figures["predictors"] and f'<h2 id="accuracy-{slug}">{name}</h2>\n  <p>No counted games yet.' in html
            continue
        assert f"{int(figures['games']):,} counted games" in html
        page = shown(response, name)
        assert page["predictors"] == figures["predictors"] and len(page["predictors"]) == 3
        for kind in ("variant", "year", "major"):
            assert page["splits"][kind] == figures["splits"][kind] and page["splits"][kind], kind
        assert page["bins"] == figures["bins"] and page["bins"]
    elo = from_command["NAF Elo"]["predictors"]
    assert elo["0.5 for every game"][0] == "0.6931"  # ln 2, whatever the results


def test_the_page_is_a_read_of_the_stored_reports(client, league):
    assert "No report yet" in client.get("/about/accuracy/").content.decode()
    evaluate()
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/about/accuracy/")
    assert not [q for q in queries.captured_queries if CalculationRow._meta.db_table in q["sql"]]
    stored = AccuracyReport.objects.get(system__slug="elo")
    assert f"{stored.figures['games']:,} counted games" in response.content.decode()
    assert "computed" in response.content.decode()


def test_the_games_of_an_event_no_longer_public_never_reach_the_page(client, league):
    evaluate()
    before = AccuracyReport.objects.get(system__slug="elo").figures["games"]
    hidden = league["league"]
    games = Game.objects.filter(event=hidden).count()
    assert CalculationRow.objects.filter(system__slug="elo", game__event=hidden, counted=True).exists()
    Event.objects.filter(pk=hidden.pk).update(status=EventStatus.SUBMITTED)  # its rows stay until a run
    evaluate()
    after = AccuracyReport.objects.get(system__slug="elo").figures
    assert after["games"] == before - games
    html = client.get("/about/accuracy/").content.decode()
    assert f"{before - games:,} counted games" in html and f"{before:,} counted games" not in html


def test_the_page_names_the_draw_model_and_draws_the_calibration(client, league):
    evaluate()
    response = client.get("/about/accuracy/")
    html = response.content.decode()
    assert "The draw model" in html and "ten bins of 0.05" in html
    reported = AccuracyReport.objects.filter(system__active=True, figures__games__gt=0).count()
    assert reported == 3 and html.count('class="chart-figure"') == reported
    assert any(t["caption"].strip() == "NAF Elo: calibration" for t in tables_of(response))


def test_the_about_page_links_to_the_accuracy_page(client, db):
    assert 'href="/about/accuracy/"' in client.get("/about/ratings/").content.decode()
