"""Data a module's tests share."""
from contextlib import contextmanager


@contextmanager
def kept_for_the_module(django_db_blocker):
    """For a module-scoped fixture: what it builds inside stays for every test of the module, in an
    outer transaction rolled back at the module's end; each test's own transaction nests in it as a
    savepoint, so a test's changes go with it. The transaction is the connection's: every later test
    of the module sees the data, whether it asks for the fixture or not (a test that needs an empty
    or another record goes in another module)."""
    from django.db import connection, transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        if connection.vendor == "postgresql":
            # The module's rows are checked as they are written. Deferred, their checks would wait in
            # the outer transaction, and each test's teardown (which checks the deferred constraints
            # inside its savepoint, then rolls it back) would check them all again: 2 s a test with
            # the real data's rows.
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        try:
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
