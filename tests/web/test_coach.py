"""The coach page: every rating, record per race, history chart (SVG and table), events, awards."""
import pytest

from ratings.models import CurrentRating, PeriodSummary
from tests.factories import EventFactory, RoundFactory, play
from tests.web.conftest import column, recalculate_all, table

pytestmark = pytest.mark.django_db


def test_every_rating_of_the_coach_in_every_system(client, league):
    response = client.get("/coaches/101/")
    assert response.status_code == 200
    found = table(response, "ratings in every system")
    assert [(cells[0], cells[1]) for _, cells in found["rows"]] == [
        ("NAF Elo", "Human"), ("NAF Glicko", "Human"), ("Global Glicko", "All races"), ("KNSB list rating", "All races"),
    ]
    elo = CurrentRating.objects.get(system__slug="elo", coach=league["anna"])
    row = dict(zip(found["header"], found["rows"][0][1]))
    assert (row["Rating"], row["Rank"], row["Games"], row["W-D-L"]) == (
        f"{elo.value:.2f}", str(elo.rank), str(elo.games), f"{elo.wins}-{elo.draws}-{elo.losses}"
    )
    assert 'href="/coaches/101/breakdown/knsb/?variant=blood-bowl-2020"' in response.content.decode()


def test_record_per_race_counts_every_game_side(client, league):
    found = table(client.get("/coaches/101/"), "Games per race")
    # Dutch Open W L, Utrecht Cup W and a 0-0 forfeit, Garage Bash W, Summer League D W L D W
    assert found["rows"] == [("", ["Human", "10", "5", "3", "2", "10–7", "0–0"])]


def test_history_is_a_step_chart_with_a_text_alternative_and_a_table(client, league):
    response = client.get("/coaches/101/")
    html = response.content.decode()
    assert '<svg class="chart"' in html and 'role="img"' in html
    assert "<title" in html and "Anna Jansen: NAF Elo rating history" in html
    history = table(response, "rating after each event")
    summaries = PeriodSummary.objects.filter(system__slug="elo", coach=league["anna"]).order_by("effective")
    assert column(history, "After") == [f"{s.rn:.2f}" for s in summaries] == ["149.97", "151.97", "154.20"]
    assert column(history, "From") == ["2024-03-02", "2024-04-06", "2024-06-02"]


def test_history_system_is_chosen_in_the_query_string(client, league):
    response = client.get("/coaches/101/?system=glicko")
    assert "Anna Jansen: NAF Glicko rating history" in response.content.decode()
    assert len(table(response, "rating after each period")["rows"]) == PeriodSummary.objects.filter(
        system__slug="glicko", coach=league["anna"]
    ).count()
    assert client.get("/coaches/101/?system=chess").status_code == 404


def test_events_and_awards(client, league):
    response = client.get("/coaches/101/")
    events = table(response, "Events attended")
    assert column(events, "Event") == ["Summer League", "Garage Bash open play", "Utrecht Cup", "Dutch Open"]
    assert column(events, "W-D-L") == ["2-2-1", "1-0-0", "1-1-0", "1-0-1"]
    awards = table(response, "Awards")
    assert awards["rows"] == [("", ["2024-03-02", "Dutch Open", "Most touchdowns", ""])]


def test_unknown_coach_is_404(client, league):
    assert client.get("/coaches/424242/").status_code == 404


def test_coach_page_query_count_does_not_grow_with_history(client, league, django_assert_num_queries):
    # coach, systems, ratings, Glicko summaries (idle decay), head-to-head opponents (grouped, then
    # named), history, its events' names, record, events (their game sides, then those events),
    # awards; KNSB's latest list and whether a game of the coach waits for the next
    with django_assert_num_queries(14):
        client.get("/coaches/101/")
    more = EventFactory(name="Autumn Cup", start_date=league["league"].start_date.replace(month=8))
    for number in (1, 2):
        play(RoundFactory(event=more, number=number), league["anna"], league["eva"], (1, 0), away_race="dwarf")
    recalculate_all()
    with django_assert_num_queries(14):
        response = client.get("/coaches/101/")
    assert len(table(response, "rating after each event")["rows"]) == 4
