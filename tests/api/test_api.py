"""The open-data API (/api/v1/): its schema, its figures against the pages' and the export's, its
pagination, limits, caching headers and privacy."""
import csv
import io

import pytest
from django.core.management import call_command
from django.test import Client
from openapi_spec_validator import validate

from api.endpoints import api
from api.keys import api_key_issue
from ratings.models import Publication, RatingSystem
from tests.factories import CoachFactory, EventFactory, RoundFactory, play
from tests.scopes import kept_for_the_module
from tests.web.conftest import build_league, recalculate_all, tables_of
from tournaments.models import Coach, EventStatus, Visibility
from tournaments.privacy import coach_privacy_set

SYSTEMS = ("elo", "glicko", "global-glicko", "knsb")


@pytest.fixture(scope="module")
def league_module(django_db_setup, django_db_blocker):
    with kept_for_the_module(django_db_blocker):
        data = build_league()
        hidden = CoachFactory(number=109, name="Ivo Verborgen", nationality="BE")
        play(RoundFactory(event=data["league"], number=6), hidden, data["anna"], (1, 1), home_race="human", away_race="human")
        coach_privacy_set(coach=hidden, visibility=Visibility.HIDDEN, actor=None)
        data["ivo"] = hidden
        draft = EventFactory(name="Secret Draft Cup", start_date=dt_date(2024, 7, 6), status=EventStatus.DRAFT)
        play(RoundFactory(event=draft, number=1), data["anna"], data["bert"], (2, 0), home_race="human", away_race="orc")
        submitted = EventFactory(name="Waiting Submitted Cup", start_date=dt_date(2024, 7, 13), status=EventStatus.SUBMITTED)
        play(RoundFactory(event=submitted, number=1), data["anna"], data["bert"], (2, 0), home_race="human", away_race="orc")
        data["draft"], data["submitted"] = draft, submitted
        recalculate_all()
        yield data


def dt_date(*args):
    import datetime as dt
    return dt.date(*args)


@pytest.fixture
def league(league_module, db):
    return league_module


def get(client, url, **headers):
    response = client.get(url, headers=headers)
    return response


def every_page(client, url):
    items, seen = [], 0
    while url:
        body = client.get(url).json()
        items += body["items"]
        url, seen = body["next"], seen + 1
        assert seen < 100
    return items


def export(system: str, *extra) -> list[dict]:
    out = io.StringIO()
    call_command("export_ratings", "--system", system, *extra, stdout=out, stderr=io.StringIO())
    return list(csv.DictReader(io.StringIO(out.getvalue())))


def test_the_schema_is_openapi_3_1_and_valid(client, db):
    response = client.get("/api/v1/schema/")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.1")
    validate(schema)
    assert "/api/v1/systems/{slug}/ratings" in schema["paths"]


def test_the_swagger_page_loads_its_scripts_from_the_site(client, db):
    page = client.get("/api/v1/docs/").content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in page
    assert "cdn" not in page.lower() and "https://" not in page


def test_the_documentation_page_lists_endpoints_and_limits(client, db, settings):
    page = client.get("/api/v1/").content.decode()
    assert f"{settings.API_RATE_ANONYMOUS} requests a minute" in page
    assert f"{settings.API_RATE_KEYED} requests a minute" in page
    assert "X-API-Key" in page and "Retry-After" in page and "If-None-Match" in page
    assert "/api/v1/coaches/{number}/history/{slug}" in page
    assert "<script" not in page.split("<main", 1)[-1].split("</main>")[0]


@pytest.mark.parametrize("system", SYSTEMS)
def test_current_ratings_equal_the_export_and_the_page(client, league, system):
    items = every_page(client, f"/api/v1/systems/{system}/ratings?limit=3")
    rows = export(system)
    assert len(items) == len(rows) > 0
    if system == "elo":  # Gus and Hal, idle for two years, unranked: after the ranked, paged as well
        assert [i["coach"]["number"] for i in items if i["rank"] is None][-2:] and items[-1]["rank"] is None
    exported = {(r["coach_number"], r["race"], r["variant"]): r for r in rows}
    assert len({(i["coach"]["number"], i["race"] and i["race"]["slug"], i["variant"]["slug"]) for i in items}) == len(rows)
    for item in items:
        row = exported[(str(item["coach"]["number"]), item["race"]["name"] if item["race"] else "", item["variant"]["name"])]
        assert item["coach"]["name"] == row["coach"]
        assert item["rating"] == float(row["rating"])
        assert (item["rank"] or "") == (int(row["rank"]) if row["rank"] else "")
        assert item["games"] == int(row["games"])
        for name in ("mu", "phi", "sigma"):
            assert item[name] == (float(row[name]) if row[name] else None)
    # the ranking page's own CSV: the same figures, in the same order (ranked first)
    page = list(csv.reader(io.StringIO(b"".join(client.get(f"/rankings/{system}/?_export=csv").streaming_content).decode("utf-8-sig"))))
    header, body = page[0], page[1:]
    variant = RatingSystem.objects.get(slug=system)
    first_variant = items[0]["variant"]["slug"]
    shown = [i for i in items if i["variant"]["slug"] == first_variant]
    assert len(body) == len(shown), (header, variant)
    number_column = next(i for i, name in enumerate(header) if "#" in name or "number" in name.lower())
    assert [int(r[number_column]) for r in body] == [i["coach"]["number"] for i in shown]


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_coachs_ratings_equal_the_export(client, league, system):
    anna = league["anna"]
    ratings = [r for r in client.get(f"/api/v1/coaches/{anna.number}/ratings").json() if r["system"] == system]
    rows = [r for r in export(system) if r["coach_number"] == str(anna.number)]
    assert ratings and len(ratings) == len(rows)
    assert sorted(r["rating"] for r in ratings) == sorted(float(r["rating"]) for r in rows)


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_history_ends_at_the_current_rating_with_every_game(client, league, system):
    anna = league["anna"]
    body = client.get(f"/api/v1/coaches/{anna.number}/history/{system}").json()
    assert body["coach"] == {"number": anna.number, "name": "Anna Jansen"}
    points = body["points"]
    assert points and all(p["games_played"] >= p["games_counted"] for p in points)
    current = {(r["race"]["slug"] if r["race"] else None, r["variant"]["slug"]): r
               for r in client.get(f"/api/v1/coaches/{anna.number}/ratings").json() if r["system"] == system}
    last = {}
    for point in points:
        last[(point["race"]["slug"] if point["race"] else None, point["variant"]["slug"])] = point
    method = RatingSystem.objects.get(slug=system).method
    for key, point in last.items():
        if method == "naf_elo":  # Elo moves only with games: the last event's rating is the current one
            assert point["rating"] == current[key]["rating"]
    assert sum(p["games_counted"] for p in points) == sum(r["games"] for r in current.values()) or method != "naf_elo"


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_history_equals_the_coach_pages_history_table(client, league, system):
    anna = league["anna"]
    points = client.get(f"/api/v1/coaches/{anna.number}/history/{system}").json()["points"]
    page = client.get(f"/coaches/{anna.number}/?system={system}&history-per_page=200")
    found = next(t for t in tables_of(page) if t["rows"] and "After" in t["rows"][0][1] and "Before" in t["rows"][0][1])
    header, rows = found["rows"][0][1], [cells for _, cells in found["rows"][1:]]
    places = 0 if system == "knsb" else 2

    def text(value):
        return "" if value is None else f"{value:.{places}f}"
    shown = sorted(tuple(row[header.index(name)].strip() for name in ("From", "Variant", "Before", "After", "Games")) for row in rows)
    assert shown == sorted(
        (p["effective"], p["variant"]["name"], text(p["rating_before"]), text(p["rating"]), str(p["games_counted"])) for p in points
    )


@pytest.mark.parametrize("system", SYSTEMS)
def test_published_entries_equal_the_published_export(client, league, system):
    publication = Publication.objects.filter(system__slug=system, rated__gt=0).order_by("-date", "-edition").first()
    assert publication is not None, f"the league must give {system} a published list with rated coaches to compare"
    month = f"{publication.date:%Y-%m}"
    head = client.get(f"/api/v1/systems/{system}/lists/{month}").json()
    assert head["edition"] == publication.edition and head["digest"] == publication.digest
    items = every_page(client, f"/api/v1/systems/{system}/lists/{month}/entries?limit=4")
    rows = export(system, "--published", "--as-of", publication.date.isoformat())
    assert len(items) == len(rows) > 0
    exported = {(r["coach_number"], r["race"], r["variant"]): r for r in rows}
    for item in items:
        row = exported[(str(item["coach"]["number"]), item["race"]["name"] if item["race"] else "", item["variant"]["name"])]
        assert item["rating"] == float(row["rating"]) and item["games"] == int(row["games"])


def test_the_list_of_lists_names_every_publication(client, league):
    items = every_page(client, "/api/v1/systems/elo/lists?limit=1")
    assert [(i["date"], i["edition"]) for i in items] == [
        (p.date.isoformat(), p.edition) for p in Publication.objects.filter(system__slug="elo").order_by("-date", "-edition")]


def test_coach_search_ignores_accents_and_finds_numbers(client, league):
    found = client.get("/api/v1/coaches?q=muller").json()["items"]
    assert [c["number"] for c in found] == [104]
    assert found[0] == {"number": 104, "name": "Dirk Müller", "nationality": "DE", "member_since": None}
    assert [c["number"] for c in client.get("/api/v1/coaches?q=103").json()["items"]] == [103]


def test_a_hidden_coach_shows_only_his_label(client, league):
    ivo = league["ivo"]
    detail = client.get(f"/api/v1/coaches/{ivo.number}").json()
    assert detail["name"].startswith("Anonymous coach ") and detail["nationality"] is None
    everything = b"".join(client.get(url).content for url in (
        "/api/v1/coaches?limit=200", "/api/v1/coaches?q=Ivo", "/api/v1/systems/elo/ratings?limit=200",
        f"/api/v1/events/{league['league'].pk}/games?limit=200", f"/api/v1/events/{league['league'].pk}/standings/elo",
        f"/api/v1/coaches/{ivo.number}", "/api/v1/coaches?country=BE",
    ))
    assert b"Ivo" not in everything and b"Verborgen" not in everything and b'"BE"' not in everything
    assert client.get("/api/v1/coaches?q=Verborgen").json()["items"] == []


def test_unpublished_events_are_absent(client, league):
    listed = every_page(client, "/api/v1/events?status=any&limit=2")
    names = {e["name"] for e in listed}
    assert {"Dutch Open", "Garage Bash", "Summer League"} <= names
    assert "Secret Draft Cup" not in names and "Waiting Submitted Cup" not in names
    for event in (league["draft"], league["submitted"]):
        assert client.get(f"/api/v1/events/{event.pk}").status_code == 404
        assert client.get(f"/api/v1/events/{event.pk}/games").status_code == 404


def test_an_event_says_which_runs_rated_it(client, league):
    body = client.get(f"/api/v1/events/{league['dutch'].pk}").json()
    assert body["status"] == "sanctioned" and body["games"] == 4
    assert {r["system"] for r in body["rated_in"]} == set(SYSTEMS)
    assert all(r["run"] is not None for r in body["rated_in"])
    assert client.get(f"/api/v1/events/{league['bash'].pk}").json()["rated_in"] == []


def test_standings_equal_the_event_page_figures(client, league):
    body = client.get(f"/api/v1/events/{league['dutch'].pk}/standings/elo").json()
    by_name = {s["coach"]["name"]: s for s in body["standings"]}
    # the spec's four-coach example (K = 4): W (Anna) 1-0-1, Y (Cees) wins the event
    assert body["standings"][0]["coach"]["name"] == "Cees de Vries"
    assert by_name["Anna Jansen"]["wins"] == 1 and by_name["Anna Jansen"]["losses"] == 1


def test_cursor_paging_is_stable_while_games_are_inserted(client, league):
    event = league["league"]
    url = f"/api/v1/events/{event.pk}/games?limit=4"
    before = {g["id"] for g in every_page(client, url)}
    first = client.get(url).json()
    seen = [g["id"] for g in first["items"]]
    nxt = first["next"]
    coaches = [CoachFactory(number=200 + i, name=f"Late Coach {i}") for i in range(4)]
    for number, (home, away) in enumerate(((coaches[0], coaches[1]), (coaches[2], coaches[3])), start=1):
        play(RoundFactory(event=event, number=10 + number), home, away, (1, 0), home_race="orc", away_race="orc")
    # and one in the first round, sorted among the rows already read
    while nxt:
        body = client.get(nxt).json()
        seen += [g["id"] for g in body["items"]]
        nxt = body["next"]
    assert len(seen) == len(set(seen))
    assert before <= set(seen)


def test_a_bad_cursor_is_refused(client, db):
    response = client.get("/api/v1/coaches?cursor=bm90LWEtY3Vyc29y")
    assert response.status_code == 400 and "cursor" in response.json()["detail"]


def test_past_the_limit_429_with_retry_after(client, db, settings):
    settings.API_RATE_ANONYMOUS = 3
    assert [client.get("/api/v1/systems").status_code for _ in range(3)] == [200, 200, 200]
    refused = client.get("/api/v1/systems")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert refused["X-RateLimit-Remaining"] == "0"
    # another address is counted apart
    assert Client(REMOTE_ADDR="10.1.2.3").get("/api/v1/systems").status_code == 200


def test_a_key_in_the_header_raises_the_limit_and_in_the_query_is_ignored(client, db, settings):
    settings.API_RATE_ANONYMOUS = 2
    _, key = api_key_issue(name="Tableau", per_minute=5)
    assert [client.get("/api/v1/systems", headers={"X-API-Key": key}).status_code for _ in range(5)] == [200] * 5
    assert client.get("/api/v1/systems", headers={"X-API-Key": key}).status_code == 429
    anonymous = [client.get(f"/api/v1/systems?api_key={key}&key={key}").status_code for _ in range(3)]
    assert anonymous == [200, 200, 429]
    assert Client(REMOTE_ADDR="10.4.5.6").get("/api/v1/systems", headers={"X-API-Key": "made-up"}).status_code == 401


def test_the_key_command_prints_a_key_kept_only_hashed(db):
    from api.models import ApiKey
    out = io.StringIO()
    call_command("api_key", "--issue", "KNSB clubs", "--per-minute", "120", stdout=out, stderr=io.StringIO())
    key = out.getvalue().strip()
    stored = ApiKey.objects.get()
    assert stored.per_minute == 120 and stored.prefix == key[:8] and key not in stored.digest


def test_a_matching_etag_answers_304(client, league):
    first = client.get("/api/v1/systems/elo/ratings?limit=5")
    assert first.status_code == 200 and first["ETag"] and first["Last-Modified"]
    again = client.get("/api/v1/systems/elo/ratings?limit=5", headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == first["ETag"]
    assert client.get("/api/v1/systems/elo/ratings?limit=5", headers={"If-Modified-Since": first["Last-Modified"]}).status_code == 304
    other = client.get("/api/v1/systems/elo/ratings?limit=6", headers={"If-None-Match": first["ETag"]})
    assert other.status_code == 200


def test_cors_is_open_on_api_reads_only(client, db):
    response = client.get("/api/v1/systems")
    assert response["Access-Control-Allow-Origin"] == "*"
    preflight = client.options("/api/v1/systems", headers={"Origin": "https://club.example", "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 204 and preflight["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Origin" not in client.get("/rankings/").headers
    assert client.post("/api/v1/systems").status_code == 405


def test_the_api_registers_every_resource():
    paths = set(api.get_openapi_schema()["paths"])
    assert {"/api/v1/systems", "/api/v1/coaches", "/api/v1/events", "/api/v1/runs", "/api/v1/systems/{slug}/lists"} <= paths


def test_every_answer_has_the_shape_its_schema_declares(client, league):
    from api import schemas

    publication = Publication.objects.filter(system__slug="elo", rated__gt=0).order_by("-date").first()
    month = f"{publication.date:%Y-%m}"
    dutch, anna = league["dutch"].pk, league["anna"].number
    checks = [
        ("/api/v1/systems", list[schemas.System]), ("/api/v1/systems/knsb", schemas.System),
        ("/api/v1/systems/glicko/ratings", schemas.RatingPage), ("/api/v1/coaches", schemas.CoachPage),
        (f"/api/v1/coaches/{anna}", schemas.CoachDetail), (f"/api/v1/coaches/{anna}/ratings", list[schemas.Rating]),
        (f"/api/v1/coaches/{anna}/history/knsb", schemas.History), ("/api/v1/events?status=any", schemas.EventPage),
        (f"/api/v1/events/{dutch}", schemas.EventDetail), (f"/api/v1/events/{dutch}/standings/knsb", schemas.Standings),
        (f"/api/v1/events/{dutch}/games", schemas.GamePage), ("/api/v1/systems/elo/lists", schemas.PublicationPage),
        (f"/api/v1/systems/elo/lists/{month}", schemas.PublicationDetail),
        (f"/api/v1/systems/elo/lists/{month}/entries", schemas.EntryPage), ("/api/v1/runs", schemas.RunPage),
    ]
    from pydantic import TypeAdapter

    for url, schema in checks:
        response = client.get(url)
        assert response.status_code == 200 and response["Content-Type"] == "application/json", url
        body = response.json()
        TypeAdapter(schema).validate_python(body, strict=False)
        declared = set(schema.model_fields) if hasattr(schema, "model_fields") else None
        if declared is not None:
            assert set(body) == declared, url  # nothing more, nothing less than the schema says


def test_a_revoked_key_is_refused_at_once(client, db, django_capture_on_commit_callbacks):
    record, key = api_key_issue(name="Old widget", per_minute=100)
    assert client.get("/api/v1/systems", headers={"X-API-Key": key}).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        call_command("api_key", "--revoke", record.prefix, stdout=io.StringIO())
    refused = client.get("/api/v1/systems", headers={"X-API-Key": key})
    assert refused.status_code == 401 and "revoked" in refused.json()["detail"]


def test_the_staff_see_keys_in_the_admin_but_never_the_key(admin_client, db):
    record, key = api_key_issue(name="Tableau", per_minute=100)
    page = admin_client.get(f"/admin/api/apikey/{record.pk}/change/").content.decode()
    assert "Tableau" in page and record.prefix in page and key not in page
    assert admin_client.get("/admin/api/apikey/add/").status_code == 403


def test_head_answers_as_get_without_a_body(client, db):
    got, head = client.get("/api/v1/systems"), client.head("/api/v1/systems")
    assert head.status_code == 200 and head.content == b""
    assert head["Content-Length"] == str(len(got.content)) and head["ETag"] == got["ETag"]


def test_guessing_keys_counts_against_the_address(client, db, settings):
    settings.API_RATE_ANONYMOUS = 2
    statuses = [client.get("/api/v1/systems", headers={"X-API-Key": f"guess-{n}"}).status_code for n in range(3)]
    assert statuses == [401, 401, 429]


def test_runs_say_what_they_did_and_how_long_it_took(client, league):
    from ratings.models import RecalculationRun

    items = every_page(client, "/api/v1/runs?system=knsb&limit=1")
    stored = RecalculationRun.objects.filter(system__slug="knsb").order_by("-id")
    assert [(i["id"], i["status"], i["duration"], i["games_processed"]) for i in items] == [
        (run.pk, run.status, run.duration, run.games_processed) for run in stored]
    assert "reason" not in items[0] and "requested_by" not in items[0]
    assert client.get("/api/v1/runs?status=exploded").status_code == 400


def test_a_pseudonym_is_shown_as_the_pseudonym_with_the_details_the_pages_show(client, db, django_capture_on_commit_callbacks):
    import datetime as dt

    coach = CoachFactory(number=7001, name="Real Name Hidden", nationality="IT", member_since=dt.date(2010, 5, 1))
    assert client.get("/api/v1/coaches/7001").json()["member_since"] == 2010
    with django_capture_on_commit_callbacks(execute=True):  # its commit tells the caches, as on the site
        coach_privacy_set(coach=coach, visibility=Visibility.PSEUDONYM, pseudonym="The Gaffer", actor=None)
    detail = client.get("/api/v1/coaches/7001").json()
    # as on the coach page: a pseudonym stands for the name only; hiding takes the details away too
    assert detail == {"number": 7001, "name": "The Gaffer", "nationality": "IT", "member_since": 2010, "ratings": []}
    assert [c["number"] for c in client.get("/api/v1/coaches?q=gaffer").json()["items"]] == [7001]
    assert client.get("/api/v1/coaches?q=Real+Name+Hidden").json()["items"] == []


def test_a_change_the_pages_show_changes_the_etag(client, league):
    from ratingsite import page_cache

    first = client.get("/api/v1/coaches?limit=5")
    page_cache.bump()  # what a run's commit, a sanction or a privacy choice does once it commits
    again = client.get("/api/v1/coaches?limit=5", headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 200 and again["ETag"] != first["ETag"]


def test_systems_give_their_parameters_as_they_run(client, db):
    systems = {s["slug"]: s for s in client.get("/api/v1/systems").json()}
    assert set(systems) == set(SYSTEMS)
    assert systems["glicko"]["method"] == "glicko" and systems["glicko"]["parameters"]["tau"] == 0.2
    assert systems["global-glicko"]["parameters"]["period"] == "two_weeks" and systems["global-glicko"]["per_race"] is False
    assert systems["elo"]["parameters"]["start_rating"] == 150.0
    assert systems["knsb"]["method"] == "knsb" and "initial_list" not in systems["knsb"]["parameters"]


def test_an_elo_history_names_its_events(client, league):
    points = client.get(f"/api/v1/coaches/{league['anna'].number}/history/elo").json()["points"]
    assert [(p["event_name"], p["event_id"], p["games_played"]) for p in points] == [
        ("Dutch Open", league["dutch"].pk, 2), ("Utrecht Cup", league["cup"].pk, 2), ("Summer League", league["league"].pk, 6)]


def test_an_answer_is_kept_until_the_data_changes(client, league, django_assert_num_queries):
    from ratingsite import page_cache

    first = client.get("/api/v1/coaches/101/history/elo")
    with django_assert_num_queries(0):
        again = client.get("/api/v1/coaches/101/history/elo")
    assert again.status_code == 200 and again.content == first.content and again["ETag"] == first["ETag"]
    assert again["Content-Type"] == first["Content-Type"]
    Coach.objects.filter(number=101).update(public_name="Anna J.")
    assert client.get("/api/v1/coaches/101/history/elo").json()["coach"]["name"] == "Anna Jansen"  # kept: no change said
    page_cache.bump()  # what the committed change does
    assert client.get("/api/v1/coaches/101/history/elo").json()["coach"]["name"] == "Anna J."
