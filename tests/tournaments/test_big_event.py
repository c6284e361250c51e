"""Issue 16, item 6: an ordinary event is entered through the organiser's entry page in one post, as a
browser sends it, and nothing typed is lost when the page refuses it."""
import datetime as dt
from collections import Counter
from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.test import Client, override_settings

from tests.factories import CoachFactory
from tests.tournaments import test_organiser_events as organiser_events
from tests.tournaments.test_organiser_events import assert_nothing_saved, entry, errors_of, game
from tournaments.models import Game, Participant, Round

pytestmark = pytest.mark.django_db

# the organiser Olga and her draft, the Delft Open of 4 and 5 May 2024
owner, draft = organiser_events.owner, organiser_events.draft

RACES = ["human", "orc", "dwarf", "skaven", "wood-elf", "lizardmen", "norse", "necromantic-horror"]
# the draft's two days: four rounds on the Saturday, three on the Sunday
ROUND_STARTS = [
    ("2024-05-04", "09:00"), ("2024-05-04", "11:30"), ("2024-05-04", "14:00"), ("2024-05-04", "16:30"),
    ("2024-05-05", "09:00"), ("2024-05-05", "11:30"), ("2024-05-05", "14:00"),
]
FORMSETS = ("participants", "rounds", "games", "awards")
GAME_COLUMNS = ("round", "home_coach", "away_coach", "home_td", "away_td", "home_cas", "away_cas")
# Every page ends with empty rows (the formsets' extra 4, 2, 4 and 2), and a browser posts them as rendered.
BLANK_ROWS = {
    "participants": [{"coach": "", "race": ""}] * 4,
    "rounds": [{"number": "", "date": "", "time": ""}] * 2,
    "games": [{"round": "", "home_coach": "", "home_race": "", "home_td": "0", "away_td": "0", "away_coach": "",
               "away_race": "", "home_cas": "0", "away_cas": "0", "conceded": "", "kind": "played"}] * 4,
    "awards": [{"category": "", "coach": "", "race": ""}] * 2,
}


@pytest.fixture
def numbers() -> list[int]:
    """The federation numbers of 64 coaches."""
    return [CoachFactory(number=n, name=f"Coach {n}").number for n in range(2001, 2065)]


@pytest.fixture
def browser(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    return client


def pairings(numbers: list[int], round_: int) -> list[tuple[int, int]]:
    """The round's (home, away) pairs by the circle method: each coach plays once a round, never the same opponent twice."""
    rest = numbers[1:]
    ring = [numbers[0], *rest[round_ - 1:], *rest[:round_ - 1]]
    pairs = [(ring[i], ring[-1 - i]) for i in range(len(ring) // 2)]
    return pairs if round_ % 2 else [(away, home) for home, away in pairs]


def tournament(event, numbers: list[int], rounds: int) -> dict:
    """The entry page of a whole event as the organiser types it: every field of every row, the empty ones too."""
    participants = [{"coach": n, "race": RACES[i % len(RACES)]} for i, n in enumerate(numbers)]
    round_rows = [{"number": r, "date": date, "time": time} for r, (date, time) in enumerate(ROUND_STARTS[:rounds], 1)]
    games = [
        game(r, home, away, (r + line) % 4, (3 * r + line) % 3, home_race="", away_race="",
             home_cas=line % 4, away_cas=(r + 2 * line) % 5, conceded="")
        for r in range(1, rounds + 1) for line, (home, away) in enumerate(pairings(numbers, r))
    ]
    return entry(
        event, participants=participants + BLANK_ROWS["participants"], rounds=round_rows + BLANK_ROWS["rounds"],
        games=games + BLANK_ROWS["games"], awards=BLANK_ROWS["awards"],
    ) | {f"{prefix}-{count}": value for prefix in FORMSETS for count, value in (("MIN_NUM_FORMS", "0"), ("MAX_NUM_FORMS", "1000"))}


class Controls(HTMLParser):
    """The value of every named control of a page's posted forms, as the form would send it (the
    header's search form is not the entry's)."""

    def __init__(self, html: str):
        super().__init__()
        self.values: dict[str, str] = {}
        self._select = None
        self._first_option = None
        self._posted = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._posted = (attrs.get("method") or "").lower() == "post"
        elif not self._posted:
            return
        if tag == "input" and attrs.get("name") and (attrs.get("type") not in ("checkbox", "radio") or "checked" in attrs):
            self.values[attrs["name"]] = attrs.get("value") or ""
        elif tag == "select":
            self._select, self._first_option = attrs.get("name"), None
        elif tag == "option" and self._select:
            value = attrs.get("value") or ""
            if self._first_option is None:
                self._first_option = value
            if "selected" in attrs:
                self.values[self._select] = value

    def handle_endtag(self, tag):
        if tag == "form":
            self._posted = False
        if tag == "select" and self._select:
            # a select without a selected option sends its first option
            self.values.setdefault(self._select, self._first_option or "")
            self._select = None


def post_as_a_browser(client, event, data: dict):
    """Post the entry page urlencoded, with the CSRF token of the page it was typed into; the response and the body."""
    url = f"/organiser/events/{event.pk}/edit/"
    token = Controls(client.get(url).content.decode()).values["csrfmiddlewaretoken"]
    body = urlencode({"csrfmiddlewaretoken": token, **data})
    return client.post(url, body, content_type="application/x-www-form-urlencoded"), body


def fields_in(body: str) -> int:
    """The number of fields Django counts against DATA_UPLOAD_MAX_NUMBER_FIELDS."""
    return len(body.split("&"))


def saved_games(event) -> list[tuple]:
    return sorted(Game.objects.filter(event=event).values_list(
        "round__number", "home_coach__number", "away_coach__number", "home_touchdowns", "away_touchdowns",
        "home_casualties", "away_casualties",
    ))


def posted_games(data: dict) -> list[tuple]:
    games = []
    for index in range(int(data["games-TOTAL_FORMS"])):
        row = [data[f"games-{index}-{name}"] for name in GAME_COLUMNS]
        if row[0]:
            games.append(tuple(int(value) for value in row))
    return sorted(games)


def test_a_64_coach_7_round_event_is_saved_from_one_post(browser, draft, numbers):
    data = tournament(draft, numbers, rounds=7)
    response, body = post_as_a_browser(browser, draft, data)
    assert response.status_code == 302, response.context and response.context["problems"]
    assert response["Location"] == f"/organiser/events/{draft.pk}/"
    assert "The event is saved." in browser.get(response["Location"]).content.decode()
    # 2.7 times Django's default limit of 1,000 fields, and some 2% of the body limit
    assert fields_in(body) == 2_702
    assert len(body.encode()) < settings.REQUEST_BODY_MAX_SIZE
    assert Participant.objects.filter(event=draft).count() == 64
    assert list(Round.objects.filter(event=draft).order_by("number").values_list("number", "date", "start_time")) == [
        (r, dt.date.fromisoformat(date), dt.time.fromisoformat(time)) for r, (date, time) in enumerate(ROUND_STARTS, 1)
    ]
    assert Counter(Game.objects.filter(event=draft).values_list("round__number", flat=True)) == {r: 32 for r in range(1, 8)}
    assert saved_games(draft) == posted_games(data) and len(posted_games(data)) == 224
    # the first game of rounds 1 and 2 (even rounds swap home and away) and the last game of round 7
    first, second = (Game.objects.get(event=draft, round__number=r, home_coach__number=h) for r, h in ((1, 2001), (2, 2002)))
    assert (first.away_coach.number, first.home_touchdowns, first.away_touchdowns, first.home_casualties, first.away_casualties,
            first.home_race.slug, first.away_race.slug) == (2064, 1, 0, 0, 1, "human", "necromantic-horror")
    assert (second.away_coach.number, second.home_touchdowns, second.away_touchdowns, second.home_casualties,
            second.away_casualties) == (2001, 2, 0, 0, 2)
    last = Game.objects.get(event=draft, round__number=7, home_coach__number=2038)
    assert (last.away_coach.number, last.home_touchdowns, last.away_touchdowns, last.home_casualties, last.away_casualties,
            last.home_race.slug, last.away_race.slug, last.played_at.strftime("%Y-%m-%d %H:%M")) == (
        2039, 2, 1, 3, 4, "lizardmen", "norse", "2024-05-05 14:00")


def test_an_error_in_the_last_game_keeps_everything_typed(browser, draft, numbers):
    data = tournament(draft, numbers, rounds=7)
    last = "games-223"
    data[f"{last}-away_coach"] = data[f"{last}-home_coach"]
    response, _ = post_as_a_browser(browser, draft, data)
    assert response.status_code == 200
    errors = errors_of(response, "games")
    assert errors[223] == {"away_coach": [f"Coach {data[f'{last}-home_coach']} cannot play against themselves."]}
    assert [index for index, error in enumerate(errors) if error] == [223]
    html = response.content.decode()
    row = next(part for part in html.split("<tr") if f'name="{last}-away_coach"' in part)
    assert row.startswith(' class="has-error"') and f"Coach {data[f'{last}-home_coach']} cannot play against themselves." in row
    assert html.count('<tr class="has-error">') == 1
    assert_nothing_saved(draft)
    shown = Controls(html).values
    # the page sent back has exactly the controls posted: the post was the page's own
    assert set(shown) == {"csrfmiddlewaretoken", *data}
    typed = {name: value for name, value in data.items() if not name.endswith("_FORMS")}
    assert len(typed) == 2_685
    assert {name: (value, shown.get(name)) for name, value in typed.items() if shown.get(name) != str(value)} == {}


def test_a_32_coach_5_round_event_posts_more_than_a_thousand_fields_and_saves(browser, draft, numbers):
    data = tournament(draft, numbers[:32], rounds=5)
    with override_settings(DATA_UPLOAD_MAX_NUMBER_FIELDS=1_000):
        refused, body = post_as_a_browser(browser, draft, data)
    # the bare 400: Django's old default, not the site, refused it
    assert refused.status_code == 400 and fields_in(body) == 1_048
    assert_nothing_saved(draft)
    response, _ = post_as_a_browser(browser, draft, data)
    assert response.status_code == 302, response.context and response.context["problems"]
    assert Participant.objects.filter(event=draft).count() == 32
    assert Counter(Game.objects.filter(event=draft).values_list("round__number", flat=True)) == {r: 16 for r in range(1, 6)}
    assert saved_games(draft) == posted_games(data) and len(posted_games(data)) == 80
