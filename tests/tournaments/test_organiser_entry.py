"""The organiser's entry page on an event day (issue 18, item 9): labels, the error summary, coaches by name or
number, races by slug or name, more game rows without saving, and the warning about overlapping events."""
import re
from html.parser import HTMLParser

import pytest

from tests.factories import CoachFactory, EventFactory
from tests.tournaments import test_organiser_events as organiser_events
from tests.tournaments.test_big_event import Controls
from tests.tournaments.test_organiser_events import END, START, assert_nothing_saved, entry, errors_of, game, save
from tournaments.models import EventStatus, Game, Participant, Race

pytestmark = pytest.mark.django_db

owner, draft, coaches = organiser_events.owner, organiser_events.draft, organiser_events.coaches


def edit_url(event) -> str:
    return f"/organiser/events/{event.pk}/edit/"


class Labels(HTMLParser):
    """The visible form controls of a page, and the ones no label names."""

    def __init__(self, html: str):
        super().__init__()
        self.controls: list[str] = []
        self.named: set[str] = set()
        self.for_ids: set[str] = set()
        self._in_label = 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "label":
            self._in_label += 1
            if attrs.get("for"):
                self.for_ids.add(attrs["for"])
        if tag in ("input", "select", "textarea") and attrs.get("type") not in ("hidden", "submit", "button", "reset"):
            key = attrs.get("id") or attrs.get("name") or f"#{len(self.controls)}"
            self.controls.append(key)
            if attrs.get("aria-label") or self._in_label:
                self.named.add(key)

    def handle_endtag(self, tag):
        if tag == "label":
            self._in_label -= 1

    @property
    def unlabelled(self) -> list[str]:
        return [key for key in self.controls if key not in self.named and key not in self.for_ids]


def summary(html: str) -> list[tuple[str, str]]:
    """(link, text) of each item of the error summary."""
    block = re.search(r'<div class="problems error-summary".*?</ul>', html, re.S).group(0)
    return re.findall(r'<li><a href="#([^"]+)">([^<]*)</a></li>', block)


def test_every_input_of_the_entry_page_has_a_label(client, owner, draft, coaches):
    client.force_login(owner)
    assert save(client, draft, entry(draft)).status_code == 302
    page = Labels(client.get(edit_url(draft)).content.decode())
    # the event's 9 fields, 8 participant rows of 3, 4 rounds of 4, 2 awards of 4, and the site search
    assert len(page.controls) == 9 + 8 * 3 + 4 * 4 + 2 * 4 + 1
    assert page.unlabelled == []
    # a round's page: its 2 games and 4 empty rows, of 12, and the site search
    page = Labels(client.get(edit_url(draft) + "?round=1").content.decode())
    assert len(page.controls) == 6 * 12 + 1
    assert page.unlabelled == []


def test_the_row_labels_name_the_row_and_the_column(client, owner, draft, coaches):
    client.force_login(owner)
    assert save(client, draft, entry(draft)).status_code == 302
    html = client.get(edit_url(draft) + "?round=1").content.decode()
    assert '<label class="visually-hidden" for="id_games-2-away_coach">Game 3: Away coach</label>' in html
    html = client.get(edit_url(draft)).content.decode()
    assert '<label class="visually-hidden" for="id_participants-0-race">Participant 1: Race</label>' in html


def test_the_error_summary_lists_every_problem_at_the_top_each_linking_to_its_field(client, owner, draft, coaches):
    client.force_login(owner)
    data = entry(draft, games=[game(1, 101, 102, home_race="Necromantic horor"), game(1, 103, 103)])
    data["games-TOTAL_FORMS"] = "2"
    response = save(client, draft, data)
    assert response.status_code == 200
    html = response.content.decode()
    assert summary(html) == [
        ("id_games-0-home_race", "Game 1, Home race: Race “Necromantic horor”: did you mean “Necromantic Horror”?"),
    ]
    # the summary comes first, before the page's explanation and the form
    assert html.index("error-summary") < html.index('class="lead"') < html.index('<form method="post" class="stacked">')
    assert_nothing_saved(draft)
    # with the race right, the rules across rows speak, each on its field
    data["games-0-home_race"] = "human"
    data["participants-0-coach"] = "9999999"
    html = save(client, draft, data).content.decode()
    assert summary(html) == [
        ("id_participants-0-coach", "Participant 1, Coach: No coach has federation number 9999999: create the coach first."),
        ("id_games-1-away_coach", "Game 2, Away coach: Coach 103 cannot play against themselves."),
    ]
    assert "Nothing was saved: 2 problems" in html
    assert_nothing_saved(draft)


def test_a_race_is_found_by_its_exact_name_though_an_unranked_roster_spells_it_in_lower_case(client, owner, draft, coaches):
    Race.objects.create(name="Necromantic horror", slug="necromantic-horror-2", ranked=False)
    client.force_login(owner)
    participants = [{"coach": 101, "race": "Necromantic Horror"}, {"coach": 102, "race": "orc"}]
    response = save(client, draft, entry(draft, participants=participants, games=[game(1, 101, 102)]))
    assert response.status_code == 302, response.context and errors_of(response, "participants")
    assert Participant.objects.get(event=draft, coach__number=101).race.slug == "necromantic-horror"
    # the roster's race by its exact name is not a ranked race; both by a name in another case is ambiguous
    for race, message in (
        ("Necromantic horror", "Choose one of the federation's ranked races."),
        ("NECROMANTIC HORROR", "Race “NECROMANTIC HORROR” could be “Necromantic Horror” or “Necromantic horror”: "
                               "write the name exactly, or the race's slug."),
    ):
        response = save(client, draft, entry(draft, participants=[{"coach": 101, "race": race}], games=[]))
        assert errors_of(response, "participants")[0] == {"race": [message]}


def test_a_coach_is_given_by_number_by_name_or_as_the_suggestions_write_him(client, owner, draft, coaches):
    CoachFactory(number=201, name="Ádám Tóth")
    client.force_login(owner)
    participants = [{"coach": "Coach 101 (101)", "race": "human"}, {"coach": "102", "race": "orc"},
                    {"coach": "adam toth", "race": "dwarf"}, {"coach": " Coach 104 ", "race": "skaven"}]
    games = [game(1, "Coach 101 (101)", "adam toth"), game(1, "102", "Coach 104 (104)")]
    response = save(client, draft, entry(draft, participants=participants, games=games))
    assert response.status_code == 302, response.context and response.context["summary"]
    assert sorted(Participant.objects.filter(event=draft).values_list("coach__number", flat=True)) == [101, 102, 104, 201]
    assert sorted(Game.objects.filter(event=draft).values_list("home_coach__number", "away_coach__number")) == [(101, 201), (102, 104)]


def test_a_coach_name_that_finds_no_one_several_or_another_coach_is_refused(client, owner, draft, coaches):
    client.force_login(owner)
    participants = [{"coach": "Nobody", "race": "human"}, {"coach": "Coach", "race": "orc"},
                    {"coach": "Coach 999 (103)", "race": "dwarf"}, {"coach": "99999999999", "race": "skaven"}]
    response = save(client, draft, entry(draft, participants=participants, games=[]))
    assert [e.get("coach") for e in errors_of(response, "participants")[:4]] == [
        ["No coach is called “Nobody”: type the coach's federation number."],
        ["“Coach” could be several coaches: Coach 101 (101), Coach 102 (102), Coach 103 (103), Coach 104 (104). "
         "Choose a suggestion or type the number."],
        ["Coach 103 is “Coach 103”, not “Coach 999”: choose a suggestion or type the number."],
        ["No coach has the number 99999999999."],
    ]
    assert_nothing_saved(draft)


def test_the_coach_inputs_suggest_the_event_participants_by_name_and_number(client, owner, draft, coaches):
    client.force_login(owner)
    assert save(client, draft, entry(draft)).status_code == 302
    html = client.get(edit_url(draft) + "?round=1").content.decode()
    datalist = re.search(r'<datalist id="event-coaches">(.*?)</datalist>', html, re.S).group(1)
    assert re.findall(r'<option value="([^"]+)">', datalist) == [f"Coach {n} ({n})" for n in (101, 102, 103, 104)]
    assert re.search(r'<input type="text" name="games-0-home_coach" value="101" list="event-coaches"', html)


def test_more_game_rows_come_without_saving_and_keep_what_was_typed(client, owner, draft, coaches):
    client.force_login(owner)
    data = entry(draft, games=[game(1, 101, 102, 2, 1), game(1, 103, 103)])
    response = client.post(edit_url(draft), data | {"action": "more_games"})
    assert response.status_code == 200
    assert_nothing_saved(draft)
    html = response.content.decode()
    shown = Controls(html).values
    assert len(response.context["entry"].games.forms) == 2 + 8 and shown["games-TOTAL_FORMS"] == "10"
    assert {name: shown[name] for name in data if not name.endswith("_FORMS")} == {
        name: str(value) for name, value in data.items() if not name.endswith("_FORMS")
    }
    assert [shown[f"games-9-{name}"] for name in ("round", "home_coach", "home_td", "away_td", "kind")] == ["", "", "0", "0", "played"]
    # the coach against himself is told only when the page is saved
    assert "cannot play against himself" not in html and 'class="has-error"' not in html
    shown["games-1-away_coach"] = "104"
    response = save(client, draft, shown)
    assert response.status_code == 302, response.context and response.context["summary"]
    assert sorted(Game.objects.filter(event=draft).values_list("home_coach__number", "away_coach__number")) == [(101, 102), (103, 104)]


def test_a_coach_entered_in_an_overlapping_event_is_warned_about_not_refused(client, owner, draft, coaches):
    other = EventFactory(name="Leiden Cup", start_date=END, end_date=END, status=EventStatus.SANCTIONED)
    later = EventFactory(name="Rotterdam Bowl", start_date=END.replace(day=20), status=EventStatus.SANCTIONED)
    hidden = EventFactory(name="Someone's Draft", start_date=START, status=EventStatus.DRAFT)
    for event in (other, later, hidden):
        Participant.objects.create(event=event, coach=coaches[103], race=Race.objects.get(slug="orc"))
    client.force_login(owner)
    response = save(client, draft, entry(draft))
    assert response.status_code == 302
    warning = "Coach 103 (103) is also entered in Leiden Cup, 2024-05-05 to 2024-05-05: the dates overlap."
    page = client.get(response["Location"]).content.decode()
    assert "The event is saved." in page and warning in page
    html = client.get(edit_url(draft)).content.decode()
    assert warning in html and "Rotterdam Bowl" not in html and "Someone&#x27;s Draft" not in html
    # as typed, before saving: 103 taken out, the warning goes
    data = entry(draft, participants=[{"coach": 101, "race": "human"}], games=[])
    data["event-name"] = ""
    response = save(client, draft, data)
    assert response.status_code == 200 and response.context["overlaps"] == []
