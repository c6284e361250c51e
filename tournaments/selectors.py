"""Reads of the federation's record."""
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

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
    Visibility,
    public_q,
    search_key,
)
from .permissions import events_for
from .uploads import GameEntry, RaceRef


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


def coach_search_q(text: str, *, path: str = "", numbers: bool = True, public: bool = False) -> Q:
    """The coaches a search for `text` finds, as a condition on a model reaching Coach through `path`
    ("coach__" from a rating): every word of it in the name, in any order and whatever the case and
    accents (search_key on both sides, so SQLite and PostgreSQL agree), or, for digits, the coach of
    that federation number too. Text with no letter or digit finds no one. `public`: by the name the
    public sees (Coach.public_name) only, so a hidden coach is found by his label, never his name."""
    key = "public_search_name" if public else "search_name"
    words = search_key(text).split()
    if not words:
        return Q(**{f"{path}pk__in": []})
    found = Q()
    for word in words:
        found &= Q(**{f"{path}{key}__contains": word})
    text = text.strip()
    if numbers and text.isascii() and text.isdigit():
        found |= Q(**{f"{path}number": int(text)})
    return found


def coach_directory() -> QuerySet[Coach]:
    """Every coach, by the name the public sees as searches compare it (so "Ádám" files with "Adam"), then number."""
    return Coach.objects.only("pk", "number", "public_name", "nationality", "visibility").order_by("public_search_name", "number")


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


# --- likely duplicates ----------------------------------------------------------------------------

# What another event is checked against: the record (sanctioned, open play) and what waits to enter it
# (submitted). Drafts and rejected events claim nothing yet: once submitted, each is checked in turn.
DUPLICATE_STATUSES = (EventStatus.SANCTIONED, EventStatus.SUBMITTED, EventStatus.OPEN_PLAY)
DUPLICATE_SAMPLE = 5  # matching games shown of each other event


@dataclass(frozen=True)
class MatchingGame:
    """A game of the event checked that another event holds too (`same_score` False: the same two
    coaches met that day there, with another score). Its coaches by federation number, lower first."""

    date: dt.date
    coach: str
    opponent: str
    coach_td: int
    opponent_td: int
    same_score: bool


@dataclass
class LikelyDuplicate:
    """Another event that an event's games or coaches meet, and how much of them."""

    event: Event
    of_games: int  # games of the event checked (byes aside)
    of_coaches: int
    same_games: int = 0  # the same two coaches, the same score, the same day
    same_pairings: int = 0  # the same two coaches the same day, another score
    shared_coaches: int = 0  # entered in both events, whose dates overlap
    sample: list[MatchingGame] = field(default_factory=list)

    @property
    def likely(self) -> bool:
        """The same games, or half the coaches (two at least) at both events at once: a coach plays one
        event at a time, so either is the same event entered twice, or a record to correct."""
        return bool(self.same_games or self.same_pairings) or (
            self.shared_coaches >= 2 and 2 * self.shared_coaches >= self.of_coaches
        )

    def audit(self) -> dict:
        return {"event": self.event.pk, "name": self.event.name, "same_games": self.same_games,
                "same_pairings": self.same_pairings, "shared_coaches": self.shared_coaches}


Pairing = tuple[dt.date, int, int]  # the day, the lower federation number, the higher


def _pairing(day: dt.date, home: int, away: int, home_td: int, away_td: int) -> tuple[Pairing, tuple[int, int]]:
    """A game as its pairing and the score from the lower number's side: home and away swapped is the same game."""
    if home < away:
        return (day, home, away), (home_td, away_td)
    return (day, away, home), (away_td, home_td)


def _games_elsewhere(games: list[tuple[Pairing, tuple[int, int]]], *, others: QuerySet[Event], coach_ids) -> dict[int, list[MatchingGame]]:
    """The games of `games` each of the `others` holds too (the same pairing), by event id."""
    days = [day for (day, _, _), _ in games]
    theirs: dict[Pairing, dict[int, set[tuple[int, int]]]] = defaultdict(lambda: defaultdict(set))
    names: dict[int, str] = {}
    rows = Game.objects.filter(
        event__in=others, home_coach_id__in=coach_ids, away_coach_id__in=coach_ids,
        # a day either side: the round's date decides, played_at only narrows the search to an index
        played_at__gte=dt.datetime.combine(min(days) - dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC),
        played_at__lt=dt.datetime.combine(max(days) + dt.timedelta(days=2), dt.time(), tzinfo=dt.UTC),
    ).values_list("event_id", "round__date", "home_coach__number", "home_coach__public_name", "away_coach__number",
                  "away_coach__public_name", "home_touchdowns", "away_touchdowns")
    for event_id, day, home, home_name, away, away_name, home_td, away_td in rows:
        pairing, score = _pairing(day, home, away, home_td, away_td)
        theirs[pairing][event_id].add(score)
        names.update({home: home_name, away: away_name})
    found: dict[int, list[MatchingGame]] = defaultdict(list)
    for pairing, score in games:
        day, low, high = pairing
        for event_id, scores in theirs.get(pairing, {}).items():
            found[event_id].append(
                MatchingGame(day, f"{names[low]} ({low})", f"{names[high]} ({high})", score[0], score[1], score in scores)
            )
    return found


def _coaches_elsewhere(event: Event, *, others: QuerySet[Event], coach_ids) -> dict[int, int]:
    """How many of these coaches each of the `others` whose dates overlap the event's has, by event id
    (open play aside: it is no event one attends)."""
    at_once = others.exclude(status=EventStatus.OPEN_PLAY).filter(start_date__lte=event.end_date, end_date__gte=event.start_date)
    shared: dict[int, set[int]] = defaultdict(set)
    for model in (Participant, GameSide):  # a coach who played is a participant, unless entered otherwise
        rows = model.objects.filter(event__in=at_once, coach_id__in=coach_ids).order_by().values_list("event_id", "coach_id")
        for event_id, coach_id in rows.distinct():
            shared[event_id].add(coach_id)
    return {event_id: len(coaches) for event_id, coaches in shared.items()}


def event_likely_duplicates(
    *, event: Event, entries: Iterable[GameEntry] | None = None, seen_by_organiser: bool = False
) -> list[LikelyDuplicate]:
    """The other events (DUPLICATE_STATUSES) that hold games of this event, its saved ones or the
    `entries` of an upload, or coaches of it at the same time: likely duplicates first, then by the
    most games the same. `seen_by_organiser`: only those its organiser may see (public, or his own)."""
    if entries is None:
        saved = event.games.filter(away_coach__isnull=False).values_list(
            "round__date", "home_coach__number", "away_coach__number", "home_touchdowns", "away_touchdowns")
        games = [_pairing(*row) for row in saved]
        numbers = set(event.participants.values_list("coach__number", flat=True))
        numbers |= set(GameSide.objects.filter(event=event).values_list("coach__number", flat=True))
    else:
        entries = list(entries)
        games = [_pairing(e.date, e.home_coach, e.away_coach, e.home_td, e.away_td) for e in entries if e.away_coach is not None]
        numbers = {number for e in entries for _, number, _ in e.coaches()}
    others = Event.objects.filter(status__in=DUPLICATE_STATUSES).exclude(pk=event.pk)
    if seen_by_organiser:
        own = Q(organiser_id=event.organiser_id) if event.organiser_id is not None else Q(pk__in=[])
        others = others.filter(public_q() | own)
    coach_ids = list(Coach.objects.filter(number__in=numbers).values_list("pk", flat=True))
    if not coach_ids:
        return []
    matches = _games_elsewhere(games, others=others, coach_ids=coach_ids) if games else {}
    shared = _coaches_elsewhere(event, others=others, coach_ids=coach_ids)
    found = []
    for other in Event.objects.select_related("organiser").filter(pk__in=set(matches) | set(shared)):
        games_found = matches.get(other.pk, [])
        same = sum(game.same_score for game in games_found)
        found.append(LikelyDuplicate(
            event=other, of_games=len(games), of_coaches=len(numbers), same_games=same, same_pairings=len(games_found) - same,
            shared_coaches=shared.get(other.pk, 0),
            sample=sorted(games_found, key=lambda g: (not g.same_score, g.date))[:DUPLICATE_SAMPLE],
        ))
    return sorted(found, key=lambda d: (not d.likely, -d.same_games, -d.same_pairings, -d.shared_coaches, d.event.start_date, d.event.name))


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


# --- the open-data API ----------------------------------------------------------------------------


def public_coaches(*, query: str = "", country: str = "") -> QuerySet[Coach]:
    """Coaches as the public sees them, by public name (as searches compare it), then number: `query`
    finds them as the directory's search does (words of the public name in any order, any case or
    accents, or the number); `country` finds no hidden coach (as the pages' filters)."""
    coaches = coach_directory().only("pk", "number", "public_name", "public_search_name", "nationality", "visibility", "member_since")
    if query.strip():
        coaches = coaches.filter(coach_search_q(query, public=True))
    if country:
        coaches = coaches.filter(nationality=country).exclude(visibility=Visibility.HIDDEN)
    return coaches


def coach_visibilities(*, numbers: Iterable[int]) -> dict[int, str]:
    """The visibility of each known coach among `numbers`, by federation number."""
    return dict(Coach.objects.filter(number__in=list(numbers)).values_list("number", "visibility"))


def public_event_games(*, event: Event) -> QuerySet[Game]:
    """The games of a public event with their round, coaches and races, round by round (empty for any other)."""
    return (
        Game.objects.filter(public_q("event__"), event=event)
        .select_related("round", "home_coach", "away_coach", "home_race", "away_race")
        .order_by("round__number", "played_at", "id")
    )


# The game record as the open data gives it (the downloads app's nightly dump): public events only,
# coaches by number and public name (never the name of a hidden coach), in order of play.
GAME_RECORD_FIELDS = (
    "id", "event_id", "event__name", "event__status", "event__variant__name", "round__number", "played_at",
    "reported_on", "kind", "home_coach__number", "home_coach__public_name", "home_race__name", "home_touchdowns",
    "home_casualties", "away_coach__number", "away_coach__public_name", "away_race__name", "away_touchdowns",
    "away_casualties", "conceded_by",
)


def public_game_record(*, chunk: int = 20_000) -> Iterable[tuple]:
    """Every game of a public event (sanctioned or open play) as GAME_RECORD_FIELDS, in order of play,
    read `chunk` rows at a time."""
    return Game.objects.filter(public_q("event__")).order_by("played_at", "id").values_list(
        *GAME_RECORD_FIELDS).iterator(chunk)
