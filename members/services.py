"""The members' writes: sign-up and confirmation, claims on coach records (by code, by request,
staff's decisions, releases and restores), follows, preferences, and the notices of a run. Every
change a person makes is audited; keyword-only arguments throughout."""
from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from celery import signature
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage, get_connection, send_mail
from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Replace
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit.models import Action
from audit.services import audit_record
from members import codes
from members.models import (
    Claim,
    ClaimMethod,
    ClaimSecret,
    ClaimStatus,
    Follow,
    Notice,
    NoticeKind,
    NoticeRun,
    Preferences,
    SeenRating,
    new_feed_token,
)
from ratings import selectors as rating_selectors
from ratingsite.broker import SETTLED, owed_again, sent, sent_later
from tournaments.models import Coach
from tournaments.permissions import MEMBERS

logger = logging.getLogger(__name__)
User = get_user_model()

WRONG_CODE = gettext_lazy("This number and claim code do not match: check both as printed on the event's results.")
# a rating that moves by less than this has not changed for a notice
UNCHANGED = 0.005


class SignUpTokens(PasswordResetTokenGenerator):
    """Links that confirm an e-mail address: void once the account is active (or its password changes)."""

    key_salt = "members.services.SignUpTokens"

    def _make_hash_value(self, user, timestamp):
        return f"{super()._make_hash_value(user, timestamp)}{user.is_active}"


sign_up_tokens = SignUpTokens()


# --- the member's language --------------------------------------------------------------------------


def site_language(code: str | None) -> str:
    """The site's language (a code of settings.LANGUAGES) nearest to `code`: the site's default for
    none, or for one the site does not speak."""
    codes = {known for known, _name in settings.LANGUAGES}
    if code in codes:
        return code
    try:
        nearest = translation.get_supported_language_variant(code or "")
    except LookupError:
        return settings.LANGUAGE_CODE
    return nearest if nearest in codes else settings.LANGUAGE_CODE


def member_language(member, *, fallback: str | None = None) -> str:
    """The language the site's e-mails to this member are written in: his preference, else (an
    account without preferences: staff, organisers) `fallback`, else the site's default."""
    language = Preferences.objects.filter(member_id=member.pk).values_list("language", flat=True).first()
    return site_language(language or fallback)


# --- sign-up ----------------------------------------------------------------------------------------


@transaction.atomic
def member_sign_up(*, username: str, email: str, password: str, confirm_url: Callable[[Any], str], login_url: str):
    """Create an account that waits for its e-mail address to be confirmed, and mail the link.

    An address already registered gets no second account, and the answer is the same: its owner is
    mailed instead (a new confirmation link if it was never confirmed, else a reminder of the
    account with the way to reset its password). Returns the new account, or None."""
    email = email.strip()
    existing = User.objects.filter(email__iexact=email).order_by("pk").first()
    if existing is not None:
        if existing.is_active or existing.last_login is not None:
            with translation.override(member_language(existing, fallback=translation.get_language())):
                body = render_to_string("members/email/already_registered.txt", {
                    "user": existing, "login_url": login_url,
                })
                subject = _("Your account with the federation's ratings")
            transaction.on_commit(lambda: send_mail(subject, body, None, [existing.email]))
        else:
            _mail_confirmation(existing, confirm_url)
        return None
    user = User.objects.create_user(username, email, password, is_active=False)
    group = Group.objects.filter(name=MEMBERS).first()
    if group is not None:
        user.groups.add(group)
    # the language of the page he signed up on is the one he reads: the site's e-mails to him use it
    Preferences.objects.create(member=user, language=site_language(translation.get_language()))
    audit_record(actor=user, action=Action.MEMBER_SIGN_UP, obj=user, after={"username": username})
    _mail_confirmation(user, confirm_url)
    return user


def _mail_confirmation(user, confirm_url: Callable[[Any], str]) -> None:
    with translation.override(member_language(user, fallback=translation.get_language())):
        body = render_to_string("members/email/confirm.txt", {"user": user, "url": confirm_url(user)})
        subject = _("Confirm your e-mail address")
    transaction.on_commit(lambda: send_mail(subject, body, None, [user.email]))


@transaction.atomic
def member_confirm(*, user):
    """Activate an account whose owner followed the link mailed to its address."""
    if user.is_active:
        return user
    user.is_active = True
    user.save(update_fields=["is_active"])
    audit_record(actor=user, action=Action.MEMBER_CONFIRM, obj=user, before={"is_active": False}, after={"is_active": True})
    return user


# --- claims -----------------------------------------------------------------------------------------


def claim_codes_for(*, coach_ids: list[int]) -> dict[int, str]:
    """Each coach's claim code (number -> code), a secret drawn for those that have none yet."""
    ClaimSecret.objects.bulk_create(
        [ClaimSecret(coach_id=pk, secret=codes.new_secret()) for pk in coach_ids], ignore_conflicts=True,
    )
    return {
        number: codes.claim_code(number=number, secret=secret)
        for number, secret in ClaimSecret.objects.filter(coach_id__in=coach_ids).values_list("coach__number", "secret")
    }


def _renew_secret(coach: Coach) -> None:
    ClaimSecret.objects.update_or_create(coach=coach, defaults={"secret": codes.new_secret()})


def _claimable(*, member, coach: Coach) -> None:
    """Refuse a claim that would give a coach a second member or a member a second coach."""
    if coach.user_id is not None:
        raise ValidationError(
            _("You have claimed this coach already.") if coach.user_id == member.pk
            else _("Coach %(number)s is claimed by another member. If that is wrong, ask the federation staff.")
            % {"number": coach.number}
        )
    own = Coach.objects.filter(user=member).first()
    if own is not None:
        raise ValidationError(_("Your account has claimed coach %(number)s already: one coach per member.") % {"number": own.number})


def _attach(*, claim: Claim, coach: Coach) -> None:
    """Give the coach to the claim's member (the caller holds the coach's row lock and checked _claimable)."""
    coach.user = claim.member
    coach.save(update_fields=["user"])
    claim.status = ClaimStatus.ACTIVE
    claim.save()
    _renew_secret(coach)  # a printed code claims once
    _seen_seed(coach_ids=[coach.pk])


def _locked_coach(number: int) -> Coach | None:
    return Coach.objects.select_for_update().filter(number=number).first()


@transaction.atomic
def claim_by_code(*, member, number: int, code: str) -> Claim:
    """Claim a coach at once with the code printed on an event's results."""
    coach = _locked_coach(number)
    secret = ClaimSecret.objects.filter(coach=coach).values_list("secret", flat=True).first() if coach else None
    if coach is None or secret is None or not codes.code_matches(number=number, secret=secret, typed=code):
        raise ValidationError(WRONG_CODE)
    _claimable(member=member, coach=coach)
    claim = Claim(member=member, coach=coach, method=ClaimMethod.CODE, decided_at=timezone.now())
    _attach(claim=claim, coach=coach)
    Claim.objects.filter(member=member, status=ClaimStatus.PENDING).update(
        status=ClaimStatus.REFUSED, decided_at=timezone.now(), reason="claimed with a code meanwhile",
    )
    audit_record(actor=member, action=Action.COACH_CLAIM, obj=coach, before={"member": None},
                 after={"member": member.get_username()})
    return claim


@transaction.atomic
def claim_request(*, member, number: int, note: str = "") -> Claim:
    """Ask staff for a coach record; they approve or refuse it from their queue."""
    coach = _locked_coach(number)
    if coach is None:
        raise ValidationError(_("No coach has the number %(number)s.") % {"number": number})
    _claimable(member=member, coach=coach)
    if Claim.objects.filter(member=member, coach=coach, status=ClaimStatus.PENDING).exists():
        raise ValidationError(_("You have asked for this coach already: staff will answer."))
    claim = Claim.objects.create(member=member, coach=coach, method=ClaimMethod.REQUEST, status=ClaimStatus.PENDING,
                                 note=note.strip())
    audit_record(actor=member, action=Action.CLAIM_REQUEST, obj=coach, after={"member": member.get_username()},
                 note=claim.note[:1000])
    return claim


@transaction.atomic
def claim_decide(*, claim_id: int, approve: bool, actor, reason: str = "") -> Claim:
    """Staff's answer to a request: the coach goes to the member, or the request is refused (with a reason)."""
    claim = Claim.objects.select_for_update().select_related("member").filter(pk=claim_id).first()
    if claim is None or claim.status != ClaimStatus.PENDING:
        raise ValidationError(_("This request has been answered already."))
    coach = _locked_coach(claim.coach.number)
    assert coach is not None, "a claim's coach exists (deleting it deletes the claim)"
    claim.decided_at, claim.decided_by, claim.reason = timezone.now(), actor, reason.strip()
    if approve:
        _claimable(member=claim.member, coach=coach)
        _attach(claim=claim, coach=coach)
        action, after = Action.CLAIM_APPROVE, claim.member.get_username()
    else:
        if not claim.reason:
            raise ValidationError(_("Say why the request is refused: the member reads it."))
        claim.status = ClaimStatus.REFUSED
        claim.save()
        action, after = Action.CLAIM_REFUSE, None
    audit_record(actor=actor, action=action, obj=coach, before={"member": None}, after={"member": after}, note=claim.reason)
    return claim


@transaction.atomic
def claim_release(*, number: int, actor, reason: str) -> Claim:
    """Take a coach record back from the member who claimed it (undone by claim_restore)."""
    reason = reason.strip()
    if not reason:
        raise ValidationError(_("Say why the claim is released."))
    coach = _locked_coach(number)
    if coach is None or coach.user_id is None:
        raise ValidationError(_("This coach is claimed by no member."))
    claim = Claim.objects.filter(coach=coach, member_id=coach.user_id, status=ClaimStatus.ACTIVE).first()
    if claim is None:  # linked on the staff's member page, before claims were kept
        claim = Claim(coach=coach, member_id=coach.user_id, method=ClaimMethod.LINK)
    member = coach.user
    assert member is not None, "checked above"
    claim.status, claim.decided_at, claim.decided_by, claim.reason = ClaimStatus.RELEASED, timezone.now(), actor, reason
    claim.save()
    coach.user = None
    coach.save(update_fields=["user"])
    _renew_secret(coach)
    audit_record(actor=actor, action=Action.CLAIM_RELEASE, obj=coach, before={"member": member.get_username()},
                 after={"member": None}, note=reason)
    return claim


@transaction.atomic
def claim_restore(*, claim_id: int, actor) -> Claim:
    """Undo a release: the coach goes back to the member, if neither has been claimed since."""
    claim = Claim.objects.select_for_update().select_related("member").filter(pk=claim_id).first()
    if claim is None or claim.status != ClaimStatus.RELEASED:
        raise ValidationError(_("Only a released claim can be restored."))
    coach = _locked_coach(claim.coach.number)
    assert coach is not None, "a claim's coach exists"
    _claimable(member=claim.member, coach=coach)
    claim.decided_at, claim.decided_by = timezone.now(), actor
    _attach(claim=claim, coach=coach)
    audit_record(actor=actor, action=Action.CLAIM_RESTORE, obj=coach, before={"member": None},
                 after={"member": claim.member.get_username()}, note=claim.reason)
    return claim


# --- follows, preferences, feed ---------------------------------------------------------------------


@transaction.atomic
def follow_add(*, member, coach: Coach) -> Follow:
    """Follow a coach: his rating changes become the member's notices (following twice is following)."""
    follow, created = Follow.objects.get_or_create(member=member, coach=coach)
    if created:
        _seen_seed(coach_ids=[coach.pk])
        audit_record(actor=member, action=Action.COACH_FOLLOW, obj=coach, after={"follower": member.get_username()})
    return follow


@transaction.atomic
def follow_remove(*, member, coach: Coach) -> None:
    deleted, _ = Follow.objects.filter(member=member, coach=coach).delete()
    if deleted:
        audit_record(actor=member, action=Action.COACH_UNFOLLOW, obj=coach, before={"follower": member.get_username()})


def preferences_get(*, member) -> Preferences:
    preferences, _ = Preferences.objects.get_or_create(member=member)
    return preferences


@transaction.atomic
def preferences_update(*, member, email_notices: bool, system_ids: list[int], language: str | None = None) -> Preferences:
    """Notices by e-mail or not, for these rating systems (none: every system), and the language of
    the site's e-mails to him (None: as it was). A language the site does not speak changes nothing."""
    if language is not None and language not in {code for code, _name in settings.LANGUAGES}:
        raise ValidationError(_("“%(value)s” is not a language of this site: choose one from the list.") % {"value": language})
    preferences = preferences_get(member=member)
    before = {"email_notices": preferences.email_notices, "systems": sorted(preferences.systems.values_list("pk", flat=True)),
              "language": preferences.language}
    preferences.email_notices = email_notices
    preferences.language = language or preferences.language
    preferences.save(update_fields=["email_notices", "language"])
    preferences.systems.set(system_ids)
    after = {"email_notices": email_notices, "systems": sorted(system_ids), "language": preferences.language}
    if after != before:
        audit_record(actor=member, action=Action.MEMBER_PREFERENCES, obj=member, before=before, after=after)
    return preferences


@transaction.atomic
def feed_token_reset(*, member) -> Preferences:
    """A new secret address for the member's feed: the old one answers 404 from now on."""
    preferences = preferences_get(member=member)
    preferences.feed_token = new_feed_token()
    preferences.save(update_fields=["feed_token"])
    audit_record(actor=member, action=Action.MEMBER_FEED_RESET, obj=member)
    return preferences


# --- notices ----------------------------------------------------------------------------------------


def _key(figure) -> tuple[int, int, int]:
    return figure.coach_id, figure.race_id or 0, figure.variant_id


def _seen_seed(*, coach_ids: list[int]) -> None:
    """Remember the coaches' current ratings as seen, so a notice tells of what changes from now on."""
    rows = []
    for system_id, _name in rating_selectors.notice_systems():
        rows += [
            SeenRating(system_id=system_id, coach_id=f.coach_id, race_key=f.race_id or 0, variant_id=f.variant_id, value=f.value)
            for f in rating_selectors.watched_figures(system_id=system_id, coach_ids=coach_ids)
        ]
    SeenRating.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["system", "coach", "race_key", "variant_id"], update_fields=["value"],
    )


def _wanted(member_ids: set[int], system_id: int) -> tuple[set[int], set[int]]:
    """Of these members, those who want notices of this system, and those of them who want them mailed."""
    chosen: dict[int, set[int]] = defaultdict(set)
    for member_id, chosen_system in Preferences.systems.through.objects.filter(
        preferences__member_id__in=member_ids,
    ).values_list("preferences__member_id", "ratingsystem_id"):
        chosen[member_id].add(chosen_system)
    wanting = {pk for pk in member_ids if not chosen.get(pk) or system_id in chosen[pk]}
    mailed = set(Preferences.objects.filter(member_id__in=wanting, email_notices=True).values_list("member_id", flat=True))
    return wanting, mailed


# --- the outbox of a run's notices -------------------------------------------------------------------

NOTICES_TASK = "members.tasks.notices_for_run"
# how many times the e-mail of a run's notices is tried (once each RECALCULATION_RESEND_AFTER) before
# the dispatcher gives up on it: the notices stay on the members' pages and feeds, the error on the run
MAIL_ATTEMPTS = 12


def notices_request(*, run_id: int, system_id: int, published: list[int]) -> NoticeRun:
    """A run committed (ratings.signals.run_committed): record that its notices are owed (once per
    run) and send members.tasks.notices_for_run by name. The run's process does no more of the
    members' work: a broker that does not take it leaves it owed, for the dispatcher; without a
    broker the task runs here (in a web request, once the response has gone)."""
    owed, _created = NoticeRun.objects.get_or_create(run_id=run_id, defaults={"system_id": system_id, "published": list(published)})
    notices_enqueue(run_ids=[run_id])
    return owed


def notices_enqueue(*, run_ids: list[int]) -> list[int]:
    """Send the task of each of these runs still owed its message; returns the runs whose message went out."""
    went = []
    for run_id in NoticeRun.objects.filter(run_id__in=run_ids, enqueued_at=None).order_by("run_id").values_list("run_id", flat=True):
        message, what = signature(NOTICES_TASK, args=(run_id,)), f"the notices of run {run_id}"
        # marked first: without a broker the task runs inside the send, and one that fails there is then
        # sent again past the resend bound (broker.owed_again), not every minute
        NoticeRun.objects.filter(run_id=run_id).update(enqueued_at=timezone.now())
        if not sent_later(message, owed=what) and not sent(message, owed=what):
            NoticeRun.objects.filter(run_id=run_id).update(enqueued_at=None)
            continue
        went.append(run_id)
    return went


def notices_dispatch(*, settled: dt.timedelta = SETTLED) -> list[int]:
    """Send the notices' tasks a broker outage kept back (owed for `settled`: a younger one's sender
    may still be sending it), those the broker lost, and those whose e-mail failed (each once every
    RECALCULATION_RESEND_AFTER, at most MAIL_ATTEMPTS times)."""
    unfinished = NoticeRun.objects.filter(mailed_at=None, mail_attempts__lt=MAIL_ATTEMPTS)
    owed_again(unfinished, what="runs' notices")
    owed = unfinished.filter(enqueued_at=None, created_at__lt=timezone.now() - settled)
    return notices_enqueue(run_ids=list(owed.values_list("run_id", flat=True)))


def notices_for_run(*, run_id: int) -> NoticeRun | None:
    """Carry out what a run's notices owe: record them (once, whoever else delivers the same task),
    then mail those who want them (each member's e-mail once). Safe to run twice. A mail server that
    fails raises nothing: the notices are recorded, the e-mail stays owed and the error is kept on
    the NoticeRun for the dispatcher to try again. None for a run nobody asked about."""
    owed = notices_record_once(run_id=run_id)
    if owed is None or owed.mailed_at is not None:
        return owed
    pending = list(Notice.objects.filter(run_id=run_id, email_wanted=True, emailed_at=None).select_related("system", "coach"))
    if pending:
        # claimed by counting the try: a delivery of the same run at the same moment finds the count
        # moved and leaves the e-mail to this one. No transaction is held while the mail server
        # answers: SQLite has one writer, and a page's write would wait on it.
        claimed = NoticeRun.objects.filter(pk=owed.pk, mailed_at=None, mail_attempts=owed.mail_attempts)
        if not claimed.update(mail_attempts=F("mail_attempts") + 1):
            return NoticeRun.objects.get(pk=owed.pk)
        owed.mail_attempts += 1
        try:
            notices_mail(notices=pending, fail_silently=False)
        except Exception as error:  # the SMTP server's errors are many (OSError, SMTPException, ...)
            owed.mail_error = f"{type(error).__name__}: {error}"[:2000]
            NoticeRun.objects.filter(pk=owed.pk).update(mail_error=owed.mail_error)
            logger.warning("run %s: the notices' e-mail failed (try %s of %s): %s", run_id, owed.mail_attempts, MAIL_ATTEMPTS, error)
            return owed
    owed.mailed_at, owed.mail_error = timezone.now(), ""
    NoticeRun.objects.filter(pk=owed.pk).update(mailed_at=owed.mailed_at, mail_error="")
    return owed


def notices_record_once(*, run_id: int) -> NoticeRun | None:
    """Record the notices of an owed run unless they are recorded already; the NoticeRun, or None."""
    with transaction.atomic():
        owed = NoticeRun.objects.select_for_update().filter(run_id=run_id).first()
        if owed is None or owed.noticed_at is not None:
            return owed
        notices_record(run_id=run_id, system_id=owed.system_id, published=owed.published)
        owed.noticed_at = timezone.now()
        owed.save(update_fields=["noticed_at"])
    return owed


@transaction.atomic
def notices_record(*, run_id: int, system_id: int, published: list[int]) -> list[Notice]:
    """The notices a committed run gives: a changed (or new) rating of a claimed or followed coach
    to the member who claimed it and to his followers, and the newest list it published to every
    member who wants the system's notices. Each stores what it is about (members.wording words
    it when read) and whether its member wants it mailed (notices_for_run mails it)."""
    owners = dict(Coach.objects.filter(user__isnull=False).values_list("pk", "user_id"))
    followers: dict[int, set[int]] = defaultdict(set)
    for coach_id, member_id in Follow.objects.values_list("coach_id", "member_id"):
        followers[coach_id].add(member_id)
    watched = set(owners) | set(followers)
    slug, _system_name, _method = rating_selectors.system_brief(system_id=system_id)
    seen = {
        (coach, race, variant): value for coach, race, variant, value in SeenRating.objects.filter(
            system_id=system_id, coach_id__in=watched,
        ).values_list("coach_id", "race_key", "variant_id", "value")
    }
    changed = [
        (figure, seen.get(_key(figure))) for figure in rating_selectors.watched_figures(system_id=system_id, coach_ids=watched)
        if _key(figure) not in seen or abs(seen[_key(figure)] - figure.value) >= UNCHANGED
    ]
    SeenRating.objects.bulk_create(
        [SeenRating(system_id=system_id, coach_id=f.coach_id, race_key=f.race_id or 0, variant_id=f.variant_id, value=f.value)
         for f, _before in changed],
        update_conflicts=True, unique_fields=["system", "coach", "race_key", "variant_id"], update_fields=["value"],
    )
    numbers = dict(Coach.objects.filter(pk__in={f.coach_id for f, _ in changed}).values_list("pk", "number"))
    notices: list[Notice] = []
    recipients: set[int] = set()
    for figure, _before in changed:
        recipients |= followers[figure.coach_id]
        if figure.coach_id in owners:
            recipients.add(owners[figure.coach_id])
    wanting, mailed = _wanted(recipients, system_id)
    for figure, before in changed:
        owner = owners.get(figure.coach_id)
        told = [
            (owner, NoticeKind.OWN_RATING),
            *((m, NoticeKind.FOLLOWED_RATING) for m in sorted(followers[figure.coach_id]) if m != owner),
        ]
        params = {"race": figure.race if figure.race_id else "", "variant": figure.variant}
        notices += [
            Notice(
                member_id=told_id, kind=kind, system_id=system_id, coach_id=figure.coach_id, run_id=run_id, params=params,
                path=reverse("coach_detail", args=[numbers[figure.coach_id]]), before=before, after=figure.value,
                email_wanted=told_id in mailed,
            )
            for told_id, kind in told if told_id in wanting
        ]
    newest = rating_selectors.publications_brief(ids=published)[-1:] if published else []
    for brief in newest:
        members = set(User.objects.filter(is_active=True).values_list("pk", flat=True))
        list_wanting, list_mailed = _wanted(members, system_id)
        notices += [
            Notice(
                member_id=pk, kind=NoticeKind.LIST_PUBLISHED, system_id=system_id, run_id=run_id,
                params={"date": brief.date.isoformat(), "rated": brief.rated},
                path=reverse("rating_list_detail", args=[slug, (brief.date.year, brief.date.month)]),
                email_wanted=pk in list_mailed,
            )
            for pk in sorted(list_wanting)
        ]
    Notice.objects.bulk_create(notices, batch_size=1000)
    return notices


def notices_mail(*, notices: list[Notice], fail_silently: bool = True) -> int:
    """One e-mail per member with these notices of his, worded in his language (Preferences.language;
    the site's default for a member without preferences), its links to the pages in that language;
    each member's notices are marked mailed once his message went. Returns the messages sent. A mail
    server that fails is logged (raised without `fail_silently`): the notices stay on the member's
    page and in his feed, and those not mailed stay owed."""
    by_member: dict[int, list[Notice]] = defaultdict(list)
    for notice in notices:
        by_member[notice.member_id].append(notice)
    addresses = dict(User.objects.filter(pk__in=by_member, is_active=True).exclude(email="").order_by("pk").values_list("pk", "email"))
    languages = dict(Preferences.objects.filter(member_id__in=addresses).values_list("member_id", "language"))
    site = settings.SITE_URL.rstrip("/")
    sent_count = 0
    try:
        with get_connection() as connection:
            for pk, address in addresses.items():
                with translation.override(site_language(languages.get(pk))):
                    body = render_to_string("members/email/notices.txt", {"notices": by_member[pk], "site": site})
                    subject = _("Rating notices")
                connection.send_messages([EmailMessage(subject, body, None, [address])])
                Notice.objects.filter(pk__in=[n.pk for n in by_member[pk] if n.pk]).update(emailed_at=timezone.now())
                sent_count += 1
    except Exception:
        if not fail_silently:
            raise
        logger.exception("the notices of %s members could not be mailed", len(addresses) - sent_count)
    return sent_count


def notices_rename(*, coach: Coach, before: str, after: str) -> int:
    """Name `coach` as `after` in the notices about him that name him (his followers' notices name him
    as the public saw him then): the old public name stays in no member's page or feed. Answers how many."""
    if not before or before == after:
        return 0
    # a notice is worded when read, with the coach's name as it is then; only a title kept from before
    # that (members 0002's fallback) still holds the old name
    return Notice.objects.filter(coach=coach, kind=NoticeKind.FOLLOWED_RATING, fallback_title__contains=before).update(
        fallback_title=Replace("fallback_title", Value(before), Value(after)),
    )
