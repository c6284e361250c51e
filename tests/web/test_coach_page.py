"""The coach page as the spec describes it (issue 18, items 5 and 6): head-to-head shortcuts, chart
points that name themselves, event names in the history, byes apart from the record, Glicko's idle
decay, and the provisional "?" on the coach page, the rankings and the about page."""
import csv
import io
import re

import pytest

from rating_pages.presenters import rules
from ratings import selectors
from ratings.models import CurrentRating, PeriodSummary, RatingSystem
from ratingsite import charts
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.web.conftest import column, table
from tests.web.test_rankings import csv_text, ranking_table
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db


# --- head-to-head shortcuts -----------------------------------------------------------------------


def test_most_frequent_opponents_link_to_the_head_to_head_page(client, league):
    found = table(client.get("/coaches/101/"), "most frequent opponents")
    # Bert: Dutch Open W, Garage Bash (open play) W, Summer League W; ties on games go by name
    assert found["rows"] == [
        ("", ["Bert Smith", "3", "3-0-0", "Anna Jansen v Bert Smith"]),
        ("", ["Cees de Vries", "2", "0-0-2", "Anna Jansen v Cees de Vries"]),
        ("", ["Eva Bakker", "2", "2-0-0", "Anna Jansen v Eva Bakker"]),
        ("", ["Fay Brown", "2", "0-2-0", "Anna Jansen v Fay Brown"]),
        ("", ["Dirk Müller", "1", "0-1-0", "Anna Jansen v Dirk Müller"]),
    ]
    html = client.get("/coaches/101/").content.decode()
    assert '<a class="h2h" href="/stats/head-to-head/?coach=101&amp;coach=102">' in html
    h2h = client.get("/stats/head-to-head/?coach=101&coach=102")
    assert h2h.status_code == 200
    matrix = h2h.content.decode()
    assert "Anna Jansen" in matrix and "Bert Smith" in matrix


def test_shortcuts_count_public_events_only_and_stop_at_the_limit(client, league):
    draft = EventFactory(name="Draft Cup", status=EventStatus.DRAFT)
    play(RoundFactory(event=draft, number=1), league["anna"], league["dirk"], (1, 0), away_race="orc")
    rows = selectors.coach_opponents(league["anna"])
    assert [(r["opponent__public_name"], r["games"]) for r in rows][-1] == ("Dirk Müller", 1)  # the draft game is not there
    assert [r["opponent__number"] for r in selectors.coach_opponents(league["anna"], limit=2)] == [102, 103]
    many = EventFactory(name="Big Open")
    for number in range(1, 12):
        play(RoundFactory(event=many, number=number), league["anna"], CoachFactory(), (1, 0))
    assert len(selectors.coach_opponents(league["anna"])) == 10


def test_a_coach_without_opponents_says_so(client, league):
    loner = CoachFactory(number=190, name="Lone Wolf")
    response = client.get("/coaches/190/")
    assert loner.name in response.content.decode()
    assert "No games against another coach yet." in response.content.decode()


# --- the history chart and table ------------------------------------------------------------------


def test_each_chart_point_names_its_date_event_and_rating(client, league):
    html = client.get("/coaches/101/").content.decode()
    titles = re.findall(r"<circle [^>]*><title>([^<]*)</title></circle>", html)
    assert titles == [
        "2024-03-02 · Dutch Open · 149.97", "2024-04-06 · Utrecht Cup · 151.97", "2024-06-02 · Summer League · 154.20",
    ]
    assert len(table(client.get("/coaches/101/"), "rating after each event")["rows"]) == 3  # the data table stays


def test_glicko_points_name_their_month(client, league):
    html = client.get("/coaches/101/?system=glicko").content.decode()
    summaries = PeriodSummary.objects.filter(system__slug="glicko", coach=league["anna"]).order_by("effective")
    titles = re.findall(r"<circle [^>]*><title>([^<]*)</title></circle>", html)
    assert titles == [f"{s.effective:%Y-%m-%d} · {label} · {s.rn:.2f}"
                      for s, label in zip(summaries, ["March 2024", "April 2024", "June 2024"])]


def test_history_table_names_events_not_their_labels(client, league):
    response = client.get("/coaches/101/")
    history = table(response, "rating after each event")
    assert column(history, "Period") == ["Dutch Open", "Utrecht Cup", "Summer League"]
    assert "event:" not in response.content.decode()


def test_line_chart_points_carry_their_titles():
    chart = charts.line_chart(
        [charts.Series("Orc", [(0, 1.0), (1, 2.0)], ["first <1>", "second"])],
        title="t", description="d", x_label="x", y_label="y",
    )
    assert [title for _, _, title in chart.lines[0].dots] == ["first <1>", "second"]
    assert "<title>first &lt;1&gt;</title>" in chart.svg
    plain = charts.line_chart([charts.Series("Orc", [(0, 1.0), (1, 2.0)])], title="t", description="d", x_label="x", y_label="y")
    assert plain.lines[0].dots == []  # a plain line keeps no dots


def test_line_chart_dots_are_circles_with_their_titles_escaped():
    chart = charts.line_chart(
        [charts.Series("Orc", [(0, 1.0), (1, 2.0)], ["O'Neil & <b>", ""])],
        title="t", description="d", x_label="x", y_label="y",
    )
    (x0, y0, _), (x1, y1, _) = chart.lines[0].dots
    dots = (f'<circle cx="{x0}" cy="{y0}" r="3" fill="#0b5cad"><title>O&#x27;Neil &amp; &lt;b&gt;</title></circle>\n'
            f'<circle cx="{x1}" cy="{y1}" r="2.5" fill="#0b5cad"></circle>\n')
    assert chart.lines[0].dots_svg == dots
    assert dots + "</svg>" in chart.svg


# --- record per race ------------------------------------------------------------------------------


def test_a_bye_is_not_a_game_in_the_record_per_race(client, league):
    autumn = EventFactory(name="Autumn Bye Cup")
    round_ = RoundFactory(event=autumn, number=1)
    play(round_, league["anna"], None, (2, 0))  # a bye scored as a 2-0 win
    response = client.get("/coaches/101/")
    found = table(response, "Games per race")
    assert found["header"] == ["Race", "Games", "Won", "Drawn", "Lost", "TD", "CAS", "Byes"]
    assert found["rows"] == [("", ["Human", "10", "5", "3", "2", "10–7", "0–0", "1"])]
    events = table(response, "Events attended")
    assert dict(zip(column(events, "Event"), column(events, "Games")))["Autumn Bye Cup"] == "0"


# --- Glicko idle decay ----------------------------------------------------------------------------


def test_glicko_idle_decay_is_said_with_its_figures(client, league):
    html = client.get("/coaches/101/").content.decode()
    current = CurrentRating.objects.get(system__slug="glicko", coach=league["anna"])
    last = PeriodSummary.objects.filter(system__slug="glicko", coach=league["anna"]).latest("effective")
    assert (f"{last.effective}", f"{last.phi:.2f}", f"{current.phi:.2f}") == ("2024-07-01", "153.51", "154.22")
    assert ("NAF Glicko, Human (Blood Bowl 2020): idle decay since 2024-07-01: φ 153.51 → 154.22, "
            f"value −{last.rn - current.value:.2f}.") in html
    assert f"{last.rn - current.value:.2f}" == "1.77"
    assert "Global Glicko, All races (Blood Bowl 2020): idle decay since 2024-06-03" in html


def test_no_idle_decay_note_when_the_value_is_the_last_periods(client, league):
    last = PeriodSummary.objects.filter(system__slug="glicko", coach=league["anna"]).latest("effective")
    CurrentRating.objects.filter(system__slug="glicko", coach=league["anna"]).update(value=last.rn, phi=last.phi)
    html = client.get("/coaches/101/").content.decode()
    assert "NAF Glicko, Human (Blood Bowl 2020): idle decay" not in html
    assert "Global Glicko, All races (Blood Bowl 2020): idle decay" in html


# --- provisional marks ----------------------------------------------------------------------------


def test_a_knsb_rating_on_few_games_is_marked_on_the_coach_page(client, league):
    response = client.get("/coaches/101/")
    ratings = table(response, "ratings in every system")
    knsb = next(cells for _, cells in ratings["rows"] if cells[0] == "KNSB list rating")
    assert knsb[3] == "1591?"
    html = response.content.decode()
    assert 'title="provisional: rests on 8 games; firm from 12"' in html
    # the footnote: the same words, visible without hovering
    assert "KNSB list rating, All races (Blood Bowl 2020): provisional: rests on 8 games; firm from 12" in html
    elo = next(cells for _, cells in ratings["rows"] if cells[0] == "NAF Elo")
    assert elo[3] == "154.20"


def test_ranking_marks_provisional_knsb_ratings_and_the_csv_keeps_the_value(client, league):
    CurrentRating.objects.filter(system__slug="knsb", coach=league["bert"]).update(nv=12)
    found = ranking_table(client.get("/rankings/knsb/"))
    marks = dict(zip(column(found, "Coach"), column(found, "Rating")))
    nv = dict(zip(column(found, "Coach"), column(found, "Nv")))
    assert nv["Bert Smith"] == "12" and not marks["Bert Smith"].endswith("?")
    assert all(marks[name].endswith("?") for name, games in nv.items() if int(games) < 12)
    assert any(int(games) < 12 for games in nv.values())
    html = client.get("/rankings/knsb/").content.decode()
    assert 'id="provisional-rule"' in html and "fewer than 12 games" in html
    header, *rows = list(csv.reader(io.StringIO(csv_text(client.get("/rankings/knsb/?_export=csv")))))
    assert all("?" not in row[header.index("Rating")] for row in rows)


@pytest.mark.parametrize(("phi", "marked"), [(95.0, True), (90.0, False), (85.0, False), (100.0, True), (120.0, False)])
def test_a_glicko_rating_near_the_phi_limit_is_marked(client, league, phi, marked):
    CurrentRating.objects.filter(system__slug="glicko", coach=league["anna"]).update(phi=phi, rank=1, overall_rank=1)
    found = ranking_table(client.get("/rankings/glicko/?name=Anna"))
    assert column(found, "Rating")[0].endswith("?") is marked
    html = client.get("/coaches/101/").content.decode()
    tip = f"provisional: φ {phi:.2f}, near the rank limit 100; firm below φ 90"
    assert (f'title="{tip}"' in html) is marked


def test_thresholds_follow_the_systems_parameters_and_the_about_page_names_them(client, league):
    knsb = RatingSystem.objects.get(slug="knsb")
    assert rules.provisional_rule(knsb).firm_nv == 12
    knsb.parameters = {**knsb.parameters, "depot_min_games": 8}
    assert rules.provisional_rule(knsb).mark(nv=13) == "provisional: rests on 13 games; firm from 14"
    glicko = RatingSystem.objects.get(slug="glicko")
    glicko.parameters = {**glicko.parameters, "inactive_phi": 150}
    rule = rules.provisional_rule(glicko)
    assert (rule.firm_phi, rule.mark(phi=140.0), rule.mark(phi=130.0)) == (
        135.0, "provisional: φ 140.00, near the rank limit 150; firm below φ 135", None,
    )
    assert rules.provisional_rule(RatingSystem.objects.get(slug="elo")) is None
    about = client.get("/about/ratings/").content.decode()
    assert 'id="provisional"' in about
    assert "A KNSB rating resting on fewer than 12 games (the start rating’s depot games plus 6) is provisional" in about
    assert "A ranked Glicko rating with φ above 90 (within 10% of the rank limit 100) is provisional" in about


def test_the_rank_rule_follows_the_systems_stored_parameters_else_the_engines_default(db):
    glicko = RatingSystem.objects.get(slug="glicko")
    assert "No rank while φ is above 100:" in rules.inactive_rule(glicko)
    glicko.parameters = {**glicko.parameters, "inactive_phi": 150}
    assert "No rank while φ is above 150:" in rules.inactive_rule(glicko)
    assert selectors.stored_config(glicko).value_phi_multiplier == 2.5  # not stored: GlickoConfig's
