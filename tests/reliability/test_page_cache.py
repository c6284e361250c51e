"""The public pages are rendered once per address, then read from the cache until a change commits:
a sanction, a correction, a run or a statistics refresh shows on the next request.

The pages are cached only outside a transaction, so these tests commit (a transactional database).
"""
import threading
import time

import pytest
from django.db import connection, transaction
from django.http import HttpResponse, StreamingHttpResponse
from django.middleware.csrf import get_token
from django.test.utils import CaptureQueriesContext

from ratings import services
from ratings.models import RatingSystem, Trigger
from ratingsite import page_cache
from stats.services import summaries_refresh
from tests.factories import RoundFactory, play
from tests.roles import anonymous_get, staff
from tests.web.conftest import build_league, column, recalculate_all, table
from tournaments.models import Event, EventStatus, Game
from tournaments.services import event_sanction, game_correct

CACHED_PAGES = [
    "/rankings/", "/rankings/elo/", "/rankings/glicko/?race=human&sort=-value", "/rankings/knsb/2024-07/", "/events/",
    "/events/?status=any", "/lists/", "/lists/knsb/", "/lists/knsb/2024-07/", "/coaches/101/",
    "/coaches/101/breakdown/elo/?variant=blood-bowl-2020", "/stats/", "/stats/games/", "/stats/race-grid/",
    "/stats/win-ratios/?variant=blood-bowl-2020", "/stats/top/", "/stats/map/",
]


@pytest.fixture
def federation(transactional_db):
    data = build_league()
    recalculate_all()
    summaries_refresh()
    return data


def queries_of(client, url: str) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return len(queries), response


def elo_games(client) -> dict[str, str]:
    found = table(client.get("/rankings/elo/"), "ranking")
    return dict(zip(column(found, "Coach"), column(found, "Games")))


# Each page a subtest of one test: the pages share one build of the federation (a committing test's).
def test_a_page_is_rendered_once_then_read_from_the_cache(client, federation, subtests):
    for url in CACHED_PAGES:
        with subtests.test(url=url):
            rendered, first = queries_of(client, url)
            assert first.status_code == 200 and rendered > 0
            again, second = queries_of(client, url)
            assert again == 0
            assert second.status_code == 200
            assert second.content == first.content
            assert second["Content-Type"] == first["Content-Type"]


def with_parameter(url: str, parameter: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{parameter}"


def test_a_parameter_the_page_does_not_read_is_the_page_without_it_from_the_cache(client, federation, subtests):
    for url in CACHED_PAGES:
        with subtests.test(url=url):
            first = client.get(url)
            for busting in ("r=4f1c9a", "r=77&utm_source=feed", "_=1733270400"):
                again, answer = queries_of(client, with_parameter(url, busting))
                assert again == 0 and answer.status_code == 200
                assert answer.content == first.content
            assert b"4f1c9a" not in first.content and b"utm_source" not in first.content


def test_a_parameter_the_page_does_not_read_is_echoed_nowhere(client, federation):
    html = client.get("/rankings/elo/?race=orc&r=4f1c9a").content.decode()
    assert "4f1c9a" not in html  # neither the share link, nor the sort and page links, nor the CSV link
    assert "race=orc" in html


def test_the_same_parameters_in_another_order_are_one_page(client, federation):
    first = client.get("/stats/win-ratios/?variant=blood-bowl-2020&sanctioned=yes")
    again, answer = queries_of(client, "/stats/win-ratios/?sanctioned=yes&variant=blood-bowl-2020")
    assert again == 0 and answer.content == first.content


def test_a_value_the_filters_refuse_is_a_400_and_kept_nowhere(client, federation):
    for value in ("wizards", "x91f3"):
        for _ in range(2):
            rendered, answer = queries_of(client, f"/rankings/elo/?race={value}")
            assert answer.status_code == 400 and rendered > 0
    answer = client.get("/rankings/elo/?race=x91f3&_export=csv")
    assert answer.status_code == 400 and "race: Select a valid choice" in answer.content.decode()
    rendered, answer = queries_of(client, "/stats/race-grid/?races=every")
    assert answer.status_code == 400 and "Races is “all” or empty" in answer.content.decode()


def test_a_page_that_is_no_number_is_the_first_page_from_the_cache(client, federation):
    first = client.get("/rankings/elo/")
    for page in ("abc", "1x", "%E2%98%83"):
        again, answer = queries_of(client, f"/rankings/elo/?page={page}")
        assert again == 0 and answer.content == first.content


def test_the_whole_ranking_as_csv_is_built_once_then_read_from_the_cache(client, federation):
    first = client.get("/rankings/elo/?_export=csv")
    whole = b"".join(first.streaming_content)
    for url in ("/rankings/elo/?_export=csv", "/rankings/elo/?_export=csv&r=1"):
        again, answer = queries_of(client, url)
        assert again == 0 and not answer.streaming and answer.content == whole
        assert answer["Content-Disposition"] == first["Content-Disposition"]


def test_each_query_string_is_its_own_page(client, federation):
    assert table(client.get("/events/"), "Events")["rows"] != table(client.get("/events/?year=2022"), "Events")["rows"]
    assert column(table(client.get("/events/?year=2022"), "Events"), "Event") == ["Paris Classic"]


def test_a_sanction_shows_on_the_next_request(client, federation):
    Event.objects.filter(pk=federation["bash"].pk).update(status=EventStatus.SUBMITTED)  # open play is never sanctioned
    federation["bash"].refresh_from_db()
    assert "Garage Bash" not in column(table(client.get("/events/"), "Events"), "Event")
    assert elo_games(client)["Anna Jansen"] == "8"
    event_sanction(event=federation["bash"], actor=staff())  # its runs go in-process once it commits
    assert "Garage Bash" in column(table(client.get("/events/"), "Events"), "Event")
    assert elo_games(client)["Anna Jansen"] == "9"


def test_a_correction_shows_on_the_next_request(client, federation):
    dutch = federation["dutch"]
    before = client.get(f"/events/{dutch.pk}/").content
    game = Game.objects.get(round__event=dutch, round__number=1, home_coach=federation["anna"])
    game_correct(game=game, actor=staff(), home_touchdowns=0, away_touchdowns=3)
    after = client.get(f"/events/{dutch.pk}/").content.decode()
    assert after.encode() != before
    assert "0–3" in after or "0-3" in after


def test_a_run_commit_shows_on_the_next_request(client, federation):
    assert elo_games(client)["Eva Bakker"] == "7"
    # a game recorded past the services: only the run's commit tells the pages
    play(RoundFactory(event=federation["cup"], number=3), federation["eva"], federation["dirk"], (1, 0),
         home_race="dwarf", away_race="orc")
    assert elo_games(client)["Eva Bakker"] == "7"
    elo = RatingSystem.objects.get(slug="elo")
    run = services.recalculation_request(system=elo, trigger=Trigger.MANUAL, enqueue=False)
    services.recalculation_execute(run_id=run.pk)
    assert elo_games(client)["Eva Bakker"] == "8"


def test_a_statistics_refresh_shows_on_the_next_request(client, federation):
    before = client.get("/stats/race-grid/").content
    play(RoundFactory(event=federation["league"], number=6), federation["eva"], federation["fay"], (3, 0),
         home_race="dwarf", away_race="skaven")
    assert client.get("/stats/race-grid/").content == before
    summaries_refresh()
    assert client.get("/stats/race-grid/").content != before


def test_a_page_rendered_inside_a_transaction_is_neither_served_nor_stored(client, federation):
    client.get("/events/")
    with transaction.atomic():
        assert queries_of(client, "/events/")[0] > 0
        client.get("/events/?year=2022")
    assert queries_of(client, "/events/")[0] == 0
    assert queries_of(client, "/events/?year=2022")[0] > 0


def test_a_page_cached_while_a_change_commits_is_rendered_again_after_it(client, federation):
    def another_request():
        client.get("/events/")  # another connection: the figures before the commit, stored
        connection.close()

    with transaction.atomic():
        page_cache.bump_on_commit()
        other = threading.Thread(target=another_request)
        other.start()
        other.join(60)
        assert not other.is_alive(), "the other request did not answer within 60 s"
    assert queries_of(client, "/events/")[0] > 0


def test_signed_in_users_never_get_or_leave_a_cached_page(client, federation):
    anonymous = client.get("/rankings/elo/").content.decode()
    assert "Log out" not in anonymous
    client.force_login(staff("sam"))
    rendered, mine = queries_of(client, "/rankings/elo/")
    assert rendered > 0 and "sam" in mine.content.decode() and "Log out" in mine.content.decode()
    client.logout()
    again, theirs = queries_of(client, "/rankings/elo/")
    assert again == 0 and theirs.content.decode() == anonymous


def _view_counting(calls: list, answer):
    @page_cache.cached_page
    def view(request):
        calls.append(request.path)
        return answer(request)
    return view



def test_an_answer_holding_a_csrf_token_is_never_cached(rf):
    calls = []

    def form(request):
        return HttpResponse(f'<input name="csrfmiddlewaretoken" value="{get_token(request)}">')
    view = _view_counting(calls, form)
    view(anonymous_get(rf, "/page/"))
    view(anonymous_get(rf, "/page/"))
    assert len(calls) == 2


def test_an_answer_setting_a_cookie_or_failing_is_never_cached(rf):
    def with_cookie(request):
        response = HttpResponse("hello")
        response.set_cookie("seen", "1")
        return response
    cookie_calls, missing_calls, plain_calls = [], [], []
    for calls, answer in (
        (cookie_calls, with_cookie),
        (missing_calls, lambda request: HttpResponse("no such thing", status=404)),
        (plain_calls, lambda request: HttpResponse("hello")),
    ):
        view = _view_counting(calls, answer)
        view(anonymous_get(rf, "/page/"))
        view(anonymous_get(rf, "/page/"))
    assert (len(cookie_calls), len(missing_calls), len(plain_calls)) == (2, 2, 1)


# transactional_db: closing a response ends a request, whose signal closes the database connection
def test_a_streamed_download_is_kept_once_it_has_streamed_to_the_end(rf, transactional_db):
    calls = []

    def download(request):
        response = StreamingHttpResponse((f"row {n}\n".encode() for n in range(1000)), content_type="text/csv")
        response["Content-Disposition"] = 'attachment; filename="ranking.csv"'
        return response
    view = _view_counting(calls, download)
    first = view(anonymous_get(rf, "/page/"))
    assert next(iter(first.streaming_content)) == b"row 0\n"
    first.close()  # the server closes a download stopped half-way: nothing is kept
    whole = b"".join(view(anonymous_get(rf, "/page/")).streaming_content)
    hit = view(anonymous_get(rf, "/page/"))
    assert len(calls) == 2
    assert whole == b"".join(f"row {n}\n".encode() for n in range(1000)) == hit.content
    assert hit["Content-Disposition"] == 'attachment; filename="ranking.csv"' and hit["Content-Type"] == "text/csv"


def test_while_one_request_renders_a_page_the_others_wait_for_its_answer(rf):
    calls, started = [], threading.Event()

    def slow(request):
        started.set()
        time.sleep(0.5)
        return HttpResponse("rendered once")
    view = _view_counting(calls, slow)
    answers = []
    first = threading.Thread(target=lambda: answers.append(view(anonymous_get(rf, "/page/")).content))
    first.start()
    started.wait(5)
    others = [threading.Thread(target=lambda: answers.append(view(anonymous_get(rf, "/page/")).content)) for _ in range(3)]
    for thread in others:
        thread.start()
    for thread in [first, *others]:
        thread.join(10)
    assert len(calls) == 1
    assert answers == [b"rendered once"] * 4


def test_a_render_that_keeps_nothing_lets_the_waiting_requests_render(rf):
    calls, started = [], threading.Event()

    def missing(request):
        started.set()
        time.sleep(0.3)
        return HttpResponse("not found", status=404)
    view = _view_counting(calls, missing)
    statuses = []
    first = threading.Thread(target=lambda: statuses.append(view(anonymous_get(rf, "/page/")).status_code))
    first.start()
    started.wait(5)
    began = time.monotonic()
    assert view(anonymous_get(rf, "/page/")).status_code == 404
    first.join(5)
    assert len(calls) == 2 and statuses == [404]
    assert time.monotonic() - began < page_cache.WAIT / 2  # not the whole wait: the render ended
