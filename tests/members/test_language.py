"""The member's language (Preferences.language): stored at sign-up as the language of the page he
signed up on, changed on his page, and the language of every e-mail the site sends him (notices,
sign-up confirmation, password reset), whatever page language happens to be running."""
import datetime as dt
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils import translation

from audit.models import AuditRecord
from members import services
from members.models import Notice, NoticeKind, Preferences
from ratings.models import RatingSystem
from tests.roles import PASSWORD, SIGN_UP, client_of, member

pytestmark = pytest.mark.django_db


def speaking(username: str, language: str | None) -> User:
    """A member with this language (None: no preferences recorded, as before the field existed)."""
    user = member(username)
    if language is not None:
        Preferences.objects.create(member=user, language=language)
    return user


def list_notice(user) -> Notice:
    return Notice.objects.create(
        member=user, kind=NoticeKind.LIST_PUBLISHED, system=RatingSystem.objects.get(slug="elo"),
        params={"date": dt.date(2024, 9, 1).isoformat(), "rated": 12}, path="/lists/elo/2024-09/",
    )


@pytest.mark.parametrize(("address", "language"), [("/accounts/signup/", "en-gb"), ("/nl/accounts/signup/", "nl")])
def test_a_sign_up_stores_the_language_of_its_page(address, language, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        assert Client().post(address, SIGN_UP).status_code == 302
    assert Preferences.objects.get(member__username="nina").language == language


def test_a_member_who_reads_dutch_gets_his_notices_in_dutch_and_another_in_english():
    nora, eric, old = speaking("nora", "nl"), speaking("eric", "en-gb"), speaking("olaf", None)
    notices = [list_notice(nora), list_notice(eric), list_notice(old)]
    with translation.override("nl"):  # the page that happens to run does not decide
        assert services.notices_mail(notices=notices) == 3
    by_address = {message.to[0]: message for message in mail.outbox}
    dutch = by_address["nora@example.org"]
    assert dutch.subject == "Ratingmeldingen"
    assert dutch.body.startswith("Nieuw op de ratingsite van de federatie:")
    assert "de lijst van september 2024 is gepubliceerd, 12 coaches met een rating" in dutch.body
    assert "http://127.0.0.1:8000/nl/lists/elo/2024-09/" in dutch.body
    assert "Wijzig op uw pagina waarover u meldingen krijgt: http://127.0.0.1:8000/nl/members/me/" in dutch.body
    for english in (by_address["eric@example.org"], by_address["olaf@example.org"]):
        assert english.subject == "Rating notices"
        assert english.body.startswith("New on the federation's rating site:")
        assert "the list of September 2024 is published, 12 coaches rated" in english.body
        assert "http://127.0.0.1:8000/lists/elo/2024-09/" in english.body
        assert "/nl/" not in english.body


def test_the_sign_up_confirmation_sent_again_is_in_the_members_language(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        Client().post("/nl/accounts/signup/", SIGN_UP)
        Client().post("/accounts/signup/", {**SIGN_UP, "username": "nina2"})  # the same address, never confirmed
    first, again = mail.outbox
    assert first.subject == again.subject == "Bevestig uw e-mailadres"
    assert re.search(r"http://testserver/nl/accounts/signup/confirm/\S+/", again.body)


def test_a_password_reset_is_mailed_in_the_members_language():
    speaking("nora", "nl")
    speaking("eric", "en-gb")
    for address in ("nora@example.org", "eric@example.org"):
        assert Client().post("/accounts/password/reset/", {"email": address}).status_code == 302
    dutch, english = mail.outbox
    assert dutch.subject.startswith("Stel uw wachtwoord op ")
    assert dutch.body.startswith("Iemand heeft gevraagd het wachtwoord van het account nora op ")
    assert re.search(r"http://testserver/nl/accounts/reset/\S+/", dutch.body)
    assert english.subject.startswith("Reset your password at ")
    assert re.search(r"http://testserver/accounts/reset/\S+/", english.body)


def test_a_password_reset_for_an_account_without_preferences_follows_the_page():
    member("mia")
    Client().post("/nl/accounts/password/reset/", {"email": "mia@example.org"})
    [message] = mail.outbox
    assert message.subject.startswith("Stel uw wachtwoord op ")


def test_the_member_chooses_his_language_on_his_page():
    nora = speaking("nora", "en-gb")
    client = client_of(nora)
    page = client.get("/nl/members/me/").content.decode()
    assert '<label for="id_language">Taal van onze e-mails:</label>' in page
    assert '<option value="en-gb" selected>English</option>' in page
    response = client.post("/members/me/preferences/", {"language": "nl"}, follow=True)
    assert response.redirect_chain == [("/members/me/", 302)]
    assert "Your preferences are saved." in response.content.decode()
    assert Preferences.objects.get(member=nora).language == "nl"
    record = AuditRecord.objects.get(action="member.preferences")
    assert (record.before["language"], record.after["language"]) == ("en-gb", "nl")
    assert '<option value="nl" selected>Nederlands</option>' in client.get("/members/me/").content.decode()
    # a form without the field (an older page) keeps the language
    assert client.post("/members/me/preferences/", {"email_notices": "on"}).status_code == 302
    assert Preferences.objects.get(member=nora).language == "nl"


@pytest.mark.parametrize(("address", "message"), [
    ("/members/me/preferences/", "“fr” is not a language of this site: choose one from the list."),
    ("/nl/members/me/preferences/", "“fr” is geen taal van deze site: kies er een uit de lijst."),
])
def test_a_tampered_language_is_refused_clearly_and_changes_nothing(address, message):
    nora = speaking("nora", "nl")
    response = client_of(nora).post(address, {"language": "fr", "email_notices": "on"})
    assert response.status_code == 400
    assert message in response.content.decode()
    preferences = Preferences.objects.get(member=nora)
    assert (preferences.language, preferences.email_notices) == ("nl", False)
    assert not AuditRecord.objects.filter(action="member.preferences").exists()


def test_the_service_refuses_a_language_the_site_does_not_speak():
    nora = speaking("nora", "en-gb")
    with pytest.raises(Exception, match="is not a language of this site"):
        services.preferences_update(member=nora, email_notices=True, system_ids=[], language="fr")
    assert Preferences.objects.get(member=nora).email_notices is False


def test_a_member_without_preferences_reads_the_sites_default():
    assert services.preferences_get(member=member("mia")).language == "en-gb"
    assert services.site_language("nl-be") == "nl"
    assert services.site_language("de") == "en-gb"
    assert services.site_language(None) == "en-gb"


def test_the_reset_form_still_logs_in(client):
    """The member's language changes the e-mail only: the reset link still sets the password."""
    speaking("nora", "nl")
    client.post("/accounts/password/reset/", {"email": "nora@example.org"})
    link = re.search(r"http://testserver(/nl/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    new = {"new_password1": "another-long-phrase-7", "new_password2": "another-long-phrase-7"}
    assert client.post(form.redirect_chain[-1][0], new).status_code == 302
    nora = User.objects.get(username="nora")
    assert nora.check_password("another-long-phrase-7") and not nora.check_password(PASSWORD)
