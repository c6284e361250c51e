"""Public rating pages: they parse the query string, call the page selectors and render.

Everything works without JavaScript; every filter is a GET parameter, so any view is a link.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django_countries import countries
from django_tables2 import RequestConfig

from rating_engines import glicko
from rating_pages.calculator import calculate_elo, calculate_glicko, calculate_knsb, calculator_configs, system_configs
from rating_pages.calculator_forms import CalculatorForm, PairingForm
from rating_pages.columns import presentation
from rating_pages.filters import BreakdownForm, CoachFilter, EventFilter, RankingFilter, event_year_choices
from rating_pages.presenters import about, lists, periods, predictions, rankings, rules
from rating_pages.presenters import breakdown as breakdowns
from rating_pages.presenters import coach as coach_page
from rating_pages.presenters import events as events_page
from rating_pages.tables import (
    CoachEventTable,
    CoachTable,
    EventTable,
    HistoryTable,
    ListEntryTable,
    RatingListTable,
)
from ratings import selectors
from ratings.choices import Method
from ratingsite.csv_export import csv_download
from ratingsite.formatting import rating_places
from ratingsite.page_cache import bad_parameter_page, cached_page, paginate_table, table_parameters
from tournaments import permissions as perms
from tournaments.models import Coach, Event
from tournaments.selectors import coach_directory, coach_game_counts, coach_get, coach_numbers_known

if TYPE_CHECKING:
    from ratings.models import RatingSystem

PER_PAGE = 50
MAX_PER_PAGE = 200
EXPORT_FORMATS = {"csv"}


def _system(slug: str, systems: list[RatingSystem] | None = None) -> RatingSystem:
    """The active system of that slug, found among `systems` (selectors.public_systems(), read here if not given)."""
    found = selectors.public_system_get(slug, systems)
    if found is None:
        raise Http404(f"There is no rating system “{slug}”.")
    return found


def _coach(number: int) -> Coach:
    try:
        return coach_get(number=number)
    except Coach.DoesNotExist:
        raise Http404(f"There is no coach with federation number {number}.") from None


def _paginate(request, table, per_page: int | None = None) -> None:
    paginate_table(request, table, per_page or PER_PAGE, max_per_page=MAX_PER_PAGE)


def _query_without(request, *names: str) -> str:
    params = request.GET.copy()
    for name in names:
        params.pop(name, None)
    return params.urlencode()


# --- rankings -------------------------------------------------------------------------------------


@cached_page
def rankings_index(request):
    """The rating systems, each with a link to its current ranking."""
    systems = selectors.public_systems()
    return render(request, "rating_pages/rankings_index.html", {"systems": systems})


@cached_page(reads=(*RankingFilter.base_filters, "system", "_export", *table_parameters()))
def ranking(request, system: str, month: tuple[int, int] | None = None):
    """A ranking: the current one (/rankings/elo/ and /rankings/elo/latest/) or a stored monthly list."""
    systems = selectors.public_systems()
    system = _system(system, systems)
    other = request.GET.get("system")
    if other and other != system.slug:
        # the system select submits with the filters: move to that system's page, keeping them
        return _other_system(request, _system(other, systems), month)
    source = rankings.ranking_source(system, month)
    if source is None:
        raise Http404(f"{system.name} has no list dated {month[0]:04d}-{month[1]:02d}-01.")
    rated_variants = selectors.ranking_variants(system)
    params = rankings.with_default_variant(request.GET, rated_variants)
    filterset = source.filter_class(params, queryset=source.queryset, per_race=system.per_race)
    valid = filterset.is_valid()
    export = request.GET.get("_export")
    refused = _export_refused(request, export, filterset, valid)
    if refused is not None:
        return refused
    provisional = rules.provisional_rule(system)
    table = _ranking_table(system, source, filterset, export=export, provisional=provisional)
    if export:
        stamp = f"{month[0]:04d}-{month[1]:02d}" if month else timezone.now().date().isoformat()
        return _csv(request, table, filename=f"{system.slug}-ranking-{stamp}")
    _paginate(request, table)
    _ranking_notes(table, system, month, source.publication)
    variant = filterset.form.cleaned_data.get("variant") if valid else None
    return render(request, "rating_pages/ranking.html", {
        "system": system,
        "systems": systems,
        "rating_list": source.rating_list,
        "publication": source.publication,
        "filter": filterset,
        "table": table,
        "inactive_rule": rules.inactive_rule(system),
        "provisional": provisional,
        "export_query": _query_without(request, "page", "_export"),
        "share_url": request.build_absolute_uri(),
        "variant_links": rankings.variant_links(request.GET, rated_variants, params.get("variant", "")),
        "filters_set": rankings.filters_set(filterset, request.GET),
        "every_variant": valid and variant is None,
    }, status=200 if valid else 400)  # a filter the form refuses is no page of its own, nor cached


def _other_system(request, target, month: tuple[int, int] | None) -> HttpResponseRedirect:
    """The same ranking (current, or of that month) of another system, with the same filters."""
    args = [target.slug] if month is None else [target.slug, f"{month[0]:04d}-{month[1]:02d}"]
    name = "rankings" if month is None else "ranking_month"
    query = _query_without(request, "system", "page", "sort")
    return HttpResponseRedirect(reverse(name, args=args) + (f"?{query}" if query else ""))


def _export_refused(request, export: str | None, filterset, valid: bool):
    """The 400 page of an export asked in an unknown format or with refused filters, else None."""
    if export and export not in EXPORT_FORMATS:
        return bad_parameter_page(request, gettext("Only ?_export=csv is offered."))
    if export and not valid:  # no empty download of its own per refused value
        problems = "; ".join(f"{name}: {' '.join(errors)}" for name, errors in filterset.form.errors.items())
        return bad_parameter_page(request, gettext("Some filters could not be used (%(problems)s).") % {"problems": problems})
    return None


def _ranking_table(system, source, filterset, *, export: str | None, provisional):
    valid = filterset.is_valid()
    data = filterset.form.cleaned_data if valid else {}
    # without a race chosen the overall rank orders the list, so it comes first, and a chosen variant
    # needs no column; a CSV keeps the unfiltered list's header whatever the filters
    sequence = ["overall_rank", "rank", "..."] if system.per_race and (data.get("race") is None or export) else None
    return source.table_class(
        filterset.qs if valid else source.queryset.none(), system=system, inactive_rule=rules.inactive_rule(system),
        sequence=sequence, provisional=provisional,
        caption=rankings.ranking_caption(system, source.rating_list, filterset),
        exclude=["variant"] if data.get("variant") and not export else [], **source.extra,
    )


def _csv(request, table, *, filename: str):
    """The whole table (every page) as a CSV download."""
    RequestConfig(request, paginate=False).configure(table)
    values = table.as_values()
    return csv_download(next(values), values, filename=filename)


def _ranking_notes(table, system, month: tuple[int, int] | None, publication) -> None:
    """Beside the page's entries: the KNSB games not on a list yet, and the figures revised since publication."""
    if month is None and presentation(system.method).lists:  # games not on a list yet, beside the counted ones
        table.waiting = selectors.ranking_waiting(system, coach_ids={row.record.coach_id for row in table.page.object_list})
    if publication is not None:  # where the live recomputation disagrees, its figure beside
        table.show_revisions(selectors.revised_values(publication, table.page_records()))


# --- coach directory and coach page ---------------------------------------------------------------


@cached_page(reads=(*CoachFilter.base_filters, *table_parameters()), page_numbers=False)
def coach_list(request):
    """The coach directory (where the header's search lands): every coach by name, searched by name or
    number and filtered by nationality. A search that is a coach's federation number opens his page."""
    filterset = CoachFilter(request.GET, queryset=coach_directory())
    valid = filterset.is_valid()
    data = filterset.form.cleaned_data if valid else {}
    text = (data.get("q") or "").strip()
    number = int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else None
    if number is not None and not data.get("country") and coach_numbers_known(numbers=[number]):
        return HttpResponseRedirect(reverse("coach_detail", args=[number]))
    table = CoachTable(filterset.qs if valid else filterset.queryset.none(), caption=_coach_list_caption(data))
    _paginate(request, table)
    table.game_counts = coach_game_counts(coach_ids=table.page_ids())
    status, page_message = 200 if valid else 400, None
    asked = request.GET.get(table.prefixed_page_field)
    if asked is not None and asked != str(table.page.number):
        status = 404 if asked.isascii() and asked.isdigit() else 400
        page_message = gettext("There is no page “%(asked)s” of this list: showing page %(page)s of %(pages)s.") % {
            "asked": asked[:20], "page": table.page.number, "pages": table.paginator.num_pages}
    return render(request, "rating_pages/coach_list.html", {
        "filter": filterset, "table": table, "page_message": page_message,
    }, status=status)


def _coach_list_caption(data: dict) -> str:
    chosen = [f"“{data['q'].strip()}”"] if (data.get("q") or "").strip() else []
    if data.get("country"):
        chosen.append(str(countries.name(data["country"]) or data["country"]))
    return gettext("Coaches by name") + (f": {', '.join(chosen)}" if chosen else "")


@cached_page(reads=("system", *table_parameters("history-", "events-")))
def coach_detail(request, number: int):
    """A coach's ratings in every system, record per race, history chart, events and awards."""
    coach = _coach(number)
    systems = selectors.public_systems()
    slug = request.GET.get("system") or (systems[0].slug if systems else "")
    system = next((s for s in systems if s.slug == slug), None)
    if system is None and systems:
        raise Http404(f"There is no rating system “{slug}”.")
    ratings = coach_page.rating_block(coach, systems)
    opponents = coach_page.opponents(coach)
    history = periods.title_history(system, selectors.coach_history(coach, system)) if system else []
    chart = coach_page.history_chart(coach, system, history) if system else None
    history_table = HistoryTable(
        history, caption=coach_page.history_caption(system), prefix="history-",
        places=rating_places(system.method) if system is not None else 2,
    )
    _paginate(request, history_table)
    record, events = selectors.coach_record(coach)
    events_table = CoachEventTable(events, caption=gettext("Events attended, newest first"), prefix="events-")
    _paginate(request, events_table)
    return render(request, "rating_pages/coach.html", {
        "coach": coach,
        **ratings,
        "opponents": opponents,
        "record": record,
        "byes": any(r["byes"] for r in record),
        "events_table": events_table,
        "history_table": history_table,
        "awards": selectors.coach_awards(coach),
        "systems": systems,
        "system": system,
        "history": history,
        "chart": chart,
    })


# --- breakdown ------------------------------------------------------------------------------------


@cached_page(reads=tuple(BreakdownForm.base_fields))
def breakdown(request, number: int, system: str):
    """How a coach's rating in one system, race and variant was computed, KNSB rating-viewer style."""
    systems = selectors.public_systems()
    system = _system(system, systems)
    coach = _coach(number)
    form = BreakdownForm(request.GET)
    context = breakdowns.page_context(system, coach, form, systems)
    if not form.is_valid():
        return render(request, "rating_pages/breakdown.html", context, status=400)
    breakdowns.add_breakdown(context, form.cleaned_data)
    return render(request, "rating_pages/breakdown.html", context, status=404 if "missing" in context else 200)


# --- events ---------------------------------------------------------------------------------------


@cached_page(reads=(*EventFilter.base_filters, *table_parameters()))
def event_list(request):
    """Public events (sanctioned by default), filtered by year, country, variant, major and status."""
    queryset = selectors.public_events()
    filterset = EventFilter(request.GET, queryset=queryset, years=event_year_choices())
    valid = filterset.is_valid()
    table = EventTable(filterset.qs if valid else queryset.none(), caption=gettext("Events, newest first"))
    _paginate(request, table, 50)
    return render(request, "rating_pages/event_list.html", {"filter": filterset, "table": table}, status=200 if valid else 400)


@cached_page(reads=("system",))
def event_detail(request, pk: int):
    """An event: standings with Wt, Σ(W − We) and rating change in a chosen system, rounds, awards, map pin."""
    try:
        event = selectors.public_event_get(pk=pk)
    except Event.DoesNotExist:
        raise Http404("There is no public event with this number.") from None
    systems = selectors.public_systems()
    slug = request.GET.get("system") or "elo"
    system = next((s for s in systems if s.slug == slug), None)
    if system is None:
        if request.GET.get("system") or not systems:
            raise Http404(f"There is no rating system “{slug}”.")
        system = systems[0]
    return render(request, "rating_pages/event_detail.html", events_page.event_context(event, system, systems))


@cached_page
def event_predictions(request, pk: int):
    """Every pairing's expected score under each rating system and each coach's expected total; once a
    system has rated the event, its stored We against the scores. A submitted event's are its
    organiser's and the staff's alone: anyone else gets the 404 the public event page gives."""
    try:
        event = selectors.prediction_event_get(user=request.user, pk=pk)
    except Event.DoesNotExist:
        raise Http404("There is no event with this number whose predictions you may see.") from None
    return render(request, "rating_pages/event_predictions.html", {
        "event": event, "predictions": predictions.worded_event(selectors.event_predictions(event, selectors.public_systems())),
    })


# --- rating lists ---------------------------------------------------------------------------------


@cached_page
def rating_list_index(request):
    """Every system with its latest monthly list."""
    systems = selectors.public_systems()
    latest = selectors.latest_list_dates(systems)
    rows = [(system, *latest.get(system.pk, (None, 0))) for system in systems]
    return render(request, "rating_pages/lists_index.html", {"rows": rows})


@cached_page(reads=table_parameters())
def rating_lists(request, system: str):
    """The monthly lists of one system, newest first."""
    system = _system(system)
    table = RatingListTable(
        selectors.rating_lists_of(system=system), system=system,
        caption=gettext("%(system)s: monthly rating lists, newest first") % {"system": system.name},
    )
    _paginate(request, table, 24)
    return render(request, "rating_pages/lists_system.html", {"system": system, "table": table})


@cached_page(reads=("variant", *table_parameters("starters-", "risers-", "fallers-")))
def rating_list_detail(request, system: str, month: tuple[int, int], edition: int | None = None):
    """One monthly list as published (its latest edition, or the one asked for): counts, starters,
    risers and fallers, and the figures revised since."""
    system = _system(system)
    found = lists.list_head(system, month, edition)
    if found is None and edition is not None:
        raise Http404(f"{system.name}'s list dated {month[0]:04d}-{month[1]:02d}-01 has no edition {edition}.")
    if found is None:
        raise Http404(f"{system.name} has no list dated {month[0]:04d}-{month[1]:02d}-01.")
    head, publication = found.head, found.publication
    variants = selectors.variants_by_name()
    variant, error = lists.chosen_variant(request.GET.get("variant"), variants)
    label = gettext("%(system)s, list of %(day)s") % {"system": system.name, "day": f"{head.date:%Y-%m-%d}"} + (
        f", {variant}" if variant else "")
    starters = ListEntryTable(
        found.starters_of(head, variant), system=system, prefix="starters-", exclude=["change"], starters=True,
        caption=lists.starters_caption(system, label),
    )
    _paginate(request, starters)
    risers = ListEntryTable(
        found.movers_of(head, variant, rising=True), system=system, prefix="risers-",
        caption=gettext("Risers: the largest gains since the previous list (%(label)s)") % {"label": label},
    )
    fallers = ListEntryTable(
        found.movers_of(head, variant, rising=False), system=system, prefix="fallers-",
        caption=gettext("Fallers: the largest losses since the previous list (%(label)s)") % {"label": label},
    )
    before, after = selectors.list_neighbours(head)
    return render(request, "rating_pages/list_detail.html", {
        "system": system,
        "rating_list": head,
        "publication": publication,
        "editions": selectors.publication_editions(publication) if publication else [],
        "can_republish": publication is not None and request.user.has_perm(perms.CONFIGURE_SYSTEMS),
        "revisions": lists.worded_revisions(selectors.publication_revisions(publication, places=rating_places(system.method)))
        if publication else None,
        "counts": found.counts_of(head, variant),
        "starters": starters,
        "risers": risers,
        "fallers": fallers,
        "before": before,
        "after": after,
        "variants": variants,
        "variant": variant,
        "error": error,
        "month_query": f"?variant={variant.slug}" if variant else "",
    }, status=400 if error else 200)


# --- calculator -----------------------------------------------------------------------------------


def calculator(request):
    """Anyone's results under every method, with the breakdown table of each. Every option starts as
    the rating system is configured; what is entered applies to this calculation only. Beside it, a
    pairing's expected score under each method (its fields prefixed "pairing-")."""
    configured = calculator_configs()
    asked = request.GET if PairingForm.calculation_asked(request.GET) else None
    form = CalculatorForm(asked, configs={method: config for method, (_, config) in configured.items()})
    pairing_form, pairing = PairingForm(request.GET if PairingForm.asked(request.GET) else None), None
    if pairing_form.is_bound and pairing_form.is_valid():
        pairing = _pairing(pairing_form.cleaned_data, configured)
    results = {}
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        configs = data["configs"]
        if Method.NAF_ELO in configured:
            results["elo"] = (configured[Method.NAF_ELO][0], calculate_elo(
                configs[Method.NAF_ELO], rating=data["rating"], results=data["results"], coaches=data["coaches"],
                major=data["major"],
            ))
        if Method.GLICKO in configured:
            results["glicko"] = (configured[Method.GLICKO][0], calculate_glicko(
                configs[Method.GLICKO], mu=data["mu"], phi=data["phi"], sigma=data["sigma"], results=data["results"],
                opponent_phi=data["opponent_phi"], idle_periods=data["idle_periods"], new_race=data["new_race"],
                existing_races=data["existing_races"],
            ))
        if Method.KNSB in configured:
            results["knsb"] = (configured[Method.KNSB][0], calculate_knsb(
                configs[Method.KNSB], rl=data["rl"], nv=data["nv"], results=data["results"], junior=data["junior"],
            ))
    invalid = any(f.is_bound and not f.is_valid() for f in (form, pairing_form))
    return render(request, "rating_pages/calculator.html", {
        "form": form, "results": results, "pairing_form": pairing_form, "pairing": pairing,
    }, status=400 if invalid else 200)


def _pairing(data: dict, configured: dict) -> dict:
    """A pairing's expected scores: per system from the named coaches' ratings as they stand now,
    or per method from the two ratings given."""
    if data.get("home") is not None:
        rows = selectors.coach_pairing(
            systems=system_configs(), home=data["home"], home_race=data["home_race"], away=data["away"],
            away_race=data["away_race"], variant=data["variant"], on=timezone.localdate(),
        )
        return {"rows": predictions.worded_pairing(rows), "coaches": True}
    rows = selectors.rating_pairing(
        systems=configured.values(), home=selectors.SideRating(data["home_rating"], data["home_phi"]),
        away=selectors.SideRating(data["away_rating"], data["away_phi"]),
    )
    return {"rows": rows, "coaches": False}


# --- about the ratings ----------------------------------------------------------------------------


def about_ratings(request):
    """Formulas, the parameters as configured, and charts drawn from that configuration."""
    configured = system_configs()
    phi_query = request.GET.get("phi", "").strip()
    asked_phi, phi_error = about.asked_phi(phi_query)
    sections = about.sections(configured, asked_phi)  # before the We chart: charts are numbered in order
    we_chart, we_rows = about.expected_score_figures(configured)
    return render(request, "rating_pages/about.html", {
        "sections": sections, "we_chart": we_chart, "we_rows": we_rows,
        "asked_phi": asked_phi, "phi_error": phi_error, "phi_query": phi_query, "glicko_scale": glicko.SCALE,
    }, status=400 if phi_error else 200)
