"""Shared fixtures; model factories live in tests/factories.py."""
import os
from concurrent.futures import Future
from pathlib import Path

import pytest
from _pytest.nodeid import NodeId
from django.conf import settings
from django.utils import translation
from hypothesis import settings as hypothesis_settings

from ratingsite import after_response
from ratingsite.celery import app as celery_app

# No test asserts a time (hypothesis's default deadline fails an example slower than 200 ms): on a
# loaded machine, or beside another pytest-xdist worker, a slow example is no failure. The engines'
# conftest says the same for their runs without this one (`make test-engines`).
hypothesis_settings.register_profile("untimed", deadline=None)
hypothesis_settings.load_profile("untimed")


ENGINES = Path(__file__).parent / "engines"


def pytest_collection_modifyitems(config, items):
    """Tests that need the real broker, or PostgreSQL, run where one is configured (CI's PostgreSQL +
    Redis pass); the other pass leaves them out rather than skipping them."""
    for item in items:
        if ENGINES in item.path.parents:  # plain Python over plain data (`make test-engines` runs them alone)
            item.add_marker(pytest.mark.backend_neutral)
    _slow_first_in_each_block(items)
    _grouped_for_xdist(config, items)
    absent = set()
    if not os.environ.get("CELERY_BROKER_URL"):
        absent.add("broker")
    if "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        absent.add("postgresql")
    if not absent:
        return
    selected, deselected = [], []
    for item in items:
        (deselected if any(item.get_closest_marker(name) for name in absent) else selected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


def _slow_first_in_each_block(items) -> None:
    """The tests marked `slow` first within each of pytest-django's blocks (rolled back, committing,
    no database; that order kept): pytest-xdist hands the tests out in this order, and a test of half
    a minute handed out last leaves the other worker idle at the end of the run."""
    items.sort(key=lambda item: (_block(item), item.get_closest_marker("slow") is None))


def _block(item) -> int:
    """pytest-django's order: the tests rolled back first, then the committing ones, then those
    without a database."""
    if _committing(item):
        return 1
    return 0 if item.get_closest_marker("django_db") or "db" in getattr(item, "fixturenames", ()) else 2


def _grouped_for_xdist(config, items) -> None:
    """pytest-xdist (3.8) sends the tests of an xdist_group to one worker by suffixing their node ids
    ("...::test@group") in `item._nodeid`, which pytest 9 no longer reads (it keeps the id in
    `item._id`): so --dist loadgroup scattered every group over the workers, and a module's shared
    data (the golden exports') was built once a worker. In a worker (where xdist sets `loadgroup`),
    the suffixed id is set where pytest reads it.

    Not for committing (transactional, live-server) tests: a group goes out early, as one unit, and
    such a test's flush would leave the worker's later tests without the reference data that
    pytest-django's order (committing tests last) keeps for them. Their groups stay scattered, as
    they have been since pytest 9 (the broker-outage servers')."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        groups = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                         for mark in item.iter_markers("xdist_group")})
        if groups and "@" not in item.nodeid and hasattr(item, "_id") and not _committing(item):
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(groups)}")


def _committing(item) -> bool:
    """Whether the test commits (transactional or live-server): its database is flushed after it."""
    database, fixtures = item.get_closest_marker("django_db"), getattr(item, "fixturenames", ())
    return any(name in fixtures for name in ("live_server", "transactional_db")) or bool(database and database.kwargs.get("transaction"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """Before a committing test's database is emptied (a live-server or transactional test): the work
    its requests handed to the after-response thread (runs, refreshes, notices) has finished. Else it
    writes on while the tables are flushed (PostgreSQL: the flush's TRUNCATE deadlocks with it) or
    into the next test's. The test client's requests hand their work to that thread too.

    After every test's teardown: a test's transaction, rolled back then, held what that work reads
    or the locks it waits on (so it cannot finish before); it must not go on into the next test."""
    # held_thread: the test's jobs wait for it, and what it leaves is cancelled in its teardown
    settled = not _committing(item) or "held_thread" in getattr(item, "fixturenames", ()) or after_response.after_response_wait(timeout=120)
    result = yield
    assert settled, f"{item.nodeid}: the background work of its requests did not finish in 120 s"
    assert after_response.after_response_wait(timeout=120), f"{item.nodeid}: the background work of its requests did not finish in 120 s"
    return result


class HeldThread:
    """Stands in for the thread after the response: keeps its jobs until the test carries them out."""

    def __init__(self):
        self.jobs = []

    def submit(self, function, job):
        future = Future()
        self.jobs.append((function, job, future))
        return future

    def carry_out(self):
        for function, job, future in self.jobs:
            future.set_result(function(job))
        self.jobs.clear()


@pytest.fixture
def held_thread(monkeypatch):
    """The after-response thread, held (HeldThread); the jobs the test leaves are cancelled at its end,
    so that no later test waits for them."""
    held = HeldThread()
    monkeypatch.setattr(after_response, "_AFTER_RESPONSE", held)
    yield held
    for _, _, future in held.jobs:
        future.cancel()
        future.set_running_or_notify_cancel()  # as an executor would: only then is it done for wait()


@pytest.fixture(autouse=True)
def tasks_in_process(request):
    """Every test but the broker ones runs tasks in-process, so results are there when the test looks."""
    if request.node.get_closest_marker("broker"):
        yield
        return
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = eager


@pytest.fixture(autouse=True)
def site_language():
    """Each test starts in the site's default language: a request to a /nl/ page leaves Dutch active
    in its thread (LocaleMiddleware activates, nothing deactivates), which another test would inherit."""
    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with an empty cache (ranking counts, login attempts), as its data is its own."""
    from django.core.cache import caches

    for alias in settings.CACHES:
        caches[alias].clear()
    yield


@pytest.fixture(scope="session")  # a path: module-scoped fixtures that load the data can ask for it too
def naf_data() -> Path:
    """The real FUMBBL games (../shared/data/naf beside the project; NAF_DATA overrides where)."""
    folder = Path(os.environ.get("NAF_DATA") or settings.BASE_DIR.parent / "shared" / "data" / "naf")
    if not (folder / "fumbbl_matches.csv").exists():
        pytest.fail(f"the FUMBBL data set is not at {folder}: set NAF_DATA to the folder holding fumbbl_matches.csv")
    return folder


DATA_MIGRATIONS = [
    ("tournaments.migrations.0002_ranked_races_and_variants", "add_races_and_variants"),
    ("tournaments.migrations.0004_groups_and_permissions", "add_groups"),
    ("ratings.migrations.0002_default_rating_systems", "add_systems"),
    ("ratings.migrations.0003_beat_schedule", "add_schedule"),
    ("downloads.migrations.0001_nightly_dump", "add_schedule"),
]


@pytest.fixture(autouse=True)
def reference_data(request):
    """Transactional tests (live server, real worker) start from flushed tables: put back what the
    data migrations put there (races, variants, groups, rating systems, the beat schedule)."""
    if not _committing(request.node):
        return
    from importlib import import_module
    from types import SimpleNamespace

    from django.apps import apps
    from django.db import connection

    request.getfixturevalue("transactional_db")
    _drop_flushed_systems_partitions(connection)
    editor = SimpleNamespace(connection=connection)
    for module, function in DATA_MIGRATIONS:
        getattr(import_module(module), function)(apps, editor)


def _drop_flushed_systems_partitions(connection):
    """A flush empties the rating systems but not their partitions (the site never deletes a system
    with lists: its publications protect it), and the next test's systems get new ids. Left, they
    pile up, hundreds of tables that every later flush truncates: seconds a test by the end."""
    if connection.vendor != "postgresql":
        return
    from ratings.models import RatingSystem
    from ratings.partitions import PARTITIONED

    kept = set(RatingSystem.objects.values_list("pk", flat=True))
    with connection.cursor() as cursor:
        for model in PARTITIONED:
            cursor.execute(
                "SELECT relname FROM pg_class WHERE relkind = 'r' AND relname ~ %s",
                [rf"^{model._meta.db_table}_s[0-9]+(_r[0-9]+)?$"],
            )
            for (table,) in cursor.fetchall():
                if int(table.removeprefix(f"{model._meta.db_table}_s").split("_r")[0]) not in kept:
                    cursor.execute(f"DROP TABLE {table}")
