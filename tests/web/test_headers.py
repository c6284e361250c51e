"""The headers a public site sends: a Content-Security-Policy on every page (the site's own assets
only, no framing), and `Cache-Control: private` on every page answered to someone logged in."""
import pytest

from tests.roles import organiser, staff

pytestmark = pytest.mark.django_db

POLICY = {
    "default-src": "'self'", "script-src": "'self'", "style-src": "'self'", "img-src": "'self' data:",
    "font-src": "'self'", "connect-src": "'self'", "object-src": "'none'", "base-uri": "'self'",
    "form-action": "'self'", "frame-ancestors": "'none'",
}


def policy(response) -> dict[str, str]:
    directives = [part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";") if part.strip()]
    return {name: value for name, value in directives}


@pytest.mark.parametrize("path", ["/", "/rankings/", "/events/", "/stats/", "/accounts/login/", "/calculator/",
                                  "/no-such-page/", "/rankings/elo/?per_page=0"])
def test_every_page_carries_the_sites_content_security_policy(client, path):
    response = client.get(path)
    assert policy(response) == POLICY
    # public pages may be kept by shared caches; the login form never is (Django's never_cache)
    assert response.get("Cache-Control") == ("max-age=0, no-cache, no-store, must-revalidate, private"
                                             if path == "/accounts/login/" else None)


def test_the_race_grid_alone_may_colour_its_cells_with_style_attributes(client):
    response = client.get("/stats/race-grid/")
    assert policy(response) == {**POLICY, "style-src-attr": "'unsafe-inline'"}


@pytest.mark.parametrize(("role", "path"), [
    (organiser, "/organiser/events/"), (staff, "/staff/events/"), (staff, "/rankings/"), (organiser, "/accounts/profile/"),
])
def test_a_page_answered_to_someone_logged_in_is_private(client, role, path):
    client.force_login(role())
    response = client.get(path)
    assert response.status_code == 200
    assert response["Cache-Control"] == "private"
    assert policy(response) == POLICY
