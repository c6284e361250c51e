"""A coach's privacy: what the public sees of him, a copy of what is held about him, and his erasure.

The one display rule is Coach.public_name_now(), stored as Coach.public_name by every write (save and
the bulk writes): every public page, chart, statistic, search, CSV and export reads `public_name`,
the staff pages `name`. A change of it is sent as signals.coach_public_name_changed, so what is
derived downstream (the published lists' names of the day) follows, and the page cache is bumped.

Erasure (as lichess erases an account: the games stay, the name becomes a ghost): asked for, it
waits ERASURE_GRACE (a login of the member's, or the staff, cancel it), then the daily task erases
it: the name becomes the anonymous label, every personal field is blanked, the member's account
is emptied and closed; the games and every figure stay, so every opponent's history and every
published figure are reproduced as before. The erasure log (CoachErasure: the coach's id and the
day only) lets `replay_erasures` erase again what a restored backup brought back.
"""
import datetime as dt
import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.models import Action
from audit.selectors import audit_records_for
from audit.services import audit_record, audit_records_redact
from ratingsite import page_cache

from . import signals
from .models import ANONYMOUS_LABEL, Award, Coach, CoachErasure, Event, GameSide, Participant, Visibility

ERASURE_GRACE = dt.timedelta(days=30)
PSEUDONYM_LENGTH = 100


def _public_name_changed(coach: Coach, before: str) -> None:
    if coach.public_name != before:
        signals.coach_public_name_changed.send(sender=Coach, coach=coach, before=before, after=coach.public_name)
    page_cache.bump_on_commit()


@transaction.atomic
def coach_privacy_set(*, coach: Coach, visibility: str, pseudonym: str = "", actor) -> Coach:
    """Choose what the public sees of `coach`: his name, a pseudonym, or the anonymous label (hidden).
    The games stay rated either way. The audit record keeps the choice, not the names."""
    coach = Coach.objects.select_for_update().get(pk=coach.pk)
    if coach.erased_at is not None:
        raise ValidationError(_("This coach has been erased: the anonymous label stays."))
    if visibility not in Visibility.values:
        raise ValidationError(_("“%(visibility)s” is no choice of visibility.") % {"visibility": visibility})
    pseudonym = " ".join(pseudonym.split())[:PSEUDONYM_LENGTH] if visibility == Visibility.PSEUDONYM else ""
    if visibility == Visibility.PSEUDONYM:
        if not pseudonym:
            raise ValidationError(_("Give the pseudonym to show."))
        if pseudonym.casefold().startswith(ANONYMOUS_LABEL.casefold()):
            raise ValidationError(
                _("A pseudonym cannot start with “%(label)s”: that is the label of hidden coaches.") % {"label": ANONYMOUS_LABEL},
            )
        if Coach.objects.filter(public_name__iexact=pseudonym).exclude(pk=coach.pk).exists():
            raise ValidationError(_("Another coach is shown under this name: choose another pseudonym."))
    before, before_visibility = coach.public_name, coach.visibility
    coach.visibility, coach.pseudonym = visibility, pseudonym
    coach.save(update_fields=["visibility", "pseudonym"])
    audit_record(actor=actor, action=Action.COACH_PRIVACY, obj=coach,
                 before={"visibility": before_visibility}, after={"visibility": coach.visibility})
    _public_name_changed(coach, before)
    return coach


@transaction.atomic
def coach_erasure_request(*, coach: Coach, actor, now: dt.datetime | None = None) -> Coach:
    """Ask for the coach's erasure: it is carried out once ERASURE_GRACE has passed, unless cancelled."""
    coach = Coach.objects.select_for_update().get(pk=coach.pk)
    if coach.erased_at is not None:
        raise ValidationError(_("This coach has already been erased."))
    if coach.erasure_requested_at is None:
        coach.erasure_requested_at = now or timezone.now()
        coach.save(update_fields=["erasure_requested_at"])
        audit_record(actor=actor, action=Action.COACH_ERASURE_REQUEST, obj=coach,
                     after={"erasure_due": erasure_due_at(coach).isoformat()})
    return coach


def erasure_due_at(coach: Coach) -> dt.datetime:
    """When the coach's requested erasure is carried out."""
    assert coach.erasure_requested_at is not None
    return coach.erasure_requested_at + ERASURE_GRACE


@transaction.atomic
def coach_erasure_cancel(*, coach: Coach, actor, note: str = "") -> Coach:
    """Cancel a requested erasure not yet carried out (a login of the member's does, or the staff)."""
    coach = Coach.objects.select_for_update().get(pk=coach.pk)
    if coach.erasure_requested_at is None or coach.erased_at is not None:
        return coach
    requested = coach.erasure_requested_at
    coach.erasure_requested_at = None
    coach.save(update_fields=["erasure_requested_at"])
    audit_record(actor=actor, action=Action.COACH_ERASURE_CANCEL, obj=coach,
                 before={"erasure_requested_at": requested.isoformat()}, after={"erasure_requested_at": None}, note=note)
    return coach


def _erase(coach: Coach) -> list[str]:
    """Blank what is personal about `coach` (and his account), keeping his id, number and games.
    Answers the names it removed (his name, pseudonym, account name and e-mail)."""
    removed = [text for text in (coach.name, coach.pseudonym) if text and text != coach.label]
    user = coach.user
    if user is not None:
        removed += [text for text in (user.get_username(), user.email, user.first_name, user.last_name) if text]
        user.username = f"erased-{user.pk}"
        user.email = user.first_name = user.last_name = ""
        user.is_active = False
        user.set_unusable_password()
        user.save()
    coach.name, coach.pseudonym, coach.visibility = coach.label, "", Visibility.HIDDEN
    coach.nationality, coach.birth_year, coach.member_since, coach.member_until, coach.user = "", None, None, None, None
    coach.erasure_requested_at = None
    coach.erased_at = coach.erased_at or timezone.now()
    coach.save()
    audit_records_redact(coach_id=coach.pk, member_id=user.pk if user else None, texts=removed, replacement=coach.label)
    return removed


@transaction.atomic
def coach_erase(*, coach: Coach, actor=None, today: dt.date | None = None) -> Coach:
    """Erase the coach now (the daily task does, once the grace period has passed): the name becomes
    the anonymous label everywhere, the personal fields and his account are blanked, the games and
    figures stay. Logged by id and day in the erasure log; audited without the names."""
    coach = Coach.objects.select_for_update().get(pk=coach.pk)
    before = coach.public_name
    _erase(coach)
    entry, _created = CoachErasure.objects.get_or_create(coach_id=coach.pk, defaults={"erased_on": today or timezone.localdate()})
    transaction.on_commit(lambda: erasure_log_write(coach_id=entry.coach_id, erased_on=entry.erased_on))
    audit_record(actor=actor, action=Action.COACH_ERASE, obj=coach, after={"erased": True})
    _public_name_changed(coach, before)
    return coach


def coaches_erase_due(*, now: dt.datetime | None = None) -> list[int]:
    """Erase every coach whose erasure was asked for ERASURE_GRACE or more ago; answers their numbers."""
    now = now or timezone.now()
    due = Coach.objects.filter(erased_at__isnull=True, erasure_requested_at__lte=now - ERASURE_GRACE)
    erased = []
    for coach in due:
        coach_erase(coach=coach, actor=None, today=timezone.localdate(now))
        erased.append(coach.number)
    return erased


def _still_personal(coach: Coach) -> bool:
    return bool(
        coach.name != coach.label or coach.pseudonym or coach.visibility != Visibility.HIDDEN or coach.nationality
        or coach.birth_year or coach.member_since or coach.member_until or coach.user_id or coach.erased_at is None
    )


def erasure_log_write(*, coach_id: int, erased_on: dt.date, path: str | None = None) -> None:
    """Add an erasure to the copy of the log kept outside the database (settings.ERASURE_LOG_FILE), if any."""
    path = settings.ERASURE_LOG_FILE if path is None else path
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"coach_id": coach_id, "erased_on": erased_on.isoformat()}) + "\n")


def erasure_log_read(*, path: str) -> dict[int, dt.date]:
    """The erasures of a copy of the log (erasure_log_write's lines), by coach id."""
    with open(path, encoding="utf-8") as log:
        entries = [json.loads(line) for line in log if line.strip()]
    return {int(e["coach_id"]): dt.date.fromisoformat(e["erased_on"]) for e in entries}


@transaction.atomic
def erasures_replay(*, log_file: str | None = None) -> list[int]:
    """Apply again every erasure of the log (the database's, and the copy in `log_file`, whose
    entries the database's log gets back) that a restored backup undid (a name back, a field
    filled, the account linked); answers the numbers of the coaches erased again."""
    if log_file:
        for coach_id, erased_on in erasure_log_read(path=log_file).items():
            CoachErasure.objects.get_or_create(coach_id=coach_id, defaults={"erased_on": erased_on})
    logged = dict(CoachErasure.objects.values_list("coach_id", "erased_on"))
    again = []
    for coach in Coach.objects.select_for_update().filter(pk__in=list(logged)):
        if _still_personal(coach):
            before = coach.public_name
            if coach.erased_at is None:
                coach.erased_at = dt.datetime.combine(logged[coach.pk], dt.time(), tzinfo=dt.UTC)
            _erase(coach)
            audit_record(actor=None, action=Action.COACH_ERASE, obj=coach, after={"erased": True}, note="replayed after a restore")
            _public_name_changed(coach, before)
            again.append(coach.number)
    return again


def cancel_erasure_on_login(sender, *, user, **kwargs) -> None:
    """A member who logs in while his erasure waits wants to stay: the erasure is cancelled."""
    coach = Coach.objects.filter(user=user, erasure_requested_at__isnull=False, erased_at__isnull=True).first()
    if coach is not None:
        coach_erasure_cancel(coach=coach, actor=user, note="cancelled by the member's login")


# --- the copy of everything held --------------------------------------------------------------------


def _day(value) -> str | None:
    return value.isoformat() if value else None


def coach_data(*, coach: Coach) -> dict:
    """Everything the site holds about `coach`, as JSON-ready data: his record, his account, his
    events, games and awards, the figures derived from them (each downstream app's part, by
    signals.coach_data_collected) and the audit records about him."""
    user = coach.user
    races = dict(Participant.objects.filter(coach=coach).values_list("event_id", "race__name"))
    sides = GameSide.objects.filter(coach=coach).select_related("race", "opponent", "opponent_race").order_by("played_at", "game_id")
    data: dict[str, object] = {
        "coach": {
            "number": coach.number, "name": coach.name, "public_name": coach.public_name,
            "visibility": coach.visibility, "pseudonym": coach.pseudonym, "nationality": str(coach.nationality or ""),
            "member_since": _day(coach.member_since), "member_until": _day(coach.member_until), "birth_year": coach.birth_year,
            "erasure_requested_at": _day(coach.erasure_requested_at), "erased_at": _day(coach.erased_at),
        },
        "account": None if user is None else {
            "username": user.get_username(), "email": user.email, "first_name": user.first_name, "last_name": user.last_name,
            "date_joined": _day(user.date_joined), "last_login": _day(user.last_login),
            "groups": sorted(user.groups.values_list("name", flat=True)),
        },
        "events": [
            {"event": e.name, "event_id": e.pk, "start_date": _day(e.start_date), "status": e.status,
             "race": races.get(e.pk)}
            for e in Event.objects.filter(Q(pk__in=races) | Q(pk__in=sides.values("event_id"))).order_by("start_date", "pk")
        ],
        "games": [
            {"game_id": s.game_id, "event_id": s.event_id, "played_at": _day(s.played_at), "race": s.race.name,
             "opponent_number": s.opponent.number if s.opponent else None,
             "opponent": s.opponent.public_name if s.opponent else None,
             "touchdowns_for": s.touchdowns_for, "touchdowns_against": s.touchdowns_against, "casualties_for": s.casualties_for,
             "casualties_against": s.casualties_against, "score": str(s.score)}
            for s in sides
        ],
        "awards": [
            {"event_id": a.event_id, "event": a.event.name, "category": a.category}
            for a in Award.objects.filter(coach=coach).select_related("event").order_by("event_id", "category")
        ],
        "audit": [
            {"at": _day(r.at), "action": r.action, "before": r.before, "after": r.after, "note": r.note}
            for r in audit_records_for(obj=coach).order_by("at", "id")
        ],
    }
    for _receiver, part in signals.coach_data_collected.send(sender=Coach, coach=coach):
        data.update(part if isinstance(part, dict) else {})
    return json.loads(json.dumps(data, default=str))


def coach_data_export(*, coach: Coach, actor) -> dict:
    """coach_data, on record: who took a copy of the coach's data, and when."""
    data = coach_data(coach=coach)
    audit_record(actor=actor, action=Action.COACH_EXPORT, obj=coach, after={"sections": sorted(data)})
    return data
