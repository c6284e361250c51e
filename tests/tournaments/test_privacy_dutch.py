"""The privacy pages in Dutch under /nl/ (the public page and the staff's page of a coach, its form and
messages), the English ones unchanged at the bare addresses, and the public page telling the truth:
what it says a pseudonym and a hidden coach show is what the coach's page shows."""
import datetime as dt

import pytest
from django.test import Client

from tests.factories import CoachFactory
from tests.roles import staff
from tournaments.models import Coach, Visibility

pytestmark = pytest.mark.django_db


def text(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


def test_the_privacy_page_is_dutch_under_nl():
    page = text(Client().get("/nl/about/privacy/"))
    assert '<html lang="nl"' in page
    assert "<h1>Privacy: wat openbaar is, en waarom</h1>" in page
    assert "gerechtvaardigd belang van de federatie (AVG artikel 6, lid 1, onder f)" in page
    assert "de uitvoering van een overeenkomst" in page
    assert "<strong>Een pseudoniem</strong> vervangt alleen de naam" in page
    assert "De nationaliteit en het lidmaatschapsjaar blijven zichtbaar." in page
    assert "zij tonen alleen “Anonymous coach” gevolgd door een eigen code van de coach" in page
    assert "zonder nationaliteit en zonder lidmaatschapsjaar" in page
    assert "(“Lid sinds” op de pagina van de coach)" in page
    assert 'de bestanden (<a href="/nl/data/">/nl/data/</a>)' in page
    assert 'de API (<a href="/api/v1/">/api/v1/</a>)' in page
    assert "na een bedenktijd van 30 dagen" in page
    assert "<h2 id=\"rights\">Uw rechten</h2>" in page
    for english in ("What is public", "legitimate interest", "A pseudonym", "Your rights", "How long"):
        assert english not in page


def test_the_privacy_page_stays_english_at_its_bare_address():
    page = text(Client().get("/about/privacy/"))
    assert '<html lang="en' in page
    assert "<h1>Privacy: what is public, and why</h1>" in page
    assert "on the basis of the federation's legitimate interest" in page
    assert "<strong>A pseudonym</strong> replaces only the name" in page
    assert "The nationality and the membership year stay shown." in page
    assert "with no nationality and no membership year" in page
    assert "(“Member since” on the coach's page)" in page
    assert 'the files (<a href="/data/">/data/</a>)' in page
    # the page once listed membership dates as not public, while a coach's page shows "Member since"
    assert "birth years, membership dates" not in page
    assert "gerechtvaardigd" not in page


@pytest.mark.parametrize(("visibility", "details_shown"), [
    (Visibility.PUBLIC, True), (Visibility.PSEUDONYM, True), (Visibility.HIDDEN, False),
])
def test_the_coach_page_shows_what_the_privacy_page_says(visibility, details_shown):
    coach = CoachFactory(number=321, name="Rita Real", nationality="BE", member_since=dt.date(2015, 4, 1),
                         visibility=visibility, pseudonym="Orc Queen" if visibility == Visibility.PSEUDONYM else "")
    for address, since in (("/coaches/321/", "Member since 2015."), ("/nl/coaches/321/", "Lid sinds 2015.")):
        page = text(Client().get(address))
        assert (since in page) is details_shown
        assert ("België" in page or "Belgium" in page) is details_shown
        assert ("Rita Real" in page) is (visibility == Visibility.PUBLIC)
    if visibility == Visibility.HIDDEN:
        assert Coach.objects.get(pk=coach.pk).label in text(Client().get("/coaches/321/"))


@pytest.fixture
def staff_client(db):
    client = Client()
    client.force_login(staff("sam"))
    return client


def test_the_staff_privacy_page_is_dutch_under_nl(staff_client):
    CoachFactory(number=101, name="Anna Jansen")
    page = text(staff_client.get("/nl/staff/coaches/101/privacy/"))
    assert "<h1>Privacy van Anna Jansen (101)</h1>" in page
    assert "tonen deze coach als <strong>Anna Jansen</strong>. De pagina's van de staf tonen de naam." in page
    assert "<legend>Getoond aan het publiek</legend>" in page
    for choice in ("Naam getoond", "Pseudoniem getoond", "Verborgen: een anoniem label getoond"):
        assert f">{choice}</label>" in page
    assert "Getoond in plaats van de naam wanneer “Pseudoniem getoond” gekozen is." in page
    assert "na een bedenktijd van 30 dagen" in page
    assert "Vraag om verwijdering van coach 101</button>" in page
    assert "Download alles wat over coach 101 bewaard wordt (JSON)" in page
    english = text(staff_client.get("/staff/coaches/101/privacy/"))
    assert "<h1>Privacy of Anna Jansen (101)</h1>" in english and ">Pseudonym shown</label>" in english


def test_the_staff_privacy_form_answers_in_dutch(staff_client):
    CoachFactory(number=101, name="Anna Jansen")
    missing = text(staff_client.post("/nl/staff/coaches/101/privacy/", {"action": "privacy", "visibility": "pseudonym"}))
    assert "Geef het pseudoniem op dat getoond moet worden." in missing
    tampered = text(staff_client.post("/nl/staff/coaches/101/privacy/", {"action": "privacy", "visibility": "famous"}))
    assert "“famous” is geen keuze voor wat het publiek ziet: kies een van de drie." in tampered
    assert Coach.objects.get(number=101).visibility == Visibility.PUBLIC  # nothing changed
    done = staff_client.post("/nl/staff/coaches/101/privacy/", {"action": "privacy", "visibility": "pseudonym",
                                                                 "pseudonym": "Orc Queen"}, follow=True)
    assert done.redirect_chain == [("/nl/staff/coaches/101/privacy/", 302)]
    assert "Coach 101 wordt het publiek nu getoond als “Orc Queen”." in text(done)
    asked = staff_client.post("/nl/staff/coaches/101/privacy/", {"action": "request_erasure"}, follow=True)
    assert "Coach 101 wordt op " in text(asked) and ", tenzij dat geannuleerd wordt." in text(asked)
    assert "Verwijdering gevraagd op " in text(asked)
    cancelled = staff_client.post("/nl/staff/coaches/101/privacy/", {"action": "cancel_erasure"}, follow=True)
    assert "De verwijdering van coach 101 is geannuleerd." in text(cancelled)
    assert staff_client.get("/nl/staff/coaches/999/privacy/").status_code == 404
