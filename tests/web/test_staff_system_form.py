"""A rating system's parameters as a form: one field each, current values filled in, each checked by the engine."""
import pytest

from audit.models import AuditRecord
from ratings.models import RatingSystem, RecalculationRun, RunStatus, Trigger
from tests.factories import CoachFactory
from tests.roles import staff

pytestmark = pytest.mark.django_db

ELO = {"start_rating": "150", "non_major_max": "32", "major_coaches": "60", "inactive_after_months": "24"}


@pytest.fixture
def sam(client):
    user = staff("sam")
    client.force_login(user)
    return user


def system(slug):
    return RatingSystem.objects.get(slug=slug)


def url(slug):
    return f"/staff/systems/{system(slug).pk}/"


def nothing_changed(slug, parameters):
    assert system(slug).parameters == parameters
    assert not RecalculationRun.objects.exists() and not AuditRecord.objects.exists()


def test_the_page_has_a_field_per_parameter_with_the_current_values_and_the_stored_json(client, sam):
    form = client.get(url("global-glicko")).context["form"]
    assert list(form.fields)[:10] == ["mu0", "phi0", "sigma0", "tau", "period", "period_anchor", "value_phi_multiplier",
                                      "inactive_phi", "phi_cap", "cross_race_start"]
    assert (form["period"].value(), form["phi0"].value(), form["cross_race_start"].value()) == ("two_weeks", 350.0, True)
    text = client.get(url("global-glicko")).content.decode()
    assert 'name="phi0" value="350.0"' in text and 'min="0.0" max="2000.0"' in text
    assert "Displayed ranking value: μ − multiplier·φ. Default: 2.5." in text
    assert "Stored parameters (JSON, for reference)" in text and "&quot;period&quot;: &quot;two_weeks&quot;" in text


def test_saving_stores_what_differs_from_the_default_audits_and_recalculates(client, sam, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("elo"), {**ELO, "non_major_max": "24", "round_k": "on", "inactive_after_months": "18"})
    assert response.status_code == 302
    elo = system("elo")
    assert (elo.parameters, elo.inactive_after_months) == ({"non_major_max": 24, "round_k": True}, 18)
    record = AuditRecord.objects.get(action="rating_system.update")
    assert (record.before["parameters"], record.after["parameters"]) == ({}, {"non_major_max": 24, "round_k": True})
    run = RecalculationRun.objects.get()
    assert (run.trigger, run.from_date, run.status) == (Trigger.PARAMETERS, None, RunStatus.SUCCEEDED)


@pytest.mark.parametrize("changes, field, message", [
    ({"non_major_max": "0"}, "non_major_max", "0 is not valid (an integer from 1 to 10000)"),
    ({"major_coaches": "10001"}, "major_coaches", "10001 is not valid (an integer from 1 to 10000)"),
    ({"non_major_max": "lots"}, "non_major_max", "Enter a whole number."),
    ({"start_rating": "abc"}, "start_rating", "Enter a number."),
    ({"start_rating": "1e999"}, "start_rating", "Enter a number."),
])
def test_a_bad_value_gets_its_fields_message_and_changes_nothing(client, sam, changes, field, message):
    response = client.post(url("elo"), {**ELO, **changes})
    assert response.status_code == 200
    assert response.context["form"].errors == {field: [message]}
    assert "Nothing is saved: correct the fields marked below." in response.content.decode()
    nothing_changed("elo", {})


def test_glicko_ranges_and_choices_are_the_engines(client, sam):
    data = {"mu0": "1500", "phi0": "0", "sigma0": "0.06", "tau": "0.2", "period": "fortnight", "period_anchor": "2000-01-04",
            "value_phi_multiplier": "2.5", "inactive_phi": "100", "phi_cap": "", "cross_race_start": "on"}
    errors = client.post(url("glicko"), data).context["form"].errors
    assert errors == {
        "phi0": ["0.0 is not valid (above 0.0 and at most 2000.0)"],
        "period": ["Select a valid choice. fortnight is not one of the available choices."],
        "period_anchor": ["'2000-01-04' is not valid (a Monday)"],
    }
    nothing_changed("glicko", {"period": "month"})


@pytest.mark.parametrize("posted, message", [
    ({"bogus": "1"}, "This form has no field bogus: nothing is saved. Reload the page and try again."),
    ({"parameters": '{"non_major_max": 3}'}, "This form has no field parameters: nothing is saved. Reload the page and try again."),
])
def test_a_tampered_post_with_an_unknown_field_changes_nothing(client, sam, posted, message):
    response = client.post(url("elo"), {**ELO, **posted})
    assert response.context["form"].non_field_errors() == [message]
    nothing_changed("elo", {})


KNSB = {"sigma": repr(2000 / 7), "lpr_margin": "0", "depot_min_games": "6", "depot_months": "24", "nv_cap": "100",
        "bootstrap_rating": "1500", "junior_age": "18", "inactive_after_months": "24"}


def test_the_knsb_imported_list_is_one_line_per_coach(client, sam, django_capture_on_commit_callbacks):
    CoachFactory(number=12), CoachFactory(number=14)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("knsb"), {**KNSB, "initial_list": "12; 1612.5; 40; 1990\n\n14; 1500; 7", "bootstrap_rating": ""})
    assert response.status_code == 302
    assert system("knsb").parameters == {"initial_list": [[12, 1612.5, 40, 1990], [14, 1500.0, 7]], "bootstrap_rating": None}
    shown = client.get(url("knsb")).context["form"]["initial_list"].value()
    assert shown == "12; 1612.5; 40; 1990\n14; 1500; 7"


def test_each_bad_line_of_the_imported_list_is_named(client, sam):
    lines = "12; 1612; 40\n13; fast; 4\n14; 1500\n15; 1500; 0\n12; 1400; 9\n16; 1500; 3; old"
    response = client.post(url("knsb"), {**KNSB, "initial_list": lines})
    assert response.context["form"].errors == {"initial_list": [
        "Line 2 (13; fast; 4): the rating “fast” is not a number.",
        "Line 3 (14; 1500): give number; rating; games; birth year (the birth year may be left out).",
        "Line 4 (15; 1500; 0): [15, 1500.0, 0] is not valid (a list of (coach number, rating, games[, birth year]) with games >= 1)",
        "Line 5 (12; 1400; 9): coach 12 is on line 1 already.",
        "Line 6 (16; 1500; 3; old): the birth year “old” is not a whole number.",
    ]}
    nothing_changed("knsb", {})
