"""A likely duplicate event: the same pairings with the same scores on the same days, or the same coaches
playing two events at once, found and shown on the upload preview, the organiser's event page, the
submit page and the staff review; sanctioning one needs a confirmation and a reason (issue 30, point 1)."""
import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from audit.models import AuditRecord
from tests.factories import CoachFactory, EventFactory, RoundFactory, play, race
from tests.roles import organiser, staff
from tournaments import selectors, services
from tournaments.models import Event, EventStatus
from tournaments.uploads import GameEntry

pytestmark = pytest.mark.django_db

SATURDAY, SUNDAY = dt.date(2024, 5, 4), dt.date(2024, 5, 5)


@pytest.fixture
def ux_open():
    """The sanctioned UX Open: eight coaches, two rounds on Saturday, one on Sunday, twelve games."""
    event = EventFactory(name="UX Open", start_date=SATURDAY, end_date=SUNDAY, status=EventStatus.SANCTIONED, organiser=organiser("ursula"))
    coaches = [CoachFactory(number=700 + n, name=f"Player {n}") for n in range(8)]
    rounds = [RoundFactory(event=event, number=1, date=SATURDAY), RoundFactory(event=event, number=2, date=SATURDAY),
              RoundFactory(event=event, number=3, date=SUNDAY)]
    pairings = [[(0, 1), (2, 3), (4, 5), (6, 7)], [(1, 2), (3, 4), (5, 6), (7, 0)], [(0, 2), (1, 3), (4, 6), (5, 7)]]
    scores = [(2, 1), (1, 1), (0, 2), (3, 0)]
    for number, (round_, tables) in enumerate(zip(rounds, pairings, strict=True)):
        for table, (home, away) in enumerate(tables):
            play(round_, coaches[home], coaches[away], scores[(table + number) % 4],
                 home_race=("human", "orc")[home % 2], away_race=("human", "orc")[away % 2])
    return event


def naf_report(event: Event) -> bytes:
    """The NAF report a tournament program exports of this event's games."""
    games = []
    for game in event.games.select_related("round", "home_coach", "away_coach", "home_race", "away_race").order_by("round__number", "id"):
        at = f"{game.round.date:%Y-%m-%d} {9 + 2 * game.round.number:02d}:00"
        records = "".join(
            f"<playerRecord><name>{coach.name}</name><number>{coach.number}</number><team>{race.name}</team>"
            f"<touchDowns>{td}</touchDowns><badlyHurt>0</badlyHurt></playerRecord>"
            for coach, race, td in ((game.home_coach, game.home_race, game.home_touchdowns),
                                    (game.away_coach, game.away_race, game.away_touchdowns))
        )
        games.append(f"<game><timeStamp>{at}</timeStamp>{records}</game>")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<nafReport><organiser>Olga</organiser>", *games, "</nafReport>"]
    return "\n".join(lines).encode()


@pytest.fixture
def olga(client):
    user = organiser("olga")
    client.force_login(user)
    return user


@pytest.fixture
def again(ux_open, olga):
    """A new draft of the same weekend, by another organiser, into which the UX Open's report is uploaded."""
    return EventFactory(name="UX Open (again)", start_date=SATURDAY, end_date=SUNDAY, status=EventStatus.DRAFT, organiser=olga)


def upload(client, event, data):
    url = f"/organiser/events/{event.pk}/upload/"
    response = client.post(url, {"action": "check", "file": SimpleUploadedFile("ux.xml", data, "application/xml")})
    assert response.status_code == 200 and response.context["upload"].errors == []
    return response


def confirm_upload(client, event):
    digest = client.session[f"results-upload-{event.pk}"]["digest"]
    assert client.post(f"/organiser/events/{event.pk}/upload/", {"action": "confirm", "digest": digest}).status_code == 302


def test_the_upload_preview_of_a_sanctioned_events_report_names_it_as_a_likely_duplicate(client, ux_open, again):
    response = upload(client, again, naf_report(ux_open))
    [duplicate] = response.context["likely_duplicates"]
    assert (duplicate.event, duplicate.same_games, duplicate.same_pairings, duplicate.of_games) == (ux_open, 12, 0, 12)
    assert (duplicate.shared_coaches, duplicate.of_coaches) == (8, 8)
    assert len(duplicate.sample) == selectors.DUPLICATE_SAMPLE
    page = response.content.decode()
    assert "Likely duplicate" in page and "12 of 12 games" in page and "8 of 8 coaches" in page
    assert f'href="{reverse("event_detail", args=[ux_open.pk])}"' in page  # the public page of a sanctioned event


def test_the_event_page_and_the_submit_page_name_the_likely_duplicate(client, ux_open, again):
    upload(client, again, naf_report(ux_open))
    confirm_upload(client, again)
    for url in (f"/organiser/events/{again.pk}/", f"/organiser/events/{again.pk}/submit/"):
        response = client.get(url)
        assert [d.event for d in response.context["likely_duplicates"]] == [ux_open], url
        page = response.content.decode()
        assert "12 of 12 games" in page and f'href="{reverse("event_detail", args=[ux_open.pk])}"' in page, url


@pytest.fixture
def submitted_again(client, ux_open, again):
    upload(client, again, naf_report(ux_open))
    confirm_upload(client, again)
    services.event_submit(event=again, actor=again.organiser)
    sam = staff("sam")
    client.force_login(sam)
    return again, sam


def test_the_staff_review_names_the_likely_duplicate_with_a_link_to_its_review(client, ux_open, submitted_again):
    again, _ = submitted_again
    response = client.get(f"/staff/events/{again.pk}/")
    [duplicate] = response.context["likely_duplicates"]
    assert (duplicate.event, duplicate.same_games) == (ux_open, 12)
    page = response.content.decode()
    assert "12 of 12 games" in page and f'href="{reverse("staff_event_review", args=[ux_open.pk])}"' in page
    assert 'name="duplicate_confirmed"' in page and 'name="duplicate_reason"' in page


@pytest.mark.parametrize("posted", [{"note": "Looks fine"}, {"duplicate_confirmed": "on"}, {"duplicate_reason": "Not the same"},
                                    {"duplicate_confirmed": "on", "duplicate_reason": "   "}])
def test_sanctioning_a_likely_duplicate_is_refused_without_the_box_and_a_reason(client, ux_open, submitted_again, posted):
    again, _ = submitted_again
    response = client.post(f"/staff/events/{again.pk}/sanction/", posted)
    assert response.status_code == 200
    assert response.context["sanction_form"].errors
    again.refresh_from_db()
    assert again.status == EventStatus.SUBMITTED
    assert not AuditRecord.objects.filter(action__startswith="event.sanction").exists()


def test_a_likely_duplicate_confirmed_with_a_reason_is_sanctioned_and_the_reason_audited(client, ux_open, submitted_again):
    again, sam = submitted_again
    reason = "The UX Open ran two pools on one weekend: checked with the organiser."
    response = client.post(f"/staff/events/{again.pk}/sanction/", {"duplicate_confirmed": "on", "duplicate_reason": reason})
    assert response.status_code == 302
    again.refresh_from_db()
    assert again.status == EventStatus.SANCTIONED
    record = AuditRecord.objects.get(action="event.sanction_duplicate")
    assert (record.actor, record.event, record.note) == (sam, again, reason)
    assert record.after == {"likely_duplicate_of": [
        {"event": ux_open.pk, "name": "UX Open", "same_games": 12, "same_pairings": 0, "shared_coaches": 8},
    ]}
    assert AuditRecord.objects.filter(action="event.sanction", event=again).count() == 1


def test_the_service_refuses_a_likely_duplicate_without_a_reason_whoever_calls_it(ux_open, submitted_again):
    again, sam = submitted_again
    with pytest.raises(ValidationError, match="likely duplicate of UX Open"):
        services.event_sanction(event=again, actor=sam)
    again.refresh_from_db()
    assert again.status == EventStatus.SUBMITTED
    services.event_sanction(event=again, actor=sam, duplicate_reason="Checked: two pools.")
    again.refresh_from_db()
    assert again.status == EventStatus.SANCTIONED


def test_an_event_that_is_no_duplicate_needs_no_confirmation_and_leaves_no_duplicate_record(client, ux_open):
    event = EventFactory(name="Other weekend", start_date=dt.date(2024, 6, 1), status=EventStatus.SUBMITTED)
    a, b = CoachFactory(), CoachFactory()
    play(RoundFactory(event=event, number=1), a, b, (1, 0))
    client.force_login(staff("sam"))
    page = client.get(f"/staff/events/{event.pk}/")
    assert page.context["likely_duplicates"] == [] and 'name="duplicate_confirmed"' not in page.content.decode()
    assert client.post(f"/staff/events/{event.pk}/sanction/", {}).status_code == 302
    assert not AuditRecord.objects.filter(action="event.sanction_duplicate").exists()


# The selector: what counts as a match, and against which events.


def entry(line, day, home, away, score):
    return GameEntry(line=line, round=line, date=day, home_coach=home, home_race="human", away_coach=away, away_race="orc",
                     home_td=score[0], away_td=score[1])


def test_a_game_with_home_and_away_swapped_is_the_same_game_and_another_score_the_same_pairing(ux_open):
    event = EventFactory(name="Mine", start_date=SATURDAY, end_date=SUNDAY, status=EventStatus.DRAFT)
    entries = [
        entry(1, SATURDAY, 701, 700, (1, 2)),  # round 1's 700–701 2-1, home and away swapped: the same game
        entry(2, SATURDAY, 701, 702, (5, 5)),  # they met in round 2 (1-1): the same pairing, another score
        entry(3, SUNDAY, 701, 702, (1, 1)),  # they did not meet on Sunday
    ]
    [duplicate] = selectors.event_likely_duplicates(event=event, entries=entries)
    assert (duplicate.same_games, duplicate.same_pairings, duplicate.of_games) == (1, 1, 3)
    assert [(g.date, g.same_score) for g in duplicate.sample] == [(SATURDAY, True), (SATURDAY, False)]
    assert duplicate.likely


def test_byes_are_no_pairing_and_an_event_never_duplicates_itself(ux_open):
    loner = CoachFactory(number=799)
    bye = GameEntry(line=1, round=1, date=SATURDAY, home_coach=loner.number, home_race="human", away_coach=None, away_race=None)
    assert selectors.event_likely_duplicates(event=ux_open) == []
    event = EventFactory(name="Mine", start_date=SATURDAY, status=EventStatus.DRAFT)
    assert selectors.event_likely_duplicates(event=event, entries=[bye]) == []


def test_half_the_coaches_in_an_event_at_the_same_time_make_a_likely_duplicate_and_one_coach_an_overlap(ux_open):
    event = EventFactory(name="Sunday cup", start_date=SUNDAY, status=EventStatus.SUBMITTED)
    coaches = [CoachFactory() for _ in range(4)]
    play(RoundFactory(event=event, number=1, date=SUNDAY), coaches[0], coaches[1])
    play(RoundFactory(event=event, number=2, date=SUNDAY), coaches[2], coaches[3])
    for coach in coaches:
        event.participants.create(coach=coach, race=race("human"))
    assert selectors.event_likely_duplicates(event=event) == []
    ux_open.participants.create(coach=coaches[0], race=race("human"))
    [overlap] = selectors.event_likely_duplicates(event=event)
    assert (overlap.event, overlap.shared_coaches, overlap.of_coaches, overlap.likely) == (ux_open, 1, 4, False)
    ux_open.participants.create(coach=coaches[1], race=race("human"))
    [duplicate] = selectors.event_likely_duplicates(event=event)
    assert (duplicate.shared_coaches, duplicate.same_games, duplicate.likely) == (2, 0, True)


def test_drafts_are_not_checked_and_another_organisers_submitted_event_only_by_staff(ux_open, olga):
    mine = EventFactory(name="Mine", start_date=SATURDAY, end_date=SUNDAY, status=EventStatus.DRAFT, organiser=olga)
    entries = [entry(n, g.round.date, g.home_coach.number, g.away_coach.number, (g.home_touchdowns, g.away_touchdowns))
               for n, g in enumerate(ux_open.games.select_related("round", "home_coach", "away_coach"), start=1)]
    for status, staff_sees, organiser_sees in (
        (EventStatus.DRAFT, False, False), (EventStatus.REJECTED, False, False),
        (EventStatus.SUBMITTED, True, False), (EventStatus.OPEN_PLAY, True, True), (EventStatus.SANCTIONED, True, True),
    ):
        Event.objects.filter(pk=ux_open.pk).update(status=status)
        assert bool(selectors.event_likely_duplicates(event=mine, entries=entries)) == staff_sees, status
        assert bool(selectors.event_likely_duplicates(event=mine, entries=entries, seen_by_organiser=True)) == organiser_sees, status
    Event.objects.filter(pk=ux_open.pk).update(status=EventStatus.SUBMITTED, organiser=olga)
    assert selectors.event_likely_duplicates(event=mine, entries=entries, seen_by_organiser=True)[0].event == ux_open
