"""The private Atom feed of a member's notices: valid Atom, at a secret address he can renew."""
import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from audit.models import AuditRecord
from members import services
from members.models import Notice, NoticeKind
from tests.roles import member

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def noticed(pair, mia):
    Notice.objects.create(
        member=mia, kind=NoticeKind.FOLLOWED_RATING, coach=pair["bert"], title="Bert Smith's NAF Elo rating is now 150.03",
        path="/coaches/102/", before=148.59, after=150.03,
    )
    Notice.objects.create(member=member("max"), kind=NoticeKind.OWN_RATING, title="Someone else's notice", path="/coaches/101/")
    return services.preferences_get(member=mia).feed_token


def test_the_feed_is_valid_atom_with_the_members_notices_only(noticed):
    response = Client().get(f"/members/feed/{noticed}/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    assert response["Cache-Control"] == "private, no-store"
    feed = ET.fromstring(response.content)
    assert feed.tag == f"{ATOM}feed"
    # RFC 4287: a feed has exactly one id, title and updated, and each entry its own id, title, updated and a link
    for name in ("id", "title", "updated"):
        assert len(feed.findall(f"{ATOM}{name}")) == 1, name
    assert feed.find(f"{ATOM}title").text == "Rating notices for mia"
    entries = feed.findall(f"{ATOM}entry")
    assert [entry.find(f"{ATOM}title").text for entry in entries] == ["Bert Smith's NAF Elo rating is now 150.03"]
    entry = entries[0]
    assert entry.find(f"{ATOM}id").text.startswith("tag:127.0.0.1,")
    assert entry.find(f"{ATOM}link").get("href") == "http://testserver/coaches/102/"
    assert entry.find(f"{ATOM}updated").text


def test_a_wrong_token_finds_no_feed(noticed):
    assert Client().get("/members/feed/not-the-token/").status_code == 404
    assert Client().get(f"/members/feed/{noticed[:-1]}/").status_code == 404


def test_a_member_renews_his_feeds_address_and_the_old_one_stops_answering(noticed, mia):
    client = Client()
    client.force_login(mia)
    assert f"/members/feed/{noticed}/" in client.get("/members/me/").content.decode()
    assert client.get("/members/me/feed/reset/").status_code == 405
    assert client.post("/members/me/feed/reset/").status_code == 302
    renewed = services.preferences_get(member=mia).feed_token
    assert renewed != noticed
    assert Client().get(f"/members/feed/{noticed}/").status_code == 404
    assert Client().get(f"/members/feed/{renewed}/").status_code == 200
    assert AuditRecord.objects.filter(action="member.feed_reset", member=mia).count() == 1


def test_a_deactivated_members_feed_is_gone(noticed, mia):
    mia.is_active = False
    mia.save(update_fields=["is_active"])
    assert Client().get(f"/members/feed/{noticed}/").status_code == 404
