"""The API's operations: each parses its query, calls a selector and shapes the rows into the
schemas (schemas.py). Only public data: public events, coaches by the name the public sees, and a
coach's nationality and membership only when he is not hidden (as on the pages)."""
from __future__ import annotations

import dataclasses
import datetime as dt
import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import F
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI, Query, Schema
from ninja.errors import HttpError

from api import schemas
from api.cursor import DEFAULT_LIMIT, BadCursor, Order, page
from ratings import selectors
from ratings.choices import RunStatus
from ratingsite.formatting import fixed, rating_places
from tournaments.models import Coach, Event, Race, Variant, Visibility
from tournaments.selectors import coach_get, coach_visibilities, public_coaches, public_event_games

api = NinjaAPI(
    title="Ratings open data",
    version="1",
    description=(
        "Read-only JSON of the federation's rating systems, coaches, ratings, events, published lists and "
        "recalculation runs. The documentation page, /api/v1/, gives the rate limits, pagination and caching."
    ),
    urls_namespace="api",
    docs_url="/docs/",
    openapi_url="/schema/",
)

# best first, the unranked after the ranked (the ranking pages' order), the id last: unique. Across
# variants no index holds it (none holds a rank: CurrentRating.VARIANT_ORDER): each page sorts the rows
RATINGS = Order((("overall_rank", False), ("value", True), ("coach_id", False), ("id", False)), "ratings",
                nulls_last=frozenset({"overall_rank"}))
ENTRIES = Order((("overall_rank", False), ("value", True), ("coach_number", False), ("id", False)), "entries",
                nulls_last=frozenset({"overall_rank"}))
COACHES = Order((("public_search_name", False), ("number", False)), "coaches")
EVENTS = Order((("start_date", True), ("id", True)), "events")
GAMES = Order((("round_number", False), ("played_at", False), ("id", False)), "games")
PUBLICATIONS = Order((("date", True), ("edition", True)), "lists")
RUNS = Order((("id", True),), "runs")


def _answer(data) -> HttpResponse:
    """The answer as JSON, shaped as its operation's schema declares (tests/api check each against
    it): written directly, without validating every row again per request, the most a list costs."""
    return HttpResponse(json.dumps(data, cls=DjangoJSONEncoder, separators=(",", ":")), content_type="application/json")


def _round(value, places: int) -> float | None:
    """As the pages and exports show it (the site's one rounding, half away from zero)."""
    text = fixed(value, places)
    return float(text) if text else None


def _system(slug: str):
    found = selectors.public_system_get(slug)
    if found is None:
        raise HttpError(404, f"There is no rating system “{slug}”.")
    return found


def _coach(number: int) -> Coach:
    try:
        return coach_get(number=number)
    except Coach.DoesNotExist:
        raise HttpError(404, f"There is no coach with federation number {number}.") from None


def _event(pk: int) -> Event:
    try:
        return selectors.public_event_get(pk=pk)
    except Event.DoesNotExist:
        raise HttpError(404, "There is no public event with this number.") from None


def _paged(request: HttpRequest, queryset, order: Order, cursor: str | None, limit: int):
    try:
        rows, following = page(queryset, order, cursor=cursor, limit=limit)
    except BadCursor as error:
        raise HttpError(400, str(error)) from None
    link = None
    if following:
        query = request.GET.copy()
        query["cursor"] = following
        link = request.build_absolute_uri(f"{request.path}?{query.urlencode()}")
    return rows, {"next_cursor": following, "next": link}


def _named(obj) -> dict | None:
    return None if obj is None else {"slug": obj.slug, "name": obj.name}


def _rating(system, rating) -> dict:
    places = rating_places(system.method)
    return {
        "system": system.slug, "coach": {"number": rating.coach.number, "name": rating.coach.public_name},
        "race": _named(rating.race), "variant": _named(rating.variant), "rating": _round(rating.value, places),
        "mu": _round(rating.mu, 2), "phi": _round(rating.phi, 2), "sigma": _round(rating.sigma, 6), "nv": rating.nv,
        "rank": rating.rank, "overall_rank": rating.overall_rank, "games": rating.games, "wins": rating.wins,
        "draws": rating.draws, "losses": rating.losses, "last_played": rating.last_played,
    }


def _coach_out(coach: Coach) -> dict:
    shown = coach.public_details_shown
    return {
        "number": coach.number, "name": coach.public_name,
        "nationality": (coach.nationality.code or None) if shown else None,
        "member_since": coach.member_since.year if shown and coach.member_since else None,
    }


class Paging(Schema):
    cursor: str | None = None
    limit: int = DEFAULT_LIMIT


class RankingFilters(Paging):
    variant: str = ""
    race: str = ""
    country: str = ""
    active: bool = False
    name: str = ""


# --- rating systems and their current ratings -----------------------------------------------------


@api.get("/systems", response=list[schemas.System], tags=["rating systems"], summary="The rating systems")
def systems(request):
    """Every active rating system with its method and parameters as it runs them (those stored, the
    engine's defaults for the rest), and the variants it rates, the most played first."""
    found = selectors.public_systems()
    return _answer([_system_out(system) for system in found])


# given apart (per_race, the variants) or not the method's parameters (a KNSB initial list is coaches' ratings)
NOT_PARAMETERS = {"per_race", "variants", "excluded_races", "initial_list"}


def _parameters(system) -> dict:
    """The engine's parameters as the system runs them: those stored, the engine's defaults for the rest."""
    config = dataclasses.asdict(selectors.stored_config(system))
    return {name: value for name, value in config.items() if name not in NOT_PARAMETERS}


def _system_out(system) -> dict:
    return {
        "slug": system.slug, "name": system.name, "method": system.method, "per_race": system.per_race,
        "description": system.description, "inactive_after_months": system.inactive_after_months,
        "parameters": _parameters(system),
        "variants": [{"slug": v["variant__slug"], "name": v["variant__name"]} for v in selectors.ranking_variants(system)],
        "recalculated_at": system.recalculated_at,
    }


@api.get("/systems/{slug}", response=schemas.System, tags=["rating systems"], summary="One rating system")
def system_detail(request, slug: str):
    return _answer(_system_out(_system(slug)))


@api.get("/systems/{slug}/ratings", response={200: schemas.RatingPage, 400: schemas.Problem}, tags=["rating systems"],
         summary="A system's current ratings, best first")
def ratings(request, slug: str, filters: Query[RankingFilters]):
    """Filtered as the ranking page is: variant and race by slug, nationality (ISO code), ranked only
    (`active`), a coach's name or number. Every variant unless one is asked for (the page shows the
    most played one first: the system's `variants` lists them in that order). Unranked entries come
    after the ranked ones."""
    system = _system(slug)
    variant = race = None
    if filters.variant:
        variant = Variant.objects.filter(slug=filters.variant).first()
        if variant is None:
            raise HttpError(400, f"There is no variant “{filters.variant}”.")
    if filters.race:
        race = Race.objects.filter(slug=filters.race).first()
        if race is None:
            raise HttpError(400, f"There is no race “{filters.race}”.")
    queryset = selectors.ranking_filtered(
        system, variant=variant, race=race, country=filters.country.upper(), active=filters.active, name=filters.name,
    )
    rows, links = _paged(request, queryset, RATINGS, filters.cursor, filters.limit)
    return _answer({"items": [_rating(system, row) for row in rows], **links})


# --- coaches --------------------------------------------------------------------------------------


class CoachSearch(Paging):
    q: str = ""
    country: str = ""


@api.get("/coaches", response={200: schemas.CoachPage, 400: schemas.Problem}, tags=["coaches"], summary="Coaches by name")
def coaches(request, filters: Query[CoachSearch]):
    """Searched as the site's search does: every word in the name the public sees, in any order, any
    case, with or without accents; or the federation number."""
    queryset = public_coaches(query=filters.q, country=filters.country.upper()).only(
        "pk", "number", "public_name", "public_search_name", "nationality", "visibility", "member_since", "erased_at",
    )
    rows, links = _paged(request, queryset, COACHES, filters.cursor, filters.limit)
    return _answer({"items": [_coach_out(coach) for coach in rows], **links})


@api.get("/coaches/{number}", response=schemas.CoachDetail, tags=["coaches"], summary="A coach and his ratings")
def coach_detail(request, number: int):
    coach = _coach(number)
    return _answer({**_coach_out(coach), "ratings": _coach_ratings(coach)})


def _coach_ratings(coach: Coach) -> list[dict]:
    found = selectors.coach_ratings(coach)
    for rating in found:
        rating.coach = coach
    return [_rating(rating.system, rating) for rating in found]


@api.get("/coaches/{number}/ratings", response=list[schemas.Rating], tags=["coaches"],
         summary="A coach's ratings in every system")
def coach_ratings(request, number: int):
    return _answer(_coach_ratings(_coach(number)))


@api.get("/coaches/{number}/history/{slug}", response=schemas.History, tags=["coaches"],
         summary="A coach's rating history in one system")
def coach_history(request, number: int, slug: str, race: str = "", variant: str = ""):
    """One point per event (NAF Elo) or period (Glicko: a month; KNSB: a list) of each of his keys,
    oldest first: the rating after it, before it, and the games counted and played in it."""
    system, coach = _system(slug), _coach(number)
    places = rating_places(system.method)
    points = []
    for row in selectors.coach_history_points(coach, system):
        if (race and row["race__slug"] != race) or (variant and row["variant__slug"] != variant):
            continue
        points.append({
            "race": {"slug": row["race__slug"], "name": row["race__name"]} if row["race__slug"] else None,
            "variant": {"slug": row["variant__slug"], "name": row["variant__name"]},
            "period": row["period"], "event_id": row["event_id"], "event_name": row["event_name"],
            "effective": row["effective"], "rating_before": _round(row["rl"], places), "rating": _round(row["rn"], places),
            "mu": _round(row["mu"], 2), "phi": _round(row["phi"], 2), "sigma": _round(row["sigma"], 6),
            "games_counted": row["nt"], "games_played": row["games_played"],
        })
    return _answer({"system": system.slug, "coach": {"number": coach.number, "name": coach.public_name}, "points": points})


# --- events ---------------------------------------------------------------------------------------


class EventFilters(Paging):
    year: int | None = None
    country: str = ""
    variant: str = ""
    major: bool = False
    status: str = "sanctioned"


def _event_out(event) -> dict:
    return {
        "id": event.pk, "name": event.name, "status": event.status, "start_date": event.start_date,
        "end_date": event.end_date, "country": event.country.code if hasattr(event.country, "code") else event.country,
        "city": event.city, "is_major": event.is_major, "variant": _named(event.variant), "games": event.game_count or 0,
    }


@api.get("/events", response={200: schemas.EventPage, 400: schemas.Problem}, tags=["events"], summary="Public events, newest first")
def events(request, filters: Query[EventFilters]):
    """Sanctioned events by default (`status=open_play` or `any` for the rest of the public record);
    drafts, submitted and rejected events are never listed."""
    queryset = selectors.public_events()
    if filters.status not in ("sanctioned", "open_play", "any"):
        raise HttpError(400, "status is sanctioned, open_play or any.")
    if filters.status != "any":
        queryset = queryset.filter(status=filters.status)
    if filters.year:
        queryset = queryset.filter(start_date__year=filters.year)
    if filters.country:
        queryset = queryset.filter(country=filters.country.upper())
    if filters.variant:
        queryset = queryset.filter(variant__slug=filters.variant)
    if filters.major:
        queryset = queryset.filter(is_major=True)
    rows, links = _paged(request, queryset, EVENTS, filters.cursor, filters.limit)
    return _answer({"items": [_event_out(event) for event in rows], **links})


@api.get("/events/{pk}", response=schemas.EventDetail, tags=["events"], summary="A public event and the runs that rated it")
def event_detail(request, pk: int):
    event = _event(pk)
    event.game_count = public_event_games(event=event).count()
    rated = selectors.event_rated_in(event, selectors.public_systems())
    return _answer({
        **_event_out(event),
        "rated_in": [{"system": system.slug, "run": run.pk if run else None, "finished_at": run.finished_at if run else None}
                     for system, run in rated],
    })


@api.get("/events/{pk}/standings/{slug}", response=schemas.Standings, tags=["events"],
         summary="An event's standings in one system")
def event_standings(request, pk: int, slug: str):
    """As the event page shows them: record, points, Wt, Σ(W − We) and the rating change there."""
    event, system = _event(pk), _system(slug)
    places = rating_places(system.method)
    return _answer({"system": system.slug, "event": event.pk, "standings": [
        {
            "position": s.position, "coach": {"number": s.coach.number, "name": s.coach.public_name}, "race": s.race,
            "games": s.games, "wins": s.wins, "draws": s.draws, "losses": s.losses, "points": s.points,
            "td_for": s.td_for, "td_against": s.td_against, "cas_for": s.cas_for, "cas_against": s.cas_against,
            "counted": s.counted, "wt": _round(s.wt, 2), "w_minus_we": _round(s.w_minus_we, 2),
            "change": _round(s.change, places), "rating_after": _round(s.rating_after, places),
        }
        for s in selectors.event_standings(event, system)
    ]})


@api.get("/events/{pk}/games", response={200: schemas.GamePage, 400: schemas.Problem}, tags=["events"],
         summary="An event's games, round by round")
def event_games(request, pk: int, paging: Query[Paging]):
    event = _event(pk)
    queryset = public_event_games(event=event).annotate(round_number=F("round__number"))
    rows, links = _paged(request, queryset, GAMES, paging.cursor, paging.limit)
    return _answer({"items": [{
        "id": game.pk, "round": game.round.number, "played_at": game.played_at, "kind": game.kind,
        "home_coach": {"number": game.home_coach.number, "name": game.home_coach.public_name},
        "home_race": game.home_race.name, "home_touchdowns": game.home_touchdowns, "home_casualties": game.home_casualties,
        "away_coach": {"number": game.away_coach.number, "name": game.away_coach.public_name} if game.away_coach else None,
        "away_race": game.away_race.name if game.away_race else None, "away_touchdowns": game.away_touchdowns,
        "away_casualties": game.away_casualties, "conceded_by": game.conceded_by,
    } for game in rows], **links})


# --- published lists ------------------------------------------------------------------------------


def _publication_out(publication) -> dict:
    return {
        "system": publication.system.slug, "date": publication.date, "edition": publication.edition,
        "published_at": publication.published_at, "reason": publication.reason, "rated": publication.rated,
        "ranked": publication.ranked, "starters": publication.starters, "complete": publication.complete,
        "digest": publication.digest,
    }


def _month(month: str) -> dt.date:
    try:
        day = dt.date.fromisoformat(f"{month}-01")
    except ValueError:
        raise HttpError(404, f"“{month}” is no month: write it YYYY-MM.") from None
    return day


def _publication(slug: str, month: str, edition: int | None):
    system = _system(slug)
    found = selectors.publication_get(system, _month(month), edition)
    if found is None:
        raise HttpError(404, f"{system.name} has published no list dated {month}-01" + (f" in edition {edition}." if edition else "."))
    return found


@api.get("/systems/{slug}/lists", response={200: schemas.PublicationPage, 400: schemas.Problem}, tags=["published lists"],
         summary="A system's published lists, newest first")
def publications(request, slug: str, paging: Query[Paging]):
    rows, links = _paged(request, selectors.publications_of(_system(slug)), PUBLICATIONS, paging.cursor, paging.limit)
    return _answer({"items": [_publication_out(p) for p in rows], **links})


@api.get("/systems/{slug}/lists/{month}", response=schemas.PublicationDetail, tags=["published lists"],
         summary="A published list: its editions and where the figures were revised since")
def publication_detail(request, slug: str, month: str, edition: int | None = None):
    """`month` is YYYY-MM; without `edition`, the latest. Revisions: where the list as computed now
    differs from the list as published, at the precision the list shows (largest first, 50 at most)."""
    publication = _publication(slug, month, edition)
    places = rating_places(publication.system.method)
    revisions = selectors.publication_revisions(publication, places=places)
    return _answer({
        **_publication_out(publication),
        "editions": [p.edition for p in selectors.publication_editions(publication)],
        "revisions": [{
            "coach_number": r.coach_number, "coach_name": r.coach_name, "race": r.race, "variant": r.variant,
            "published": _round(r.published, places), "revised": _round(r.revised, places),
        } for r in revisions.rows],
        "revisions_total": revisions.total,
    })


class EntryFilters(RankingFilters):
    edition: int | None = None


@api.get("/systems/{slug}/lists/{month}/entries", response={200: schemas.EntryPage, 400: schemas.Problem},
         tags=["published lists"], summary="The entries of a published list, best first")
def publication_entries(request, slug: str, month: str, filters: Query[EntryFilters]):
    """Exactly as published (a record: later runs never change it); filtered as the ranking is."""
    publication = _publication(slug, month, filters.edition)
    queryset = selectors.published_filtered(
        publication, variant=filters.variant, race=filters.race, country=filters.country.upper(), active=filters.active,
        name=filters.name,
    )
    rows, links = _paged(request, queryset, ENTRIES, filters.cursor, filters.limit)
    shown = coach_visibilities(numbers={row.coach_number for row in rows})
    places = rating_places(publication.system.method)
    return _answer({"items": [{
        "coach": {"number": row.coach_number, "name": row.coach_name},
        "nationality": (row.nationality or None) if shown.get(row.coach_number, Visibility.HIDDEN) != Visibility.HIDDEN else None,
        "race": {"slug": row.race_slug, "name": row.race_name} if row.race_slug else None,
        "variant": {"slug": row.variant_slug, "name": row.variant_name}, "rating": _round(row.value, places),
        "mu": _round(row.mu, 2), "phi": _round(row.phi, 2), "sigma": _round(row.sigma, 6), "nv": row.nv, "rank": row.rank,
        "overall_rank": row.overall_rank, "change": _round(row.change, places), "games": row.games,
        "games_counted": row.games_counted, "games_played": row.games_played,
    } for row in rows], **links})


# --- runs -----------------------------------------------------------------------------------------


class RunFilters(Paging):
    system: str = ""
    status: str = ""


@api.get("/runs", response={200: schemas.RunPage, 400: schemas.Problem}, tags=["runs"], summary="Recalculation runs, newest first")
def runs(request, filters: Query[RunFilters]):
    """What each run of the active systems did and how long it took (seconds). Not cached: a run's
    status changes as it runs."""
    system = _system(filters.system) if filters.system else None
    if filters.status and filters.status not in RunStatus.values:
        raise HttpError(400, f"status is one of {', '.join(RunStatus.values)}.")
    queryset = selectors.runs_public(system=system, status=filters.status)
    rows, links = _paged(request, queryset, RUNS, filters.cursor, filters.limit)
    return _answer({"items": [{
        "id": run.pk, "system": run.system.slug, "trigger": run.trigger, "status": run.status, "from_date": run.from_date,
        "recomputed_from": run.recomputed_from, "games_processed": run.games_processed, "created_at": run.created_at,
        "started_at": run.started_at, "finished_at": run.finished_at, "duration": run.duration,
    } for run in rows], **links})
