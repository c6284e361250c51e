"""Reads of the federation's record."""
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Min, Q, QuerySet

from .models import (
    SEARCH_NAME_LENGTH,
    Award,
    Coach,
    Event,
    EventStatus,
    Game,
    GameSide,
    Participant,
    Race,
    ResultsUpload,
    public_q,
    search_key,
)
from .permissions import events_for
from .uploads import RaceRef


def federation_counts() -> dict:
    """Headline counts for the home page: of public events only."""
    events = Event.objects.public().aggregate(
        total=Count("id"), first=Min("start_date"), last=Max("end_date")
    )
    return {
        "coaches": Coach.objects.count(),
        "events": events["total"],
        "sanctioned_events": Event.objects.filter(status=EventStatus.SANCTIONED).count(),
        "games": Game.objects.filter(public_q("event__")).count(),
        "first_date": events["first"],
        "last_date": events["last"],
    }


def recent_events(*, limit: int = 10):
    return (
        Event.objects.filter(status=EventStatus.SANCTIONED)
        .select_related("variant")
        .order_by("-end_date", "-id")[:limit]
    )


# --- events ---------------------------------------------------------------------------------------


def event_get(*, pk: int) -> Event:
    """The event of that id, with its variant and organiser; raises Event.DoesNotExist."""
    return Event.objects.select_related("variant", "organiser").get(pk=pk)


def event_name(*, pk: int) -> str:
    """The name of the event of that id ("" when there is none)."""
    return Event.objects.filter(pk=pk).values_list("name", flat=True).first() or ""


def organiser_event_get(*, user, pk: int) -> Event:
    """The event of that id among the ones `user` may open in the organiser pages (his own; staff:
    any); raises Event.DoesNotExist for any other."""
    return events_for(user).get(pk=pk)


def organiser_events(*, organiser) -> QuerySet[Event]:
    """The events this user organises, newest first."""
    return Event.objects.filter(organiser=organiser).select_related("variant").order_by("-start_date", "name")


def event_queue() -> QuerySet[Event]:
    """Every event with its game count, oldest first: the staff queue filters it by status."""
    return Event.objects.select_related("variant", "organiser").annotate(game_count=Count("games")).order_by("start_date", "name")


def event_games(*, event: Event) -> QuerySet[Game]:
    """The event's games with their round, coaches and races, round by round."""
    return event.games.select_related("round", "home_coach", "away_coach", "home_race", "away_race").order_by("round__number", "id")


def event_participants(*, event: Event) -> QuerySet[Participant]:
    return event.participants.select_related("coach", "race")


def event_awards(*, event: Event) -> QuerySet[Award]:
    return event.awards.select_related("coach", "race")


def event_game_count(*, event: Event) -> int:
    return event.games.count()


def event_counts(*, event: Event) -> dict[str, int]:
    """How many games, rounds and participants the event holds."""
    return {"games": event.games.count(), "rounds": event.rounds.count(), "participants": event.participants.count()}


def results_upload_staged(*, event: Event, user, digest: str) -> ResultsUpload | None:
    """The results file `user` checked for this event, if it is still the one of that digest."""
    return ResultsUpload.objects.filter(event=event, uploaded_by=user, digest=digest).first()


def game_get(*, event: Event, pk: int) -> Game:
    """The game of that id in this event; raises Game.DoesNotExist for a game of another event."""
    return Game.objects.get(pk=pk, event=event)


# --- coaches and races ----------------------------------------------------------------------------


def coach_get(*, number: int) -> Coach:
    """The coach of that federation number; raises Coach.DoesNotExist."""
    return Coach.objects.get(number=number)


def coach_search_q(text: str, *, path: str = "", numbers: bool = True) -> Q:
    """The coaches a search for `text` finds, as a condition on a model reaching Coach through `path`
    ("coach__" from a rating): every word of it in the name, in any order and whatever the case and
    accents (search_key on both sides, so SQLite and PostgreSQL agree), or, for digits, the coach of
    that federation number too. Text with no letter or digit finds no one."""
    words = search_key(text).split()
    if not words:
        return Q(**{f"{path}pk__in": []})
    found = Q()
    for word in words:
        found &= Q(**{f"{path}search_name__contains": word})
    text = text.strip()
    if numbers and text.isascii() and text.isdigit():
        found |= Q(**{f"{path}number": int(text)})
    return found


def coach_directory() -> QuerySet[Coach]:
    """Every coach, by name as searches compare it (so "Ádám" files with "Adam"), then number."""
    return Coach.objects.only("pk", "number", "name", "nationality").order_by("search_name", "number")


def coach_game_counts(*, coach_ids: Iterable[int]) -> dict[int, int]:
    """How many games of public events each of these coaches played, by coach id (none: absent)."""
    rows = (
        GameSide.objects.filter(public_q("event__"), coach_id__in=list(coach_ids))
        .order_by().values("coach_id").annotate(games=Count("id")).values_list("coach_id", "games")
    )
    return dict(rows)


def coach_numbers_known(*, numbers: Iterable[int]) -> set[int]:
    """Those of `numbers` that belong to a coach of the federation."""
    return set(Coach.objects.filter(number__in=numbers).values_list("number", flat=True))


def coach_names(*, numbers: Iterable[int]) -> dict[int, str]:
    """The name of each known coach among `numbers`, by federation number."""
    return dict(Coach.objects.filter(number__in=numbers).values_list("number", "name"))


def coach_counts(*, coach: Coach) -> dict[str, int]:
    """What a coach's record holds: game sides, participations and awards."""
    return {
        "games": GameSide.objects.filter(coach=coach).count(),
        "participations": coach.participations.count(),
        "awards": coach.awards.count(),
    }


def coach_numbers_named(*, names: Iterable[str]) -> dict[str, int]:
    """The federation number of each of `names` that is the name of exactly one coach, compared as
    searches compare names (search_key: case and accents aside)."""
    keys = {name: search_key(name)[:SEARCH_NAME_LENGTH] for name in names}
    found: dict[str, list[int]] = {}
    for key, number in Coach.objects.filter(search_name__in=set(keys.values())).values_list("search_name", "number"):
        found.setdefault(key, []).append(number)
    return {name: found[key][0] for name, key in keys.items() if len(found.get(key, ())) == 1}


def coaches_matching(*, texts: Iterable[str], limit: int = 6) -> dict[str, list[tuple[int, str]]]:
    """For each text typed where a coach is asked for, the (number, name) of up to `limit` coaches it
    finds (coach_search_q, names only), an exact name first."""
    found = {}
    for text in set(texts):
        coaches = list(Coach.objects.filter(coach_search_q(text, numbers=False)).order_by("search_name", "number")
                       .values_list("number", "name", "search_name")[:limit])
        exact = [(number, name) for number, name, key in coaches if key == search_key(text)]
        found[text] = exact or [(number, name) for number, name, _ in coaches]
    return found


def event_coach_choices(*, event: Event) -> list[tuple[int, str]]:
    """(federation number, name) of the event's participants, by name: the entry page's suggestions."""
    return list(event.participants.order_by("coach__search_name", "coach__number").values_list("coach__number", "coach__name"))


def overlapping_entries(*, event: Event, numbers: Iterable[int] | None = None) -> list[dict]:
    """The coaches of this event (or `numbers`) also entered in another event whose dates overlap
    its dates: another organiser's event only once it is public. By coach number, then date."""
    coaches = Q(coach__in=event.participants.values("coach")) if numbers is None else Q(coach__number__in=list(numbers))
    rows = (
        Participant.objects.filter(coaches, event__start_date__lte=event.end_date, event__end_date__gte=event.start_date)
        .filter(public_q("event__") | Q(event__organiser_id=event.organiser_id))
        .exclude(event=event)
        .order_by("coach__number", "event__start_date", "event__name")
        .values("coach__number", "coach__name", "event__pk", "event__name", "event__start_date", "event__end_date")
    )
    return [
        {"number": row["coach__number"], "name": row["coach__name"], "event_pk": row["event__pk"], "event": row["event__name"],
         "start": row["event__start_date"], "end": row["event__end_date"]}
        for row in rows
    ]


def race_names() -> dict[str, str]:
    """Every race's name, by slug."""
    return dict(Race.objects.values_list("slug", "name"))


def race_refs() -> list[RaceRef]:
    """Every race as the results upload reads it."""
    return [RaceRef(slug, name, ranked) for slug, name, ranked in Race.objects.values_list("slug", "name", "ranked")]


# --- members --------------------------------------------------------------------------------------


def member_list(*, query: str = "") -> QuerySet:
    """The accounts with their coach and roles, by user name; `query` keeps those whose user name,
    e-mail contains it, or whose coach's name holds its words (coach_search_q)."""
    users = get_user_model().objects.select_related("coach").prefetch_related("groups").order_by("username")
    if query:
        users = users.filter(
            Q(username__icontains=query) | Q(email__icontains=query) | coach_search_q(query, path="coach__", numbers=False)
        )
    return users


def member_get(*, pk: int):
    """The account of that id, with its coach; raises the user model's DoesNotExist."""
    return get_user_model().objects.select_related("coach").get(pk=pk)
