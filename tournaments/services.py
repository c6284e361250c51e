"""Writes to the federation's record. Every game goes through here so its two sides stay in step."""
import datetime as dt
import hashlib
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max, Min, Q
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from audit.models import Action
from audit.services import audit_record
from ratingsite.login_limits import AccountFailures

from . import selectors, signals
from .models import (
    PUBLIC_STATUSES,
    Award,
    Coach,
    Event,
    EventStatus,
    Game,
    GameCorrection,
    GameKind,
    GameSide,
    Participant,
    Race,
    ResultsUpload,
    Round,
    Side,
)
from .rules import FIRST_PLAY_DATE, MAX_CASUALTIES, MAX_TOUCHDOWNS, last_play_date, play_date_error
from .signals import ResultsTrigger
from .uploads import (
    MAX_UPLOAD_GAMES,
    GameEntry,
    check_awards,
    check_participants,
    check_results,
    check_rounds,
    not_ranked_message,
    played_at_times,
)

_SCORE = {1.0: Decimal("1"), 0.5: Decimal("0.5"), 0.0: Decimal("0")}


def game_sides_for(game: Game) -> list[GameSide]:
    """The unsaved GameSide rows of a saved game (one for a bye)."""
    home_score = game.home_score
    common = {"game_id": game.pk, "round_id": game.round_id, "event_id": game.event_id, "played_at": game.played_at}
    sides = [
        GameSide(
            side=Side.HOME,
            coach_id=game.home_coach_id,
            race_id=game.home_race_id,
            opponent_id=game.away_coach_id,
            opponent_race_id=game.away_race_id,
            touchdowns_for=game.home_touchdowns,
            touchdowns_against=game.away_touchdowns,
            casualties_for=game.home_casualties,
            casualties_against=game.away_casualties,
            score=_SCORE[home_score],
            **common,
        )
    ]
    if game.kind != GameKind.BYE:
        assert game.away_coach_id is not None and game.away_race_id is not None, "a game that is not a bye has an away side"
        sides.append(
            GameSide(
                side=Side.AWAY,
                coach_id=game.away_coach_id,
                race_id=game.away_race_id,
                opponent_id=game.home_coach_id,
                opponent_race_id=game.home_race_id,
                touchdowns_for=game.away_touchdowns,
                touchdowns_against=game.home_touchdowns,
                casualties_for=game.away_casualties,
                casualties_against=game.home_casualties,
                score=_SCORE[1.0 - home_score],
                **common,
            )
        )
    return sides


@transaction.atomic
def game_record(*, game: Game) -> Game:
    """Save a new or changed game and rewrite its sides; the database refuses impossible games."""
    game.event_id = game.round.event_id
    game.full_clean(exclude=["event"])
    game.save()
    GameSide.objects.filter(game=game).delete()
    GameSide.objects.bulk_create(game_sides_for(game))
    return game


def _first_game_date(event: Event) -> dt.date:
    first = event.games.aggregate(first=Min("played_at"))["first"]
    return min(event.start_date, first.date()) if first else event.start_date


def _is_backdated(event: Event) -> bool:
    """True when rated games already exist after this event's first game."""
    start = dt.datetime.combine(_first_game_date(event), dt.time(), tzinfo=dt.UTC)
    return (
        Game.objects.filter(event__status=EventStatus.SANCTIONED, played_at__gte=start).exclude(event=event).exists()
    )


def _refresh_statistics(event: Event) -> None:
    """An event's games changed without a recalculation: rebuild the statistics if they show it (open
    play). A draft's, a submitted or a rejected event's games are in no statistic: no refresh, which
    would only hold SQLite's write lock for seconds while the organiser goes on."""
    if event.status in PUBLIC_STATUSES:
        signals.record_changed.send(sender=Game)


def _request_recalculation(*, trigger: ResultsTrigger, since: dt.date, reason: str, actor) -> None:
    signals.results_changed.send(sender=Game, trigger=trigger, since=since, reason=reason, actor=actor)


STARTS = gettext_lazy("The event starts on %(day)s")
ENDS = gettext_lazy("The event ends on %(day)s")
HAS_ROUND = gettext_lazy("The event has a round on %(day)s")
HAS_GAME = gettext_lazy("The event has a game on %(day)s")


def _ensure_plausible_dates(event: Event) -> None:
    """Refuse an event whose dates, or whose rounds' or games' dates, lie outside the window of play
    dates (stored before the record checked them): no rating could take them."""
    rounds = event.rounds.aggregate(first=Min("date"), last=Max("date"))
    games = event.games.aggregate(first=Min("played_at"), last=Max("played_at"))
    days = [
        (STARTS, event.start_date), (ENDS, event.end_date), (HAS_ROUND, rounds["first"]), (HAS_ROUND, rounds["last"]),
        (HAS_GAME, games["first"] and games["first"].date()), (HAS_GAME, games["last"] and games["last"].date()),
    ]
    today = timezone.localdate()
    problems = [str(what) % {"day": day.isoformat()} for what, day in days if day and play_date_error(day, today=today)]
    if problems:
        raise ValidationError([
            *dict.fromkeys(problems),
            gettext("Dates of play run from %(first)s to %(last)s: correct the event's dates first.")
            % {"first": FIRST_PLAY_DATE.isoformat(), "last": last_play_date(today).isoformat()},
        ])


@transaction.atomic(durable=True)
def event_submit(*, event: Event, actor) -> Event:
    """An organiser hands a draft (or a rejected event, corrected) to staff for sanctioning."""
    event = Event.objects.select_for_update().get(pk=event.pk)
    if event.status not in {EventStatus.DRAFT, EventStatus.REJECTED}:
        raise ValidationError(gettext("Only a draft or rejected event can be submitted; this one is %(status)s.")
                              % {"status": event.get_status_display().lower()})
    if not event.games.exists():
        raise ValidationError(gettext("An event needs at least one game before it can be submitted."))
    _ensure_plausible_dates(event)
    before = event.status
    event.status = EventStatus.SUBMITTED
    event.save(update_fields=["status", "updated_at"])
    audit_record(actor=actor, action=Action.EVENT_SUBMIT, obj=event, before={"status": before}, after={"status": event.status})
    return event


def _duplicate_summary(duplicates: list) -> str:
    def one(d) -> str:
        values = {
            "event": d.event.name, "same": d.same_games, "games": d.of_games, "pairings": d.same_pairings,
            "shared": d.shared_coaches, "coaches": d.of_coaches,
        }
        if d.same_pairings:
            return gettext(
                "%(event)s (%(same)s of %(games)s games the same, %(pairings)s more between the same coaches that day, "
                "%(shared)s of %(coaches)s coaches in both)"
            ) % values
        return gettext("%(event)s (%(same)s of %(games)s games the same, %(shared)s of %(coaches)s coaches in both)") % values

    return "; ".join(one(d) for d in duplicates)


@transaction.atomic(durable=True)
def event_sanction(*, event: Event, actor, note: str = "", duplicate_reason: str = "") -> Event:
    """Sanction an event: its games start to count, and every rating system recalculates from its date.
    A likely duplicate of another event (selectors.event_likely_duplicates) is sanctioned only with
    `duplicate_reason`, why it is none, which the audit log keeps with the events it resembles."""
    event = Event.objects.select_for_update().get(pk=event.pk)
    if event.status == EventStatus.SANCTIONED:
        raise ValidationError(gettext("This event is already sanctioned."))
    if event.status == EventStatus.OPEN_PLAY:
        raise ValidationError(gettext("Open play is recorded play, not an event of the federation: it is never sanctioned."))
    _ensure_plausible_dates(event)
    duplicates = [d for d in selectors.event_likely_duplicates(event=event) if d.likely]
    duplicate_reason = duplicate_reason.strip()
    if duplicates and not duplicate_reason:
        raise ValidationError(gettext(
            "This event is a likely duplicate of %(events)s: sanction it only once you have checked that it is not, and say why."
        ) % {"events": _duplicate_summary(duplicates)})
    backdated = _is_backdated(event)
    before = event.status
    event.status = EventStatus.SANCTIONED
    event.save(update_fields=["status", "updated_at"])
    event.games.update(reported_on=timezone.localdate())  # its results enter the record today
    audit_record(actor=actor, action=Action.EVENT_SANCTION, obj=event, before={"status": before}, after={"status": event.status}, note=note)
    if duplicates:
        audit_record(
            actor=actor, action=Action.EVENT_SANCTION_DUPLICATE, obj=event,
            after={"likely_duplicate_of": [d.audit() for d in duplicates]}, note=duplicate_reason,
        )
    _request_recalculation(
        trigger=ResultsTrigger.BACKDATED if backdated else ResultsTrigger.SANCTIONED, since=_first_game_date(event),
        reason=f"{'late event' if backdated else 'sanctioned'}: {event.name}", actor=actor,
    )
    return event


@transaction.atomic(durable=True)
def event_reject(*, event: Event, actor, reason: str) -> Event:
    """Reject a submitted event with a reason (a sanctioned one leaves the rankings, so they recalculate)."""
    if not reason.strip():
        raise ValidationError(gettext("Give the organiser a reason for the rejection."))
    event = Event.objects.select_for_update().get(pk=event.pk)
    was_sanctioned = event.status == EventStatus.SANCTIONED
    before = event.status
    event.status = EventStatus.REJECTED
    event.save(update_fields=["status", "updated_at"])
    event.games.update(reported_on=None)  # out of the record until it is sanctioned again
    GameCorrection.objects.filter(game__event=event).delete()  # a new sanction reports its results anew
    audit_record(actor=actor, action=Action.EVENT_REJECT, obj=event, before={"status": before}, after={"status": event.status}, note=reason)
    if was_sanctioned:
        _request_recalculation(
            trigger=ResultsTrigger.CORRECTED, since=_first_game_date(event), reason=f"unsanctioned: {event.name}", actor=actor,
        )
    return event


GAME_RESULT_FIELDS = ["home_touchdowns", "away_touchdowns", "home_casualties", "away_casualties", "conceded_by", "kind"]


@transaction.atomic(durable=True)
def game_correct(*, game: Game, actor, note: str = "", **changes) -> Game:
    """Correct a game's result; a sanctioned event's correction recalculates the ratings from its date."""
    unknown = set(changes) - set(GAME_RESULT_FIELDS)
    if unknown:
        raise ValidationError(f"These fields cannot be corrected here: {', '.join(sorted(unknown))}.")
    _check_result_values(changes)
    game = Game.objects.select_for_update().select_related("event").get(pk=game.pk)
    if problem := play_date_error(game.played_at.date(), today=timezone.localdate(), translate=gettext):
        raise ValidationError(gettext(
            "Game %(game)s cannot be corrected: %(problem)s Reject the event so that its organiser corrects its dates."
        ) % {"game": game.pk, "problem": problem})
    _ensure_not_recalculating(game.event)
    before = {name: getattr(game, name) for name in changes}
    replaced = GameCorrection(
        game=game, corrected_on=timezone.localdate(), home_touchdowns=game.home_touchdowns,
        away_touchdowns=game.away_touchdowns, kind=game.kind, reported_on=game.reported_on,
    )
    for name, value in changes.items():
        setattr(game, name, value)
    if game.event.status == EventStatus.SANCTIONED:
        game.reported_on = replaced.corrected_on  # the corrected result enters the record today
    game_record(game=game)
    if game.event.status == EventStatus.SANCTIONED:  # the replaced result was in the record: kept for the lists it made
        replaced.save()
    audit_record(actor=actor, action=Action.GAME_CORRECT, obj=game, before=before, after=changes, note=note)
    if game.event.status == EventStatus.SANCTIONED:
        _request_recalculation(
            trigger=ResultsTrigger.CORRECTED, since=game.played_at.date(), reason=f"corrected game in {game.event.name}", actor=actor
        )
    else:
        _refresh_statistics(game.event)
    return game


def coach_merge_problems(*, keep: Coach, duplicate: Coach) -> list[str]:
    """Why coach_merge would refuse to fold `duplicate` into `keep` (empty: it would not), so that a
    preview can say so before offering the merge."""
    if keep.pk == duplicate.pk:
        return ["Choose two different coaches to merge."]
    problems = []
    clash = GameSide.objects.filter(coach=duplicate, round__in=GameSide.objects.filter(coach=keep).values("round"))
    if clash.exists():
        problems.append("These coaches played in the same round; they cannot be one person.")
    elif Game.objects.filter(Q(home_coach=keep, away_coach=duplicate) | Q(home_coach=duplicate, away_coach=keep)).exists():
        problems.append("These coaches played each other; they cannot be one person.")
    if keep.user is not None and duplicate.user is not None:
        # the duplicate's account would lose its coach without a word
        problems.append(
            f"Both coaches are linked to an account ({keep.user.get_username()} and {duplicate.user.get_username()}): "
            "unlink one of them first (Members)."
        )
    return problems


@transaction.atomic(durable=True)
def coach_merge(*, keep: Coach, duplicate: Coach, actor) -> Coach:
    """Fold a duplicate coach into the one kept: games, sides, participations and awards move over."""
    problems = coach_merge_problems(keep=keep, duplicate=duplicate)
    if problems:
        raise ValidationError(problems)
    first = GameSide.objects.filter(coach=duplicate).aggregate(first=Min("played_at"))["first"]
    moved = {
        "home_games": Game.objects.filter(home_coach=duplicate).update(home_coach=keep),
        "away_games": Game.objects.filter(away_coach=duplicate).update(away_coach=keep),
        "sides": GameSide.objects.filter(coach=duplicate).update(coach=keep),
        "opponent_sides": GameSide.objects.filter(opponent=duplicate).update(opponent=keep),
        "awards": Award.objects.filter(coach=duplicate).update(coach=keep),
    }
    for participant in Participant.objects.filter(coach=duplicate):
        if Participant.objects.filter(event=participant.event, coach=keep).exists():
            participant.delete()
        else:
            participant.coach = keep
            participant.save(update_fields=["coach"])
    if keep.user_id is None and duplicate.user_id is not None:
        keep.user_id, duplicate.user_id = duplicate.user_id, None
        duplicate.save(update_fields=["user"])
        keep.save(update_fields=["user"])
    audit_record(
        actor=actor, action=Action.COACH_MERGE, obj=keep,
        before={"duplicate": {"number": duplicate.number, "name": duplicate.name}}, after=moved,
    )
    signals.coach_merged.send(sender=Coach, keep=keep, duplicate=duplicate)
    duplicate.delete()
    if first is not None:
        _request_recalculation(
            trigger=ResultsTrigger.MERGE, since=first.date(), reason=f"merged coach {duplicate.number} into {keep.number}", actor=actor
        )
    return keep


# Organiser and staff workflows: events entered on the site, uploads, accounts and reruns.

EDITABLE_STATUSES = {EventStatus.DRAFT, EventStatus.REJECTED}
EVENT_FIELDS = ["name", "variant", "start_date", "end_date", "country", "city", "latitude", "longitude", "is_major"]


def _event_fields(event: Event) -> dict:
    """The event form's fields as JSON for the audit log."""
    return {
        "name": event.name, "variant": event.variant.slug if event.variant_id else None,
        "start_date": event.start_date.isoformat() if event.start_date else None,
        "end_date": event.end_date.isoformat() if event.end_date else None,
        "country": str(event.country or ""), "city": event.city,
        "latitude": None if event.latitude is None else str(event.latitude),
        "longitude": None if event.longitude is None else str(event.longitude),
        "is_major": event.is_major,
    }


def _event_counts(event: Event) -> dict:
    return {
        "participants": event.participants.count(), "rounds": event.rounds.count(),
        "games": event.games.count(), "awards": event.awards.count(),
    }


def _changed(before: dict, after: dict) -> tuple[dict, dict]:
    """Only the keys whose values differ, for a readable before → after."""
    keys = [key for key in after if before.get(key) != after.get(key)]
    return {key: before.get(key) for key in keys}, {key: after[key] for key in keys}


def _ensure_editable(event: Event) -> None:
    if event.status not in EDITABLE_STATUSES:
        if event.status == EventStatus.SANCTIONED:
            raise ValidationError(gettext(
                "This event is sanctioned: only a draft or a rejected event can be edited (staff correct a sanctioned event's results)."
            ))
        raise ValidationError(gettext("This event is %(status)s: only a draft or a rejected event can be edited.")
                              % {"status": event.get_status_display().lower()})


def _ensure_not_recalculating(event: Event) -> None:
    """Refuse an edit while something downstream (a recalculation covering its dates) holds the event."""
    for _, reason in signals.event_change_blocked.send(sender=Event, event=event):
        if reason:
            raise ValidationError(reason)


def _check_result_values(changes: dict) -> None:
    """Touchdowns and casualties a Blood Bowl game can have (the forms say the same)."""
    errors = {}
    touchdowns = (
        gettext_lazy("%(value)s is negative: the number of touchdowns must be 0 or more."),
        gettext_lazy("%(value)s is not a believable number of touchdowns: at most %(limit)s."),
    )
    casualties = (
        gettext_lazy("%(value)s is negative: the number of casualties must be 0 or more."),
        gettext_lazy("%(value)s is not a believable number of casualties: at most %(limit)s."),
    )
    for name, limit, (negative, too_many) in (
        ("home_touchdowns", MAX_TOUCHDOWNS, touchdowns), ("away_touchdowns", MAX_TOUCHDOWNS, touchdowns),
        ("home_casualties", MAX_CASUALTIES, casualties), ("away_casualties", MAX_CASUALTIES, casualties),
    ):
        value = changes.get(name)
        if value is not None and value < 0:
            errors[name] = str(negative) % {"value": value}
        elif value is not None and value > limit:
            errors[name] = str(too_many) % {"value": value, "limit": limit}
    if errors:
        raise ValidationError(errors)


def _ensure_not_too_many(games: list) -> None:
    if len(games) > MAX_UPLOAD_GAMES:
        raise ValidationError(gettext("%(count)s games are more than one event holds: an event takes at most %(most)s.")
                              % {"count": f"{len(games):,}", "most": f"{MAX_UPLOAD_GAMES:,}"})


# Where a rule is broken, by the part of the entry or upload: (at a column, in a whole row)
WHERE = {
    "line": (gettext_lazy("Line %(line)s, %(column)s: %(message)s"), gettext_lazy("Line %(line)s: %(message)s")),
    "round": (gettext_lazy("Round row %(line)s, %(column)s: %(message)s"), gettext_lazy("Round row %(line)s: %(message)s")),
    "participant": (
        gettext_lazy("Participant row %(line)s, %(column)s: %(message)s"), gettext_lazy("Participant row %(line)s: %(message)s"),
    ),
    "game": (gettext_lazy("Game %(line)s, %(column)s: %(message)s"), gettext_lazy("Game %(line)s: %(message)s")),
    "award": (gettext_lazy("Award row %(line)s, %(column)s: %(message)s"), gettext_lazy("Award row %(line)s: %(message)s")),
}


def _validation_messages(errors, where: str) -> list[str]:
    at_column, in_row = WHERE[where]
    return [
        str(at_column if e.column else in_row) % {"line": e.line, "column": e.column, "message": e.message} for e in errors
    ]


def _coaches_by_number(numbers) -> dict[int, Coach]:
    return {coach.number: coach for coach in Coach.objects.filter(number__in=set(numbers))}


def _races_by_slug(slugs) -> dict:
    races = {race.slug: race for race in Race.objects.filter(slug__in={s for s in slugs if s})}
    unranked = sorted(race.name for race in races.values() if not race.ranked)
    unknown = sorted({s for s in slugs if s} - races.keys())
    if unranked or unknown:
        raise ValidationError(
            [not_ranked_message(name) for name in unranked]
            + [gettext("'%(text)s' is not a race the federation knows.") % {"text": slug} for slug in unknown]
        )
    return races


def _write_results(event: Event, entries, played_at: dict) -> None:
    """Replace an event's rounds and games by these (already checked) entries, sides included."""
    games: list[GameEntry] = list(entries)
    coaches = _coaches_by_number(n for g in games for _, n, _ in g.coaches())
    races = _races_by_slug({r for g in games for _, _, r in g.coaches()})
    try:
        with transaction.atomic():
            event.games.all().delete()
            event.rounds.all().delete()
            rounds = {}
            for first in sorted(games, key=lambda g: g.round):
                if first.round not in rounds:
                    rounds[first.round] = Round.objects.create(event=event, number=first.round, date=first.date, start_time=first.time)
            # In one statement per batch, in the entries' order: game ids follow it, as the ratings read them.
            created = Game.objects.bulk_create([
                Game(
                    round=rounds[entry.round], event=event,
                    home_coach=coaches[entry.home_coach], home_race=races[entry.home_race],
                    away_coach=coaches[entry.away_coach] if entry.away_coach is not None else None,
                    away_race=races[entry.away_race] if entry.away_race else None,
                    home_touchdowns=entry.home_td, away_touchdowns=entry.away_td,
                    home_casualties=entry.home_cas, away_casualties=entry.away_cas,
                    conceded_by=entry.conceded or None, kind=entry.kind,
                    played_at=played_at[entry.round].replace(tzinfo=dt.UTC),
                )
                for entry in games
            ], batch_size=1000)
            GameSide.objects.bulk_create([side for game in created for side in game_sides_for(game)], batch_size=1000)
            _refresh_statistics(event)
    except IntegrityError as exc:
        raise ValidationError(gettext("The database refused these results (%(error)s); nothing was saved.") % {"error": exc}) from exc


@transaction.atomic(durable=True)
def event_create(*, actor, **fields) -> Event:
    """A new draft event, organised by the person entering it."""
    unknown = set(fields) - set(EVENT_FIELDS)
    if unknown:
        raise ValidationError(f"These fields are not part of an event: {', '.join(sorted(unknown))}.")
    event = Event(organiser=actor, status=EventStatus.DRAFT, **fields)
    event.full_clean(exclude=["source"])
    event.save()
    audit_record(actor=actor, action=Action.EVENT_CREATE, obj=event, after=_event_fields(event))
    return event


@transaction.atomic(durable=True)
def event_update(*, event: Event, actor, fields: dict, participants, rounds, games, awards) -> Event:
    """Save the whole entry form of a draft or rejected event: its fields, participants, rounds, games
    and awards (uploads.*Entry lists). Every rule is checked first; on any error nothing is saved."""
    event = Event.objects.select_for_update().select_related("variant").get(pk=event.pk)
    _ensure_editable(event)
    _ensure_not_recalculating(event)
    before = {**_event_fields(event), **_event_counts(event)}
    for name, value in fields.items():
        if name not in EVENT_FIELDS:
            raise ValidationError(f"'{name}' is not part of an event.")
        setattr(event, name, value)
    event.full_clean(exclude=["source"])
    _ensure_not_recalculating(event)
    participants, rounds, games, awards = list(participants), list(rounds), list(games), list(awards)
    _ensure_not_too_many(games)
    numbers = {p.coach for p in participants} | {a.coach for a in awards} | {n for g in games for _, n, _ in g.coaches()}
    coaches = _coaches_by_number(numbers)
    races = _races_by_slug(
        {p.race for p in participants} | {a.race for a in awards if a.race} | {r for g in games for _, _, r in g.coaches()}
    )
    errors = _entry_errors(event, participants, rounds, games, awards, coaches)
    if errors:
        raise ValidationError(errors)
    event.save()
    _write_entry(event, participants, rounds, games, awards, coaches, races)
    after = {**_event_fields(event), **_event_counts(event)}
    changed_before, changed_after = _changed(before, after)
    audit_record(actor=actor, action=Action.EVENT_UPDATE, obj=event, before=changed_before, after=changed_after)
    return event


def _entry_errors(event: Event, participants: list, rounds: list, games: list, awards: list, coaches: dict) -> list[str]:
    """Every rule of an event's entry form broken, as messages naming the row (none: it may be saved)."""
    names = dict(Race.objects.values_list("slug", "name"))
    round_numbers = {r.number for r in rounds}
    errors = _validation_messages(check_rounds(rounds, start=event.start_date, end=event.end_date), "round")
    errors += [
        gettext("Game %(line)s: round %(round)s is not in the list of rounds.") % {"line": g.line, "round": g.round}
        for g in games if g.round not in round_numbers
    ]
    participant_errors, race_errors = check_participants(participants, games, known_coaches=coaches, race_names=names)
    errors += _validation_messages(participant_errors, "participant")
    errors += _validation_messages(
        check_results(games, start=event.start_date, end=event.end_date, known_coaches=coaches, race_names=names) + race_errors,
        "game",
    )
    errors += _validation_messages(check_awards(awards, known_coaches=coaches), "award")
    return errors


def _registered(games: list, registered: dict[int, str]) -> dict[int, str]:
    """`registered` (coach number -> race slug) with every coach who played and is not in it yet,
    at the race of his first game in the entry's order."""
    for game in sorted(games, key=lambda g: g.line):
        for _, number, race in game.coaches():
            registered.setdefault(number, race)
    return registered


def _write_entry(event: Event, participants: list, rounds: list, games: list, awards: list, coaches: dict, races: dict) -> None:
    """Replace the event's participants, rounds, games and awards by the entry's (already checked).
    A coach who played is registered with his first game's race unless the form registered him."""
    registered = _registered(games, {p.coach: p.race for p in participants})
    event.awards.all().delete()
    event.participants.all().delete()
    _write_results(event, games, played_at_times(games))
    played_rounds = {g.round for g in games}
    for entry in rounds:
        if entry.number not in played_rounds:
            Round.objects.create(event=event, number=entry.number, date=entry.date, start_time=entry.time)
    Participant.objects.bulk_create(
        Participant(event=event, coach=coaches[number], race=races[race]) for number, race in sorted(registered.items())
    )
    Award.objects.bulk_create(
        Award(event=event, category=a.category, coach=coaches[a.coach], race=races[a.race] if a.race else None) for a in awards
    )


# A checked upload nobody confirmed within this time is dropped by the next one checked.
STAGED_UPLOAD_LIFETIME = dt.timedelta(days=2)


@transaction.atomic
def results_upload_stage(*, event: Event, actor, name: str, data: bytes) -> ResultsUpload:
    """Keep a checked results file until `actor` confirms it (replacing the one he checked before for
    this event). Not audited: nothing of the record changes until results_upload."""
    ResultsUpload.objects.filter(uploaded_at__lt=timezone.now() - STAGED_UPLOAD_LIFETIME).delete()
    staged, _ = ResultsUpload.objects.update_or_create(
        event=event, uploaded_by=actor,
        defaults={"name": name[:200], "digest": hashlib.sha256(data).hexdigest(), "data": data},
    )
    return staged


@transaction.atomic(durable=True)
def results_upload(*, event: Event, actor, games, file_name: str = "") -> Event:
    """Replace a draft or rejected event's rounds and games by an upload's games (uploads.GameEntry);
    the coaches in it are registered with the race they played. All or nothing."""
    event = Event.objects.select_for_update().get(pk=event.pk)
    _ensure_editable(event)
    _ensure_not_recalculating(event)
    games = list(games)
    if not games:
        raise ValidationError(gettext("The upload has no games."))
    _ensure_not_too_many(games)
    coaches = _coaches_by_number(n for g in games for _, n, _ in g.coaches())
    races = _races_by_slug({r for g in games for _, _, r in g.coaches()})
    names = dict(Race.objects.values_list("slug", "name"))
    errors = check_results(games, start=event.start_date, end=event.end_date, known_coaches=coaches, race_names=names)
    if errors:
        raise ValidationError(_validation_messages(errors, "line"))
    before = _event_counts(event)
    _write_results(event, games, played_at_times(games))
    registered = _registered(games, {})
    existing = {p.coach.number: p for p in event.participants.select_related("coach", "race")}
    changed = []
    for number, race in registered.items():
        participant = existing.get(number)
        if participant is not None and participant.race.slug != race:
            participant.race = races[race]
            changed.append(participant)
    Participant.objects.bulk_update(changed, ["race"], batch_size=1000)
    Participant.objects.bulk_create([
        Participant(event=event, coach=coaches[number], race=races[race]) for number, race in registered.items() if number not in existing
    ], batch_size=1000)
    ResultsUpload.objects.filter(event=event, uploaded_by=actor).delete()
    audit_record(actor=actor, action=Action.EVENT_UPLOAD, obj=event, before=before, after=_event_counts(event), note=file_name[:200])
    return event


@transaction.atomic(durable=True)
def coach_create(*, actor, number: int, name: str, nationality: str = "") -> Coach:
    """Add a coach the federation did not know yet (an organiser meets him in his results)."""
    coach = Coach(number=number, name=name.strip(), nationality=nationality or "")
    coach.full_clean(exclude=["user"])
    coach.save()
    audit_record(
        actor=actor, action=Action.COACH_CREATE, obj=coach,
        after={"number": coach.number, "name": coach.name, "nationality": str(coach.nationality or "")},
    )
    return coach


@transaction.atomic(durable=True)
def user_link_coach(*, user, coach: Coach | None, actor):
    """Link a member's account to his coach (or unlink it with None); a coach has one account."""
    current = Coach.objects.select_for_update().filter(user=user).first()
    if coach is not None:
        coach = Coach.objects.select_for_update().get(pk=coach.pk)
        if coach.user_id is not None and coach.user_id != user.pk:
            raise ValidationError(gettext("%(coach)s is already linked to the account %(user)s.") % {"coach": coach, "user": coach.user})
    if current is not None and (coach is None or current.pk != coach.pk):
        current.user = None
        current.save(update_fields=["user"])
    if coach is not None:
        coach.user = user
        coach.save(update_fields=["user"])
    audit_record(
        actor=actor, action=Action.USER_LINK_COACH, obj=user,
        before={"coach": current.number if current else None}, after={"coach": coach.number if coach else None},
    )
    return user


def user_unlock(*, user, actor):
    """Lift the lock of an account from every address (too many failed logins from many addresses);
    the limits per address stay, so whoever guessed from them is still stopped there."""
    failures = AccountFailures(user.get_username())
    count = failures.count
    failures.clear()
    audit_record(actor=actor, action=Action.USER_UNLOCK, obj=user, before={"failed_logins": count}, after={"failed_logins": 0})
    return user
