"""The calculator: anyone's results under every method, every option as configured or as entered,
with the breakdown tables. Figures are the spec's worked examples (shared/spec/ratings.md)."""
from urllib.parse import urlencode

import pytest

from rating_engines import glicko
from ratings.models import RatingSystem
from tests.web.conftest import table

pytestmark = pytest.mark.django_db

TEN_GAMES_V_1800 = "\n".join(["1800 1"] * 5 + ["1800 0.5"] + ["1800 0"] * 4)
GLICKMAN = "1400 30 1\n1550 100 0\n1700 300 0"


def calculate(client, **params):
    return client.get("/calculator/?" + urlencode(params))


def header_of(response, section_id: str) -> str:
    html = response.content.decode()
    marker = f'id="{section_id}">'
    start = html.index(marker) + len(marker)
    return " ".join(html[start:html.index("</h2>", start)].replace("<output>", "").replace("</output>", "").split())


def text_of(response) -> str:
    return " ".join(response.content.decode().split())


def knsb_new_rating(response) -> dict:
    block = table(response, "KNSB list rating: new rating")
    return dict(zip(block["header"], block["rows"][0][1]))


def knsb_games(response) -> list[dict]:
    block = table(response, "KNSB list rating: game by game")
    return [dict(zip(block["header"], cells)) for kind, cells in block["rows"][1:] if kind != "extra"]


def elo_k(response) -> str:
    return table(response, "NAF Elo: game by game")["rows"][1][1][6]


# --- the form -------------------------------------------------------------------------------------


def test_the_empty_form_asks_for_input(client, db):
    response = client.get("/calculator/")
    assert response.status_code == 200
    assert 'name="results"' in response.content.decode() and not response.context["results"]


def test_the_empty_form_starts_every_option_as_configured(client, db):
    RatingSystem.objects.filter(slug="elo").update(parameters={"round_k": True, "non_major_max": 30})
    RatingSystem.objects.filter(slug="glicko").update(parameters={"period": "month", "tau": 0.5})
    RatingSystem.objects.filter(slug="knsb").update(parameters={"lpr_margin": 5})
    html = client.get("/calculator/").content.decode()
    assert '<option value="" selected>as configured (on)</option>' in html.split('name="round_k"')[1]
    assert 'name="non_major_max" value="30"' in html
    assert 'name="tau" value="0.5"' in html
    assert 'name="lpr_margin" value="5.0"' in html
    assert "Idle months before this one" in html


def test_the_configured_parameters_are_used(client, db):
    RatingSystem.objects.filter(slug="elo").update(parameters={"round_k": True})
    response = calculate(client, rating=150, results="150 1", coaches=20)
    assert header_of(response, "calc-elo").endswith("150.00 → 154.50")  # K = 9 with round_k


def test_an_entered_option_applies_to_this_calculation_only(client, db):
    RatingSystem.objects.filter(slug="elo").update(parameters={"round_k": True})
    response = calculate(client, rating=150, results="150 1", coaches=20, round_k="off")
    assert header_of(response, "calc-elo").endswith("150.00 → 154.47")
    assert RatingSystem.objects.get(slug="elo").parameters == {"round_k": True}
    again = calculate(client, rating=150, results="150 1", coaches=20)
    assert header_of(again, "calc-elo").endswith("150.00 → 154.50")


def test_existing_links_still_work(client, db):
    response = client.get("/calculator/?rating=1800&nv=40&results=1700+1%0A1850+0.5&coaches=20&phi=350&sigma=0.06")
    assert response.status_code == 200
    assert set(response.context["results"]) == {"elo", "glicko", "knsb"}


def test_the_page_claims_no_method_works_on_any_scale(client, db):
    html = text_of(client.get("/calculator/"))
    assert "use any scale" not in html
    assert "The scales differ" in html


# --- NAF Elo --------------------------------------------------------------------------------------


def test_elo_from_the_spec_twenty_coaches(client, db):
    response = calculate(client, rating=150, results="150 1", coaches=20)
    assert header_of(response, "calc-elo").endswith("NAF Elo: 150.00 → 154.47")
    rows = table(response, "NAF Elo: game by game")["rows"]
    assert rows[1][1] == ["1", "150.00", "150.00", "1.0", "0.500", "+0.500", "8.94", "+4.47", "154.47"]


def test_elo_major_and_games_applied_one_after_another(client, db):
    response = calculate(client, rating=180, results="150 1\n150 1", major="on")
    rows = table(response, "NAF Elo: game by game")["rows"]
    assert rows[1][1][-1] == "185.99"  # the spec's major check: 180 beats 150
    assert rows[2][1][1] == "185.99"  # the second game starts from it


@pytest.mark.parametrize("score, after", [("1", "154.50"), ("0", "145.50")])
def test_elo_round_k_twenty_coaches_k_9(client, db, score, after):
    response = calculate(client, rating=150, results=f"150 {score}", coaches=20, round_k="on")
    assert header_of(response, "calc-elo").endswith(f"150.00 → {after}")
    assert elo_k(response) == "9.00"
    assert "rounded to an integer, round_k" in text_of(response)


def test_elo_round_k_major_k_15(client, db):
    response = calculate(client, rating=150, results="150 1", major="on", round_k="on")
    assert elo_k(response) == "15.00"
    assert header_of(response, "calc-elo").endswith("150.00 → 157.50")


def test_elo_non_major_max_caps_the_coaches_counted(client, db):
    response = calculate(client, rating=150, results="150 1", coaches=40, non_major_max=30)
    assert elo_k(response) == "10.95"  # 2·√30, not 2·√32
    assert header_of(response, "calc-elo").endswith("150.00 → 155.48")


def test_elo_major_coaches_sets_a_majors_k(client, db):
    response = calculate(client, rating=150, results="150 1", major="on", major_coaches=40)
    assert elo_k(response) == "12.65"  # 2·√40
    assert header_of(response, "calc-elo").endswith("150.00 → 156.32")


# --- Glicko ---------------------------------------------------------------------------------------


def test_glicko_new_coach_from_the_spec(client, db):
    response = calculate(
        client, rating=1500, phi=350, sigma=0.06, results="1600 80 1\n1550 100 0\n1500 60 0.5\n1450 120 1\n1400 90 1",
    )
    assert header_of(response, "calc-glicko") == "NAF Glicko: μ 1500.00 → 1623.02, φ 350.00 → 149.15"
    assert "μ − 2.5φ: 625.00 → <strong>1250.14</strong>" in response.content.decode()
    rows = table(response, "NAF Glicko: the period")["rows"]
    assert rows[1][1][:6] == ["1", "1500.00", "1600.00", "80.00", f"{glicko.g_factor(80):.4f}", "1.0"]


def test_glicko_tau_glickmans_example(client, db):
    response = calculate(client, rating=1500, phi=200, sigma=0.06, tau=0.5, results=GLICKMAN)
    assert header_of(response, "calc-glicko") == "NAF Glicko: μ 1500.00 → 1464.05, φ 200.00 → 151.52"
    html = text_of(response)
    assert "One rating period with τ = 0.5." in html
    assert "σ 0.060000 → 0.059996" in html  # τ 0.2 would give 0.059999


def test_glicko_idle_months_decay_phi_before_the_period(client, db):
    response = calculate(client, rating=1500, phi=60, sigma=0.06, idle_periods=18, results="1500 60 1")
    assert header_of(response, "calc-glicko").startswith("NAF Glicko: μ 1500.00 → ")
    assert ", φ 74.54 → " in header_of(response, "calc-glicko")
    assert "Idle before the period: φ 60.00 → 74.54 after 18 idle months" in text_of(response)
    assert table(response, "NAF Glicko: the period")["rows"][1][1][1] == "1500.00"


def test_glicko_idle_decay_stops_at_phi_cap(client, db):
    response = calculate(client, rating=1500, phi=60, idle_periods=1200, phi_cap=120, results="1500 60 1")
    assert ", φ 120.00 → " in header_of(response, "calc-glicko")


def test_glicko_new_race_starts_from_the_existing_race_ratings(client, db):
    response = calculate(
        client, rating=1500, new_race="on", existing_races="1700 70\n1600 90\n1550 150", results="1500 60 1",
    )
    header = header_of(response, "calc-glicko")
    assert header.startswith("NAF Glicko: μ 1600.00 → ") and ", φ 150.00 → " in header
    assert "median μ and the largest φ of your 3 existing race ratings" in text_of(response)


def test_glicko_new_race_with_one_existing_rating_starts_as_new(client, db):
    response = calculate(client, rating=1700, new_race="on", existing_races="1700 70", results="1500 60 1")
    header = header_of(response, "calc-glicko")
    assert header.startswith("NAF Glicko: μ 1500.00 → ") and ", φ 350.00 → " in header


def test_glicko_new_race_without_cross_race_start_starts_as_new(client, db):
    response = calculate(
        client, rating=1700, phi=90, new_race="on", existing_races="1700 70\n1600 90\n1550 150", cross_race_start="off",
        results="1500 60 1",
    )
    header = header_of(response, "calc-glicko")
    assert header.startswith("NAF Glicko: μ 1500.00 → ") and ", φ 350.00 → " in header


def test_glicko_value_multiplier_and_ranked_limit(client, db):
    response = calculate(
        client, rating=1500, phi=200, tau=0.5, value_phi_multiplier=3, inactive_phi=160, results=GLICKMAN,
    )
    html = text_of(response)
    assert "Ranking value μ − 3φ: 900.00 → <strong>1009.50</strong>" in html  # 1464.05 − 3 · 151.52
    assert "ranked (φ ≤ 160)" in html


def test_glicko_says_so_when_the_figures_are_too_extreme_to_rate(client, db):
    response = calculate(client, rating=1500, phi=2000, sigma=1, results="-10000 0.001 1")
    assert response.status_code == 200
    assert header_of(response, "calc-glicko") == "NAF Glicko: no result"
    assert header_of(response, "calc-knsb") == "KNSB list rating: 1500 → 1500"


# --- KNSB -----------------------------------------------------------------------------------------


def test_knsb_period_from_the_spec(client, db):
    response = calculate(client, rating=1800, nv=40, results="1700 1\n1850 ½\n1900 0\n1750 W\n2000 D\n1600 1")
    assert header_of(response, "calc-knsb") == "KNSB list rating: 1800 → 1834"
    row = knsb_new_rating(response)
    assert (row["Rtt"], row["LPR"], row["Rn"], row["Nv"], row["Wet"], row["Limitation"]) == (
        "+34.15", "1936", "1834", "46", "3.000", "none"
    )
    games = table(response, "KNSB list rating: game by game")["rows"]
    assert games[1][1][:8] == ["1", "1800", "1700", "1.0", "0.637", "+0.363", "34.15", "+12.40"]


def test_knsb_rl_apart_from_the_elo_rating(client, db):
    response = calculate(client, rating=150, rl=1800, nv=40, results="1700 1\n1850 ½\n1900 0\n1750 W\n2000 D\n1600 1")
    assert header_of(response, "calc-elo").startswith("NAF Elo: 150.00 → ")
    assert header_of(response, "calc-knsb") == "KNSB list rating: 1800 → 1834"


def test_knsb_late_game_keeps_the_older_lists_r0(client, db):
    response = calculate(client, rating=1800, nv=100, results="1750 ½ R0=1650\n1750 ½")
    games = knsb_games(response)
    assert [(g["R0"], g["Rc"], g["k"], g["List"]) for g in games] == [
        ("1650", "1750", "25.00", "older list (Nv 100)"), ("1800", "1750", "25.00", "Rl"),
    ]
    row = knsb_new_rating(response)
    assert (row["Rtt"], row["LPR"], row["Rn"], row["Limitation"]) == ("+1.68", "1750", "1800", "Rl-limitering: Rn held at Rl")
    assert response.context["results"]["knsb"][1]["rtt"] == pytest.approx(1.6843, abs=5e-5)


def test_knsb_late_game_takes_k_from_the_older_lists_nv(client, db):
    response = calculate(client, rating=1800, nv=100, results="1750 ½ R0=1650 Nv=40\n1750 ½")
    games = knsb_games(response)
    assert (games[0]["k"], games[0]["List"]) == ("34.15", "older list (Nv 40)")  # 216/√40
    assert games[1]["k"] == "25.00"


def test_knsb_start_rating_from_the_depot(client, db):
    response = calculate(client, rating=0, nv=0, results="1500 1\n1600 0.5\n1700 0\n1400 1\n1550 0.5\n1650 0.5")
    assert header_of(response, "calc-knsb") == "KNSB list rating: start rating 1631"
    assert "Nv 6" in response.content.decode()


def test_knsb_waits_for_six_depot_games(client, db):
    response = calculate(client, rating=0, nv=0, results="1500 1\n1600 0.5")
    assert header_of(response, "calc-knsb") == "KNSB list rating: no rating yet"


def test_knsb_depot_min_games_sets_the_games_a_start_rating_needs(client, db):
    response = calculate(client, rating=0, nv=0, depot_min_games=2, results="1500 1\n1600 0.5")
    assert header_of(response, "calc-knsb").startswith("KNSB list rating: start rating ")
    assert "over 2 games" in text_of(response) and "Nv 2" in text_of(response)


@pytest.mark.parametrize("rating, nv, results, k, rn", [
    (1800, 40, "1700 1\n1850 ½\n1900 0\n1750 W\n2000 D\n1600 1", "40.00", "1840"),  # from 30 games: 40, not 216/√40
    (2200, 100, "2100 1", "30.00", "2211"),  # in the band: 40 − (2200 − 2100)/10, not 20 (2207)
])
def test_knsb_junior_k(client, db, rating, nv, results, k, rn):
    response = calculate(client, rating=rating, nv=nv, junior="on", results=results)
    assert {g["k"] for g in knsb_games(response)} == {k}
    assert knsb_new_rating(response)["Rn"] == rn
    assert "by the rules for juniors" in text_of(response)


def test_knsb_lpr_limit_from_the_spec(client, db):
    response = calculate(client, rating=1800, nv=6, results=TEN_GAMES_V_1800)
    row = knsb_new_rating(response)
    assert (row["Rtt"], row["LPR"], row["Rn"], row["Limitation"]) == ("+44.09", "1836", "1836", "LPR-limitering: Rn held at the LPR")


@pytest.mark.parametrize("margin, rn, limitation", [
    (5, "1841", "LPR-limitering: Rn held at the LPR ± 5"),
    (10, "1844", "none"),  # round(1800 + 44.09) is within LPR + 10
])
def test_knsb_lpr_margin_lets_rn_pass_the_lpr(client, db, margin, rn, limitation):
    response = calculate(client, rating=1800, nv=6, lpr_margin=margin, results=TEN_GAMES_V_1800)
    row = knsb_new_rating(response)
    assert (row["LPR"], row["Rn"], row["Limitation"]) == ("1836", rn, limitation)


def test_knsb_we_table_rounds_we_as_printed(client, db):
    exact = knsb_games(calculate(client, rating=1500, nv=100, results="1416 1"))[0]
    printed = knsb_games(calculate(client, rating=1500, nv=100, we_table="on", results="1416 1"))[0]
    assert (exact["Rt"], printed["Rt"]) == ("+9.61", "+9.60")  # We(84): 0.615621 exact, 0.616 printed


def test_knsb_sigma_sets_the_we_curve(client, db):
    response = calculate(client, rating=1600, nv=100, knsb_sigma=200, results="1500 0.5")
    assert knsb_games(response)[0]["We"] == "0.691"  # Φ(100/200); σ 2000/7 gives 0.637


def test_knsb_nv_cap(client, db):
    response = calculate(client, rating=1800, nv=100, nv_cap=200, results="1800 1\n1800 0")
    assert knsb_new_rating(response)["Nv"] == "102"


# --- invalid input --------------------------------------------------------------------------------


@pytest.mark.parametrize("params, message", [
    ({"rating": 1500, "results": "1600 80 2"}, "Line 1 (“1600 80 2”): the score must be 1, 0.5 or 0"),
    ({"rating": 1500, "results": "1600 1\nabc 1"}, "Line 2 (“abc 1”): the opponent&#x27;s rating (and φ) must be numbers"),
    ({"rating": 1500, "results": "1600"}, "Line 1 (“1600”): give the opponent&#x27;s rating"),
    ({"rating": 1500, "results": "1600 -5 1"}, "Line 1: the opponent&#x27;s φ must be above 0"),
    ({"rating": 1500, "results": ""}, "This field is required"),
    ({"rating": "lots", "results": "1600 1"}, "Enter a number"),
    ({"rating": 1500, "results": "1600 1", "phi": "0"}, "greater than or equal to 0.001"),
    ({"rating": 1500, "results": "1600 1", "nv": "-3"}, "greater than or equal to 0"),
    ({"rating": 1500, "results": "1600 1\n" * 101}, "At most 100 results"),
])
def test_invalid_input_gets_clear_messages(client, db, params, message):
    response = calculate(client, **params)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Please correct the input" in html and message in html
    assert not response.context["results"]


@pytest.mark.parametrize("params, name, message", [
    ({"round_k": "maybe"}, "round_k", "Choose on or off, or leave it as configured."),
    ({"non_major_max": "0"}, "non_major_max", "Ensure this value is greater than or equal to 1."),
    ({"major_coaches": "many"}, "major_coaches", "Enter a whole number."),
    ({"tau": "0"}, "tau", "Ensure this value is above 0."),
    ({"tau": "6"}, "tau", "Ensure this value is less than or equal to 5."),
    ({"phi_cap": "-1"}, "phi_cap", "Ensure this value is above 0."),
    ({"cross_race_start": "sometimes"}, "cross_race_start", "Choose on or off, or leave it as configured."),
    ({"value_phi_multiplier": "11"}, "value_phi_multiplier", "Ensure this value is less than or equal to 10."),
    ({"inactive_phi": "0"}, "inactive_phi", "Ensure this value is above 0."),
    ({"lpr_margin": "-1"}, "lpr_margin", "Ensure this value is greater than or equal to 0."),
    ({"we_table": "2"}, "we_table", "Choose on or off, or leave it as configured."),
    ({"knsb_sigma": "0"}, "sigma", "Ensure this value is above 0."),
    ({"nv_cap": "0"}, "nv_cap", "Ensure this value is greater than or equal to 1."),
    ({"depot_min_games": "1.5"}, "depot_min_games", "Enter a whole number."),
])
def test_each_option_is_checked_and_named(client, db, params, name, message):
    response = calculate(client, rating=1500, results="1600 1", **params)
    assert response.status_code == 400 and not response.context["results"]
    assert f"({name})</strong>: {message}" in response.content.decode()


@pytest.mark.parametrize("params, label, message", [
    ({"idle_periods": "-1"}, "Idle months before this one (decay)", "Ensure this value is greater than or equal to 0."),
    ({"idle_periods": "3", "new_race": "on"}, "Idle months before this one (decay)", "A new race has no idle periods"),
    ({"existing_races": "1700 70\n1600 90"}, "Your existing race ratings, one per line: μ φ",
     "These are used for a new race only"),
    ({"existing_races": "1700", "new_race": "on"}, "Your existing race ratings, one per line: μ φ",
     "Line 1 (“1700”): give the race rating&#x27;s μ and φ, two numbers."),
    ({"rl": "high"}, "KNSB Rl (empty: your rating)", "Enter a number."),
])
def test_each_glicko_and_knsb_input_is_checked_and_named(client, db, params, label, message):
    response = calculate(client, rating=1500, results="1600 1", **params)
    assert response.status_code == 400 and not response.context["results"]
    html = response.content.decode()
    assert f"<strong>{label}" in html and message in html


@pytest.mark.parametrize("results, nv, message", [
    ("1750 0.5 R0=abc", 100, "Line 1 (“1750 0.5 R0=abc”): R0= (the older list&#x27;s rating of a late KNSB game) must be a number"),
    ("1750 0.5 Nv=0", 100, "Line 1 (“1750 0.5 Nv=0”): Nv= (the older list&#x27;s Nv of a late KNSB game) must be a whole number"),
    ("1750 0.5 k=3", 100, "Line 1 (“1750 0.5 k=3”): “k=3” is not known; a late KNSB game takes R0=… and Nv=…."),
    ("1750 0.5 R0=1650", 0, "R0= and Nv= are for a rated player&#x27;s late game; with KNSB Nv 0 the games go into the depot."),
])
def test_a_late_games_r0_and_nv_are_checked(client, db, results, nv, message):
    response = calculate(client, rating=1800, nv=nv, results=results)
    assert response.status_code == 400 and not response.context["results"]
    assert message in response.content.decode()


def test_bad_input_is_shown_again_as_typed_and_changes_nothing(client, db):
    response = calculate(client, rating=1800, nv=100, tau="lots", lpr_margin="-2", results="1750 ½ R0=1650\n1750 ½")
    html = response.content.decode()
    assert response.status_code == 400 and not response.context["results"]
    assert 'name="tau" value="lots"' in html and 'name="lpr_margin" value="-2"' in html
    assert "1750 ½ R0=1650\n1750 ½</textarea>" in html
    assert RatingSystem.objects.get(slug="glicko").parameters == {"period": "month"}
