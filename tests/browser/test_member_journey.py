"""In a browser: a member signs up, claims his coach with the code on the organiser's results,
chooses a pseudonym that every public page, download, search, statistic and feed then shows, takes
a copy of his data, reads his page in Dutch, and has his record erased; verify_ratings passes after."""
import datetime as dt
import io
import json
import re
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from members.models import Notice, NoticeKind
from members.services import preferences_get
from stats.services import summaries_refresh
from tests.roles import member, organiser
from tournaments import privacy
from tournaments.models import Coach, Participant, Race

# The journey runs on the live server, so its transactions commit; the migration's races, systems and groups come back after.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

ANNA, PSEUDONYM, PASSWORD = "Anna Jansen", "Red Baron", "a-long-pass-phrase-9"


def printed_code(league, number: int) -> str:
    """The claim code the organiser's page of the Dutch Open prints beside coach `number`."""
    olga, event = organiser("olga"), league["dutch"]
    event.organiser = olga
    event.save(update_fields=["organiser"])
    human = Race.objects.get(slug="human")  # by slug: after a serialized rollback the races' ids are new
    for coach in (league["anna"], league["bert"]):
        Participant.objects.get_or_create(event=event, coach=coach, defaults={"race": human})
    client = Client()
    client.force_login(olga)
    page = client.get(f"/organiser/events/{event.pk}/").content.decode()
    return re.search(rf"<td>{number}</td><td>[^<]*</td><td><code>([A-Z2-7-]+)</code>", page).group(1)


def sign_up_and_log_in(page) -> None:
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill("anna")
    page.get_by_label("E-mail address").fill("anna@example.org")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page).to_have_url(re.compile(r"/accounts/signup/sent/$"))
    assert [m.to for m in mail.outbox] == [["anna@example.org"]]
    link = re.search(r"https?://[^/\s]+(/accounts/signup/confirm/\S+/)", mail.outbox[-1].body).group(1)
    page.goto(link)
    page.get_by_role("button", name="Confirm and open my account").click()
    page.get_by_label("Username").fill("anna")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def public_texts(page, league) -> dict[str, str]:
    """What the public sees of coach 101 on every kind of public page and download, by what it is."""
    pages = {
        "ranking": "/rankings/elo/", "coach page": "/coaches/101/", "breakdown": "/coaches/101/breakdown/elo/",
        "opponent's breakdown": "/coaches/102/breakdown/elo/", "event page": f"/events/{league['dutch'].pk}/",
        "search": f"/coaches/?q={PSEUDONYM.split()[0]}", "statistics top": "/stats/top/",
        "head to head": "/stats/head-to-head/?coach=101&coach=102",
    }
    texts = {}
    for what, url in pages.items():
        page.goto(url)
        texts[what] = page.content()
    texts["ranking csv"] = page.request.get("/rankings/elo/?_export=csv").text()
    texts["statistics csv"] = page.request.get("/stats/top/?_export=csv&_table=games").text()
    return texts


def test_a_member_signs_up_claims_chooses_a_pseudonym_exports_reads_dutch_and_is_erased(page, league):
    anna = league["anna"]
    summaries_refresh()  # the statistics' summaries, as the nightly task leaves them
    code = printed_code(league, 101)
    follower = member("max")  # follows Anna: his feed names her as the public sees her
    Notice.objects.create(member=follower, kind=NoticeKind.FOLLOWED_RATING, coach=anna, path="/coaches/101/",
                          title=f"{ANNA}'s NAF Elo rating is now 150.03")

    sign_up_and_log_in(page)
    page.goto("/members/me/claim/")
    page.locator("#id_code-number").fill("101")
    page.locator("#id_code-code").fill(code)
    page.get_by_role("button", name="Claim with the code").click()
    expect(page.locator(".messages")).to_contain_text(f"Coach 101, {ANNA}, is yours.")

    # a pseudonym, chosen on the member's page, takes effect everywhere public
    page.get_by_label("A pseudonym of my choice").check()
    page.locator("#id_privacy_101_pseudonym").fill(PSEUDONYM)
    page.get_by_role("button", name="Save my choice").click()
    expect(page.locator(".messages")).to_contain_text(f"The public now sees coach 101 as “{PSEUDONYM}”.")
    feed_path = re.search(r"https?://[^/]+(/members/feed/[^/]+/)", page.locator("#feed-address").input_value()).group(1)
    shown = public_texts(page, league)
    assert [what for what, text in shown.items() if ANNA in text or "Jansen" in text] == []
    assert [what for what, text in shown.items() if PSEUDONYM not in text] == []
    assert ANNA not in page.request.get(feed_path).text()
    follower_feed = Client().get(f"/members/feed/{preferences_get(member=follower).feed_token}/").content.decode()
    assert f"{PSEUDONYM}'s NAF Elo rating is now 150.03" in follower_feed and ANNA not in follower_feed

    # the copy of everything held holds the real data
    page.goto("/members/me/")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download everything held about you (JSON)").click()
    assert download.value.suggested_filename == "coach-101-data.json"
    data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert (data["coach"]["name"], data["coach"]["public_name"], data["account"]["email"]) == (ANNA, PSEUDONYM, "anna@example.org")
    assert {g["opponent"] for g in data["games"]} >= {"Bert Smith"}

    # the member's page in Dutch
    page.goto("/nl/members/me/")
    assert page.locator("html").get_attribute("lang") == "nl"
    expect(page.get_by_role("heading", level=1)).to_have_text("Uw lidmaatschap")
    expect(page.get_by_role("button", name="Mijn keuze opslaan")).to_be_visible()

    # an erasure, confirmed, then carried out 31 days later: the games and every figure stay
    page.goto("/members/me/")
    page.get_by_role("link", name="Ask for the erasure of your coach record").click()
    expect(page.locator(".erasure-terms")).to_contain_text("Your games stay")
    expect(page.locator(".erasure-terms")).to_contain_text(anna.label)
    page.get_by_role("button", name="Erase coach 101 after the grace period").click()
    expect(page.locator(".erasure-pending")).to_contain_text("it is carried out on")
    assert privacy.coaches_erase_due(now=timezone.now() + dt.timedelta(days=31)) == [101]
    erased = Coach.objects.get(number=101)
    assert (erased.name, erased.public_name, erased.user) == (anna.label, anna.label, None)
    out = io.StringIO()
    call_command("verify_ratings", "--today", "2024-09-15", stdout=out)  # raises CommandError on any difference
    assert "elo: every stored figure matches a fresh recalculation" in out.getvalue()
    page.goto("/rankings/elo/")
    ranking = page.content()
    assert anna.label in ranking and PSEUDONYM not in ranking and ANNA not in ranking
