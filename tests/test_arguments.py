import datetime as dt
import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from ratingsite.arguments import iso_date


def test_a_date_is_read_as_yyyy_mm_dd():
    assert iso_date("2024-02-29") == dt.date(2024, 2, 29)


@pytest.mark.parametrize("command, option", [
    ("recalculate", "--since"),
    ("export_ratings", "--as-of"),
    ("seed_demo", "--today"),
    ("verify_ratings", "--today"),
    ("evaluate_methods", "--from"),
    ("evaluate_methods", "--to"),
    ("tune_methods", "--split"),
    ("tune_methods", "--from"),
])
@pytest.mark.parametrize("value", ["2024-13-01", "2023-02-29", "1 May"])
def test_every_command_refuses_a_date_that_is_not_one_and_says_how_to_write_it(db, command, option, value):
    with pytest.raises(CommandError) as error:
        call_command(command, option, value, stdout=io.StringIO(), stderr=io.StringIO())
    assert str(error.value) == f"Error: argument {option}: '{value}' is not a date YYYY-MM-DD"
