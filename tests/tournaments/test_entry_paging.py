"""Issue 30, point 6: the entry page of a big event comes in parts (the event with its participants,
then each round's games), each saved with the others as saved; moving between parts saves first and
loses nothing typed."""
from urllib.parse import urlencode

import pytest

from audit.models import AuditRecord
from tests.tournaments import test_big_event as big_event
from tests.tournaments.test_big_event import Controls, post_as_a_browser, saved_games, tournament
from tests.tournaments.test_organiser_events import entry, game, save
from tournaments.models import Game, Participant

pytestmark = pytest.mark.django_db

owner, draft, numbers, browser = big_event.owner, big_event.draft, big_event.numbers, big_event.browser
coaches = big_event.organiser_events.coaches


def edit_url(event, round_number=None) -> str:
    url = f"/organiser/events/{event.pk}/edit/"
    return url if round_number is None else f"{url}?round={round_number}"


@pytest.fixture
def big(browser, draft, numbers):
    """The 160-game event of the issue: 64 coaches, 5 rounds of 32 games, saved."""
    response, _ = post_as_a_browser(browser, draft, tournament(draft, numbers, rounds=5))
    assert response.status_code == 302, response.context and response.context["summary"]
    assert Game.objects.filter(event=draft).count() == 160
    return draft


def page_of(client, url: str) -> tuple[str, dict]:
    html = client.get(url).content.decode()
    return html, Controls(html).values


def post_page(client, url: str, values: dict, **changes):
    """The page's own controls, changed, posted as a browser does (a button's name and value with them)."""
    return client.post(url, urlencode({**values, **changes}), content_type="application/x-www-form-urlencoded")


def test_the_edit_page_of_a_160_game_event_shows_the_participants_then_one_round_at_a_time(browser, big):
    html, values = page_of(browser, edit_url(big))
    assert len(html.encode()) < 150_000
    assert sum(name.endswith("-coach") for name in values if name.startswith("participants-")) == 64 + 4
    assert not any(name.startswith("games-") for name in values)
    for number in range(1, 6):
        assert f'<button type="submit" name="go" value="round-{number}">Round {number} (32 games)</button>' in html
    html, values = page_of(browser, edit_url(big, 3))
    assert len(html.encode()) < 150_000
    assert values["games-TOTAL_FORMS"] == "36" and values["games-INITIAL_FORMS"] == "32"
    assert {values[f"games-{i}-round"] for i in range(36)} == {"3"}  # the empty rows too are of round 3
    assert not any(name.startswith(("participants-", "event-")) for name in values)
    assert '<strong aria-current="page">Round 3 (32 games)</strong>' in html
    assert '<button type="submit" name="go" value="event">Event and participants</button>' in html


def test_a_round_saved_from_its_page_keeps_the_other_rounds_and_the_participants(browser, big):
    before = saved_games(big)
    participants = sorted(Participant.objects.filter(event=big).values_list("coach__number", "race__slug"))
    _, values = page_of(browser, edit_url(big, 2))
    home, away = int(values["games-0-home_coach"]), int(values["games-0-away_coach"])
    response = post_page(browser, edit_url(big, 2), values, **{"games-0-home_td": "5", "games-0-away_td": "4", "go": "round-3"})
    assert response.status_code == 302 and response["Location"] == edit_url(big, 3)
    after = saved_games(big)
    changed = [g for g in after if g not in before]
    assert [(r, h, a, htd, atd) for r, h, a, htd, atd, _, _ in changed] == [(2, home, away, 5, 4)]
    assert len(after) == 160 and len(set(before) - set(after)) == 1
    assert sorted(Participant.objects.filter(event=big).values_list("coach__number", "race__slug")) == participants


def test_a_round_that_cannot_be_saved_stays_as_typed_and_nothing_is_saved(browser, big):
    before = saved_games(big)
    _, values = page_of(browser, edit_url(big, 2))
    typed = {"games-0-home_td": "5", "games-31-away_coach": values["games-31-home_coach"], "go": "round-3"}
    response = post_page(browser, edit_url(big, 2), values, **typed)
    assert response.status_code == 200
    html = response.content.decode()
    shown = Controls(html).values
    assert shown["games-0-home_td"] == "5" and shown["games-31-away_coach"] == values["games-31-home_coach"]
    assert f"Game 32, Away coach: Coach {values['games-31-home_coach']} cannot play against themselves." in html
    assert saved_games(big) == before


def test_moving_between_parts_without_a_change_saves_nothing(browser, big):
    updates = AuditRecord.objects.filter(action="event.update").count()
    _, values = page_of(browser, edit_url(big))
    response = post_page(browser, edit_url(big), values, go="round-1")
    assert response.status_code == 302 and response["Location"] == edit_url(big, 1)
    _, values = page_of(browser, edit_url(big, 1))
    response = post_page(browser, edit_url(big, 1), values, go="event")
    assert response.status_code == 302 and response["Location"] == edit_url(big)
    assert AuditRecord.objects.filter(action="event.update").count() == updates


def test_the_event_part_saves_with_the_games_as_saved_and_names_a_saved_game_it_breaks(browser, big):
    before = saved_games(big)
    _, values = page_of(browser, edit_url(big))
    response = post_page(browser, edit_url(big), values, **{"event-name": "Delft Open 2024", "go": "round-1"})
    assert response.status_code == 302
    big.refresh_from_db()
    assert big.name == "Delft Open 2024" and saved_games(big) == before
    # the rounds are in this part, their games in theirs: taking round 5 out names its games, on their page
    last = next(index for index in range(7) if values.get(f"rounds-{index}-number") == "5")
    response = post_page(browser, edit_url(big), values, **{f"rounds-{last}-DELETE": "on"})
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<li><a href="{edit_url(big, 5)}">Round 5, game 1 (saved): Round 5 is not in the list of rounds above.</a></li>' in html
    assert "Nothing was saved: 32 problems" in html
    assert saved_games(big) == before


def test_a_round_that_does_not_exist_sends_back_to_the_event_part(browser, big):
    response = browser.get(edit_url(big, 9))
    assert response.status_code == 302 and response["Location"] == edit_url(big)
    assert browser.get(f"{edit_url(big)}?round=x").status_code == 404


def test_the_first_games_are_entered_on_the_page_of_the_round_just_added(client, owner, draft, coaches):
    client.force_login(owner)
    data = entry(draft, games=[])
    del data["games-TOTAL_FORMS"], data["games-INITIAL_FORMS"]
    response = client.post(edit_url(draft), data | {"go": "games"})
    assert response.status_code == 302 and response["Location"] == edit_url(draft, 1)
    html, values = page_of(client, edit_url(draft, 1))
    assert values["games-TOTAL_FORMS"] == "4" and values["games-0-round"] == "1"
    values.update({"games-0-home_coach": "101", "games-0-away_coach": "102", "games-0-home_td": "2"})
    response = post_page(client, edit_url(draft, 1), values)
    assert response.status_code == 302 and response["Location"] == f"/organiser/events/{draft.pk}/"
    assert saved_games(draft) == [(1, 101, 102, 2, 0, 0, 0)]


def test_an_unknown_number_is_added_as_a_coach_from_the_page_and_nothing_typed_is_lost(client, owner, draft, coaches):
    client.force_login(owner)
    save(client, draft, entry(draft, games=[game(1, 101, 102)]))
    _, values = page_of(client, edit_url(draft, 1))
    values.update({"games-1-home_coach": "123456", "games-1-away_coach": "103", "games-1-home_td": "3"})
    response = post_page(client, edit_url(draft, 1), values)
    html = response.content.decode()
    assert "No coach has number 123456" in html and "Choose the race" not in html
    shown = Controls(html).values
    assert shown["coaches-0-number"] == "123456"
    response = post_page(client, edit_url(draft, 1), shown, **{"coaches-0-name": "Nina Novak", "action": "create_coaches"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Created 1 coach: check the page and save it." in html and "No coach has number 123456" not in html
    shown = Controls(html).values
    assert (shown["games-1-home_coach"], shown["games-1-away_coach"], shown["games-1-home_td"]) == ("123456", "103", "3")
    assert Game.objects.filter(event=draft).count() == 1
    # known now, the new coach needs the race he plays, as any coach who is not a participant does
    assert "Game 2, Home race: Choose the race, or register the coach as a participant." in html
    typed = {k: v for k, v in shown.items() if not k.startswith("coaches-")} | {"games-1-home_race": "Norse"}
    response = post_page(client, edit_url(draft, 1), typed)
    assert response.status_code == 302
    assert (1, 123456, 103, 3, 0, 0, 0) in saved_games(draft)
    assert Participant.objects.get(event=draft, coach__number=123456).race.slug == "norse"

