"""Data a module's tests share."""
from contextlib import contextmanager


@contextmanager
def kept_for_the_module(django_db_blocker):
    """For a module-scoped fixture: what it builds inside stays for every test of the module, in an
    outer transaction rolled back at the module's end; each test's own transaction nests in it as a
    savepoint, so a test's changes go with it. The transaction is the connection's: every later test
    of the module sees the data, whether it asks for the fixture or not (a test that needs an empty
    or another record goes in another module)."""
    from django.db import transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
