"""The members' pages in Dutch under /nl/ (formal "u"), the English ones unchanged at the bare
addresses, and the sign-up's e-mails in the language of the page the member signed up on."""
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from members import services
from tests.roles import SIGN_UP, client_of, member, organiser, staff
from tournaments.models import Participant, Race

pytestmark = pytest.mark.django_db


def sign_up(address: str, django_capture_on_commit_callbacks, **changes):
    with django_capture_on_commit_callbacks(execute=True):
        return Client().post(address, {**SIGN_UP, **changes})


def test_the_sign_up_page_is_dutch_under_nl():
    page = Client().get("/nl/accounts/signup/").content.decode()
    assert "<h1>Aanmelden</h1>" in page
    assert "Met een account claimt u uw coachgegevens" in page
    assert '<label for="id_email">E-mailadres:</label>' in page
    assert 'Hebt u een account? <a href="/nl/accounts/login/">Log in</a>.' in page
    assert 'action="/nl/accounts/signup/"' in page


def test_a_sign_up_under_nl_is_answered_and_mailed_in_dutch(django_capture_on_commit_callbacks):
    response = sign_up("/nl/accounts/signup/", django_capture_on_commit_callbacks)
    assert (response.status_code, response["Location"]) == (302, "/nl/accounts/signup/sent/")
    assert "Wij hebben een bericht gestuurd" in Client().get(response["Location"]).content.decode()
    [message] = mail.outbox
    assert message.subject == "Bevestig uw e-mailadres"
    assert message.body.startswith("Iemand, hopelijk u, heeft zich met dit adres als nina aangemeld")
    link = re.search(r"http://testserver(/nl/accounts/signup/confirm/\S+/)", message.body).group(1)
    client = Client()
    assert "Bevestig en open mijn account" in client.get(link).content.decode()
    confirmed = client.post(link, follow=True)
    assert confirmed.redirect_chain == [("/nl/accounts/login/", 302)]
    assert "Uw e-mailadres is bevestigd: log in." in confirmed.content.decode()
    assert User.objects.get(username="nina").is_active


def test_a_sign_up_at_the_bare_address_stays_english(django_capture_on_commit_callbacks):
    sign_up("/accounts/signup/", django_capture_on_commit_callbacks)
    [message] = mail.outbox
    assert message.subject == "Confirm your e-mail address"
    assert message.body.startswith("Someone, hopefully you, signed up for the federation's rating site as nina")


def test_an_address_registered_already_is_told_so_in_dutch(django_capture_on_commit_callbacks):
    member("nina")
    sign_up("/nl/accounts/signup/", django_capture_on_commit_callbacks, username="nina2")
    [message] = mail.outbox
    assert message.subject == "Uw account bij de ratings van de federatie"
    assert "dit adres heeft al een account (nina)" in message.body


def test_a_refused_sign_up_says_why_in_dutch(settings):
    settings.SIGNUP_LIMIT_PER_EMAIL = 0
    response = Client().post("/nl/accounts/signup/", SIGN_UP)
    assert response.status_code == 429
    assert "Te veel aanmeldingen vanaf uw adres of voor dit e-mailadres. Probeer het over" in response.content.decode()


def test_the_claim_page_is_dutch_and_its_refusals_too(pair, mia):
    client = client_of(mia)
    page = client.get("/nl/members/me/claim/").content.decode()
    assert "<h1>Claim uw coachgegevens</h1>" in page
    assert '<label for="id_code-number">Coachnummer:</label>' in page
    assert '<button type="submit" name="way" value="request">Vraag het aan de staf</button>' in page
    wrong = client.post("/nl/members/me/claim/", {"way": "code", "code-number": 101, "code-code": "AAAAA-AAAAA"})
    assert wrong.status_code == 400
    assert "Dit nummer en deze claimcode horen niet bij elkaar" in wrong.content.decode()
    unknown = client.post("/nl/members/me/claim/", {"way": "request", "request-number": 999})
    assert "Geen coach heeft het nummer 999." in unknown.content.decode()
    asked = client.post("/nl/members/me/claim/", {"way": "request", "request-number": 101}, follow=True)
    assert asked.redirect_chain == [("/nl/members/me/", 302)]
    text = asked.content.decode()
    assert "U hebt om coach 101 gevraagd: de staf keurt het verzoek goed of weigert het." in text
    assert "Coach 101 (Anna Jansen): wacht op de staf, aan de staf gevraagd" in text


def test_the_member_page_is_dutch_under_nl(pair, mia):
    client = client_of(mia)
    client.post("/nl/members/follow/102/", {"next": "/nl/members/me/"})
    page = client.get("/nl/members/me/").content.decode()
    assert "<h1>Uw lidmaatschap</h1>" in page
    assert "U hebt nog geen coachgegevens geclaimd." in page
    assert "Nog geen meldingen: die komen wanneer een herberekening uw rating verandert" in page
    assert 'aria-label="Bert Smith niet meer volgen">Niet meer volgen</button>' in page
    assert "Stuur mijn meldingen ook per e-mail" in page and "Geef mijn feed een nieuw adres" in page
    assert "U volgt Bert Smith: wijzigingen in diens rating komen bij uw meldingen." in page


def test_the_coach_pages_follow_button_is_dutch(pair, mia):
    page = client_of(mia).get("/nl/coaches/102/").content.decode()
    assert "<button type=\"submit\">Bert Smith volgen</button>" in page


def test_the_organisers_claim_codes_and_the_staffs_queue_are_dutch(pair, mia):
    olga = organiser("olga")
    event = pair["event"]
    event.organiser = olga
    event.save(update_fields=["organiser"])
    for coach in (pair["anna"], pair["bert"]):
        Participant.objects.get_or_create(event=event, coach=coach, defaults={"race": Race.objects.get(slug="human")})
    codes = client_of(olga).get(f"/nl/organiser/events/{event.pk}/").content.decode()
    assert '<h2 id="claim-codes-heading">Claimcodes</h2>' in codes
    assert '(<a href="/nl/members/me/claim/">Claim uw coachgegevens</a>)' in codes

    services.claim_request(member=mia, number=101, note="")
    queue = client_of(staff("sam")).get("/nl/staff/claims/").content.decode()
    assert "<h1>Claims van coaches</h1>" in queue
    assert "Wacht op u (1)" in queue
    assert "Besluit over het verzoek van mia om 101" in queue
    refused = client_of(staff("sam2")).post(f"/nl/staff/claims/{mia.coach_claims.get().pk}/decide/", {"decision": "refuse"})
    assert "Zeg waarom het verzoek geweigerd wordt: het lid leest het." in refused.content.decode()
