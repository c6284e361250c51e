"""The pages that were English only, now in Dutch under /nl/: the calculator, an upload's problems, a
revised list's reasons, the staff's sanction preview and the audit log. The bare addresses stay
English, word for word, and the CSV files stay English whatever the address."""
import datetime as dt
from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone, translation

from audit.models import Action, AuditRecord
from rating_pages.presenters import lists as lists_page
from ratings.models import RatingSystem
from ratings.replay import next_month
from ratings.selectors.lists import RevisionReason, Revisions
from tests.factories import CoachFactory, EventFactory
from tests.ratings.test_publication import league, report_late  # noqa: F401 (a fixture)
from tests.ratings.test_sanction_impact import federation, submitted, today  # noqa: F401 (a fixture)
from tests.roles import organiser, staff
from tests.web.test_accuracy_page import evaluate
from tests.web.test_rankings import csv_text
from tournaments.models import EventStatus

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    return " ".join(response.content.decode().split())


# --- the calculator -------------------------------------------------------------------------------

RESULTS = {"rating": "150", "results": "150 1", "coaches": "20"}


def test_the_calculator_is_dutch_under_nl_and_english_at_its_bare_address(client):
    dutch = text_of(client.get("/nl/calculator/?" + urlencode(RESULTS)))
    assert "<h1>Ratingcalculator</h1>" in dutch
    assert "NAF Elo: wedstrijd voor wedstrijd" in dutch  # the breakdown's caption
    assert '<button type="submit">Berekenen</button>' in dutch
    assert "Uw rating (NAF Elo CR)" in dutch and "U en uw uitslagen" in dutch  # a label and a legend
    assert "20 coaches, geteld tot hoogstens 32" in dutch  # the K sentence, in the plural
    assert "Rating calculator" not in dutch and "game by game" not in dutch
    english = text_of(client.get("/calculator/?" + urlencode(RESULTS)))
    assert "<h1>Rating calculator</h1>" in english and "NAF Elo: game by game" in english
    assert "20 coaches, counted up to 32" in english and "Your rating (NAF Elo CR)" in english
    assert "Ratingcalculator" not in english


def test_the_calculators_refusals_are_dutch_under_nl(client):
    response = client.get("/nl/calculator/?" + urlencode({"rating": "150", "results": "abc"}))
    assert response.status_code == 400
    text = text_of(response)
    assert "Regel 1 („abc”): geef de rating van de tegenstander, eventueel diens φ, dan de score." in text
    english = text_of(client.get("/calculator/?" + urlencode({"rating": "150", "results": "abc"})))
    assert "Line 1 (“abc”): give the opponent's rating, optionally their φ, then the score." in english.replace("&#x27;", "'")


def test_the_pairing_says_in_dutch_that_a_coach_cannot_play_himself(client):
    CoachFactory(number=5)
    query = urlencode({"pairing-home_coach": "5", "pairing-away_coach": "5"})
    text = text_of(client.get("/nl/calculator/?" + query))
    assert "Een coach kan niet tegen zichzelf spelen: noem twee verschillende coaches." in text


# --- an upload with problems ----------------------------------------------------------------------

BAD_UPLOAD = (
    "round,date,home_coach,home_race,home_td,away_td,away_coach,away_race\n"
    "1,2024-05-04,101,Human,25,0,102,Orc\n"  # an impossible score
    "1,2024-05-04,103,Human,1,0,103,Orc\n"  # a coach against himself
    "2,2024-05-04,101,Human,1,0,102,Orc\n"
    "2,2024-05-04,102,Orc,0,1,101,Human\n"  # the same game again
)


def upload(client, prefix: str):
    owner = organiser("olga")
    event = EventFactory(name="Delft Open", start_date=dt.date(2024, 5, 4), end_date=dt.date(2024, 5, 5),
                         status=EventStatus.DRAFT, organiser=owner)
    client.force_login(owner)
    file = SimpleUploadedFile("delft.csv", BAD_UPLOAD.encode(), "text/csv")
    return client.post(f"{prefix}/organiser/events/{event.pk}/upload/", {"action": "check", "file": file})


def test_an_uploads_problems_are_dutch_under_nl(client):
    response = upload(client, "/nl")
    assert response.status_code == 200 and not response.context["upload"].is_valid
    text = text_of(response).replace("&#x27;", "'")
    assert "25 is geen geloofwaardig aantal touchdowns: hoogstens 20." in text
    assert "Coach 103 kan niet tegen zichzelf spelen." in text
    assert "Dubbele wedstrijd: dezelfde coaches treffen elkaar al in ronde 2 op regel 4." in text
    assert "Touchdowns thuis, 0 tot 20 (leeg bij een bye: 0)." in text  # the columns' explanation
    assert "not a believable" not in text and "cannot play against" not in text


def test_an_uploads_problems_stay_english_at_the_bare_address(client):
    text = text_of(upload(client, "")).replace("&#x27;", "'")
    assert "25 is not a believable number of touchdowns: at most 20." in text
    assert "Coach 103 cannot play against themselves." in text
    assert "Duplicate game: the same coaches already meet in round 2 on line 4." in text
    assert "Home touchdowns, 0 to 20 (empty for a bye: 0)." in text


# --- a revised list -------------------------------------------------------------------------------


def test_a_revised_lists_reasons_are_dutch_under_nl(client, league, django_capture_on_commit_callbacks):  # noqa: F811
    report_late(league, django_capture_on_commit_callbacks)
    reported = timezone.localdate()
    dutch = client.get("/nl/lists/elo/2024-07/").content.decode()
    assert f"Late Cup: gemeld op {reported:%Y-%m-%d}, na deze lijst (1 wedstrijd)" in dutch
    english = client.get("/lists/elo/2024-07/").content.decode()
    assert f"Late Cup: reported {reported:%Y-%m-%d}, after this list (1 game)" in english
    # the list's CSV is the same English file at either address
    dutch_csv = csv_text(client.get("/nl/rankings/elo/2024-07/?_export=csv"))
    assert dutch_csv == csv_text(client.get("/rankings/elo/2024-07/?_export=csv"))
    assert dutch_csv.startswith("Overall,Rank,Coach,Number,Nat.,Race,Variant,Rating,Games,Change,Counted,Played,Published")


def test_each_kind_of_revision_reads_in_dutch():
    found = Revisions(rows=[], total=0, reasons=[
        RevisionReason(dt.date(2024, 8, 3), "reported", "Late Cup", games=2),
        RevisionReason(dt.date(2024, 8, 4), "corrected", "Dutch Open", games=1),
    ])
    with translation.override("nl"):
        action = str(Action.COACH_MERGE.label)
        reasons = lists_page.worded_revisions(found).reasons
        reasons.append(lists_page.worded_revisions(Revisions(rows=[], total=0, reasons=[
            RevisionReason(dt.date(2024, 8, 5), "audit", "Anna Jansen ← Anna J.", action=action),
        ])).reasons[0])
    assert reasons == [
        "Late Cup: gemeld op 2024-08-03, na deze lijst (2 wedstrijden)",
        "Dutch Open: 1 wedstrijd gecorrigeerd op 2024-08-04",
        "Coaches samengevoegd: Anna Jansen ← Anna J. (2024-08-05)",
    ]


# --- the staff's pages ------------------------------------------------------------------------------


def test_the_sanction_preview_is_dutch_under_nl(client, federation):  # noqa: F811
    event = submitted(federation, today())
    client.force_login(staff("sam"))
    dutch = text_of(client.get(f"/nl/staff/events/{event.pk}/"))
    assert "Wat de goedkeuring zou veranderen" in dutch
    assert "ratings van 4 coaches zouden veranderen per" in dutch
    assert f"4 wedstrijden gaan in de lijst van {next_month(today()):%Y-%m-%d} (nog te verschijnen)" in dutch
    assert "What the sanction would change" not in dutch
    english = text_of(client.get(f"/staff/events/{event.pk}/"))
    assert "What the sanction would change" in english and "ratings of 4 coaches would change as of" in english


def test_audit_actions_are_shown_in_the_pages_language_and_stored_as_before(client):
    sam = staff("sam")
    event = EventFactory(name="Delft Open", status=EventStatus.SUBMITTED)
    AuditRecord.objects.create(actor=sam, action=Action.EVENT_SANCTION, object_type="event", object_id=str(event.pk),
                               object_repr="Delft Open", event=event)
    client.force_login(sam)
    dutch = text_of(client.get("/nl/staff/audit/"))
    assert "toernooi goedgekeurd" in dutch  # in the table and as the filter's option
    assert '<option value="event.sanction">toernooi goedgekeurd</option>' in dutch
    english = text_of(client.get("/staff/audit/"))
    assert "event sanctioned" in english and "toernooi goedgekeurd" not in english
    assert list(AuditRecord.objects.values_list("action", flat=True)) == ["event.sanction"]  # the stored value is the code
    review = text_of(client.get(f"/nl/staff/events/{event.pk}/"))
    assert "sam: toernooi goedgekeurd" in review


def test_the_accuracy_page_names_its_predictors_and_splits_in_dutch(client, league):  # noqa: F811
    evaluate()
    dutch = text_of(client.get("/nl/about/accuracy/"))
    assert '<th scope="row">Het ratingsysteem</th>' in dutch and '<th scope="row">Ras tegen ras</th>' in dutch
    assert "NAF Elo: log-loss per variant" in dutch  # a split's caption
    assert '<th scope="row">Andere toernooien</th>' in dutch  # the major split's row
    english = text_of(client.get("/about/accuracy/"))
    assert '<th scope="row">The rating system</th>' in english and "NAF Elo: log loss by variant" in english
    assert '<th scope="row">Other events</th>' in english
    assert "The rating system" in evaluate()  # the command prints English


def test_the_staff_system_form_is_dutch_under_nl(client):
    elo = RatingSystem.objects.get(slug="elo")
    client.force_login(staff("sam"))
    dutch = text_of(client.get(f"/nl/staff/systems/{elo.pk}/"))
    assert "Startrating" in dutch and "Wie opgeeft, verliest" in dutch  # labels
    assert "Standaard: 150." in dutch  # the default after a help text
    english = text_of(client.get(f"/staff/systems/{elo.pk}/"))
    assert "Conceder loses" in english and "Default: 150." in english
