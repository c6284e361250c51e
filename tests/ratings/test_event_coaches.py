"""N, each game's event's distinct coaches, as the whole record's columns give it (selectors.history)."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ratings.selectors.history import _event_coaches

games = st.lists(st.tuples(st.integers(1, 5), st.integers(1, 8), st.one_of(st.none(), st.integers(1, 8))), max_size=40)


@given(games, st.sampled_from([0, 2**31, 2**62, -3, -(2**62)]))
def test_each_game_counts_the_distinct_coaches_of_its_event(played, offset):
    """Ids as large as 2**62 do not fit an (event, coach) pair in one number: the other way gives the
    same counts. Negative event ids (none in the database) still fit."""
    events = np.array([event + offset for event, _, _ in played], dtype=np.int64)
    columns = {
        "event_id": events,
        "home": np.array([home for _, home, _ in played], dtype=np.int64),
        "away": np.array([-1 if away is None else away for _, _, away in played], dtype=np.int64),
    }
    coaches: dict[int, set[int]] = {}
    for (_, home, away), event in zip(played, events.tolist()):
        coaches.setdefault(event, set()).update({home} if away is None else {home, away})
    assert _event_coaches(columns).tolist() == [len(coaches[event]) for event in events.tolist()]
