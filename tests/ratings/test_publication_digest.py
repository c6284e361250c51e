"""A publication's digest (services.publication.entries_digest): its canonical form, written out by
hand, and the same digest for any entries as one JSON line an entry, sorted."""
import datetime as dt
import hashlib
import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ratings.services.publication import DIGESTED, entries_digest

pytestmark = pytest.mark.backend_neutral

HEADER = (dt.date(2024, 7, 1), 2, 3, 2, 1, True)


def test_the_digest_is_the_sha256_of_the_header_and_the_sorted_entry_lines_written_out():
    entries = [
        (12, 'Zoë "the Ork" \\ Ünal', "NL", "orc", "Orc", "bb2020", "Blood Bowl 2020",
         153.41234567891, 0.1 + 0.2, 1e-05, None, None, 42, 17, 230, -0.0, 3, 4),
        (7, "Ann", "", "", "", "bb2016", "Blood Bowl 2016", 150, None, None, None, 3, 0, None, None, 1e16, 0, 0),
    ]
    text = (
        '["2024-07-01", 2, 3, 2, 1, true]'
        '\n[12,"Zoë \\"the Ork\\" \\\\ Ünal","NL","orc","Orc","bb2020","Blood Bowl 2020",'
        '153.41234567891,0.30000000000000004,1e-05,null,null,42,17,230,-0.0,3,4]'
        '\n[7,"Ann","","","","bb2016","Blood Bowl 2016",150.0,null,null,null,3,0,null,null,1e+16,0,0]'
    )
    assert entries_digest(HEADER, entries) == hashlib.sha256(text.encode()).hexdigest()
    assert entries_digest(HEADER, reversed(entries)) == entries_digest(HEADER, entries)  # the lines are sorted


def test_an_entry_of_other_fields_than_a_publication_digests_is_refused():
    with pytest.raises(ValueError, match="18 fields"):
        entries_digest(HEADER, [(1, "Ann")])


def test_a_publication_without_entries_is_the_digest_of_its_header():
    assert entries_digest(HEADER, []) == hashlib.sha256(b'["2024-07-01", 2, 3, 2, 1, true]').hexdigest()


def _one_json_line_an_entry(header: tuple, entries: list[tuple]) -> str:
    """The canonical form as the migration that introduced digests defined it: each entry one line of
    JSON (floats as floats), the lines sorted."""
    floats = {"value", "mu", "phi", "sigma", "change"}
    lines = sorted(
        json.dumps([None if v is None else float(v) if name in floats else v for name, v in zip(DIGESTED, row)],
                   ensure_ascii=False, separators=(",", ":"))
        for row in entries
    )
    date, edition, rated, ranked, starters, complete = header
    digest = hashlib.sha256(json.dumps([str(date), edition, rated, ranked, starters, bool(complete)]).encode())
    for line in lines:
        digest.update(b"\n" + line.encode())
    return digest.hexdigest()


# what a column could hold besides its own type (a database's loose typing, a caller's values)
_others = st.one_of(st.booleans(), st.tuples(st.integers(), st.text(max_size=3)), st.floats(allow_nan=True))
_numbers = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6), st.booleans())
_counts = st.one_of(st.none(), st.integers(0, 10**9), _others)
_texts = st.one_of(st.text(max_size=12), st.none(), _others)
_entry = st.tuples(
    st.integers(1, 10**7), _texts, _texts, _texts, _texts, _texts, _texts,
    _numbers, _numbers, _numbers, _numbers, _counts, _counts, _counts, _counts, _numbers, _counts, _counts,
)


@given(st.lists(_entry, max_size=30))
@example([(1, "a", "", "", "", "v", "V", float("nan"), float("inf"), float("-inf"), 2, None, 0, None, 1, -1e-300, 0, 0)])
def test_the_digest_of_any_entries_is_that_of_one_json_line_an_entry(entries):
    assert entries_digest(HEADER, entries) == _one_json_line_an_entry(HEADER, entries)
