"""Claiming a coach record: at once with the code on the organiser's results, or by asking staff;
one member per coach; staff release a claim and undo the release; every step audited."""
import re

import pytest
from django.test import Client

from audit.models import AuditRecord
from members import services
from members.models import Claim, ClaimSecret
from tests.roles import client_of, member, organiser, staff
from tournaments.models import Coach, Participant, Race

pytestmark = pytest.mark.django_db


@pytest.fixture
def olga(pair):
    """The organiser of the event Anna and Bert played, with both registered as participants."""
    olga = organiser("olga")
    event = pair["event"]
    event.organiser = olga
    event.save(update_fields=["organiser"])
    for coach in (pair["anna"], pair["bert"]):
        Participant.objects.get_or_create(event=event, coach=coach, defaults={"race": Race.objects.get(slug="human")})
    return olga


def printed_codes(olga, event) -> dict[int, str]:
    page = client_of(olga).get(f"/organiser/events/{event.pk}/").content.decode()
    return {int(number): code for number, code in re.findall(r"<td>(\d+)</td><td>[^<]*</td><td><code>([A-Z2-7-]+)</code>", page)}


def claim_with_code(user, number, code):
    return client_of(user).post("/members/me/claim/", {"way": "code", "code-number": number, "code-code": code})


def test_the_organisers_page_prints_a_code_for_each_unclaimed_coach_and_no_public_page_does(pair, olga, mia):
    codes = printed_codes(olga, pair["event"])
    assert sorted(codes) == [101, 102]
    assert all(re.fullmatch(r"[A-Z2-7]{5}-[A-Z2-7]{5}", code) for code in codes.values())
    assert codes == printed_codes(olga, pair["event"])  # the same code on every print until it is used
    for page in (f"/events/{pair['event'].pk}/", "/coaches/101/", "/coaches/102/"):
        text = client_of(mia).get(page).content.decode()
        assert not any(code in text for code in codes.values()), page
    assert not ClaimSecret.objects.filter(secret__in=codes.values()).exists()  # the code is stored nowhere


def test_a_member_claims_his_coach_at_once_with_the_printed_code(pair, olga, mia):
    code = printed_codes(olga, pair["event"])[101]
    response = claim_with_code(mia, 101, code.lower().replace("-", " "))  # as typed: case and dash do not matter
    assert (response.status_code, response["Location"]) == (302, "/members/me/")
    assert Coach.objects.get(number=101).user == mia
    claim = Claim.objects.get()
    assert (claim.member, claim.coach.number, claim.method, claim.status) == (mia, 101, "code", "active")
    record = AuditRecord.objects.get(action="coach.claim")
    assert (record.actor, record.coach.number, record.before, record.after) == (mia, 101, {"member": None}, {"member": "mia"})
    # claimed: the organiser's page no longer lists the coach, and the code used is void
    assert sorted(printed_codes(olga, pair["event"])) == [102]
    other = member("max")
    refused = claim_with_code(other, 101, code)
    assert refused.status_code == 400 and "do not match" in refused.content.decode()


@pytest.mark.parametrize("number, code", [(101, "AAAAA-AAAAA"), (102, "use 101's"), (999, "AAAAA-AAAAA")])
def test_a_wrong_code_claims_nothing(pair, olga, mia, number, code):
    codes = printed_codes(olga, pair["event"])
    response = claim_with_code(mia, number, codes[101] if code == "use 101's" else code)
    assert response.status_code == 400
    assert "This number and claim code do not match" in response.content.decode()
    assert Coach.objects.filter(user=mia).count() == 0 and Claim.objects.count() == 0
    assert not AuditRecord.objects.filter(action="coach.claim").exists()


def test_a_coach_has_one_member_and_a_member_one_coach(pair, olga, mia):
    codes = printed_codes(olga, pair["event"])
    assert claim_with_code(mia, 101, codes[101]).status_code == 302
    second = claim_with_code(mia, 102, codes[102])
    assert second.status_code == 400 and "has claimed coach 101 already" in second.content.decode()
    staff_linked = member("max")
    Coach.objects.filter(number=102).update(user=staff_linked)  # linked on the staff's member page
    third = claim_with_code(member("kim"), 102, codes[102])
    assert third.status_code == 400 and "claimed by another member" in third.content.decode()
    assert Coach.objects.get(number=102).user == staff_linked


@pytest.mark.parametrize("data", [
    {"way": "steal", "code-number": "101", "code-code": "x"},
    {"way": "code", "code-number": "101; drop", "code-code": "AAAAA-AAAAA"},
    {"way": "request", "request-number": "-1"},
])
def test_a_tampered_claim_form_is_refused(pair, mia, data):
    response = client_of(mia).post("/members/me/claim/", data)
    assert response.status_code == 400
    assert Claim.objects.count() == 0 and Coach.objects.filter(user=mia).count() == 0


def test_claiming_needs_a_login(pair):
    response = Client().post("/members/me/claim/", {"way": "code", "code-number": 101, "code-code": "x"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_staff_approve_a_request_from_their_queue(pair, mia):
    asked = client_of(mia).post("/members/me/claim/", {"way": "request", "request-number": 101, "request-note": "I won the Dutch Open"})
    assert asked.status_code == 302
    claim = Claim.objects.get()
    assert (claim.status, claim.note, Coach.objects.get(number=101).user) == ("pending", "I won the Dutch Open", None)
    sam = staff("sam")
    queue = client_of(sam).get("/staff/claims/").content.decode()
    assert "I won the Dutch Open" in queue and "Anna Jansen" in queue
    response = client_of(sam).post(f"/staff/claims/{claim.pk}/decide/", {"decision": "approve"})
    assert (response.status_code, response["Location"]) == (302, "/staff/claims/")
    claim.refresh_from_db()
    assert (claim.status, claim.decided_by, Coach.objects.get(number=101).user) == ("active", sam, mia)
    assert list(AuditRecord.objects.filter(coach__number=101).order_by("id").values_list("action", "actor__username")) == [
        ("claim.request", "mia"), ("claim.approve", "sam"),
    ]
    again = client_of(sam).post(f"/staff/claims/{claim.pk}/decide/", {"decision": "approve"})
    assert again.status_code == 400 and "answered already" in again.content.decode()


def test_staff_refuse_a_request_with_a_reason_the_member_reads(pair, mia):
    claim = services.claim_request(member=mia, number=102, note="")
    sam = staff("sam")
    without = client_of(sam).post(f"/staff/claims/{claim.pk}/decide/", {"decision": "refuse"})
    assert without.status_code == 400 and Claim.objects.get().status == "pending"
    client_of(sam).post(f"/staff/claims/{claim.pk}/decide/", {"decision": "refuse", "reason": "Bert played that game"})
    assert (Claim.objects.get().status, Coach.objects.get(number=102).user) == ("refused", None)
    assert AuditRecord.objects.get(action="claim.refuse").note == "Bert played that game"
    assert "“Bert played that game”" in client_of(mia).get("/members/me/").content.decode()


def test_staff_release_a_claim_and_undo_the_release(pair, mia):
    claim = services.claim_request(member=mia, number=101)
    sam = staff("sam")
    services.claim_decide(claim_id=claim.pk, approve=True, actor=sam)
    response = client_of(sam).post("/staff/coaches/101/release/", {"reason": "claimed by mistake"})
    assert response.status_code == 302
    claim.refresh_from_db()
    assert (claim.status, claim.reason, Coach.objects.get(number=101).user) == ("released", "claimed by mistake", None)
    release = AuditRecord.objects.get(action="claim.release")
    assert (release.coach.number, release.before, release.after, release.note) == (
        101, {"member": "mia"}, {"member": None}, "claimed by mistake",
    )
    assert client_of(sam).post(f"/staff/claims/{claim.pk}/restore/").status_code == 302
    claim.refresh_from_db()
    assert (claim.status, Coach.objects.get(number=101).user) == ("active", mia)
    assert AuditRecord.objects.get(action="claim.restore").after == {"member": "mia"}


def test_a_release_is_not_restored_over_a_later_claim(pair, mia):
    sam = staff("sam")
    claim = services.claim_request(member=mia, number=101)
    services.claim_decide(claim_id=claim.pk, approve=True, actor=sam)
    services.claim_release(number=101, actor=sam, reason="wrong coach")
    max_ = member("max")
    services.claim_decide(claim_id=services.claim_request(member=max_, number=101).pk, approve=True, actor=sam)
    response = client_of(sam).post(f"/staff/claims/{claim.pk}/restore/")
    assert response.status_code == 400 and "claimed by another member" in response.content.decode()
    assert Coach.objects.get(number=101).user == max_


def test_a_coach_linked_before_claims_were_kept_can_be_released_and_restored(pair, mia):
    Coach.objects.filter(number=101).update(user=mia)
    sam = staff("sam")
    assert "Linked on the members' page" in client_of(sam).get("/staff/claims/").content.decode()
    claim = services.claim_release(number=101, actor=sam, reason="not his")
    assert (claim.method, claim.status, Coach.objects.get(number=101).user) == ("link", "released", None)
    services.claim_restore(claim_id=claim.pk, actor=sam)
    assert Coach.objects.get(number=101).user == mia


@pytest.mark.parametrize("who", ["anonymous", "member", "organiser"])
def test_the_staffs_claim_actions_are_refused_to_others_on_the_server(pair, mia, who):
    sam = staff("sam")
    pending = services.claim_request(member=mia, number=101)
    held = services.claim_request(member=member("max"), number=102)
    services.claim_decide(claim_id=held.pk, approve=True, actor=sam)
    client = Client() if who == "anonymous" else client_of(mia if who == "member" else organiser("olga"))
    expected = 302 if who == "anonymous" else 403
    for url, data in [
        ("/staff/claims/", None),
        (f"/staff/claims/{pending.pk}/decide/", {"decision": "approve"}),
        ("/staff/coaches/102/release/", {"reason": "mine now"}),
        (f"/staff/claims/{held.pk}/restore/", {}),
    ]:
        response = client.get(url) if data is None else client.post(url, data)
        assert response.status_code == expected, url
    assert Coach.objects.get(number=101).user is None and Coach.objects.get(number=102).user.username == "max"
    assert set(Claim.objects.values_list("status", flat=True)) == {"pending", "active"}


def test_a_draft_lists_no_codes_so_an_organiser_cannot_list_any_coach_to_get_his(pair, olga):
    event = pair["event"]
    event.status = "draft"
    event.save(update_fields=["status"])
    page = client_of(olga).get(f"/organiser/events/{event.pk}/").content.decode()
    assert "<code>" not in page and "Once staff sanction this event" in page
    assert printed_codes(olga, event) == {}
