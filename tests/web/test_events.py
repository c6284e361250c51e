"""Events: the public list with its filters, and the event page with W − We per coach."""
import datetime as dt

import pytest

from tests.factories import EventFactory, RoundFactory, play
from tests.web.conftest import column, table

pytestmark = pytest.mark.django_db


def event_names(response):
    return column(table(response, "Events"), "Event")


def test_only_sanctioned_events_by_default(client, league):
    response = client.get("/events/")
    assert response.status_code == 200
    assert event_names(response) == ["Summer League", "Utrecht Cup", "Dutch Open", "Paris Classic"]


def test_open_play_on_request_but_never_a_draft_a_submitted_or_a_rejected_event(client, league):
    for status in ("draft", "submitted", "rejected"):
        EventFactory(name=f"Secret {status}", status=status)
    assert event_names(client.get("/events/?status=any")) == [
        "Summer League", "Garage Bash", "Utrecht Cup", "Dutch Open", "Paris Classic",
    ]
    assert event_names(client.get("/events/?status=open_play")) == ["Garage Bash"]
    assert client.get("/events/?status=submitted").status_code == 400


@pytest.mark.parametrize("query, names", [
    ("year=2022", ["Paris Classic"]),
    ("country=GB", ["Summer League"]),
    ("variant=blood-bowl-2020&country=NL", ["Utrecht Cup", "Dutch Open"]),
    ("name=cup", ["Utrecht Cup"]),
])
def test_event_filters(client, league, query, names):
    assert event_names(client.get(f"/events/?{query}")) == names


def test_majors_only(client, league):
    EventFactory(name="Eurobowl", is_major=True, start_date=league["dutch"].start_date)
    response = client.get("/events/?major=on")
    assert event_names(response) == ["Eurobowl major"]


def test_bad_filter_values_are_form_errors(client, league):
    response = client.get("/events/?year=1066&variant=croquet")
    assert response.status_code == 400
    html = response.content.decode()
    assert "Select a valid choice" in html
    assert table(response, "Events")["rows"] == [("", ["No events match these filters."])]


def test_standings_with_wt_w_minus_we_and_elo_change(client, league):
    response = client.get(f"/events/{league['dutch'].pk}/")
    assert response.status_code == 200
    found = table(response, "Standings")
    assert found["header"] == ["#", "Coach", "Race", "W-D-L", "Points", "TD", "CAS", "Wt", "Σ(W−We)", "Change", "After"]
    assert [cells for _, cells in found["rows"]] == [
        ["1", "Cees de Vries", "Human", "1-1-0", "1.5", "2–1", "0–0", "1.5", "+0.508", "+2.03", "152.03"],
        ["2", "Bert Smith", "Orc", "1-0-1", "1", "3–2", "0–0", "1.0", "+0.008", "+0.03", "150.03"],
        ["3", "Anna Jansen", "Human", "1-0-1", "1", "2–2", "0–0", "1.0", "-0.008", "-0.03", "149.97"],
        ["4", "Dirk Müller", "Orc", "0-1-1", "0.5", "1–3", "0–0", "0.5", "-0.508", "-2.03", "147.97"],
    ]


def test_rounds_awards_and_location(client, league):
    response = client.get(f"/events/{league['dutch'].pk}/")
    first = table(response, "Round 1")
    assert [cells for _, cells in first["rows"]] == [
        ["Anna Jansen", "Human", "2–1", "Bert Smith", "Orc", "0–0"],
        ["Cees de Vries", "Human", "1–1", "Dirk Müller", "Orc", "0–0"],
    ]
    assert table(response, "Round 2")["rows"][0][1][:4] == ["Anna Jansen", "Human", "0–1", "Cees de Vries"]
    awards = table(response, "Awards at Dutch Open")
    assert [cells[:2] for _, cells in awards["rows"]] == [["Most touchdowns", "Anna Jansen"], ["Winner", "Cees de Vries"]]
    html = response.content.decode()
    assert "Latitude 52.09074, longitude 5.12142" in html
    assert '<svg class="chart map"' in html and "latitude 52.0907, longitude 5.1214" in html


def test_standings_from_another_system(client, league):
    response = client.get(f"/events/{league['dutch'].pk}/?system=glicko")
    found = table(response, "Standings")
    assert "NAF Glicko" in found["caption"] and "After" not in found["header"]
    assert client.get(f"/events/{league['dutch'].pk}/?system=chess").status_code == 404


def test_open_play_is_public_but_a_draft_a_submitted_or_a_rejected_event_is_not(client, league):
    response = client.get(f"/events/{league['bash'].pk}/")
    assert response.status_code == 200
    assert "<strong>Open play (unsanctioned)</strong>: its games count for no rating" in response.content.decode()
    for status in ("draft", "submitted", "rejected"):
        assert client.get(f"/events/{EventFactory(name=status, status=status).pk}/").status_code == 404
    assert client.get("/events/999999/").status_code == 404


def test_event_pages_query_counts(client, league, django_assert_num_queries):
    # years, countries, count, page, variant choices
    with django_assert_num_queries(5):
        client.get("/events/")
    with django_assert_num_queries(3):  # the years and countries kept a while
        client.get("/events/")
    # event, systems, games, sides, coaches, rows, Elo summaries, other events' games amid them, awards
    with django_assert_num_queries(9):
        client.get(f"/events/{league['league'].pk}/")
    round_ = RoundFactory(event=league["league"], number=6, date=league["league"].end_date)
    play(round_, league["gus"], league["hal"], (1, 0), home_race="dwarf", away_race="skaven")
    with django_assert_num_queries(9):
        client.get(f"/events/{league['league'].pk}/")


def test_knsb_w_minus_we_leaves_out_the_games_of_a_start_rating(client):
    # Four newcomers play a double round robin in June (six depot games each, rated at the
    # bootstrap rating): start ratings on the list of 1 July. Anna then plays Bert twice in July.
    from rating_engines import knsb
    from ratings.models import CalculationRow
    from tests.factories import CoachFactory
    from tests.web.conftest import recalculate_all

    anna, bert, cees, dirk = (CoachFactory(number=300 + i, name=name) for i, name in enumerate(["Anna", "Bert", "Cees", "Dirk"]))
    league = EventFactory(name="Long League", start_date=dt.date(2024, 6, 1), end_date=dt.date(2024, 7, 31))
    pairs = [(anna, bert), (cees, dirk), (anna, cees), (bert, dirk), (anna, dirk), (bert, cees)]
    for number, (home, away) in enumerate(pairs + [(b, a) for a, b in pairs], start=1):
        round_ = RoundFactory(event=league, number=number, date=dt.date(2024, 6, number))
        play(round_, home, away, (2, 1) if home is anna else (1, 1), at=dt.datetime(2024, 6, number, 12, tzinfo=dt.UTC))
    for number, score in [(13, (1, 0)), (14, (0, 1))]:
        round_ = RoundFactory(event=league, number=number, date=dt.date(2024, 7, number))
        play(round_, anna, bert, score, at=dt.datetime(2024, 7, number, 12, tzinfo=dt.UTC))
    recalculate_all(dt.date(2024, 8, 15))

    july = list(CalculationRow.objects.filter(system__slug="knsb", coach=anna, played_at__month=7, counted=True))
    assert len(july) == 2 and all(r.we == pytest.approx(knsb.expected_score(r.r0 - r.rc)) for r in july)
    want = sum(r.w - r.we for r in july)  # 1 − We + 0 − We: the June games have no We
    found = table(client.get(f"/events/{league.pk}/?system=knsb"), "Standings")
    anna_row = next(dict(zip(found["header"], cells)) for _, cells in found["rows"] if cells[1] == "Anna")
    assert anna_row["Wt"] == "5.5"  # three wins and three draws in June, a win and a loss in July
    assert anna_row["Σ(W−We)"] == f"{want:+.3f} (6 games without We left out)"


def test_an_event_sanctioned_or_rejected_changes_the_years_and_countries_at_once(client, league):
    from tournaments import services as record

    def choices():
        html = client.get("/events/").content.decode()
        return ('<option value="1999">' in html, '<option value="JP">' in html)

    assert choices() == (False, False)
    tokyo = EventFactory(name="Tokyo Bowl", status="submitted", country="JP", start_date=dt.date(1999, 5, 1),
                         end_date=dt.date(1999, 5, 2))
    assert choices() == (False, False)  # not public: neither its year nor its country
    record.event_sanction(event=tokyo, actor=None)
    assert choices() == (True, True)
    record.event_reject(event=tokyo, actor=None, reason="duplicate")
    assert choices() == (False, False)
