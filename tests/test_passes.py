"""CI's two passes: the SQLite one leaves the tests marked backend_neutral to the PostgreSQL one."""
from tests.conftest import ENGINES


def test_every_engine_test_is_marked_backend_neutral(request):
    engines = [item for item in request.session.items if ENGINES in item.path.parents]
    assert all(item.get_closest_marker("backend_neutral") for item in engines)
    others = [item for item in request.session.items if item.get_closest_marker("backend_neutral") and item not in engines]
    assert {item.path.name for item in others} <= {"test_accessibility.py", "test_phones.py", "test_publication_digest.py"}
