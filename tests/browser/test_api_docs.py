"""The API's Swagger UI in a real browser: its scripts from the site itself, under the site's
Content-Security-Policy, listing the operations."""
import pytest

from tests.browser.axe import axe_context, axe_run, failing
from tests.browser.conftest import WIDTHS

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def test_the_swagger_ui_renders_from_the_sites_own_files_under_the_csp(page, live_server):
    errors, elsewhere = [], []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("request", lambda request: not request.url.startswith(live_server.url) and elsewhere.append(request.url))
    page.goto("/api/v1/docs/")
    page.locator(".opblock").first.wait_for()
    assert page.locator(".opblock").count() >= 15
    assert elsewhere == []
    assert [text for text in errors if "Content Security Policy" in text or "Refused" in text] == []


def test_the_documentation_page_works_without_javascript(browser, live_server):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    tab = context.new_page()
    tab.goto("/api/v1/")
    assert tab.get_by_role("heading", name="Rate limits").is_visible()
    assert tab.locator("table tbody tr").count() >= 15
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_documentation_page_passes_axe(browser, live_server, width):
    context = axe_context(browser, live_server.url, width=width)
    tab = context.new_page()
    tab.goto("/api/v1/")
    assert failing(axe_run(tab)) == []
    context.close()
