"""The merge preview says up front when the merge would be refused, and why; only a mergeable pair gets the button."""
import datetime as dt

import pytest

from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import member, staff
from tournaments.models import Coach, GameSide

pytestmark = pytest.mark.django_db

BUTTON = "Merge: this cannot be undone"


@pytest.fixture
def sam(client):
    client.force_login(staff("sam"))


@pytest.fixture
def two_rounds():
    """Round 1: Anna–Bert and Cees–Dirk; round 2 (another event): Dirk's duplicate "D. Again" v Bert."""
    anna, bert, cees, dirk, again = (CoachFactory(name=name) for name in ("Anna", "Bert", "Cees", "Dirk", "D. Again"))
    first = RoundFactory(event=EventFactory(name="First", start_date=dt.date(2024, 3, 2)), number=1)
    play(first, anna, bert, (1, 0)), play(first, cees, dirk, (0, 0))
    play(RoundFactory(event=EventFactory(name="Second", start_date=dt.date(2024, 4, 6)), number=1), again, bert, (2, 1))
    return {"anna": anna, "bert": bert, "cees": cees, "dirk": dirk, "again": again}


def preview(client, keep, duplicate):
    return client.post("/staff/coaches/merge/", {"keep": keep.number, "duplicate": duplicate.number})


def test_a_mergeable_pair_shows_what_moves_and_the_button(client, sam, two_rounds):
    response = preview(client, two_rounds["dirk"], two_rounds["again"])
    text = response.content.decode()
    assert response.context["refused"] == []
    assert [(label, coach.name, games) for label, coach, games, _, _ in response.context["preview"]] == [
        ("Keep", "Dirk", 1), ("Fold in and delete", "D. Again", 1),
    ]
    assert BUTTON in text and 'name="confirm" value="yes"' in text
    assert "would be refused" not in text


@pytest.mark.parametrize("keep, duplicate, reason", [
    ("anna", "cees", "These coaches played in the same round; they cannot be one person."),
    ("anna", "bert", "These coaches played in the same round; they cannot be one person."),
])
def test_a_pair_who_played_in_one_round_is_refused_up_front_without_a_button(client, sam, two_rounds, keep, duplicate, reason):
    response = preview(client, two_rounds[keep], two_rounds[duplicate])
    text = response.content.decode()
    assert response.context["refused"] == [reason]
    assert "This merge would be refused:" in text and reason in text
    assert BUTTON not in text and 'name="confirm"' not in text
    assert "Check again" in text


def test_two_coaches_each_linked_to_an_account_are_refused_and_a_forced_confirm_changes_nothing(client, sam, two_rounds):
    dirk, again = two_rounds["dirk"], two_rounds["again"]
    Coach.objects.filter(pk=dirk.pk).update(user=member("dirk"))
    Coach.objects.filter(pk=again.pk).update(user=member("dirk2"))
    reason = "Both coaches are linked to an account (dirk and dirk2): unlink one of them first (Members)."
    response = preview(client, dirk, again)
    assert response.context["refused"] == [reason]
    assert BUTTON not in response.content.decode()
    forced = client.post("/staff/coaches/merge/", {"keep": dirk.number, "duplicate": again.number, "confirm": "yes"})
    assert forced.status_code == 200 and forced.context["form"].non_field_errors() == [reason]
    assert Coach.objects.filter(pk=again.pk).exists()
    assert GameSide.objects.filter(coach=again).count() == 1


def test_the_same_coach_twice_is_named_on_the_field_and_offers_no_button(client, sam, two_rounds):
    response = preview(client, two_rounds["anna"], two_rounds["anna"])
    assert response.context["form"].errors == {"duplicate": ["Choose two different coaches to merge."]}
    assert BUTTON not in response.content.decode()


def test_the_checks_are_one_function_the_service_and_the_preview_share(two_rounds):
    from tournaments.services import coach_merge_problems

    assert coach_merge_problems(keep=two_rounds["anna"], duplicate=two_rounds["anna"]) == ["Choose two different coaches to merge."]
    assert coach_merge_problems(keep=two_rounds["dirk"], duplicate=two_rounds["again"]) == []
