"""Staff pages of the record: the sanctioning queue, corrections, merges, members and the audit log
(the rating systems' settings and runs are in rating_pages.staff_views).

Each view checks its permission on the server; each change goes through a service that writes the
audit record and, where ratings change, queues the recalculation.
"""
import django_tables2 as tables
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from audit.models import AuditRecord
from audit.selectors import audit_records, audit_records_for
from ratingsite.login_limits import AccountFailures
from ratingsite.page_cache import checked_parameters, paginate_table

from . import permissions as perms
from . import privacy, selectors, services, signals
from .filters import AuditFilter, EventQueueFilter
from .forms import (
    CoachMergeForm,
    CoachPrivacyForm,
    GameCorrectionForm,
    LinkCoachForm,
    RejectForm,
    SanctionForm,
)
from .models import Coach, Event, EventStatus, Game
from .organiser_views import _duplicate_context, _error_messages, _posted

User = get_user_model()
PER_PAGE = 50
MAX_PER_PAGE = 200


def _change_lines(before, after) -> list[tuple[str, str]]:
    """An audit record's before → after as (field, change) lines, one per field that changed; the
    field is empty when the record holds a single value."""
    if isinstance(before, dict) or isinstance(after, dict):
        before_values, after_values = before if isinstance(before, dict) else {}, after if isinstance(after, dict) else {}
        keys = list(after_values) + [key for key in before_values if key not in after_values]
        lines = [
            (key, _plain(before_values[key]) + " → " + _plain(after_values.get(key))) if key in before_values
            else (key, _plain(after_values[key]))
            for key in keys
        ]
        return lines or [("", "—")]
    if before is None and after is None:
        return [("", "—")]
    return [("", f"{_plain(before)} → {_plain(after)}" if before is not None else _plain(after))]


def _plain(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key}={_plain(item)}" for key, item in value.items())
    if isinstance(value, list):
        return ", ".join(_plain(item) for item in value)
    return "—" if value is None else str(value)


class EventQueueTable(tables.Table):
    name = tables.LinkColumn("staff_event_review", args=[tables.A("pk")], verbose_name=gettext_lazy("Name"))
    organiser = tables.Column(accessor="organiser__username", verbose_name=gettext_lazy("Organiser"), default="—")
    game_count = tables.Column(verbose_name=gettext_lazy("Games"), attrs={"td": {"class": "num"}, "th": {"class": "num"}})

    class Meta:
        model = Event
        fields = ["name", "start_date", "end_date", "variant", "country", "organiser", "game_count", "status", "updated_at"]
        empty_text = gettext_lazy("No events here.")


class AuditTable(tables.Table):
    actor = tables.Column(accessor="actor__username", verbose_name=gettext_lazy("Who"), default=gettext_lazy("system"))
    at = tables.DateTimeColumn(verbose_name=gettext_lazy("When"), format="Y-m-d H:i:s")
    object_repr = tables.Column(verbose_name=gettext_lazy("Object"))
    change = tables.Column(verbose_name=gettext_lazy("Before → after"), empty_values=(), orderable=False)

    class Meta:
        model = AuditRecord
        fields = ["at", "actor", "action", "object_type", "object_id", "object_repr", "change", "note"]
        empty_text = gettext_lazy("No audit records match.")

    def render_change(self, record):
        return render_to_string("staff/_audit_change.html", {"lines": _change_lines(record.before, record.after)})


class MemberTable(tables.Table):
    username = tables.Column(verbose_name=gettext_lazy("Username"))
    coach = tables.Column(accessor="coach", verbose_name=gettext_lazy("Coach"), default="—", orderable=False)
    groups = tables.Column(empty_values=(), orderable=False, verbose_name=gettext_lazy("Roles"))
    link = tables.LinkColumn(
        "staff_member_link", args=[tables.A("pk")], text=gettext_lazy("Link coach"), empty_values=(), orderable=False, verbose_name=""
    )

    class Meta:
        model = User
        fields = ["username", "email", "coach", "groups", "last_login"]
        empty_text = gettext_lazy("No accounts match.")

    def render_groups(self, record):
        return ", ".join(group.name for group in record.groups.all()) or "—"


@perms.permission_required(perms.SANCTION_EVENTS)
@checked_parameters
def event_queue(request):
    """Submitted events by default; the status filter shows the others."""
    data = request.GET.copy()
    data.setdefault("status", EventStatus.SUBMITTED)
    event_filter = EventQueueFilter(data, queryset=selectors.event_queue())
    table = EventQueueTable(event_filter.qs)
    paginate_table(request, table, PER_PAGE, max_per_page=MAX_PER_PAGE)
    return render(request, "staff/event_queue.html", {"filter": event_filter, "table": table})


def _event(pk: int) -> Event:
    try:
        return selectors.event_get(pk=pk)
    except Event.DoesNotExist:
        raise Http404(_("There is no event with this number.")) from None


@perms.permission_required(perms.SANCTION_EVENTS)
def event_review(request, pk: int, *, sanction_form=None, reject_form=None, problems=()):
    event = _event(pk)
    duplicates = _duplicate_context(event, staff=True)
    return render(request, "staff/event_review.html", {
        "event": event, "games": selectors.event_games(event=event), "participants": selectors.event_participants(event=event),
        "awards": selectors.event_awards(event=event), "history": audit_records_for(obj=event),
        "sanction_form": sanction_form or SanctionForm(likely_duplicate=bool(duplicates["likely_duplicates"])),
        "reject_form": reject_form or RejectForm(), "problems": problems, **duplicates,
        "sanction_previews": _sanction_previews(event),
    })


def _sanction_previews(event: Event) -> list[str]:
    """What the apps downstream say sanctioning the event would change (the ratings: each system's
    impact), as the HTML fragments their receivers render: the record imports neither app."""
    if event.status in (EventStatus.SANCTIONED, EventStatus.OPEN_PLAY):
        return []
    return [html for _, html in signals.sanction_previewed.send(sender=Event, event=event) if html]


@perms.permission_required(perms.SANCTION_EVENTS)
@require_POST
def event_sanction(request, pk: int):
    event = _event(pk)
    likely = any(d.likely for d in selectors.event_likely_duplicates(event=event))
    form = SanctionForm(request.POST, likely_duplicate=likely)
    if not form.is_valid():
        return event_review(request, pk, sanction_form=form)
    try:
        services.event_sanction(
            event=event, actor=request.user, note=form.cleaned_data["note"], duplicate_reason=form.cleaned_data["duplicate_reason"],
        )
    except ValidationError as error:
        return event_review(request, pk, sanction_form=form, problems=_error_messages(error))
    messages.success(request, _("%(name)s is sanctioned. Its recalculation is queued: the rankings show it once that run finishes.")
        % {"name": event.name})
    return redirect("staff_event_runs", event.pk)  # the ratings' page of the runs it queued, and their progress


@perms.permission_required(perms.SANCTION_EVENTS)
@require_POST
def event_reject(request, pk: int):
    event = _event(pk)
    form = RejectForm(request.POST)
    if not form.is_valid():
        return event_review(request, pk, reject_form=form)
    try:
        services.event_reject(event=event, actor=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as error:
        return event_review(request, pk, reject_form=form, problems=_error_messages(error))
    messages.success(request, _("%(name)s is rejected; the organiser sees your reason.") % {"name": event.name})
    return redirect("staff_event_queue")


@perms.permission_required(perms.CORRECT_RESULTS)
@require_http_methods(["GET", "POST"])
def event_correct(request, pk: int):
    """One form per game; saving one corrects that game (and recalculates, for a sanctioned event)."""
    event = _event(pk)
    games = list(selectors.event_games(event=event))
    bound, problems = None, []
    if request.method == "POST":
        bound = GameCorrectionForm(request.POST)
        if bound.is_valid():
            try:
                game = selectors.game_get(event=event, pk=bound.cleaned_data["game"])
            except Game.DoesNotExist:
                raise Http404(_("There is no game with this number in this event.")) from None
            try:
                services.game_correct(game=game, actor=request.user, note=bound.cleaned_data["note"], **bound.changes())
            except ValidationError as error:
                problems = _error_messages(error)
            else:
                if event.status == EventStatus.SANCTIONED:
                    corrected = _("Game %(number)s corrected; the ratings are recalculated from its date.")
                else:
                    corrected = _("Game %(number)s corrected.")
                messages.success(request, corrected % {"number": game.pk})
                return redirect("staff_event_correct", event.pk)
    rows = []
    for game in games:
        if bound is not None and str(game.pk) == str(request.POST.get("game")):
            form = bound
        else:
            form = GameCorrectionForm(initial={
                "game": game.pk, "home_touchdowns": game.home_touchdowns, "away_touchdowns": game.away_touchdowns,
                "home_casualties": game.home_casualties, "away_casualties": game.away_casualties,
                "conceded_by": game.conceded_by or "", "kind": game.kind,
            })
        # A form cannot span a table row: every input names the row's form instead.
        form.auto_id = f"g{game.pk}_%s"
        for field in form.fields.values():
            field.widget.attrs.update({"form": f"correct-{game.pk}", "aria-label": f"{field.label}, game {game.pk}"})
        rows.append((game, form))
    return render(request, "staff/event_correct.html", {"event": event, "rows": rows, "problems": problems})


@perms.permission_required(perms.MERGE_COACHES)
@require_http_methods(["GET", "POST"])
def coach_merge(request):
    """Two steps: name the coaches and see what moves, or why the merge would be refused; confirm to merge."""
    form = CoachMergeForm(_posted(request))
    preview, refused = None, []
    if request.method == "POST" and form.is_valid():
        keep, duplicate = form.cleaned_data["keep_coach"], form.cleaned_data["duplicate_coach"]
        refused = services.coach_merge_problems(keep=keep, duplicate=duplicate)  # the service's own checks, said up front
        for problem in refused:
            form.add_error(None, problem)
        if request.POST.get("confirm") == "yes" and not refused:
            try:
                services.coach_merge(keep=keep, duplicate=duplicate, actor=request.user)
            except ValidationError as error:  # something changed since the preview
                form.add_error(None, error)
                refused = error.messages
            else:
                messages.success(request, _("Coach %(number)s is merged into %(kept)s. The recalculation is queued.")
                    % {"number": duplicate.number, "kept": keep})
                return redirect("staff_coach_merge")
        preview = []
        for label, coach in ((_("Keep"), keep), (_("Fold in and delete"), duplicate)):
            counts = selectors.coach_counts(coach=coach)
            preview.append((label, coach, counts["games"], counts["participations"], counts["awards"]))
    return render(request, "staff/coach_merge.html", {"form": form, "preview": preview, "refused": refused})


@perms.permission_required(perms.LINK_ACCOUNTS, "auth.view_user")
@checked_parameters
def member_list(request):
    query = request.GET.get("q", "").strip()
    table = MemberTable(selectors.member_list(query=query))
    paginate_table(request, table, PER_PAGE, max_per_page=MAX_PER_PAGE)
    return render(request, "staff/member_list.html", {"table": table, "q": query})


@perms.permission_required(perms.LINK_ACCOUNTS, "auth.view_user")
@require_http_methods(["GET", "POST"])
def member_link(request, pk: int):
    try:
        member = selectors.member_get(pk=pk)
    except User.DoesNotExist:
        raise Http404(_("There is no account with this number.")) from None
    current = getattr(member, "coach", None)
    form = LinkCoachForm(_posted(request), initial={"coach": current.number if current else None})
    if request.method == "POST" and form.is_valid():
        try:
            services.user_link_coach(user=member, coach=form.cleaned_data["coach"], actor=request.user)
        except ValidationError as error:
            form.add_error("coach", error)
        else:
            coach = form.cleaned_data["coach"]
            messages.success(
                request,
                (_("%(username)s is linked to %(coach)s.") if coach else _("%(username)s is no longer linked to a coach."))
                % {"username": member.get_username(), "coach": coach},
            )
            return redirect("staff_member_list")
    failures = AccountFailures(member.get_username())
    return render(request, "staff/member_link.html", {
        "member": member, "current": current, "form": form,
        "failed_logins": failures.count, "locked": failures.locked,
    })


@perms.permission_required(perms.LINK_ACCOUNTS, "auth.view_user")
@require_POST
def member_unlock(request, pk: int):
    try:
        member = selectors.member_get(pk=pk)
    except User.DoesNotExist:
        raise Http404(_("There is no account with this number.")) from None
    services.user_unlock(user=member, actor=request.user)
    messages.success(request, _("%(username)s can log in again from every address; the limits per address stay.")
        % {"username": member.get_username()})
    return redirect("staff_member_link", pk=member.pk)


def _coach(number: int) -> Coach:
    try:
        return selectors.coach_get(number=number)
    except Coach.DoesNotExist:
        raise Http404(_("There is no coach with this federation number.")) from None


@perms.permission_required(perms.MANAGE_PRIVACY)
@require_http_methods(["GET", "POST"])
def coach_privacy(request, number: int):
    """A coach's privacy on his behalf: what the public sees of him, his erasure asked for or
    cancelled, and the copy of his data. Each change goes through tournaments.privacy (audited)."""
    coach = _coach(number)
    action = request.POST.get("action", "privacy") if request.method == "POST" else None
    form = CoachPrivacyForm(request.POST if action == "privacy" else None,
                            initial={"visibility": coach.visibility, "pseudonym": coach.pseudonym})
    try:
        if action == "privacy" and form.is_valid():
            privacy.coach_privacy_set(coach=coach, visibility=form.cleaned_data["visibility"],
                                      pseudonym=form.cleaned_data["pseudonym"], actor=request.user)
            messages.success(request, _("Coach %(number)s is now shown to the public as “%(name)s”.") % {
                "number": coach.number, "name": Coach.objects.get(pk=coach.pk).public_name,
            })
            return redirect("staff_coach_privacy", number=coach.number)
        if action == "request_erasure":
            coach = privacy.coach_erasure_request(coach=coach, actor=request.user)
            messages.success(request, _("Coach %(number)s will be erased on %(day)s, unless cancelled.") % {
                "number": coach.number, "day": f"{privacy.erasure_due_at(coach):%Y-%m-%d}",
            })
            return redirect("staff_coach_privacy", number=coach.number)
        if action == "cancel_erasure":
            privacy.coach_erasure_cancel(coach=coach, actor=request.user, note="cancelled by the staff")
            messages.success(request, _("The erasure of coach %(number)s is cancelled.") % {"number": coach.number})
            return redirect("staff_coach_privacy", number=coach.number)
    except ValidationError as error:
        form.add_error(None, error)
    due = privacy.erasure_due_at(coach) if coach.erasure_requested_at else None
    return render(request, "staff/coach_privacy.html", {
        "coach": coach, "form": form, "erasure_due": due, "grace_days": privacy.ERASURE_GRACE.days,
    })


@perms.permission_required(perms.MANAGE_PRIVACY)
@require_http_methods(["GET"])
def coach_data(request, number: int):
    """Everything held about the coach, as a JSON download (the export is on record)."""
    coach = _coach(number)
    data = privacy.coach_data_export(coach=coach, actor=request.user)
    response = JsonResponse(data, json_dumps_params={"indent": 2, "ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="coach-{coach.number}-data.json"'
    return response


@perms.permission_required(perms.READ_AUDIT)
@checked_parameters
def audit_log(request):
    audit_filter = AuditFilter(request.GET, queryset=audit_records())
    table = AuditTable(audit_filter.qs)
    paginate_table(request, table, PER_PAGE, max_per_page=MAX_PER_PAGE)
    return render(request, "staff/audit_log.html", {"filter": audit_filter, "table": table})
