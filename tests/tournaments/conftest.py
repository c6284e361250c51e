"""Fixtures for the tournaments tests: the small FUMBBL files cut for them."""
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def fumbbl_data() -> Path:
    """The small slice of data/naf/fumbbl_matches.csv (with its tourneys) cut for these tests."""
    return DATA


