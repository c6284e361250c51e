"""Argument types shared by the management commands."""
import argparse
import datetime as dt


def iso_date(value: str) -> dt.date:
    """A command-line date, YYYY-MM-DD; anything else is refused with a message that says so."""
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{value}' is not a date YYYY-MM-DD") from None
