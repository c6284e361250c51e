"""Fixtures for the tournaments tests: the small FUMBBL files cut for them, and the full data set."""
import os
from pathlib import Path

import pytest
from django.conf import settings

DATA = Path(__file__).parent / "data"


@pytest.fixture
def fumbbl_data() -> Path:
    """The small slice of data/naf/fumbbl_matches.csv (with its tourneys) cut for these tests."""
    return DATA


@pytest.fixture
def naf_data() -> Path:
    """The full data/naf folder; NAF_DATA overrides where it lives (the Makefile's default)."""
    folder = Path(os.environ.get("NAF_DATA") or settings.BASE_DIR.parent / "shared" / "data" / "naf")
    if not (folder / "fumbbl_matches.csv").exists():
        pytest.skip(f"the FUMBBL data set is not at {folder} (set NAF_DATA)")
    return folder
