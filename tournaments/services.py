"""Writes to the federation's record. Every game goes through here so its two sides stay in step."""
import datetime as dt
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Min, Q

from .models import AuditRecord, Award, Coach, Event, EventStatus, Game, GameKind, GameSide, Participant, Side

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


def audit_record(*, actor, action: str, obj, before=None, after=None, note: str = "") -> AuditRecord:
    """Write who did what to which object, from what to what."""
    return AuditRecord.objects.create(
        actor=actor if actor is not None and getattr(actor, "is_authenticated", False) else None,
        action=action, object_type=obj._meta.model_name, object_id=str(obj.pk), object_repr=str(obj)[:300],
        before=before, after=after, note=note,
    )


def _first_game_date(event: Event) -> dt.date:
    first = event.games.aggregate(first=Min("played_at"))["first"]
    return min(event.start_date, first.date()) if first else event.start_date


def _is_backdated(event: Event) -> bool:
    """True when rated games already exist after this event's first game."""
    start = dt.datetime.combine(_first_game_date(event), dt.time(), tzinfo=dt.timezone.utc)
    return (
        Game.objects.filter(event__status=EventStatus.SANCTIONED, played_at__gte=start).exclude(event=event).exists()
    )


def _request_recalculation(*, trigger: str, since: dt.date, reason: str, actor) -> None:
    from ratings.services import recalculation_request_all

    recalculation_request_all(trigger=trigger, since=since, reason=reason, requested_by=actor)


@transaction.atomic
def event_submit(*, event: Event, actor) -> Event:
    """An organiser hands a draft (or a rejected event, corrected) to staff for sanctioning."""
    event = Event.objects.select_for_update().get(pk=event.pk)
    if event.status not in {EventStatus.DRAFT, EventStatus.REJECTED}:
        raise ValidationError(f"Only a draft or rejected event can be submitted; this one is {event.get_status_display().lower()}.")
    if not event.games.exists():
        raise ValidationError("An event needs at least one game before it can be submitted.")
    before = event.status
    event.status = EventStatus.SUBMITTED
    event.save(update_fields=["status", "updated_at"])
    audit_record(actor=actor, action="event.submit", obj=event, before={"status": before}, after={"status": event.status})
    return event


@transaction.atomic
def event_sanction(*, event: Event, actor, note: str = "") -> Event:
    """Sanction an event: its games start to count, and every rating system recalculates from its date."""
    event = Event.objects.select_for_update().get(pk=event.pk)
    if event.status == EventStatus.SANCTIONED:
        raise ValidationError("This event is already sanctioned.")
    backdated = _is_backdated(event)
    before = event.status
    event.status = EventStatus.SANCTIONED
    event.save(update_fields=["status", "updated_at"])
    audit_record(actor=actor, action="event.sanction", obj=event, before={"status": before}, after={"status": event.status}, note=note)
    _request_recalculation(
        trigger="backdated" if backdated else "sanctioned", since=_first_game_date(event),
        reason=f"{'late event' if backdated else 'sanctioned'}: {event.name}", actor=actor,
    )
    return event


@transaction.atomic
def event_reject(*, event: Event, actor, reason: str) -> Event:
    """Reject a submitted event with a reason (a sanctioned one leaves the rankings, so they recalculate)."""
    if not reason.strip():
        raise ValidationError("Give the organiser a reason for the rejection.")
    event = Event.objects.select_for_update().get(pk=event.pk)
    was_sanctioned = event.status == EventStatus.SANCTIONED
    before = event.status
    event.status = EventStatus.REJECTED
    event.save(update_fields=["status", "updated_at"])
    audit_record(actor=actor, action="event.reject", obj=event, before={"status": before}, after={"status": event.status}, note=reason)
    if was_sanctioned:
        _request_recalculation(trigger="corrected", since=_first_game_date(event), reason=f"unsanctioned: {event.name}", actor=actor)
    return event


GAME_RESULT_FIELDS = ["home_touchdowns", "away_touchdowns", "home_casualties", "away_casualties", "conceded_by", "kind"]


@transaction.atomic
def game_correct(*, game: Game, actor, note: str = "", **changes) -> Game:
    """Correct a game's result; a sanctioned event's correction recalculates the ratings from its date."""
    unknown = set(changes) - set(GAME_RESULT_FIELDS)
    if unknown:
        raise ValidationError(f"These fields cannot be corrected here: {', '.join(sorted(unknown))}.")
    game = Game.objects.select_for_update().select_related("event").get(pk=game.pk)
    before = {name: getattr(game, name) for name in changes}
    for name, value in changes.items():
        setattr(game, name, value)
    game_record(game=game)
    audit_record(actor=actor, action="game.correct", obj=game, before=before, after=changes, note=note)
    if game.event.status == EventStatus.SANCTIONED:
        _request_recalculation(
            trigger="corrected", since=game.played_at.date(), reason=f"corrected game in {game.event.name}", actor=actor
        )
    return game


@transaction.atomic
def coach_merge(*, keep: Coach, duplicate: Coach, actor) -> Coach:
    """Fold a duplicate coach into the one kept: games, sides, participations and awards move over."""
    if keep.pk == duplicate.pk:
        raise ValidationError("Choose two different coaches to merge.")
    clash = GameSide.objects.filter(coach=duplicate, round__in=GameSide.objects.filter(coach=keep).values("round"))
    if clash.exists():
        raise ValidationError("These coaches played in the same round; they cannot be one person.")
    if Game.objects.filter(Q(home_coach=keep, away_coach=duplicate) | Q(home_coach=duplicate, away_coach=keep)).exists():
        raise ValidationError("These coaches played each other; they cannot be one person.")
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
        actor=actor, action="coach.merge", obj=keep,
        before={"duplicate": {"number": duplicate.number, "name": duplicate.name}}, after=moved,
    )
    from ratings.models import CalculationRow, CurrentRating, PeriodSummary, RatingListEntry

    for model in (CalculationRow, PeriodSummary, CurrentRating, RatingListEntry):
        model.objects.filter(coach=duplicate).delete()
    CalculationRow.objects.filter(opponent=duplicate).delete()
    duplicate.delete()
    if first is not None:
        _request_recalculation(trigger="merge", since=first.date(), reason=f"merged coach {duplicate.number} into {keep.number}", actor=actor)
    return keep
