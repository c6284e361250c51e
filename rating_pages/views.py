"""Public rating pages: they parse the query string, call the page selectors and render.

Everything works without JavaScript; every filter is a GET parameter, so any view is a link.
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django_countries import countries
from django_tables2 import RequestConfig

from rating_engines import glicko, knsb, naf_elo
from rating_pages.calculator import calculate_elo, calculate_glicko, calculate_knsb, calculator_configs, system_configs
from rating_pages.calculator_forms import CalculatorForm, PairingForm
from rating_pages.filters import BreakdownForm, CoachFilter, EventFilter, PublishedRankingFilter, RankingFilter
from rating_pages.presenters import about, rules
from rating_pages.tables import (
    CoachEventTable,
    CoachTable,
    EventTable,
    HistoryTable,
    ListEntryTable,
    ListRankingTable,
    PublishedRankingTable,
    RankingTable,
    RatingListTable,
    breakdown_url,
)
from ratings import selectors
from ratings.choices import Method
from ratingsite import charts
from ratingsite.csv_export import csv_download
from ratingsite.formatting import fixed, rating_places
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
        target = _system(other, systems)
        args = [target.slug] if month is None else [target.slug, f"{month[0]:04d}-{month[1]:02d}"]
        name = "rankings" if month is None else "ranking_month"
        query = _query_without(request, "system", "page", "sort")
        return HttpResponseRedirect(reverse(name, args=args) + (f"?{query}" if query else ""))
    rating_list = publication = None
    table_class, filter_class, extra = RankingTable, RankingFilter, {}
    if month is None:
        queryset = selectors.ranking_current(system)
    else:
        publication = selectors.publication_on(system, *month)
        if publication is not None:  # the list as it was published, whatever was computed since
            queryset = selectors.ranking_of_publication(publication)
            table_class, filter_class, extra = PublishedRankingTable, PublishedRankingFilter, {"publication": publication}
        elif (rating_list := selectors.rating_list_on(system, *month)) is not None:  # not published yet
            queryset = selectors.ranking_of_list(rating_list)
            table_class = ListRankingTable
        else:
            raise Http404(f"{system.name} has no list dated {month[0]:04d}-{month[1]:02d}-01.")
    # one variant at a time by default, the most played: ratings of two variants are never compared,
    # so a list of every variant interleaves their ranks; `?variant=` (empty) asks for all of them
    rated_variants = selectors.ranking_variants(system)
    params = request.GET
    if "variant" not in params and rated_variants:
        params = params.copy()
        params["variant"] = rated_variants[0]["variant__slug"]
    filterset = filter_class(params, queryset=queryset, per_race=system.per_race)
    valid = filterset.is_valid()
    data = filterset.qs if valid else queryset.none()
    race = filterset.form.cleaned_data.get("race") if valid else None
    variant = filterset.form.cleaned_data.get("variant") if valid else None
    export = request.GET.get("_export")
    if export and export not in EXPORT_FORMATS:
        return bad_parameter_page(request, "Only ?_export=csv is offered.")
    if export and not valid:  # no empty download of its own per refused value
        problems = "; ".join(f"{name}: {' '.join(errors)}" for name, errors in filterset.form.errors.items())
        return bad_parameter_page(request, f"Some filters could not be used ({problems}).")
    # without a race chosen the overall rank orders the list, so it comes first, and a chosen variant
    # needs no column; a CSV keeps the unfiltered list's header whatever the filters
    sequence = ["overall_rank", "rank", "..."] if system.per_race and (race is None or export) else None
    provisional = rules.provisional_rule(system)
    table = table_class(
        data, system=system, inactive_rule=rules.inactive_rule(system), sequence=sequence, provisional=provisional,
        caption=_ranking_caption(system, publication or rating_list, filterset), exclude=["variant"] if variant and not export else [],
        **extra,
    )
    if export:
        RequestConfig(request, paginate=False).configure(table)
        stamp = f"{month[0]:04d}-{month[1]:02d}" if month else timezone.now().date().isoformat()
        values = table.as_values()
        return csv_download(next(values), values, filename=f"{system.slug}-ranking-{stamp}")
    _paginate(request, table)
    if month is None and system.method == Method.KNSB:  # games not on a list yet, beside the counted ones
        table.waiting = selectors.ranking_waiting(system, coach_ids={row.record.coach_id for row in table.page.object_list})
    if publication is not None:  # where the live recomputation disagrees, its figure beside
        table.show_revisions(selectors.revised_values(publication, table.page_records()))
    return render(request, "rating_pages/ranking.html", {
        "system": system,
        "systems": systems,
        "rating_list": publication or rating_list,
        "publication": publication,
        "filter": filterset,
        "table": table,
        "inactive_rule": rules.inactive_rule(system),
        "provisional": provisional,
        "export_query": _query_without(request, "page", "_export"),
        "share_url": request.build_absolute_uri(),
        "variant_links": _variant_links(request, rated_variants, params.get("variant", "")),
        # the summary of folded filters names those asked for, not the default variant
        "filters_set": [name for name in filterset.form.changed_data if name != "variant" or "variant" in request.GET],
        "every_variant": valid and variant is None,
    }, status=200 if valid else 400)  # a filter the form refuses is no page of its own, nor cached


def _variant_links(request, rated_variants: list[dict], chosen: str) -> list[dict]:
    """The ranking's switch: each variant the system rates, then all of them, with the other filters."""
    links = []
    for slug, name in [*((v["variant__slug"], v["variant__name"]) for v in rated_variants), ("", "All variants")]:
        query = request.GET.copy()
        query.pop("page", None)
        query["variant"] = slug
        links.append({"name": name, "url": f"?{query.urlencode()}", "current": slug == chosen})
    return links


def _ranking_caption(system, rating_list, filterset) -> str:
    """`rating_list`: the list or its publication (None: the current ranking)."""
    when = f"list of {rating_list.date:%Y-%m-%d}" if rating_list else "current"
    if getattr(rating_list, "published_at", None):
        when += f", as published {timezone.localtime(rating_list.published_at):%Y-%m-%d %H:%M}"
    chosen = []
    if filterset.is_valid():
        data = filterset.form.cleaned_data
        for name in ("variant", "race"):
            if data.get(name):
                chosen.append(str(data[name]))
        if data.get("country"):
            chosen.append(countries.name(data["country"]) or data["country"])
        if data.get("active"):
            chosen.append("ranked only")
        if data.get("name"):
            chosen.append(f"name “{data['name']}”")
    return f"{system.name} ranking, {when}" + (f": {', '.join(chosen)}" if chosen else "")


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
        page_message = f"There is no page “{asked[:20]}” of this list: showing page {table.page.number} of {table.paginator.num_pages}."
    return render(request, "rating_pages/coach_list.html", {
        "filter": filterset, "table": table, "page_message": page_message,
    }, status=status)


def _coach_list_caption(data: dict) -> str:
    chosen = [f"“{data['q'].strip()}”"] if (data.get("q") or "").strip() else []
    if data.get("country"):
        chosen.append(str(countries.name(data["country"]) or data["country"]))
    return "Coaches by name" + (f": {', '.join(chosen)}" if chosen else "")


@cached_page(reads=("system", *table_parameters("history-", "events-")))
def coach_detail(request, number: int):
    """A coach's ratings in every system, record per race, history chart, events and awards."""
    coach = _coach(number)
    systems = selectors.public_systems()
    slug = request.GET.get("system") or (systems[0].slug if systems else "")
    system = next((s for s in systems if s.slug == slug), None)
    if system is None and systems:
        raise Http404(f"There is no rating system “{slug}”.")
    ratings = selectors.coach_ratings(coach)
    rules.coach_rating_notes(coach, ratings)
    for rating in ratings:
        rating.breakdown_url = breakdown_url(
            rating.system.slug, coach.number, rating.race.slug if rating.race_id else None, rating.variant.slug
        )
    waiting = selectors.coach_waiting(coach, systems)
    for note in waiting:
        note.breakdown_url = breakdown_url(note.system.slug, coach.number, note.race.slug if note.race else None, note.variant.slug)
    by_key = {(n.system.pk, n.race.pk if n.race else None, n.variant.pk): n for n in waiting}
    for rating in ratings:
        rating.waiting = by_key.get((rating.system_id, rating.race_id, rating.variant_id))
    head_to_head = reverse("stats_head_to_head")
    opponents = selectors.coach_opponents(coach)
    for opponent in opponents:
        opponent["url"] = f"{head_to_head}?{urlencode([('coach', coach.number), ('coach', opponent['opponent__number'])])}"
    history = selectors.coach_history(coach, system) if system else []
    chart = _history_chart(coach, system, history) if system else None
    noun = "event" if system is not None and system.method == Method.NAF_ELO else "period"
    history_table = HistoryTable(
        history, caption=f"{system.name if system else ''}: rating after each {noun}", prefix="history-",
        places=rating_places(system.method) if system is not None else 2,
    )
    _paginate(request, history_table)
    record, events = selectors.coach_record(coach)
    events_table = CoachEventTable(events, caption="Events attended, newest first", prefix="events-")
    _paginate(request, events_table)
    return render(request, "rating_pages/coach.html", {
        "coach": coach,
        "ratings": ratings,
        "provisional": [r for r in ratings if r.provisional],
        "idle": [r for r in ratings if r.idle],
        "waiting": waiting,
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


def _history_chart(coach: Coach, system: RatingSystem, history: list[dict]) -> charts.Chart | None:
    """The step chart of the coach's rating after each event or period: one line per race (or variant)."""
    series: dict[tuple, list] = defaultdict(list)
    titles: dict[tuple, list] = defaultdict(list)
    places = rating_places(system.method)
    for item in history:
        key = (item["race__name"] or "All races", item["variant__name"])
        series[key].append((item["effective"], item["rn"]))
        titles[key].append(f"{item['effective']:%Y-%m-%d} · {item['title']} · {fixed(item['rn'], places)}")
    if not series:
        return None
    return charts.line_chart(
        [charts.Series(f"{race} ({variant})" if len({v for _, v in series}) > 1 else race, points, titles[(race, variant)])
         for (race, variant), points in series.items()],
        title=f"{coach.name}: {system.name} rating history",
        description=(
            f"Step line of the rating after every {'event' if system.method == Method.NAF_ELO else 'rating period'}, "
            f"one line per {'race' if system.per_race else 'variant'}; the same figures are in the table below."
        ),
        x_label="Date", y_label="Rating", step=True, x_end=timezone.now().date(),
    )


# --- breakdown ------------------------------------------------------------------------------------


@cached_page(reads=tuple(BreakdownForm.base_fields))
def breakdown(request, number: int, system: str):
    """How a coach's rating in one system, race and variant was computed, KNSB rating-viewer style."""
    systems = selectors.public_systems()
    system = _system(system, systems)
    coach = _coach(number)
    form = BreakdownForm(request.GET)
    keys = selectors.coach_keys(coach, system)
    context = {
        "system": system, "coach": coach, "form": form, "keys": keys, "inactive_rule": rules.inactive_rule(system),
        "other_systems": [s for s in systems if s != system], "places": rating_places(system.method),
    }
    for key in keys:
        key.url = breakdown_url(system.slug, coach.number, key.race.slug if key.race_id else None, key.variant.slug)
    if not form.is_valid():
        return render(request, "rating_pages/breakdown.html", context, status=400)
    race, variant = form.cleaned_data["race"] if system.per_race else None, form.cleaned_data["variant"]
    current = _chosen_key(system, keys, race, variant)
    if current is not None:
        race, variant = current.race, current.variant
    elif variant is None or (system.per_race and race is None):
        context["missing"] = f"{coach.name} has no {system.name} rating" + (
            f" with {race}" if race else ""
        ) + (f" in {variant}" if variant else "") + "."
        return render(request, "rating_pages/breakdown.html", context, status=404)
    result = selectors.breakdown(
        system=system, coach=coach, race=race, variant=variant, current=current, period=form.cleaned_data["period"] or None,
    )
    context["breakdown"] = result
    context["multiplier"] = selectors.stored_config(system).value_phi_multiplier if system.method == Method.GLICKO else None
    context["period_links"] = [
        (p, breakdown_url(system.slug, coach.number, race.slug if race else None, variant.slug, period=p.label))
        for p in result.recent
    ]
    if not result.periods and not result.waiting:
        context["missing"] = f"{coach.name} has no games in {system.name}" + (f" with {race}" if race else "") + f" in {variant}."
        return render(request, "rating_pages/breakdown.html", context, status=404)
    if result.period is None and (form.cleaned_data["period"] or not result.waiting):
        context["missing"] = f"There is no period “{form.cleaned_data['period']}” in this breakdown; choose one below."
        return render(request, "rating_pages/breakdown.html", context, status=404)
    return render(request, "rating_pages/breakdown.html", context)


# --- events ---------------------------------------------------------------------------------------


@cached_page(reads=(*EventFilter.base_filters, *table_parameters()))
def event_list(request):
    """Public events (sanctioned by default), filtered by year, country, variant, major and status."""
    queryset = selectors.public_events()
    filterset = EventFilter(request.GET, queryset=queryset, years=selectors.event_years())
    valid = filterset.is_valid()
    table = EventTable(filterset.qs if valid else queryset.none(), caption="Events, newest first")
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
    rounds = defaultdict(list)
    for game in selectors.event_games(event):
        rounds[game.round].append(game)
    # the results entered the record on the event's sanction; a later date is a correction's
    reported = min((g.reported_on for games in rounds.values() for g in games if g.reported_on), default=None)
    pin = None
    if event.latitude is not None and event.longitude is not None:
        pin = charts.map_pin(
            event.latitude, event.longitude,
            label=", ".join(p for p in (event.city, event.country.name if event.country else "") if p) or event.name,
        )
    return render(request, "rating_pages/event_detail.html", {
        "event": event,
        "system": system,
        "systems": systems,
        "standings": selectors.event_standings(event, system),
        "rounds": sorted(rounds.items(), key=lambda item: item[0].number),
        "awards": selectors.event_awards(event),
        "pin": pin,
        "reported": reported,
    })


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
        "event": event, "predictions": selectors.event_predictions(event, selectors.public_systems()),
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
        caption=f"{system.name}: monthly rating lists, newest first",
    )
    _paginate(request, table, 24)
    return render(request, "rating_pages/lists_system.html", {"system": system, "table": table})


@cached_page(reads=("variant", *table_parameters("starters-", "risers-", "fallers-")))
def rating_list_detail(request, system: str, month: tuple[int, int], edition: int | None = None):
    """One monthly list as published (its latest edition, or the one asked for): counts, starters,
    risers and fallers, and the figures revised since."""
    system = _system(system)
    # the list as it was published, whatever was computed since; as computed until it is published
    publication = selectors.publication_on(system, *month, edition=edition)
    if publication is None and edition is not None:
        raise Http404(f"{system.name}'s list dated {month[0]:04d}-{month[1]:02d}-01 has no edition {edition}.")
    if publication is not None:
        head, starters_of, movers_of, counts_of = (
            publication, selectors.published_starters, selectors.published_movers, selectors.published_counts,
        )
    elif (rating_list := selectors.rating_list_on(system, *month)) is not None:
        head, starters_of, movers_of, counts_of = (
            rating_list, selectors.list_starters, selectors.list_movers, selectors.list_counts,
        )
    else:
        raise Http404(f"{system.name} has no list dated {month[0]:04d}-{month[1]:02d}-01.")
    variant = None
    slug = request.GET.get("variant")
    variants = selectors.variants_by_name()
    error = None
    if slug:
        variant = next((v for v in variants if v.slug == slug), None)
        if variant is None:
            error = f"There is no variant “{slug}”: showing every variant."
    label = f"{system.name}, list of {head.date:%Y-%m-%d}" + (f", {variant}" if variant else "")
    starters = ListEntryTable(
        starters_of(head, variant), system=system, prefix="starters-", exclude=["change"], starters=True,
        caption=f"Starters: new ratings on the {label}, " + (
            "with Nt, the games counted for the start rating, and Gt, every game played in the variant "
            "(counted or not) from the month of the oldest of them"
            if system.method == Method.KNSB else "with the games counted and played since the previous list"
        ),
    )
    _paginate(request, starters)
    risers = ListEntryTable(
        movers_of(head, variant, rising=True), system=system, prefix="risers-",
        caption=f"Risers: the largest gains since the previous list ({label})",
    )
    fallers = ListEntryTable(
        movers_of(head, variant, rising=False), system=system, prefix="fallers-",
        caption=f"Fallers: the largest losses since the previous list ({label})",
    )
    before, after = selectors.list_neighbours(head)
    month_query = f"?variant={variant.slug}" if variant else ""
    return render(request, "rating_pages/list_detail.html", {
        "system": system,
        "rating_list": head,
        "publication": publication,
        "editions": selectors.publication_editions(publication) if publication else [],
        "can_republish": publication is not None and request.user.has_perm(perms.CONFIGURE_SYSTEMS),
        "revisions": selectors.publication_revisions(publication, places=rating_places(system.method)) if publication else None,
        "counts": counts_of(head, variant),
        "starters": starters,
        "risers": risers,
        "fallers": fallers,
        "before": before,
        "after": after,
        "variants": variants,
        "variant": variant,
        "error": error,
        "month_query": month_query,
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
        return {"rows": rows, "coaches": True}
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
    phi_error = None
    asked_phi = None
    if phi_query:
        try:
            asked_phi = float(phi_query)
            if not 0 < asked_phi <= 2000 or not math.isfinite(asked_phi):
                raise ValueError
        except ValueError:
            asked_phi, phi_error = None, f"“{phi_query}” is not a φ: give a number above 0 and at most 2000."
    sections = []
    for system, config in configured:
        section = {
            "system": system, "config": config, "params": _parameters(config), "rule": rules.inactive_rule(system, config),
            "provisional": rules.provisional_rule(system),
        }
        if system.method == Method.GLICKO:
            section.update(_glicko_figures(system, config, asked_phi))
        elif system.method == Method.NAF_ELO:
            section["k_rows"] = [(n, config.k(n, major=False)) for n in (4, 8, 12, 16, 20, 24, 28, 32, 48, 60)]
            section["k_major"] = config.k(0, major=True)
        elif system.method == Method.KNSB:
            section["k_rows"] = [(nv, knsb.k_factor(1800, nv)) for nv in (1, 6, 10, 20, 40, 60, 74, 75, 100)]
            section["k_band"] = [(r, knsb.k_factor(r, 100)) for r in (2000, 2100, 2200, 2300, 2400, 2500)]
        sections.append(section)
    we_chart, we_rows = _expected_score_figures(configured)
    return render(request, "rating_pages/about.html", {
        "sections": sections, "we_chart": we_chart, "we_rows": we_rows, "asked_phi": asked_phi, "phi_error": phi_error,
        "phi_query": phi_query, "glicko_scale": glicko.SCALE,
    }, status=400 if phi_error else 200)


def _parameters(config) -> list[tuple[str, str]]:
    params = config.as_params()
    out = []
    for name, value in params.items():
        if name == "initial_list":
            value = f"{len(value)} imported entries" if value else "none"
        elif isinstance(value, list):
            value = ", ".join(map(str, value)) or "none"
        elif value is None:
            value = "none (default)"
        out.append((name, str(value)))
    return out


def _glicko_figures(system, config, asked_phi) -> dict:
    unit = about.period_name(config)
    horizon = 120 if config.period == "month" else 240
    sigma = config.sigma0
    starts = [p for p in (30, 50, 60, 90) if p < config.inactive_phi] or [config.inactive_phi / 2]
    series = []
    for start in starts:
        points = [(n, glicko.decay(glicko.GlickoRating(0.0, start, sigma), periods=n, phi_cap=config.decay_cap).phi)
                  for n in range(0, horizon + 1, 2)]
        series.append(charts.Series(f"from φ {start:g}", points))
    growth = charts.line_chart(
        series,
        title=f"{system.name}: φ growth when idle",
        description=(
            f"φ after 0 to {horizon} idle {unit}s at σ = {sigma:g}, from several starting values; φ² grows by "
            f"(173.7178·σ)² each {unit}, capped at {config.decay_cap:g}. The dashed line is the rank limit "
            f"{config.inactive_phi:g}. The table gives the same figures."
        ),
        x_label=f"idle {unit}s", y_label="φ", guides=((config.inactive_phi, f"rank limit φ {config.inactive_phi:g}"),),
    )
    growth_rows = [
        (n, [glicko.decay(glicko.GlickoRating(0.0, s, sigma), periods=n, phi_cap=config.decay_cap).phi for s in starts])
        for n in (0, 6, 12, 18, 24, 36, 48, 60, 90, 120) if n <= horizon
    ]
    lapse_starts = [p for p in range(30, int(config.inactive_phi) + 1, 10)]
    lapse = [(p, about.idle_periods_until_unranked(config, p)) for p in lapse_starts]
    lapse_chart = charts.line_chart(
        [charts.Series("idle periods until no rank", [(p, n) for p, n in lapse if n >= 0])],
        title=f"{system.name}: idle {unit}s until the rank lapses",
        description=(
            f"How many {unit}s without a game take φ above {config.inactive_phi:g}, for a starting φ from "
            f"{lapse_starts[0] if lapse_starts else 0} to {config.inactive_phi:g} (σ = {sigma:g}). Same figures in the table."
        ),
        x_label="φ now", y_label=f"idle {unit}s",
    )
    figures = {
        "growth_chart": growth, "growth_starts": starts, "growth_rows": growth_rows, "lapse_chart": lapse_chart,
        "lapse_rows": lapse, "unit": unit, "step": glicko.decay_step(sigma),
    }
    if asked_phi is not None:
        figures["asked"] = (asked_phi, about.idle_periods_until_unranked(config, asked_phi))
    return figures


def _expected_score_figures(configured):
    """We against the rating difference: NAF Elo (its own 150-point scale), KNSB and Glicko E."""
    methods = {system.method: (system, config) for system, config in reversed(configured)}
    series, rows = [], []
    diffs = list(range(-600, 601, 25))
    if Method.KNSB in methods:
        config = methods[Method.KNSB][1]
        series.append(charts.Series(
            "KNSB We = Φ(d/σ)", [(d, knsb.expected_score(d, sigma=config.sigma, table=config.we_table)) for d in diffs]
        ))
    if Method.GLICKO in methods:
        opponent = glicko.GlickoRating(0.0, 60.0, methods[Method.GLICKO][1].sigma0)
        series.append(charts.Series("Glicko E, opponent φ 60", [(d, glicko.expected_score(d, opponent)) for d in diffs]))
    if Method.NAF_ELO in methods:
        series.append(charts.Series("NAF Elo P (its 150-point scale)", [(d, naf_elo.win_probability(d, 0.0)) for d in diffs]))
    if not series:
        return None, []
    chart = charts.line_chart(
        series, title="Expected score against the rating difference",
        description="Expected score (0 to 1) of the better or worse rated side for a rating difference from −600 to 600, "
        "under each method as configured. The table gives the same figures every 100 points.",
        x_label="rating difference R0 − Rc", y_label="expected score",
        guides=((0.5, "0.5"),),
    )
    for d in range(-600, 601, 100):
        rows.append((d, [dict(s.points)[d] for s in series]))
    return {"chart": chart, "labels": [s.label for s in series]}, rows


def _chosen_key(system: RatingSystem, keys: list, race, variant):
    """The coach's rating key the breakdown's race and variant choose (the first of his keys, most
    games first, where either is left open), or None."""
    return next((
        k for k in keys
        if (variant is None or k.variant_id == variant.pk) and (not system.per_race or race is None or k.race_id == race.pk)
    ), None)
