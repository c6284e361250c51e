"""The published federations of the verification tests, built once for each module that asks for one
(kept_for_the_module: every later test of that module sees it, so only the modules of published
lists ask)."""
import pytest

from tests.assurance.test_verification import publishing_federation
from tests.scopes import kept_for_the_module


@pytest.fixture(scope="module")
def published_module(django_db_setup, django_db_blocker):
    with kept_for_the_module(django_db_blocker):
        yield publishing_federation(monthly=False)


@pytest.fixture(scope="module")
def published_monthly_module(django_db_setup, django_db_blocker):
    with kept_for_the_module(django_db_blocker):
        yield publishing_federation(monthly=True)


@pytest.fixture
def published(published_module, db):
    """Every list up to today published at once."""
    return published_module


@pytest.fixture
def published_monthly(published_monthly_module, db):
    """Each month's list published once that month's event was in, as a live site publishes."""
    return published_monthly_module
