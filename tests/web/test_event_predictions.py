"""The predictions page of an event: a rated event's stored We against the scores, per round and
for the event; a submitted event's predictions for its organiser and the staff only.

The Dutch Open is the spec's four-coach NAF Elo example with everyone new (K = 4): round 1 all at
150, so every We is 0.5; Anna 2-1 Bert → 152 / 148, Cees 1-1 Dirk → 150 / 150. Round 2: Anna (152)
v Cees (150): 10^(−2/150) = 0.969767, P = 1/1.969767 = 0.507675 for Anna, 0.492325 for Cees; Bert
(148) v Dirk (150): 0.492325 / 0.507675. Anna loses, Bert wins.
"""
import datetime as dt

import pytest

from ratings.models import CurrentRating
from tests.factories import EventFactory, RoundFactory, play
from tests.roles import member, organiser, staff
from tests.web.conftest import column, table

pytestmark = pytest.mark.django_db


def predictions_of(client, event):
    return client.get(f"/events/{event.pk}/predictions/")


def test_a_rated_event_shows_the_stored_we_of_every_pairing_per_round(client, league):
    response = predictions_of(client, league["dutch"])
    assert response.status_code == 200
    first, second = table(response, "Round 1, 2024-03-02"), table(response, "Round 2, 2024-03-02")
    assert column(first, "NAF Elo We") == ["0.500 – 0.500", "0.500 – 0.500"]
    assert first["rows"][-1][1][:2] == ["Favourites", "—"]  # every game even: no favourite
    assert [cells[:5] for _, cells in second["rows"][:2]] == [
        ["Anna Jansen", "Human", "0–1", "Cees de Vries", "Human"], ["Bert Smith", "Orc", "2–0", "Dirk Müller", "Orc"],
    ]
    # the favourites (Anna and Dirk, 0.507675 each) both lost: expected 1.015, scored 0
    assert column(second, "NAF Elo We") == ["0.508 – 0.492", "0.492 – 0.508"]
    assert second["rows"][-1][1][:2] == ["Favourites", "expected 1.015, scored 0.0 in 2"]


def test_a_rated_event_shows_each_coachs_expected_total_against_his_actual_total(client, league):
    found = table(predictions_of(client, league["dutch"]), "NAF Elo: each coach's expected total")
    assert found["header"] == ["Coach", "Race", "Games", "Σ We", "Σ W", "Σ(W−We)"]
    assert [cells for _, cells in found["rows"]] == [
        ["Anna Jansen", "Human", "2", "1.008", "1.0", "-0.008"],  # 0.5 + 0.507675; 1 + 0
        ["Bert Smith", "Orc", "2", "0.992", "1.0", "+0.008"],  # 0.5 + 0.492325; 0 + 1
        ["Cees de Vries", "Human", "2", "0.992", "1.5", "+0.508"],  # 0.5 + 0.492325; 0.5 + 1
        ["Dirk Müller", "Orc", "2", "1.008", "0.5", "-0.508"],  # 0.5 + 0.507675; 0.5 + 0
        ["All coaches", "8", "4.000", "4.0", "+0.000"],
    ]


def test_the_totals_equal_the_standings_w_minus_we(client, league):
    standings = table(client.get(f"/events/{league['dutch'].pk}/"), "Standings")
    totals = table(predictions_of(client, league["dutch"]), "NAF Elo: each coach's expected total")
    coaches = [cells for _, cells in totals["rows"] if cells[0] != "All coaches"]
    assert dict(zip(column(standings, "Coach"), column(standings, "Σ(W−We)"))) == {cells[0]: cells[5] for cells in coaches}


def test_a_forfeit_is_not_predicted(client, league):
    found = table(predictions_of(client, league["cup"]), "Round 2, 2024-04-06")
    assert column(found, "Score")[0] == "0–0 (forfeit)"
    assert column(found, "NAF Elo We")[0] == "forfeit"


def test_the_public_event_page_links_to_the_predictions_of_a_sanctioned_event_only(client, league):
    link = f'href="/events/{league["dutch"].pk}/predictions/"'
    assert link in client.get(f"/events/{league['dutch'].pk}/").content.decode()
    assert "/predictions/" not in client.get(f"/events/{league['bash'].pk}/").content.decode()
    assert predictions_of(client, league["bash"]).status_code == 404  # open play is never rated


@pytest.fixture
def submitted(league):
    """A submitted event of Olga's: Anna against Bert, both with ratings from the league."""
    event = EventFactory(name="Olga Open", start_date=dt.date(2024, 8, 3), status="submitted", organiser=organiser("olga"))
    play(RoundFactory(event=event, number=1), league["anna"], league["bert"], (1, 0), home_race="human", away_race="orc")
    return event


def test_a_submitted_events_predictions_answer_404_to_anyone_but_its_organiser_and_staff(client, submitted):
    assert predictions_of(client, submitted).status_code == 404
    for user in (member("mia"), organiser("otto")):
        client.force_login(user)
        assert predictions_of(client, submitted).status_code == 404
    for user in (submitted.organiser, staff("sam")):
        client.force_login(user)
        response = predictions_of(client, submitted)
        assert response.status_code == 200 and "Olga Open: predictions" in response.content.decode()


def test_a_draft_or_rejected_event_has_no_predictions_even_for_its_organiser(client, submitted):
    client.force_login(submitted.organiser)
    for status in ("draft", "rejected"):
        type(submitted).objects.filter(pk=submitted.pk).update(status=status)
        assert predictions_of(client, submitted).status_code == 404


def test_a_submitted_event_is_predicted_from_the_current_ratings(client, submitted, league):
    anna, bert = (
        CurrentRating.objects.get(system__slug="elo", coach=league[name], race__slug=race).value
        for name, race in (("anna", "human"), ("bert", "orc"))
    )
    client.force_login(submitted.organiser)
    response = predictions_of(client, submitted)
    found = table(response, "NAF Elo: each coach's expected total")
    assert found["header"] == ["Coach", "Race", "Rating", "Games", "Σ We"]
    expected = 1 / (10 ** ((bert - anna) / 150) + 1)
    assert [cells for _, cells in found["rows"][:2]] == [
        ["Anna Jansen", "Human", f"{anna:.2f}", "1", f"{expected:.3f}"],
        ["Bert Smith", "Orc", f"{bert:.2f}", "1", f"{1 - expected:.3f}"],
    ]
    assert column(table(response, "Round 1, 2024-08-03"), "NAF Elo We")[0] == f"{expected:.3f} – {1 - expected:.3f}"


def test_the_organiser_and_staff_event_pages_link_to_the_predictions(client, submitted):
    link = f'href="/events/{submitted.pk}/predictions/"'
    client.force_login(submitted.organiser)
    assert link in client.get(f"/organiser/events/{submitted.pk}/").content.decode()
    client.force_login(staff("sam"))
    assert link in client.get(f"/staff/events/{submitted.pk}/").content.decode()
