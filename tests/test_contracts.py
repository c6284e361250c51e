"""The names other people and programs rely on, listed as they are: every URL pattern with its name,
every management command of the project with its options, every CSV header the site writes, the
role groups. Moving code about must leave each list exactly as it is; a change here is a change of
contract and is made on purpose, with the list below updated in the same commit.

The admin's own patterns (one set per registered model) are Django's, not the site's: only its
mount point is listed.
"""
import csv
import io

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.management import call_command, get_commands, load_command_class
from django.core.management.base import BaseCommand
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import translation

from tests.web.conftest import build_league, recalculate_all
from tournaments.permissions import ROLE_PERMISSIONS


def _walk(resolver: URLResolver, prefix: str, namespace: str):
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLPattern):
            yield (route, namespace, entry.name or "")
        elif entry.namespace == "admin":
            yield (route, "admin", "")
        else:
            inner = ":".join(part for part in (namespace, entry.namespace) if part)
            yield from _walk(entry, route, inner)


def url_patterns() -> list[list[str]]:
    """(route, namespace, name) of every pattern in every language, routes joined from the root (the
    pages under a language prefix are walked once per language)."""
    rows = set()
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            rows |= set(_walk(get_resolver(), "", ""))
    return sorted(list(row) for row in rows)


def _option_strings(parser) -> list[str]:
    return [option for action in parser._actions for option in (action.option_strings or [action.dest])]


def command_options() -> dict[str, list[str]]:
    """Each command of the project's own apps, with the options it adds to Django's common ones."""
    common = set(_option_strings(BaseCommand().create_parser("manage.py", "command")))
    found = {}
    for name, app in get_commands().items():
        if not (settings.BASE_DIR / app.split(".")[0]).is_dir():
            continue  # Django's and third parties' commands
        parser = load_command_class(app, name).create_parser("manage.py", name)
        found[name] = sorted(option for option in _option_strings(parser) if option not in common)
    return dict(sorted(found.items()))


# Every CSV download of the site, on the league of tests/web/conftest.py (coaches 101 to 108).
DOWNLOADS = [
    "/stats/games/?_export=csv",
    "/stats/win-ratios/?_export=csv&_table=races",
    "/stats/win-ratios/?_export=csv&_table=coaches",
    "/stats/race-grid/?_export=csv",
    "/stats/rank-over-time/?coach=101&system=elo&_export=csv",
    "/stats/head-to-head/?coach=101&coach=102&_export=csv&_table=matrix",
    "/stats/head-to-head/?coach=101&coach=102&_export=csv&_table=games",
    "/stats/differentials/?coach=101&_export=csv",
    *(f"/stats/top/?_export=csv&_table={name}" for name in ("games", "race", "events", "races")),
    *(f"/stats/awards/?_export=csv&_table={name}" for name in ("events", "coaches", "categories")),
    *(f"/stats/legends/?_export=csv&_table={name}" for name in ("races", "countries")),
    "/stats/map/?_export=csv",
    *(f"/rankings/{slug}/?_export=csv" for slug in ("elo", "glicko", "global-glicko", "knsb")),
    *(f"/rankings/{slug}/2024-07/?_export=csv" for slug in ("elo", "glicko", "global-glicko", "knsb")),
]


def csv_headers(client, *, prefix: str = "") -> dict[str, list[str]]:
    """The first line of every download (from its address under `prefix`: "/nl" for the Dutch
    pages'), and of `export_ratings` for each system."""
    from tests.roles import staff

    league = build_league()
    recalculate_all()
    headers = {}
    client.force_login(staff())
    for url in [*DOWNLOADS, "/organiser/events/<event>/upload/results.csv"]:
        response = client.get(prefix + url.replace("<event>", str(league["dutch"].pk)), HTTP_ACCEPT_LANGUAGE="nl" if prefix else "en")
        assert response.status_code == 200, url
        text = b"".join(response.streaming_content).decode("utf-8-sig")
        headers[url] = next(csv.reader(io.StringIO(text)))
    for slug in ("elo", "glicko", "global-glicko", "knsb"):
        out = io.StringIO()
        call_command("export_ratings", system=slug, stdout=out)
        headers[f"export_ratings --system {slug}"] = next(csv.reader(io.StringIO(out.getvalue())))
    return headers


def group_names() -> list[str]:
    return sorted(set(ROLE_PERMISSIONS) | set(Group.objects.values_list("name", flat=True)))


URLS = [
    ("", "", "home"),
    ("about/accuracy/", "", "about_accuracy"),
    ("about/privacy/", "", "about_privacy"),
    ("about/ratings/", "", "about_ratings"),
    ("accounts/login/", "", "login"),
    ("accounts/logout/", "", "logout"),
    ("accounts/password/change/", "", "password_change"),
    ("accounts/password/change/done/", "", "password_change_done"),
    ("accounts/password/reset/", "", ""),
    ("accounts/password/reset/", "", "password_reset"),
    ("accounts/password/reset/sent/", "", "password_reset_done"),
    ("accounts/profile/", "", "profile"),
    ("accounts/reset/<uidb64>/<token>/", "", "password_reset_confirm"),
    ("accounts/reset/done/", "", "password_reset_complete"),
    ("accounts/signup/", "", "signup"),
    ("accounts/signup/confirm/<uidb64>/<token>/", "", "signup_confirm"),
    ("accounts/signup/sent/", "", "signup_done"),
    ("admin/", "admin", ""),
    ("language/<str:code>/", "", "switch_language"),
    ("api/v1/", "", "api_documentation"),
    ("api/v1/", "api", "api-root"),
    ("api/v1/coaches", "api", "coaches"),
    ("api/v1/coaches/<number>", "api", "coach_detail"),
    ("api/v1/coaches/<number>/history/<slug>", "api", "coach_history"),
    ("api/v1/coaches/<number>/ratings", "api", "coach_ratings"),
    ("api/v1/docs/", "api", "openapi-view"),
    ("api/v1/events", "api", "events"),
    ("api/v1/events/<pk>", "api", "event_detail"),
    ("api/v1/events/<pk>/games", "api", "event_games"),
    ("api/v1/events/<pk>/standings/<slug>", "api", "event_standings"),
    ("api/v1/runs", "api", "runs"),
    ("api/v1/schema/", "api", "openapi-json"),
    ("api/v1/systems", "api", "systems"),
    ("api/v1/systems/<slug>", "api", "system_detail"),
    ("api/v1/systems/<slug>/lists", "api", "publications"),
    ("api/v1/systems/<slug>/lists/<month>", "api", "publication_detail"),
    ("api/v1/systems/<slug>/lists/<month>/entries", "api", "publication_entries"),
    ("api/v1/systems/<slug>/ratings", "api", "ratings"),

    ("data/manifest.json", "", "data_manifest"),
    ("data/files/<path:path>", "", "data_file"),
    ("data/", "", "data"),
    ("calculator/", "", "calculator"),
    ("coaches/", "", "coach_list"),
    ("coaches/<int:number>/", "", "coach_detail"),
    ("coaches/<int:number>/breakdown/<slug:system>/", "", "breakdown"),
    ("embed/", "", "embed_index"),
    ("embed/<slug:system>/badge/<int:number>.svg", "", "embed_badge"),
    ("embed/<slug:system>/country/<str:code>/", "", "embed_country"),
    ("embed/<slug:system>/race/<slug:race>/", "", "embed_race"),
    ("events/", "", "event_list"),
    ("events/<int:pk>/", "", "event_detail"),
    ("events/<int:pk>/predictions/", "", "event_predictions"),
    ("feeds/coaches/<int:number>/", "", "feed_coach"),
    ("feeds/events/", "", "feed_events"),
    ("feeds/lists/<slug:system>/", "", "feed_lists"),
    ("lists/", "", "rating_list_index"),
    ("lists/<slug:system>/", "", "rating_lists"),
    ("lists/<slug:system>/<month:month>/", "", "rating_list_detail"),
    ("lists/<slug:system>/<month:month>/edition/<int:edition>/", "", "rating_list_edition"),
    ("members/feed/<str:token>/", "", "member_feed"),
    ("members/follow/<int:number>/", "", "member_follow"),
    ("members/me/", "", "member_home"),
    ("members/me/claim/", "", "member_claim"),
    ("members/me/coaches/<int:number>/data/", "", "member_data"),
    ("members/me/coaches/<int:number>/erasure/", "", "member_erasure"),
    ("members/me/coaches/<int:number>/erasure/cancel/", "", "member_erasure_cancel"),
    ("members/me/coaches/<int:number>/privacy/", "", "member_privacy"),
    ("members/me/feed/reset/", "", "member_feed_reset"),
    ("members/me/preferences/", "", "member_preferences"),
    ("members/unfollow/<int:number>/", "", "member_unfollow"),
    ("organiser/coaches/new/", "", "organiser_coach_new"),
    ("organiser/events/", "", "organiser_event_list"),
    ("organiser/events/<int:pk>/", "", "organiser_event_detail"),
    ("organiser/events/<int:pk>/edit/", "", "organiser_event_edit"),
    ("organiser/events/<int:pk>/submit/", "", "organiser_event_submit"),
    ("organiser/events/<int:pk>/upload/", "", "organiser_event_upload"),
    ("organiser/events/<int:pk>/upload/results.csv", "", "organiser_event_upload_template"),
    ("organiser/events/new/", "", "organiser_event_new"),
    ("rankings/", "", "rankings_index"),
    ("rankings/<slug:system>/", "", "rankings"),
    ("rankings/<slug:system>/<month:month>/", "", "ranking_month"),
    ("rankings/<slug:system>/latest/", "", "ranking_latest"),
    ("staff/", "", "staff_index"),
    ("staff/audit/", "", "staff_audit_log"),
    ("staff/claims/", "", "staff_claim_queue"),
    ("staff/claims/<int:pk>/decide/", "", "staff_claim_decide"),
    ("staff/claims/<int:pk>/restore/", "", "staff_claim_restore"),
    ("staff/coaches/<int:number>/release/", "", "staff_claim_release"),
    ("staff/coaches/<int:number>/data/", "", "staff_coach_data"),
    ("staff/coaches/<int:number>/privacy/", "", "staff_coach_privacy"),
    ("staff/coaches/merge/", "", "staff_coach_merge"),
    ("staff/events/", "", "staff_event_queue"),
    ("staff/events/<int:pk>/", "", "staff_event_review"),
    ("staff/events/<int:pk>/correct/", "", "staff_event_correct"),
    ("staff/events/<int:pk>/recalculation/", "", "staff_event_runs"),
    ("staff/events/<int:pk>/reject/", "", "staff_event_reject"),
    ("staff/events/<int:pk>/sanction/", "", "staff_event_sanction"),
    ("staff/lists/<slug:system>/<month:month>/republish/", "", "staff_list_republish"),
    ("staff/members/", "", "staff_member_list"),
    ("staff/members/<int:pk>/coach/", "", "staff_member_link"),
    ("staff/members/<int:pk>/unlock/", "", "staff_member_unlock"),
    ("staff/runs/", "", "staff_run_list"),
    ("staff/runs/<int:pk>/", "", "staff_run_detail"),
    ("staff/runs/<int:pk>/cancel/", "", "staff_run_cancel"),
    ("staff/runs/<int:pk>/rerun/", "", "staff_run_rerun"),
    ("staff/systems/", "", "staff_system_list"),
    ("staff/systems/<int:pk>/", "", "staff_system_edit"),
    ("stats/", "", "stats_index"),
    ("stats/awards/", "", "stats_awards"),
    ("stats/differentials/", "", "stats_differentials"),
    ("stats/games/", "", "stats_games"),
    ("stats/head-to-head/", "", "stats_head_to_head"),
    ("stats/legends/", "", "stats_legends"),
    ("stats/map/", "", "stats_map"),
    ("stats/race-grid/", "", "stats_race_grid"),
    ("stats/rank-over-time/", "", "stats_rank_over_time"),
    ("stats/top/", "", "stats_top"),
    ("stats/win-ratios/", "", "stats_win_ratios"),
]
# Outside the language prefix: the admin, the language switch, the API and the open-data files (one
# address each, whatever the language). Every other page is also in Dutch under nl/, with the same
# name (reverse() gives the address in the active language).
UNPREFIXED = {"admin/", "language/<str:code>/", "data/manifest.json", "data/files/<path:path>"} | {
    route for route, _, _ in URLS if route.startswith("api/")
}
URLS += [(f"nl/{route}", namespace, name) for route, namespace, name in URLS if route not in UNPREFIXED]

COMMANDS = {
    "api_key": ["--issue", "--per-minute", "--revoke"],
    "build_world_map": ["shapefile"],
    "demo_logins": [],
    "dump_open_data": ["--lists-only", "--root"],
    "evaluate_methods": ["--from", "--system", "--to"],
    "export_member_data": ["--coach"],
    "export_ratings": ["--as-of", "--bom", "--published", "--system", "--variant"],
    "import_fumbbl": ["--skip-bad", "--tourneys", "matches"],
    "recalculate": ["--enqueue", "--jobs", "--reason", "--since", "--system", "--user"],
    "refresh_stats": [],
    "replay_erasures": ["--log"],
    "seed_demo": ["--coaches", "--events", "--report-late", "--seed", "--today"],
    "tune_methods": ["--from", "--split", "--system"],
    "verify_ratings": ["--jobs", "--limit", "--system", "--today"],
}

CSV_HEADERS = {
    "/stats/games/?_export=csv": [
        "Date", "Event", "Variant", "Country", "Number", "Coach", "Race", "Score", "Opponent", "Opponent number",
        "Opponent race", "Result",
    ],
    "/stats/win-ratios/?_export=csv&_table=races": ["Race", "Games", "W", "D", "L", "Win %"],
    "/stats/win-ratios/?_export=csv&_table=coaches": ["Number", "Coach", "Nationality", "Games", "W", "D", "L", "Win %"],
    "/stats/race-grid/?_export=csv": [
        "Race", "Amazon win %", "Amazon games", "Black Orc win %", "Black Orc games", "Chaos Chosen win %",
        "Chaos Chosen games", "Chaos Dwarf win %", "Chaos Dwarf games", "Chaos Renegade win %", "Chaos Renegade games",
        "Dark Elf win %", "Dark Elf games", "Dwarf win %", "Dwarf games", "Elf Union win %", "Elf Union games", "Gnome win %",
        "Gnome games", "Goblin win %", "Goblin games", "Halfling win %", "Halfling games", "High Elf win %", "High Elf games",
        "Human win %", "Human games", "Imperial Nobility win %", "Imperial Nobility games", "Khorne win %", "Khorne games",
        "Lizardmen win %", "Lizardmen games", "Necromantic Horror win %", "Necromantic Horror games", "Norse win %",
        "Norse games", "Nurgle win %", "Nurgle games", "Ogre win %", "Ogre games", "Old World Alliance win %",
        "Old World Alliance games", "Orc win %", "Orc games", "Shambling Undead win %", "Shambling Undead games",
        "Skaven win %", "Skaven games", "Slann win %", "Slann games", "Snotling win %", "Snotling games", "Tomb Kings win %",
        "Tomb Kings games", "Underworld Denizens win %", "Underworld Denizens games", "Vampire win %", "Vampire games",
        "Wood Elf win %", "Wood Elf games",
    ],
    "/stats/rank-over-time/?coach=101&system=elo&_export=csv": [
        "List", "Rank", "Rating", "Games", "On the list", "As published", "Revised rank", "Revised rating",
    ],
    "/stats/head-to-head/?coach=101&coach=102&_export=csv&_table=matrix": [
        "Number", "Coach", "Opponent number", "Opponent", "Games", "W", "D", "L",
    ],
    "/stats/head-to-head/?coach=101&coach=102&_export=csv&_table=games": [
        "Date", "Event", "Variant", "Country", "Number", "Coach", "Race", "Score", "Opponent", "Opponent number",
        "Opponent race", "Result",
    ],
    "/stats/differentials/?coach=101&_export=csv": [
        "Race", "Games", "W", "D", "L", "Win %", "Race average %", "Differential (points)",
    ],
    "/stats/top/?_export=csv&_table=games": ["#", "Number", "Coach", "Nationality", "Games"],
    "/stats/top/?_export=csv&_table=race": ["#", "Number", "Coach", "Nationality", "Race", "Games"],
    "/stats/top/?_export=csv&_table=events": ["#", "Number", "Coach", "Nationality", "Events", "Games"],
    "/stats/top/?_export=csv&_table=races": ["#", "Number", "Coach", "Nationality", "Races", "Games"],
    "/stats/awards/?_export=csv&_table=events": ["Date", "Event", "Country", "Award", "Number", "Coach", "Race"],
    "/stats/awards/?_export=csv&_table=coaches": ["Number", "Coach", "Nationality", "Awards", "Events"],
    "/stats/awards/?_export=csv&_table=categories": ["#", "Award", "Times awarded"],
    "/stats/legends/?_export=csv&_table=races": ["#", "Number", "Coach", "Nationality", "Races", "Games"],
    "/stats/legends/?_export=csv&_table=countries": ["#", "Number", "Coach", "Nationality", "Countries", "Games"],
    "/stats/map/?_export=csv": ["Country", "City", "Events", "Games", "On the map at"],
    "/rankings/elo/?_export=csv": [
        "Overall", "Rank", "Coach", "Number", "Nat.", "Race", "Variant", "Rating", "Games", "Change", "Rank change",
        "Last played",
    ],
    "/rankings/glicko/?_export=csv": [
        "Overall", "Rank", "Coach", "Number", "Nat.", "Race", "Variant", "Rating", "μ", "φ", "Games", "Change", "Rank change",
        "Last played",
    ],
    "/rankings/global-glicko/?_export=csv": [
        "Rank", "Coach", "Number", "Nat.", "Variant", "Rating", "μ", "φ", "Games", "Change", "Rank change", "Last played",
    ],
    "/rankings/knsb/?_export=csv": [
        "Rank", "Coach", "Number", "Nat.", "Variant", "Rating", "Nv", "Games", "Change", "Rank change", "Last played",
    ],
    "/rankings/elo/2024-07/?_export=csv": [
        "Overall", "Rank", "Coach", "Number", "Nat.", "Race", "Variant", "Rating", "Games", "Change", "Counted", "Played",
        "Published",
    ],
    "/rankings/glicko/2024-07/?_export=csv": [
        "Overall", "Rank", "Coach", "Number", "Nat.", "Race", "Variant", "Rating", "μ", "φ", "Games", "Change", "Counted",
        "Played", "Published",
    ],
    "/rankings/global-glicko/2024-07/?_export=csv": [
        "Rank", "Coach", "Number", "Nat.", "Variant", "Rating", "μ", "φ", "Games", "Change", "Counted", "Played", "Published",
    ],
    "/rankings/knsb/2024-07/?_export=csv": [
        "Rank", "Coach", "Number", "Nat.", "Variant", "Rating", "Nv", "Games", "Change", "Counted", "Played", "Published",
    ],
    "/organiser/events/<event>/upload/results.csv": [
        "round", "date", "time", "home_coach", "home_name", "home_race", "home_td", "away_td", "away_coach", "away_name",
        "away_race", "home_cas", "away_cas", "conceded", "kind",
    ],
    "export_ratings --system elo": [
        "coach_number", "coach", "race", "variant", "rating", "mu", "phi", "sigma", "rank", "games",
    ],
    "export_ratings --system glicko": [
        "coach_number", "coach", "race", "variant", "rating", "mu", "phi", "sigma", "rank", "games",
    ],
    "export_ratings --system global-glicko": [
        "coach_number", "coach", "race", "variant", "rating", "mu", "phi", "sigma", "rank", "games",
    ],
    "export_ratings --system knsb": [
        "coach_number", "coach", "race", "variant", "rating", "mu", "phi", "sigma", "rank", "games",
    ],
}

GROUPS = ["members", "organisers", "staff"]


def test_every_url_pattern_keeps_its_route_and_name():
    assert url_patterns() == sorted(list(row) for row in URLS)


def test_every_command_keeps_its_name_and_options():
    assert command_options() == COMMANDS


@pytest.mark.django_db
def test_every_csv_download_and_export_keeps_its_header(client):
    assert csv_headers(client) == CSV_HEADERS


@pytest.mark.django_db
def test_every_csv_download_keeps_its_header_from_the_dutch_pages(client):
    assert csv_headers(client, prefix="/nl") == CSV_HEADERS


@pytest.mark.django_db
def test_the_role_groups_keep_their_names():
    assert group_names() == GROUPS
