"""The breakdown: KNSB rating-viewer layout, every figure read from stored calculation rows."""
import re

import pytest

from rating_engines import glicko
from ratings.models import CalculationRow, PeriodSummary
from tests.web.conftest import table

pytestmark = pytest.mark.django_db


def game_rows(response):
    found = table(response, "game by game") if "game by game" in response.content.decode() else table(response, "opponents")
    return found["header"], found["rows"]


def test_elo_breakdown_shows_the_known_figures_of_the_four_coach_event(client, league):
    dutch = league["dutch"]
    response = client.get(f"/coaches/101/breakdown/elo/?race=human&variant=blood-bowl-2020&period=event:{dutch.pk}")
    assert response.status_code == 200
    header, rows = game_rows(response)
    assert header == ["ID", "Opponent", "Race", "Date", "R0", "Rc", "W", "We", "W−We", "k", "Rt", "Rn"]
    (period_class, period), (first_class, first), (second_class, second) = rows
    assert period_class == "period"
    assert period == ["Dutch Open (totals)", "2024-03-02", "150.00", "150.00", "1.0", "1.008", "-0.008", "", "-0.03", "149.97"]
    # Round 1: W (150) beats X (150), K = 4: We 0.5, Rt +2.00
    assert (first_class, first) == (
        "counted", ["102", "Bert Smith", "Orc", "2024-03-02", "150.00", "150.00", "1.0", "0.500", "+0.500", "4.00", "+2.00", "152.00"],
    )
    # Round 2: W (152) loses to Y (150): P = 0.507675, Rt = −2.03
    assert second == [
        "103", "Cees de Vries", "Human", "2024-03-02", "152.00", "150.00", "0.0", "0.508", "-0.508", "4.00", "-2.03", "149.97",
    ]
    block = table(response, "new rating")
    assert block["header"] == ["Rl", "Rn", "Rct", "Wt", "Wt%", "Nt", "Wet", "Rtt", "Change"]
    assert block["rows"][0][1] == ["150.00", "149.97", "150.00", "1.0", "50.0", "2", "1.008", "-0.03", "-0.03"]


def test_the_latest_period_is_shown_by_default(client, league):
    response = client.get("/coaches/101/breakdown/elo/")
    assert response.status_code == 200
    assert response.context["breakdown"].period.title == "Summer League"
    assert table(response, "game by game")["caption"].startswith("Summer League")


def test_a_forfeit_is_red_with_a_numbered_footnote(client, league):
    cup = league["cup"]
    response = client.get(f"/coaches/101/breakdown/elo/?race=human&variant=blood-bowl-2020&period=event:{cup.pk}")
    _, rows = game_rows(response)
    excluded = [(cls, cells) for cls, cells in rows if cls == "excluded"]
    assert len(excluded) == 1
    assert excluded[0][1][:2] == ["106", "Fay Brown1) not counted"]  # name, the footnote mark, and in words what the red says
    assert excluded[0][1][4:] == ["", "", "0.5", "", "", "", "", ""]  # no R0, Rc, We, k or Rt: it does not count
    html = response.content.decode()
    assert '<li id="fn-1" value="1">forfeit</li>' in html
    assert 'href="#fn-1"' in html


def test_an_unsanctioned_event_is_listed_with_its_footnote_and_no_new_rating(client, league):
    bash = league["bash"]
    response = client.get(f"/coaches/101/breakdown/elo/?race=human&variant=blood-bowl-2020&period=event:{bash.pk}")
    assert response.status_code == 200
    _, rows = game_rows(response)
    assert [cls for cls, _ in rows] == ["period", "excluded"]
    html = response.content.decode()
    assert ">event not sanctioned</li>" in html
    assert "No new rating from this event" in html


def test_knsb_depot_games_have_their_own_colour_and_depot_date(client, league):
    summary = PeriodSummary.objects.get(system__slug="knsb", coach=league["anna"], is_start=True)
    response = client.get(f"/coaches/101/breakdown/knsb/?variant=blood-bowl-2020&period={summary.period}")
    header, rows = game_rows(response)
    assert header == ["ID", "Opponent", "Race", "Date", "Lijstdatum", "R0", "Rc", "W", "We", "W−We", "k", "Rt", "Wx"]
    depot = [cells for cls, cells in rows if cls == "depot"]
    stored = CalculationRow.objects.filter(system__slug="knsb", coach=league["anna"], period=summary.period, depot_date__isnull=False)
    assert len(depot) == stored.count() == 8
    first = stored.select_related("opponent").order_by("played_at", "game_id").first()
    assert depot[0][4] == f"{first.list_date:%Y-%m-%d} depot {first.depot_date:%Y-%m-%d}"
    assert depot[0][6] == f"{first.rc:.0f}" and depot[0][12] == f"{first.wx:.3f}"
    block = table(response, "new rating")
    row = dict(zip(block["header"], block["rows"][0][1]))
    assert row["Rl"] == "unrated"
    assert row["Rn"] == row["LPR"] == f"{summary.rn:.0f}"
    assert row["Nv"] == str(summary.nv) and row["Limitation"] == "start rating from the depot"
    assert "rated at the bootstrap rating" in response.content.decode()


def test_glicko_breakdown_shows_opponents_mu_phi_g_and_e_and_the_resulting_mu_phi_sigma(client, league):
    response = client.get("/coaches/101/breakdown/glicko/?race=human&variant=blood-bowl-2020&period=2024-03")
    header, rows = game_rows(response)
    assert header == ["ID", "Opponent", "Race", "Date", "μ", "Opp. μ", "Opp. φ", "g(φ)", "W", "E", "W−E", "Δμ"]
    bert_row = CalculationRow.objects.get(system__slug="glicko", coach=league["anna"], opponent=league["bert"], period="2024-03")
    assert rows[1][1] == [
        "102", "Bert Smith", "Orc", "2024-03-02", "1500.00", "1500.00", "350.00", f"{glicko.g_factor(350):.4f}",
        "1.0", "0.500", "+0.500", f"{bert_row.rt:+.2f}",
    ]
    summary = PeriodSummary.objects.get(system__slug="glicko", coach=league["anna"], period="2024-03")
    block = table(response, "new rating")
    assert block["rows"][0][1] == ["Before", "1500.00", "350.00", "0.06000", f"{1500 - 2.5 * 350:.2f}"]
    assert block["rows"][1][1] == ["After", f"{summary.mu:.2f}", f"{summary.phi:.2f}", f"{summary.sigma:.5f}", f"{summary.rn:.2f}"]


def test_pooled_system_breakdown_needs_no_race(client, league):
    response = client.get("/coaches/101/breakdown/global-glicko/?race=orc")
    assert response.status_code == 200
    assert response.context["breakdown"].race is None


def test_last_four_periods_are_one_click_away(client, league):
    response = client.get("/coaches/101/breakdown/elo/")
    found = table(response, "last four")
    assert [cells[0] for _, cells in found["rows"]] == ["Summer League", "Utrecht Cup", "Dutch Open"]
    html = response.content.decode()
    assert f'href="/coaches/101/breakdown/elo/?race=human&amp;variant=blood-bowl-2020&amp;period=event%3A{league["dutch"].pk}"' in html


@pytest.mark.parametrize("url, status, message", [
    ("/coaches/101/breakdown/elo/?race=wizards", 400, "Select a valid choice"),
    ("/coaches/101/breakdown/elo/?race=orc", 404, "Anna Jansen has no NAF Elo rating with Orc"),
    ("/coaches/101/breakdown/elo/?period=event:999999", 404, "There is no period"),
    ("/coaches/101/breakdown/elo/?period=" + "x" * 30, 400, "at most 20 characters"),
    ("/coaches/101/breakdown/chess/", 404, ""),
    ("/coaches/999/breakdown/elo/", 404, ""),
])
def test_tampered_breakdown_urls_get_clear_answers(client, league, url, status, message):
    response = client.get(url)
    assert response.status_code == status
    assert message in response.content.decode()


def test_breakdown_query_count_is_fixed(client, league, django_assert_num_queries):
    # the systems (the chosen one among them), coach, keys, periods, uncounted periods, event names,
    # the shown summaries, rows, and (NAF Elo) other events' games amid the event's
    with django_assert_num_queries(9):
        client.get("/coaches/101/breakdown/elo/")
    # and the variant of the query string; KNSB also the latest list and whether a game waits for the next
    with django_assert_num_queries(10):
        client.get("/coaches/101/breakdown/knsb/?variant=blood-bowl-2020")


def test_global_glicko_names_a_left_out_race_in_the_spec_words(client, league):
    import datetime as dt

    from tests.factories import EventFactory, RoundFactory, play
    from tests.web.conftest import recalculate_all

    later = EventFactory(name="Goblin Cup", start_date=dt.date(2024, 8, 3))
    play(RoundFactory(event=later, number=1), league["anna"], league["bert"], (1, 0), home_race="goblin", away_race="orc")
    recalculate_all()
    response = client.get("/coaches/101/breakdown/global-glicko/?variant=blood-bowl-2020")
    html = response.content.decode()
    assert '<li id="fn-1" value="1">race excluded from global ranking</li>' in html
    # per race, the same reason keeps the general words
    assert "race excluded from this ranking" not in html


@pytest.fixture
def rated_knsb():
    """Five coaches on an imported KNSB list (Nv 40, k = 216/√40 = 34.1526); Anna, rated 1800,
    loses all four games of June, two at each of two events."""
    import datetime as dt

    from ratings.models import RatingSystem
    from tests.factories import CoachFactory, EventFactory, RoundFactory, play
    from tests.web.conftest import recalculate_all

    ratings = {401: 1800, 402: 1700, 403: 1850, 404: 1900, 405: 1750}
    coaches = {number: CoachFactory(number=number, name=f"Coach {number}") for number in ratings}
    knsb = RatingSystem.objects.get(slug="knsb")
    knsb.parameters = {
        **knsb.parameters,
        "initial_list": [[number, rating, 40] for number, rating in ratings.items()],  # federation numbers
    }
    knsb.save()
    events = {
        "open": EventFactory(name="June Open", start_date=dt.date(2024, 6, 8)),
        "cup": EventFactory(name="June Cup", start_date=dt.date(2024, 6, 22)),
    }
    for number, (event, opponent, score) in enumerate(
        [("open", 402, (0, 1)), ("open", 403, (0, 2)), ("cup", 404, (0, 1)), ("cup", 405, (1, 2))], start=1,
    ):
        day = events[event].start_date
        play(RoundFactory(event=events[event], number=number, date=day), coaches[401], coaches[opponent], score,
             at=dt.datetime.combine(day, dt.time(9 + number), tzinfo=dt.UTC))
    recalculate_all(dt.date(2024, 7, 15))
    return events


def test_knsb_list_period_has_one_block_per_event_and_the_extra_remise(client, rated_knsb):
    response = client.get("/coaches/401/breakdown/knsb/?variant=blood-bowl-2020&period=2024-07-01")
    assert response.status_code == 200
    _, rows = game_rows(response)
    assert [cls for cls, _ in rows] == ["period", "counted", "counted", "period", "counted", "counted", "extra-remise"]
    # June Open: v 1700 and 1850, both lost: We Φ(100/σ) + Φ(−50/σ) = 0.636831 + 0.430540
    assert rows[0][1] == ["June Open (totals)", "2024-06-08", "", "", "1775", "0.0", "1.067", "-1.067", "", "-36.45", "0.234"]
    assert rows[1][1][:2] == ["402", "Coach 402"] and rows[2][1][:2] == ["403", "Coach 403"]
    # June Cup: v 1900 and 1750: 0.363169 + 0.569460
    assert rows[3][1] == ["June Cup (totals)", "2024-06-22", "", "", "1825", "0.0", "0.933", "-0.933", "", "-31.85", "0.174"]
    # 0 %: a fictitious draw against oneself at Rl, which only the LPR equation sees (Wxt − ΣWx)
    assert rows[6][1] == ["", "Extra remise*", "", "", "", "1800", "1800", "0.5", "0.500", "+0.000", "", "+0.00", "0.094"]
    block = table(response, "new rating")
    figures = dict(zip(block["header"], block["rows"][0][1]))
    assert (figures["Rl"], figures["Rn"], figures["LPR"], figures["Nt"], figures["Wet"], figures["Rtt"], figures["Wxt"]) == (
        "1800", "1732", "1423", "4", "2.000", "-68.31", "0.501",
    )
    assert "Wxt is 0.5 above Wt" in response.content.decode()


def test_a_knsb_start_rating_leaves_we_w_minus_we_and_rt_empty(client, league):
    # Anna's start rating on the list of 1 July rests on eight depot games of three events
    response = client.get("/coaches/101/breakdown/knsb/?variant=blood-bowl-2020&period=2024-07-01")
    _, rows = game_rows(response)
    blocks = [cells for cls, cells in rows if cls == "period"]
    assert [cells[0] for cells in blocks] == ["Dutch Open (totals)", "Utrecht Cup (totals)", "Summer League (totals)"]
    assert all(cells[6:10] == ["", "", "", ""] for cells in blocks)  # no We, W−We, k or Rt: there is no R0
    depot = [cells for cls, cells in rows if cls == "depot"]
    assert len(depot) == 8 and all(cells[8:12] == ["", "", "", ""] for cells in depot)
    block = table(response, "new rating")
    figures = dict(zip(block["header"], block["rows"][0][1]))
    assert (figures["Nt"], figures["Wet"], figures["Rtt"]) == ("8", "", "")


def test_what_the_row_colours_mean_is_said_in_words_in_a_legend_and_in_each_row(client, league):
    """WCAG 1.4.1: colour is not the only carrier. Orange (the event's totals), red (not counted) and blue
    (depot) rows each say what they are in text, and a legend says what each colour means."""
    cup = league["cup"]
    for address in (
        f"/coaches/101/breakdown/elo/?race=human&variant=blood-bowl-2020&period=event:{cup.pk}",
        "/coaches/101/breakdown/knsb/?variant=blood-bowl-2020&period=2024-07-01",
    ):
        response = client.get(address)
        _, rows = game_rows(response)
        kinds = {cls for cls, _ in rows}
        assert "period" in kinds and kinds & {"excluded", "depot"}, kinds
        for cls, cells in rows:
            if cls == "period":
                assert cells[0].endswith("(totals)"), cells
            elif cls == "excluded":
                assert cells[1].endswith("not counted"), cells
            elif cls == "depot":
                assert " depot 20" in cells[4], cells
        legend = " ".join(re.search(r'<p class="legend-key"[^>]*>(.*?)</p>', response.content.decode(), re.S).group(1).split())
        assert "orange, bold, its name first: the event's totals" in legend
        assert "red, marked “not counted”" in legend
        assert ("blue, marked “depot” and a date" in legend) == ("knsb" in address)
