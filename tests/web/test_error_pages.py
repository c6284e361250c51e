"""Error pages (400, 403, 404, 500, a refused CSRF check) carry the site's navigation and a plain
message: the site's own 404 and 403 messages are kept, nothing internal is shown, and the 500 page
needs neither a database nor a request."""
import pytest
from django.test import Client, RequestFactory

from ratingsite import errors, urls
from tests.roles import PASSWORD, member

NAVIGATION = ('href="/rankings/"', 'href="/events/"', 'href="/stats/"')
INTERNAL = ("Traceback", "Resolver404", "URLconf", "urlpatterns", "DEBUG = True", "Reason given for failure")


def assert_site_page(response, status: int, *texts: str):
    assert response.status_code == status
    page = response.content.decode()
    for text in (*NAVIGATION, *texts):
        assert text in page
    for text in INTERNAL:
        assert text not in page
    return page


def test_the_site_names_its_own_error_views():
    assert (urls.handler400, urls.handler403, urls.handler404, urls.handler500) == (
        "ratingsite.errors.bad_request", "ratingsite.errors.permission_denied",
        "ratingsite.errors.page_not_found", "ratingsite.errors.server_error",
    )


@pytest.mark.django_db
def test_an_address_that_matches_nothing_is_a_404_with_the_navigation():
    assert_site_page(Client().get("/no/such/page/"), 404, "<h1>Not found</h1>", "There is no page at this address.")


@pytest.mark.django_db
def test_a_404_keeps_the_message_of_the_view_that_gave_it():
    assert_site_page(Client().get("/coaches/999999/"), 404, "There is no coach with federation number 999999.")


@pytest.mark.django_db
def test_a_page_of_another_role_is_a_403_with_the_views_message():
    client = Client()
    client.force_login(member("mia"))
    page = assert_site_page(client.get("/organiser/events/"), 403, "Your account does not have the role this page needs.")
    assert 'href="/accounts/profile/"' in page  # the request context is there: the header knows who is in


@pytest.mark.django_db
def test_a_form_without_its_csrf_token_gets_the_sites_403_saying_what_to_do():
    member("mia")
    response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "mia", "password": PASSWORD})
    assert_site_page(response, 403, "Go back, reload the page and send the form again.")
    assert "CSRF cookie not set" not in response.content.decode()


@pytest.mark.django_db
def test_a_request_for_another_host_is_a_400_with_the_navigation():
    response = Client().get("/", HTTP_HOST="evil.example")
    page = assert_site_page(response, 400, "<h1>Bad request</h1>", "The site could not understand this request.")
    assert "evil.example" not in page


@pytest.mark.django_db
def test_an_oversized_body_is_refused_before_it_is_read_and_before_the_csrf_check():
    # the declared length is all the site sees first: reading the 8 bytes sent would fail on it
    response = Client(enforce_csrf_checks=True).generic(
        "POST", "/organiser/events/new/", b"name=big", content_type="application/x-www-form-urlencoded",
        CONTENT_LENGTH=str(500 * 1024 * 1024),
    )
    assert_site_page(response, 400, "What you sent is larger than the site accepts. Nothing was saved.")


@pytest.mark.django_db
def test_a_body_within_the_limit_goes_on_to_the_view():
    member("mia")
    response = Client().post("/accounts/login/", {"username": "mia", "password": PASSWORD, "padding": "x" * 2_000_000})
    assert response.status_code == 302


@pytest.mark.django_db
def test_a_failing_view_gives_the_500_page_with_the_navigation(monkeypatch):
    def broken():
        raise RuntimeError("secret internals: password=hunter2")

    monkeypatch.setattr("tournaments.selectors.recent_events", broken)
    response = Client(raise_request_exception=False).get("/")
    page = assert_site_page(response, 500, "Something went wrong on our side", "The error has been reported.")
    assert "hunter2" not in page and "RuntimeError" not in page


def test_the_500_page_needs_no_database():
    # no django_db mark: any query would fail this test
    response = errors.server_error(RequestFactory().get("/"))
    assert_site_page(response, 500, "Something went wrong on our side")


def test_the_500_page_falls_back_to_plain_html_when_its_template_cannot_render(settings):
    # a release whose collectstatic did not run: the manifest lacks the stylesheet
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"}}
    settings.STATIC_ROOT = "/nonexistent-static-root"
    response = errors.server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert response.content.decode() == errors.PLAIN_500
