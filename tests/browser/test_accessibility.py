"""Accessibility (issue 33, point 4: WCAG 2.1 AA): axe-core on every kind of page, public, organiser and
staff, at a desktop's and a phone's width (test_phones.py's), with no serious or critical violation;
the rules left out are listed, with their reasons, in tests/browser/axe.py."""
import datetime as dt

import pytest
from django.conf import settings
from django.test import Client

from assurance.accuracy.report import accuracy_reports_refresh
from members.services import claim_request
from ratingsite.errors import server_error
from stats.services import summaries_refresh
from tests.browser.axe import axe_context, axe_run, failing
from tests.browser.conftest import WIDTHS
from tests.browser.test_phones import draft_with_a_round
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.roles import member, organiser, staff
from tests.web.conftest import build_league, recalculate_all
from tournaments.models import Coach, Event, EventStatus
from tournaments.services import event_submit

# the markup, whatever database served it: CI's SQLite pass leaves the module to the PostgreSQL one
pytestmark = [pytest.mark.django_db(transaction=True, serialized_rollback=True), pytest.mark.backend_neutral]

DAY = dt.date(2024, 8, 3)
HEIGHT = 900  # the tabs' height at every width

# (name, who is logged in, address): every kind of page. The address is formatted with the site's pks
# (`site` below); the 500 page is served by the test itself (nothing on the site fails on purpose).
PUBLIC = [
    ("home", None, "/"),
    ("rankings index", None, "/rankings/"),
    ("ranking elo", None, "/rankings/elo/"),
    ("ranking glicko", None, "/rankings/glicko/"),
    ("ranking global-glicko", None, "/rankings/global-glicko/"),
    ("ranking knsb", None, "/rankings/knsb/"),
    ("ranking of a month", None, "/rankings/elo/2024-07/"),
    ("coach page", None, "/coaches/101/"),
    ("breakdown elo", None, "/coaches/101/breakdown/elo/"),
    ("breakdown glicko", None, "/coaches/101/breakdown/glicko/"),
    ("breakdown global-glicko", None, "/coaches/101/breakdown/global-glicko/"),
    ("breakdown knsb", None, "/coaches/101/breakdown/knsb/"),
    ("breakdown elo with an excluded game", None, "/coaches/101/breakdown/elo/?variant=blood-bowl-2020&period=event:{cup}"),
    ("events list", None, "/events/"),
    ("event page", None, "/events/{dutch}/"),
    ("event predictions", None, "/events/{dutch}/predictions/"),
    ("lists index", None, "/lists/"),
    ("lists of a system", None, "/lists/knsb/"),
    ("list detail", None, "/lists/elo/2024-07/"),
    ("list detail knsb", None, "/lists/knsb/2024-08/"),
    ("calculator", None, "/calculator/"),
    ("calculator with results", None, "/calculator/?rating=150&results=150+1%0D%0A160+0&coaches=20"),
    ("about ratings", None, "/about/ratings/"),
    ("about accuracy", None, "/about/accuracy/"),
    ("stats index", None, "/stats/"),
    ("stats games", None, "/stats/games/"),
    ("stats win ratios", None, "/stats/win-ratios/"),
    ("stats race grid", None, "/stats/race-grid/"),
    ("stats rank over time", None, "/stats/rank-over-time/?coach=101"),
    ("stats head to head", None, "/stats/head-to-head/?coach=101&opponent=102"),
    ("stats differentials", None, "/stats/differentials/"),
    ("stats differentials of a coach", None, "/stats/differentials/?coach=101"),
    ("stats top", None, "/stats/top/"),
    ("stats awards", None, "/stats/awards/"),
    ("stats legends", None, "/stats/legends/"),
    ("stats map", None, "/stats/map/"),
    ("coach search", None, "/coaches/?q=an"),
    ("coach directory", None, "/coaches/"),
    ("login", None, "/accounts/login/"),
    ("password reset", None, "/accounts/password/reset/"),
    ("profile", "olga", "/accounts/profile/"),
    ("sign-up", None, "/accounts/signup/"),
    ("member page", "mia", "/members/me/"),
    ("member claim", "mia", "/members/me/claim/"),
    ("member privacy", "max", "/nl/members/me/"),
    ("member erasure", "max", "/members/me/coaches/103/erasure/"),
    ("about privacy", None, "/about/privacy/"),
    ("embeds page", None, "/embed/?system=elo&country=NL&race=human&number=101"),
    ("embedded country leaderboard", None, "/embed/elo/country/nl/"),
    ("dutch embedded race leaderboard", None, "/nl/embed/glicko/race/human/"),
    ("open data", None, "/data/"),
    ("dutch open data", None, "/nl/data/"),
    ("dutch ranking knsb", None, "/nl/rankings/knsb/"),
    ("dutch event page", None, "/nl/events/{dutch}/"),
    ("error 400", None, "/rankings/elo/?per_page=0"),
    ("error 403", "olga", "/staff/"),
    ("error 404", None, "/coaches/99999/"),
    ("error 500", None, "/server-error-page/"),
]
ORGANISER = [
    ("organiser event list", "olga", "/organiser/events/"),
    ("organiser new event", "olga", "/organiser/events/new/"),
    ("organiser event page", "olga", "/organiser/events/{draft}/"),
    ("organiser entry: event and participants", "olga", "/organiser/events/{draft}/edit/"),
    ("organiser entry: a round's games", "olga", "/organiser/events/{draft}/edit/?round=1"),
    ("organiser upload", "olga", "/organiser/events/{draft}/upload/"),
    ("organiser submit", "olga", "/organiser/events/{draft}/submit/"),
    ("organiser new coach", "olga", "/organiser/coaches/new/"),
]
STAFF = [
    ("staff index", "sam", "/staff/"),
    ("staff sanctioning queue", "sam", "/staff/events/"),
    ("staff event review", "sam", "/staff/events/{submitted}/"),
    ("staff event correction", "sam", "/staff/events/{dutch}/correct/"),
    ("staff event runs", "sam", "/staff/events/{dutch}/recalculation/"),
    ("staff runs", "sam", "/staff/runs/"),
    ("staff run", "sam", "/staff/runs/{run}/"),
    ("staff audit", "sam", "/staff/audit/"),
    ("staff merge", "sam", "/staff/coaches/merge/?keep=101&duplicate=108"),
    ("staff systems", "sam", "/staff/systems/"),
    ("staff system edit", "sam", "/staff/systems/{elo}/"),
    ("staff members", "sam", "/staff/members/"),
    ("staff member's coach", "sam", "/staff/members/{olga}/coach/"),
    ("staff claim queue", "sam", "/staff/claims/"),
    ("staff coach privacy", "sam", "/staff/coaches/101/privacy/"),
]
PAGES = PUBLIC + ORGANISER + STAFF


@pytest.fixture
def site(transactional_db, request, settings, tmp_path):
    """The web tests' league with its statistics, an organiser's draft with a round of games, and a
    submitted event waiting for staff, a member who asked staff for coach 102's record, a member who
    holds coach 103's (his privacy controls): the pks the addresses need; for the open-data pages,
    their files written (in tmp_path)."""
    from downloads.services import open_data_dump
    from ratings.models import RatingSystem, RecalculationRun

    league = build_league()
    recalculate_all()
    summaries_refresh()
    accuracy_reports_refresh(systems=list(RatingSystem.objects.filter(active=True).order_by("pk")))
    olga, sam = organiser("olga"), staff("sam")
    draft = draft_with_a_round(olga, league, DAY)
    submitted = EventFactory(name="Leiden Cup", start_date=DAY, end_date=DAY, status=EventStatus.DRAFT, organiser=olga)
    play(RoundFactory(event=submitted, number=1, date=DAY), league["anna"], CoachFactory(number=990, name="Ivo Visser"), (1, 0))
    event_submit(event=Event.objects.get(pk=submitted.pk), actor=olga)
    mia = member("mia")
    claim_request(member=mia, number=102, note="I played the Dutch Open.")
    max_ = member("max")
    Coach.objects.filter(number=103).update(user=max_)
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and any("/data/" in address for _, _, address in callspec.params.get("pages", ())):
        settings.DATA_FILES_ROOT = str(tmp_path)
        open_data_dump()
    return {
        "users": {"olga": olga, "sam": sam, "mia": mia, "max": max_},
        "pks": {
            "draft": draft.pk, "submitted": submitted.pk, "dutch": league["dutch"].pk, "cup": league["cup"].pk,
            "run": RecalculationRun.objects.latest("pk").pk, "elo": RatingSystem.objects.get(slug="elo").pk, "olga": olga.pk,
        },
    }


def logged_in(context, user, base_url: str) -> None:
    """The context's browser logged in as `user` (a session made by Django's test client, as its cookie)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": base_url}])


def _serve_the_500_page(context) -> None:
    body = server_error(None).content.decode()
    context.route("**/server-error-page/", lambda route: route.fulfill(status=500, content_type="text/html", body=body))


# The pages are visited in groups, each group on one build of `site` (a live server's test empties the
# database after it, so a test a page would build the league 80 times): a group's failures are still
# reported page by page. Four groups: each build costs about ten seconds, and two workers share them.
PAGES_A_TEST = 21
GROUPS = [PAGES[start:start + PAGES_A_TEST] for start in range(0, len(PAGES), PAGES_A_TEST)]


def _axe_problems(tab, name: str, address: str) -> list[str]:
    """What fails `address` in `tab`, at each of WIDTHS: axe's serious and critical violations, a
    server error, or a redirect away from the page. The page loads once, at the first width, and is
    resized for the others (the site's layout follows the width by CSS alone: it has no script)."""
    first, *others = WIDTHS
    tab.set_viewport_size({"width": first, "height": HEIGHT})
    response = tab.goto(address)
    if response is None or response.status >= 500 and name != "error 500":
        return [f"answered {response.status if response else 'nothing'}"]
    if not tab.url.split("?")[0].endswith(address.split("?")[0]):
        return [f"went to {tab.url}"]
    found = [f"at {first}px: {line}" for line in failing(axe_run(tab))]
    for width in others:
        tab.set_viewport_size({"width": width, "height": HEIGHT})
        found += [f"at {width}px: {line}" for line in failing(axe_run(tab))]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("pages", GROUPS, ids=[f"{group[0][0]} to {group[-1][0]}" for group in GROUPS])
def test_no_serious_or_critical_accessibility_violation(browser, live_server, site, pages):
    found = []
    contexts, tabs = [], {}  # who is logged in -> his tab
    try:
        for name, who, address in pages:
            if who not in tabs:
                context = axe_context(browser, live_server.url, width=WIDTHS[0], height=HEIGHT)
                contexts.append(context)
                if who:
                    logged_in(context, site["users"][who], live_server.url)
                _serve_the_500_page(context)
                tabs[who] = context.new_page()
                tabs[who].set_default_timeout(15_000)
            address = address.format(**site["pks"])
            found += [f"{name} ({address}) {line}" for line in _axe_problems(tabs[who], name, address)]
    finally:
        for context in contexts:
            context.close()
    assert not found, "\n".join(found)


# The pages that draw charts, each chart an SVG with role="img". The event page's map only places the
# event (a pin at its town: no figures); its town and country are in the page's text, which test_map_land checks.
CHARTS = [
    ("coach page", "/coaches/101/"),
    ("about ratings", "/about/ratings/"),
    ("about accuracy", "/about/accuracy/"),
    ("stats rank over time", "/stats/rank-over-time/?coach=101"),
    ("stats differentials of a coach", "/stats/differentials/?coach=101"),
    ("stats map", "/stats/map/"),
]

# Each chart's table: the first table after the chart's figure among its following siblings (inside a
# wrapper or a <details> too), and the chart's figures (the numbers in the titles of its points, bars
# and series, and in a bar chart's labels) that the table does not hold.
CHART_TABLES = """() => [...document.querySelectorAll('main svg[role=img]:not(.map)')].map(svg => {
    const figure = svg.closest('figure') || svg;
    let table = null;
    for (let next = figure.nextElementSibling; next && !table; next = next.nextElementSibling) {
        table = next.matches('table') ? next : next.querySelector('table');
    }
    const labels = [...svg.querySelectorAll(':scope > * title, :scope > * > title, .bars text')]
        .filter(label => label.tagName !== 'title' || label.parentElement !== svg).map(label => label.textContent);
    const figures = labels.flatMap(label => label.match(/-?\\d+(?:\\.\\d+)?/g) || []);
    const text = table ? table.textContent.replace(/\\s+/g, ' ') : '';
    const caption = table && table.caption ? table.caption.textContent.trim() : 'a table';
    return {chart: svg.getAttribute('aria-labelledby'), table: table ? caption : null,
            rows: table ? table.querySelectorAll('tbody tr').length : 0, figures: figures.length,
            missing: figures.filter(figure => !text.includes(figure.replace(/^-/, '')))};
})"""


def test_every_chart_has_a_table_with_its_figures(page, site):
    drawn = {}
    for name, address in CHARTS:
        page.goto(address)
        drawn[name] = page.evaluate(CHART_TABLES)
    assert all(drawn.values()), [name for name, charts in drawn.items() if not charts]
    for name, charts in drawn.items():
        for chart in charts:
            assert chart["table"] and chart["rows"] > 0, (name, chart)
            assert chart["missing"] == [], (name, chart)
