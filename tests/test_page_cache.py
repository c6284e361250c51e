"""The page cache's key and its bounds, on views of the test's own (RequestFactory, the local cache):
a cached view sees only the parameters it reads, so an address that adds others shares its entry;
renders and downloads take slots, and past them a request gets a 503 with Retry-After."""
import threading
import time

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.utils import translation

from ratingsite import csv_export, page_cache
from tests.roles import anonymous_get


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


def counting_view(**declared):
    """A cached view that reads `a`, `b` and a table's paging, and records what it was asked."""
    seen = []

    @page_cache.cached_page(reads=("a", "b", *page_cache.table_parameters()), **declared)
    def view(request):
        seen.append((request.GET.lists(), request.META["QUERY_STRING"], request.build_absolute_uri()))
        return HttpResponse(f"a={request.GET.getlist('a')} page={request.GET.get('page')} at {request.get_full_path()}")

    return view, seen


def test_a_parameter_the_view_does_not_read_reaches_neither_its_render_nor_its_key(rf):
    view, seen = counting_view()
    first = view(anonymous_get(rf, "/page/?a=1&r=8c1f"))
    assert first.content == b"a=['1'] page=None at /page/?a=1"
    _, query, address = seen[0]
    assert query == "a=1" and address == "http://testserver/page/?a=1"
    for other in ("/page/?a=1&r=77", "/page/?r=x&a=1&utm_source=feed", "/page/?a=1"):
        assert view(anonymous_get(rf, other)).content == first.content
    assert len(seen) == 1  # one render for the four addresses


def test_the_parameters_kept_are_put_in_one_order_each_ones_values_as_given(rf):
    view, seen = counting_view()
    first = view(anonymous_get(rf, "/page/?b=2&a=3&a=1"))
    assert seen[0][1] == "a=3&a=1&b=2"
    assert view(anonymous_get(rf, "/page/?a=3&b=2&a=1")).content == first.content
    assert len(seen) == 1
    view(anonymous_get(rf, "/page/?a=1&a=3&b=2"))  # another order of one parameter's values: another list
    assert len(seen) == 2


@pytest.mark.parametrize(("asked", "same_as"), [
    ("page=0002", "page=2"), ("page=abc", ""), ("page=%E2%98%83", ""), ("page=2x", ""), ("page=-3", ""),
])
def test_a_page_number_is_written_one_way_and_no_number_is_the_first_page(rf, asked, same_as):
    view, seen = counting_view()
    expected = view(anonymous_get(rf, f"/page/?{same_as}"))
    assert view(anonymous_get(rf, f"/page/?{asked}")).content == expected.content
    assert len(seen) == 1


def test_a_view_that_reports_a_bad_page_number_itself_keeps_it(rf):
    view, seen = counting_view(page_numbers=False)
    assert view(anonymous_get(rf, "/page/?page=abc")).content == b"a=[] page=abc at /page/?page=abc"


def test_a_bare_cached_view_reads_no_parameter(rf):
    seen = []

    @page_cache.cached_page
    def view(request):
        seen.append(dict(request.GET))
        return HttpResponse("home")

    for address in ("/?r=1", "/?r=2", "/"):
        assert view(anonymous_get(rf, address)).content == b"home"
    assert seen == [{}]


def test_a_logged_in_visitor_sees_the_same_parameters(rf, django_user_model):
    view, seen = counting_view()
    request = rf.get("/page/?a=1&r=9")
    request.user = django_user_model(username="staff")
    assert view(request).content == b"a=['1'] page=None at /page/?a=1"


def slow_view(pool_entered: threading.Event, release: threading.Event, calls: list):
    @page_cache.cached_page(reads=("a",))
    def view(request):
        calls.append(request.GET.get("a"))
        pool_entered.set()
        release.wait(10)
        return HttpResponse("done")

    return view


def test_renders_past_the_slots_get_a_503_with_retry_after(rf, settings, monkeypatch):
    settings.PAGE_RENDER_SLOTS = 2
    monkeypatch.setattr(page_cache, "SLOT_WAIT", 0.3)
    entered, release, calls, answers = threading.Event(), threading.Event(), [], []
    view = slow_view(entered, release, calls)
    threads = [threading.Thread(target=lambda n=n: answers.append(view(anonymous_get(rf, f"/slow/?a={n}")).status_code))
               for n in range(2)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 5
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    busy = view(anonymous_get(rf, "/slow/?a=third"))
    waited = time.monotonic() - began
    release.set()
    for thread in threads:
        thread.join(10)
    assert busy.status_code == 503 and busy["Retry-After"] == str(page_cache.RETRY_AFTER)
    assert 0.3 <= waited < 2 and "third" not in calls
    assert sorted(answers) == [200, 200]
    assert view(anonymous_get(rf, "/slow/?a=third")).status_code == 200  # the slots are free again


def test_a_render_that_fails_frees_its_slot(rf, settings, monkeypatch):
    settings.PAGE_RENDER_SLOTS = 1
    monkeypatch.setattr(page_cache, "SLOT_WAIT", 0.1)

    @page_cache.cached_page(reads=("a",))
    def view(request):
        if request.GET.get("a") == "fail":
            raise RuntimeError("boom")
        return HttpResponse("fine")

    with pytest.raises(RuntimeError):
        view(anonymous_get(rf, "/?a=fail"))
    assert view(anonymous_get(rf, "/?a=ok")).status_code == 200


def test_a_cache_that_is_out_bounds_nothing(rf, settings, monkeypatch):
    settings.PAGE_RENDER_SLOTS = 1
    monkeypatch.setattr(cache, "add", lambda *args, **kwargs: False)  # as the fail-open Redis cache does when down
    monkeypatch.setattr(cache, "get_many", lambda keys: {})
    view, seen = counting_view()
    began = time.monotonic()
    assert view(anonymous_get(rf, "/page/?a=1")).status_code == 200
    assert time.monotonic() - began < 1 and len(seen) == 1


def download_view(calls: list):
    @page_cache.cached_page(reads=("a", "_export"))
    def view(request):
        calls.append(request.GET.get("a"))

        def rows():
            for number in range(3000):
                time.sleep(0.0005 if number % 100 == 0 else 0)
                yield [number, f"Coach {number}"]
        return csv_export.csv_download(["Number", "Coach"], rows(), filename="ranking")

    return view


def test_downloads_past_the_export_slots_get_a_503_with_retry_after(rf, settings, monkeypatch):
    settings.PAGE_EXPORT_SLOTS = 2
    monkeypatch.setattr(page_cache, "SLOT_WAIT", 0.3)
    monkeypatch.setattr(page_cache, "WAIT", 0.5)
    calls = []
    view = download_view(calls)
    # two downloads under way (their readers slow), of two addresses
    streams = [iter(view(anonymous_get(rf, f"/ranking/?_export=csv&a={n}")).streaming_content) for n in range(2)]
    for stream in streams:
        next(stream)
    third = view(anonymous_get(rf, "/ranking/?_export=csv&a=2"))
    assert third.status_code == 503 and third["Retry-After"] == str(page_cache.RETRY_AFTER)
    # the same address as one under way, not kept within WAIT, and no slot free: a 503 too
    assert view(anonymous_get(rf, "/ranking/?_export=csv&a=0")).status_code == 503
    whole = b"".join([b"", *streams[0]])
    assert calls == ["0", "1"]
    read = view(anonymous_get(rf, "/ranking/?_export=csv&a=0"))
    assert read.status_code == 200 and not read.streaming and read.content.endswith(whole)
    b"".join(streams[1])
    assert view(anonymous_get(rf, "/ranking/?_export=csv&a=2")).status_code == 200  # a slot is free again
    assert calls == ["0", "1", "2"]


@pytest.mark.django_db
def test_a_logged_in_visitors_downloads_take_export_slots_too(rf, settings, monkeypatch, django_user_model):
    settings.PAGE_EXPORT_SLOTS = 1
    monkeypatch.setattr(page_cache, "SLOT_WAIT", 0.2)
    view = download_view([])
    user = django_user_model.objects.create(username="organiser")

    def logged_in(path):
        request = rf.get(path)
        request.user = user
        return request

    first = view(logged_in("/ranking/?_export=csv"))
    next(iter(first.streaming_content))
    assert view(logged_in("/ranking/?_export=csv")).status_code == 503
    first.close()  # a download stopped half-way (the server closes the answer) frees its slot
    assert view(logged_in("/ranking/?_export=csv")).status_code == 200


def test_eight_clients_downloading_one_address_at_once_build_it_once(rf, settings):
    settings.PAGE_EXPORT_SLOTS = 1
    calls, bodies = [], []
    view = download_view(calls)

    def client():
        response = view(anonymous_get(rf, "/ranking/?_export=csv"))
        bodies.append((response.status_code, b"".join(response.streaming_content) if response.streaming else response.content))

    threads = [threading.Thread(target=client) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert calls == [None]
    assert len(bodies) == 8 and {status for status, _ in bodies} == {200} and len({body for _, body in bodies}) == 1


def test_the_english_and_dutch_renders_of_one_address_are_kept_apart_each_served_to_its_language(rf):
    renders = []

    @page_cache.cached_page
    def view(request):
        renders.append(translation.get_language())
        return HttpResponse(translation.gettext("Rankings"))

    answers = {}
    for _ in range(2):  # the second round is served from the cache
        for language in ("en-gb", "nl"):
            with translation.override(language):
                answers.setdefault(language, []).append(view(anonymous_get(rf, "/page/")).content)
    assert answers == {"en-gb": [b"Rankings", b"Rankings"], "nl": [b"Ranglijsten", b"Ranglijsten"]}
    assert renders == ["en-gb", "nl"]  # one render each, then each from its own entry


def test_a_download_is_made_in_the_sites_own_language_whatever_the_active_one(rf):
    @page_cache.cached_page(reads=(page_cache.EXPORT_PARAMETER,))
    def view(request):
        return csv_export.csv_download([translation.gettext_lazy("Rankings")], [[translation.gettext_lazy("Events")]], filename="x")

    with translation.override("nl"):
        response = view(anonymous_get(rf, "/page/?_export=csv"))
        body = b"".join(response.streaming_content)
    assert body == "\ufeffRankings\r\nEvents\r\n".encode()
