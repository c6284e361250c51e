"""Browser tests: Playwright (Python) drives Debian's Chromium against Django's live server."""
import os

import pytest
from playwright.sync_api import sync_playwright

from tests.web.conftest import build_league, recalculate_all

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium is not at {CHROMIUM}: `make test` installs Debian's chromium, or set CHROMIUM")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_server):
    """A fresh browser tab whose relative URLs go to the live server."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900}, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


@pytest.fixture
def phone(browser, live_server):
    """A 375 px wide tab, for pages that must work on a phone."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 375, "height": 740})
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


WIDTHS = [1280, 390]  # a desktop and a phone, as the issue measures pages


@pytest.fixture(params=WIDTHS, ids=lambda width: f"{width}px")
def tab(request, browser, live_server):
    """A tab at each of WIDTHS pixels, with JavaScript off for the phone (the site needs none)."""
    width = request.param
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}, java_script_enabled=width > 1000,
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.fixture
def league(transactional_db):
    """The web tests' league, committed (the live server reads it) and recalculated."""
    data = build_league()
    recalculate_all()
    return data
