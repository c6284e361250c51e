"""Rankings: one list per system, filtered in the query string, "-" for unranked entries, CSV export."""
import codecs
import csv
import datetime as dt
import io
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ratings.models import CurrentRating, RatingListEntry
from tests.factories import CoachFactory, EventFactory, RoundFactory, play, variant
from tests.web.conftest import column, recalculate_all, table

pytestmark = pytest.mark.django_db


def ranking_table(response):
    return table(response, "ranking")


def csv_text(response) -> str:
    """A CSV download's text; it starts with a UTF-8 byte order mark, for spreadsheets."""
    body = b"".join(response.streaming_content)
    assert body.startswith(codecs.BOM_UTF8)
    return body.decode("utf-8-sig")


def test_rankings_index_lists_every_active_system(client, league):
    response = client.get("/rankings/")
    assert response.status_code == 200
    rows = table(response, "Rating systems")["rows"]
    assert [cells[0] for _, cells in rows] == ["NAF Elo", "NAF Glicko", "Global Glicko", "KNSB list rating"]


def test_elo_ranking_lists_ranked_entries_best_first_and_unranked_last(client, league):
    found = ranking_table(client.get("/rankings/elo/"))
    ranked = CurrentRating.objects.filter(system__slug="elo", overall_rank__isnull=False).select_related("coach")
    expected = [(c.coach.name, f"{c.value:.2f}") for c in sorted(ranked, key=lambda c: (-c.value, c.coach.number))]
    names, values = column(found, "Coach"), column(found, "Rating")
    assert list(zip(names, values))[: len(expected)] == expected
    assert column(found, "Overall")[: len(expected)] == [str(c.overall_rank) for c in sorted(ranked, key=lambda c: c.overall_rank)]
    # Gus and Hal last played in January 2022: more than 24 months ago, so no rank
    assert set(names[len(expected):]) == {"Gus Martin", "Hal Dubois"}
    assert column(found, "Overall")[len(expected):] == ["-", "-"]
    assert column(found, "Rank")[len(expected):] == ["-", "-"]


def test_the_dash_carries_the_rule_in_place(client, league):
    html = client.get("/rankings/elo/").content.decode()
    assert '<abbr title="No rank after 24 months without a counted game.' in html
    assert 'href="/about/ratings/#inactive"' in html


def test_an_inactive_glicko_key_shows_a_dash_and_keeps_mu_phi_and_value(client, league):
    anna = CurrentRating.objects.get(system__slug="glicko", coach=league["anna"])
    assert anna.phi > 100 and anna.rank is None
    response = client.get("/rankings/glicko/?name=Anna")
    found = ranking_table(response)
    assert found["header"][:2] == ["Overall", "Rank"]
    assert {"μ", "φ", "Rating"} <= set(found["header"])
    (row_class, cells), = found["rows"]
    row = dict(zip(found["header"], cells))
    assert (row["Rank"], row["Overall"]) == ("-", "-")
    assert (row["μ"], row["φ"], row["Rating"]) == (f"{anna.mu:.2f}", f"{anna.phi:.2f}", f"{anna.value:.2f}")
    assert "No rank while φ is above 100" in response.content.decode()


def test_filter_by_race_and_country(client, league):
    found = ranking_table(client.get("/rankings/elo/?race=orc&country=GB&variant="))
    assert column(found, "Coach") == ["Bert Smith"]
    assert "Variant" in found["header"]  # every variant: the column says which
    assert "Variant" not in ranking_table(client.get("/rankings/elo/?variant=blood-bowl-2020"))["header"]
    assert "Variant" not in ranking_table(client.get("/rankings/elo/?race=orc"))["header"]  # one by default
    assert found["header"][:2] == ["Rank", "Overall"]  # a race is chosen: its rank comes first
    assert "Orc" in found["caption"] and "United Kingdom" in found["caption"]


def test_name_filter_finds_a_coach_by_name_or_number(client, league):
    assert column(ranking_table(client.get("/rankings/elo/?name=de+vries")), "Coach") == ["Cees de Vries"]
    assert column(ranking_table(client.get("/rankings/elo/?name=104")), "Coach") == ["Dirk Müller"]


def test_active_only_hides_the_dash_entries(client, league):
    names = column(ranking_table(client.get("/rankings/elo/?active=on")), "Coach")
    assert "Gus Martin" not in names and len(names) == 6


def test_every_name_links_to_its_breakdown(client, league):
    html = client.get("/rankings/elo/?name=Anna").content.decode()
    assert '<a href="/coaches/101/breakdown/elo/?race=human&amp;variant=blood-bowl-2020">Anna Jansen</a>' in html


def test_sorting_by_a_column_keeps_the_filters(client, league):
    found = ranking_table(client.get("/rankings/elo/?country=NL&sort=coach"))
    assert column(found, "Coach") == ["Anna Jansen", "Cees de Vries", "Eva Bakker"]
    descending = ranking_table(client.get("/rankings/elo/?country=NL&sort=-value"))
    values = [float(v) for v in column(descending, "Rating")]
    assert values == sorted(values, reverse=True)


def test_change_columns_compare_with_the_last_full_month(client, league):
    anna = CurrentRating.objects.get(system__slug="elo", coach=league["anna"])
    found = ranking_table(client.get("/rankings/elo/?name=Anna"))
    row = dict(zip(found["header"], found["rows"][0][1]))
    assert row["Change"] == f"{anna.value_change:+.2f}"
    assert row["Last played"] == "2024-06-02"


def test_csv_export_is_exactly_the_filtered_table(client, league):
    page = ranking_table(client.get("/rankings/elo/?country=NL&sort=coach&variant="))
    response = client.get("/rankings/elo/?country=NL&sort=coach&variant=&_export=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "elo-ranking-" in response["Content-Disposition"]
    header, *rows = list(csv.reader(io.StringIO(csv_text(response))))
    assert header == page["header"]
    assert rows == [cells for _, cells in page["rows"]]
    assert [r[header.index("Coach")] for r in rows] == ["Anna Jansen", "Cees de Vries", "Eva Bakker"]


def test_csv_export_holds_every_page_not_only_the_first(client, league, settings):
    from rating_pages import views

    original, views.PER_PAGE = views.PER_PAGE, 2
    try:
        assert len(ranking_table(client.get("/rankings/elo/"))["rows"]) == 2
        rows = list(csv.reader(io.StringIO(csv_text(client.get("/rankings/elo/?_export=csv")))))[1:]
    finally:
        views.PER_PAGE = original
    assert len(rows) == CurrentRating.objects.filter(system__slug="elo").count() == 8


def test_csv_export_is_a_named_attachment_with_accented_names_intact(client, league):
    response = client.get("/rankings/elo/2024-07/?_export=csv")
    assert response["Content-Disposition"] == 'attachment; filename="elo-ranking-2024-07.csv"'
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    header, *rows = list(csv.reader(io.StringIO(csv_text(response))))
    assert "Dirk Müller" in [row[header.index("Coach")] for row in rows]


def test_export_ratings_prints_no_byte_order_mark_unless_asked(league):
    from django.core.management import call_command

    plain, marked = io.StringIO(), io.StringIO()
    call_command("export_ratings", system="elo", stdout=plain)
    call_command("export_ratings", "--bom", system="elo", stdout=marked)
    assert plain.getvalue().startswith("coach_number,coach,race,variant,rating,mu,phi,sigma,rank,games\n")
    assert marked.getvalue() == "\ufeff" + plain.getvalue()
    assert "Dirk Müller" in plain.getvalue()


def test_stored_month_permalink_shows_that_list(client, league):
    response = client.get("/rankings/elo/2024-07/")
    assert response.status_code == 200
    found = ranking_table(response)
    assert "list of 2024-07-01" in found["caption"]
    entries = RatingListEntry.objects.filter(rating_list__system__slug="elo", rating_list__date="2024-07-01")
    assert sorted(column(found, "Coach")) == sorted(e.coach.name for e in entries.select_related("coach"))
    assert {"Change", "Counted", "Played"} <= set(found["header"])
    assert not {"Rank change", "Last played"} & set(found["header"])  # current-ranking columns


def test_latest_permalink_is_the_current_ranking(client, league):
    latest = ranking_table(client.get("/rankings/elo/latest/"))
    current = ranking_table(client.get("/rankings/elo/"))
    assert latest["rows"] == current["rows"]


def test_system_select_moves_to_that_system_keeping_the_filters(client, league):
    response = client.get("/rankings/elo/?system=knsb&country=NL&page=3")
    assert response.status_code == 302
    assert response["Location"] == "/rankings/knsb/?country=NL"


def test_pooled_systems_have_no_race_filter_or_column(client, league):
    response = client.get("/rankings/knsb/")
    assert "race" not in response.context["filter"].form.fields
    assert "Race" not in ranking_table(response)["header"]
    assert "Nv" in ranking_table(response)["header"]


@pytest.mark.parametrize("url, status", [
    ("/rankings/chess/", 404),
    ("/rankings/chess/?_export=csv", 404),
    ("/rankings/elo/?system=chess", 404),
    ("/rankings/elo/2024-13/", 404),
    ("/rankings/elo/1999-01/", 404),
    ("/rankings/elo/?page=abc", 200),
    ("/rankings/elo/?page=99999", 200),
    ("/rankings/elo/?sort=nonsense", 200),
    ("/rankings/elo/?_export=xlsx", 400),
])
def test_tampered_urls_get_clear_answers(client, league, url, status):
    assert client.get(url).status_code == status


def test_a_bad_race_is_a_form_error_and_no_rows(client, league):
    response = client.get("/rankings/elo/?race=wizards")
    assert response.status_code == 400
    html = response.content.decode()
    assert "Some filters could not be used" in html and "Select a valid choice" in html
    assert ranking_table(response)["rows"] == [("", ["No ratings match these filters."])]


def test_page_abc_shows_the_first_page(client, league):
    assert ranking_table(client.get("/rankings/elo/?page=abc"))["rows"] == ranking_table(client.get("/rankings/elo/"))["rows"]


def test_ranking_queries_do_not_grow_with_the_number_of_rows(client, league, django_assert_num_queries):
    # the systems (the chosen one among them), the variants it rates (the most played shown), country,
    # variant and race choices, the chosen variant, count, the page
    with django_assert_num_queries(8):
        client.get("/rankings/elo/")
    more = CoachFactory.create_batch(10)
    event = EventFactory(name="More")
    round_ = RoundFactory(event=event)
    for home, away in zip(more[0::2], more[1::2]):
        play(round_, home, away, (1, 0))
    recalculate_all()
    with django_assert_num_queries(8):  # new coaches: the choices are read again
        response = client.get("/rankings/elo/")
    assert len(ranking_table(response)["rows"]) == 18
    # the count and the variants rated are kept until the next run commits, the choices a while
    with django_assert_num_queries(3):
        again = client.get("/rankings/elo/")
    assert ranking_table(again)["rows"] == ranking_table(response)["rows"]


def test_filtered_list_and_month_pages_query_counts(client, league, django_assert_num_queries):
    with django_assert_num_queries(1):  # the systems
        client.get("/rankings/")
    with django_assert_num_queries(9):  # and the variants rated, the chosen variant and race
        client.get("/rankings/elo/?race=orc&country=GB&active=on&name=b")
    # the systems, the list as published, the chosen variant, its count and page, and the page's keys
    # as computed now (the choices and the variants rated are kept)
    with django_assert_num_queries(6):
        client.get("/rankings/elo/2024-07/")
    with django_assert_num_queries(3):  # the systems, the chosen variant, every row
        csv_text(client.get("/rankings/elo/?_export=csv"))


def test_filter_choices_are_kept_between_pages_and_a_saved_race_or_nationality_shows_at_once(client, league):
    from tournaments.models import Race

    assert 'value="amazon-test"' not in client.get("/rankings/elo/").content.decode()
    Race.objects.create(name="Amazon (test)", slug="amazon-test", ranked=True)  # a ranking offers the ranked races
    coach = CoachFactory(nationality="IS")
    page = client.get("/rankings/elo/").content.decode()
    assert '<option value="amazon-test">Amazon (test)</option>' in page
    assert '<option value="IS">Iceland</option>' in page
    coach.delete()
    assert 'value="IS"' not in client.get("/rankings/elo/").content.decode()


def test_one_rounding_everywhere_half_away_from_zero(client, league):
    # a stored 2.675 is 2.67499999999999982236431605997495353221893310546875 as a float: shown 2.68
    anna = CurrentRating.objects.get(system__slug="elo", coach__number=101, race__slug="human")
    CurrentRating.objects.filter(pk=anna.pk).update(value=2.675, value_change=-0.125)
    found = ranking_table(client.get("/rankings/elo/?name=Anna"))
    assert (column(found, "Rating"), column(found, "Change")) == (["2.68"], ["-0.13"])
    header, *rows = list(csv.reader(io.StringIO(csv_text(client.get("/rankings/elo/?name=Anna&_export=csv")))))
    assert (rows[0][header.index("Rating")], rows[0][header.index("Change")]) == ("2.68", "-0.13")
    coach_page = table(client.get("/coaches/101/"), "ratings in every system")
    elo_row = next(cells for _, cells in coach_page["rows"] if cells[0] == "NAF Elo" and cells[1] == "Human")
    assert elo_row[3] == "2.68"


def test_knsb_ratings_are_whole_numbers_on_every_page_and_csv(client, league):
    from django.core.management import call_command

    knsb = CurrentRating.objects.filter(system__slug="knsb").select_related("coach").order_by("-value")
    best = knsb.first()
    found = ranking_table(client.get("/rankings/knsb/"))
    # a "?" may follow a provisional rating (tests/web/test_coach_page.py)
    assert column(found, "Rating")[0].removesuffix("?") == f"{best.value:.0f}" and "." not in "".join(column(found, "Rating"))
    header, *rows = list(csv.reader(io.StringIO(csv_text(client.get("/rankings/knsb/?_export=csv")))))
    assert all("." not in row[header.index("Rating")] for row in rows)
    changes = [c for c in column(ranking_table(client.get("/rankings/knsb/")), "Change") if c]
    assert changes and all("." not in c for c in changes)
    out = io.StringIO()
    call_command("export_ratings", system="knsb", stdout=out)
    exported = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert exported and all(row["rating"] == str(int(float(row["rating"]))) for row in exported)
    listed = ranking_table(client.get("/rankings/knsb/2024-08/"))
    assert column(listed, "Rating") and "." not in "".join(column(listed, "Rating") + column(listed, "Change"))
    starters = table(client.get("/lists/knsb/2024-07/"), "Starters")
    assert column(starters, "Rating") and "." not in "".join(column(starters, "Rating"))


@pytest.mark.parametrize(("sort", "ties_by"), [("", ["coach", "pk"]), ("&sort=rank", ["coach", "pk"]),
                                               ("&sort=-value", ["pk"]), ("&sort=games", ["pk"])])
def test_rows_that_tie_keep_one_order_so_paging_shows_each_once(client, league, sort, ties_by):
    ratings = CurrentRating.objects.filter(system__slug="elo")
    ratings.update(value=150.0, games=3, overall_rank=1, rank=1)  # every entry ties on every order
    # the rank orders end in the coach: a coach's races tie, and the primary key orders them
    in_pk_order = [(r.coach.name, r.race.name) for r in ratings.select_related("coach", "race").order_by(*ties_by)]
    paged = []
    for page in range(1, len(in_pk_order) + 1):
        with CaptureQueriesContext(connection) as queries:
            found = ranking_table(client.get(f"/rankings/elo/?per_page=1&page={page}{sort}"))
        paged += list(zip(column(found, "Coach"), column(found, "Race")))
        # the page's rows are read in an order whose last term is the primary key (selected alone: "1")
        rows_query = next(q["sql"] for q in queries.captured_queries if "LIMIT 1" in q["sql"])
        last_term = rows_query.split("ORDER BY")[1].split("LIMIT")[0].split(",")[-1].strip()
        assert last_term in {'"ratings_currentrating"."id" ASC', "1 ASC"}, rows_query
    assert paged == in_pk_order
    header, *rows = list(csv.reader(io.StringIO(csv_text(client.get(f"/rankings/elo/?_export=csv{sort}")))))
    assert [(row[header.index("Coach")], row[header.index("Race")]) for row in rows] == in_pk_order


@pytest.fixture
def sevens(league):
    """A Sevens event beside the league's Blood Bowl 2020 ones: Fay and Gus play it once."""
    event = EventFactory(name="Sevens Cup", start_date=dt.date(2024, 7, 6), variant=variant("sevens"))
    play(RoundFactory(event=event, number=1), league["fay"], league["gus"], (2, 0), home_race="skaven", away_race="dwarf")
    recalculate_all()
    return event


def test_a_ranking_shows_the_most_played_variant_by_default_with_a_switch_to_the_others(client, sevens):
    every = CurrentRating.objects.filter(system__slug="elo")
    body = client.get("/rankings/elo/").content.decode()
    found = ranking_table(client.get("/rankings/elo/"))
    assert len(found["rows"]) == every.filter(variant__slug="blood-bowl-2020").count() == 8
    assert "Blood Bowl 2020" in found["caption"]
    switch = body.split('<nav class="variant-switch" aria-label="Variant">')[1].split("</nav>")[0]
    assert re.findall(r'<a href="([^"]+)"( aria-current="page")?>([^<]+)</a>', switch) == [
        ("?variant=blood-bowl-2020", ' aria-current="page"', "Blood Bowl 2020"),
        ("?variant=sevens", "", "Sevens"), ("?variant=", "", "All variants"),
    ]
    assert column(ranking_table(client.get("/rankings/elo/?variant=sevens")), "Coach") == ["Fay Brown", "Gus Martin"]
    overall = client.get("/rankings/elo/?variant=")
    assert len(ranking_table(overall)["rows"]) == every.count() == 10
    assert "Variant" in ranking_table(overall)["header"]
    text = re.sub(r"\s+", " ", overall.content.decode())
    assert "Overall: its place among every race of its variant" in text
    assert "each rating keeps its place within its own variant (ratings of two variants are never compared)" in text
    assert 'class="ranking-table every-variant"' in text  # its Variant column stays on phones


def test_the_switch_keeps_the_other_filters_and_the_csv_its_header(client, sevens):
    body = client.get("/rankings/elo/?country=GB&page=1").content.decode()
    assert '<a href="?country=GB&amp;variant=sevens">Sevens</a>' in body
    default = list(csv.reader(io.StringIO(csv_text(client.get("/rankings/elo/?_export=csv")))))
    every = list(csv.reader(io.StringIO(csv_text(client.get("/rankings/elo/?variant=&_export=csv")))))
    assert default[0] == every[0] and "Variant" in default[0]
    assert {row[default[0].index("Variant")] for row in default[1:]} == {"Blood Bowl 2020"}
    assert len(every) == len(default) + 2
