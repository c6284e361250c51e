"""Staff pages of the record: the sanctioning queue, corrections, merges, members and the audit log
(the rating systems' settings and runs are in ratings.staff_views).

Each view checks its permission on the server; each change goes through a service that writes the
audit record and, where ratings change, queues the recalculation.
"""
import django_tables2 as tables
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_http_methods, require_POST
from django_tables2 import RequestConfig

from audit.models import AuditRecord

from . import permissions as perms
from . import services
from .filters import AuditFilter, EventQueueFilter
from .forms import (
    CoachMergeForm,
    GameCorrectionForm,
    LinkCoachForm,
    RejectForm,
    SanctionForm,
)
from .models import Event, EventStatus, Game, GameSide
from .organiser_views import _error_messages, _posted

User = get_user_model()
PER_PAGE = 50


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
    name = tables.LinkColumn("staff_event_review", args=[tables.A("pk")])
    organiser = tables.Column(accessor="organiser__username", verbose_name="Organiser", default="—")
    game_count = tables.Column(verbose_name="Games", attrs={"td": {"class": "num"}, "th": {"class": "num"}})

    class Meta:
        model = Event
        fields = ["name", "start_date", "end_date", "variant", "country", "organiser", "game_count", "status", "updated_at"]
        empty_text = "No events here."


class AuditTable(tables.Table):
    actor = tables.Column(accessor="actor__username", verbose_name="Who", default="system")
    at = tables.DateTimeColumn(verbose_name="When", format="Y-m-d H:i:s")
    object_repr = tables.Column(verbose_name="Object")
    change = tables.Column(verbose_name="Before → after", empty_values=(), orderable=False)

    class Meta:
        model = AuditRecord
        fields = ["at", "actor", "action", "object_type", "object_id", "object_repr", "change", "note"]
        empty_text = "No audit records match."

    def render_change(self, record):
        return render_to_string("staff/_audit_change.html", {"lines": _change_lines(record.before, record.after)})


class MemberTable(tables.Table):
    username = tables.Column()
    coach = tables.Column(accessor="coach", verbose_name="Coach", default="—", orderable=False)
    groups = tables.Column(empty_values=(), orderable=False, verbose_name="Roles")
    link = tables.LinkColumn(
        "staff_member_link", args=[tables.A("pk")], text="Link coach", empty_values=(), orderable=False, verbose_name=""
    )

    class Meta:
        model = User
        fields = ["username", "email", "coach", "groups", "last_login"]
        empty_text = "No accounts match."

    def render_groups(self, record):
        return ", ".join(group.name for group in record.groups.all()) or "—"


@perms.permission_required(perms.SANCTION_EVENTS)
def event_queue(request):
    """Submitted events by default; the status filter shows the others."""
    data = request.GET.copy()
    data.setdefault("status", EventStatus.SUBMITTED)
    events = Event.objects.select_related("variant", "organiser").annotate(game_count=Count("games")).order_by("start_date", "name")
    event_filter = EventQueueFilter(data, queryset=events)
    table = EventQueueTable(event_filter.qs)
    RequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    return render(request, "staff/event_queue.html", {"filter": event_filter, "table": table})


def _event_audit(event: Event):
    return AuditRecord.objects.filter(object_type="event", object_id=str(event.pk)).select_related("actor")


@perms.permission_required(perms.SANCTION_EVENTS)
def event_review(request, pk: int, *, sanction_form=None, reject_form=None, problems=()):
    event = get_object_or_404(Event.objects.select_related("variant", "organiser"), pk=pk)
    games = event.games.select_related("round", "home_coach", "away_coach", "home_race", "away_race").order_by("round__number", "id")
    return render(request, "staff/event_review.html", {
        "event": event, "games": games, "participants": event.participants.select_related("coach", "race"),
        "awards": event.awards.select_related("coach", "race"), "history": _event_audit(event),
        "sanction_form": sanction_form or SanctionForm(), "reject_form": reject_form or RejectForm(),
        "problems": problems,
    })


@perms.permission_required(perms.SANCTION_EVENTS)
@require_POST
def event_sanction(request, pk: int):
    event = get_object_or_404(Event, pk=pk)
    form = SanctionForm(request.POST)
    if not form.is_valid():
        return event_review(request, pk, sanction_form=form)
    try:
        services.event_sanction(event=event, actor=request.user, note=form.cleaned_data["note"])
    except ValidationError as error:
        return event_review(request, pk, sanction_form=form, problems=_error_messages(error))
    messages.success(request, f"{event.name} is sanctioned; the ratings are recalculated from its date.")
    return redirect("staff_event_queue")


@perms.permission_required(perms.SANCTION_EVENTS)
@require_POST
def event_reject(request, pk: int):
    event = get_object_or_404(Event, pk=pk)
    form = RejectForm(request.POST)
    if not form.is_valid():
        return event_review(request, pk, reject_form=form)
    try:
        services.event_reject(event=event, actor=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as error:
        return event_review(request, pk, reject_form=form, problems=_error_messages(error))
    messages.success(request, f"{event.name} is rejected; the organiser sees your reason.")
    return redirect("staff_event_queue")


@perms.permission_required(perms.CORRECT_RESULTS)
@require_http_methods(["GET", "POST"])
def event_correct(request, pk: int):
    """One form per game; saving one corrects that game (and recalculates, for a sanctioned event)."""
    event = get_object_or_404(Event.objects.select_related("variant"), pk=pk)
    games = list(event.games.select_related("round", "home_coach", "away_coach", "home_race", "away_race").order_by("round__number", "id"))
    bound, problems = None, []
    if request.method == "POST":
        bound = GameCorrectionForm(request.POST)
        if bound.is_valid():
            game = get_object_or_404(Game, pk=bound.cleaned_data["game"], event=event)
            try:
                services.game_correct(game=game, actor=request.user, note=bound.cleaned_data["note"], **bound.changes())
            except ValidationError as error:
                problems = _error_messages(error)
            else:
                messages.success(request, f"Game {game.pk} corrected" + (
                    "; the ratings are recalculated from its date." if event.status == EventStatus.SANCTIONED else "."))
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
    """Two steps: name the coaches and see what moves; confirm to merge."""
    form = CoachMergeForm(_posted(request))
    preview = None
    if request.method == "POST" and form.is_valid():
        keep, duplicate = form.cleaned_data["keep_coach"], form.cleaned_data["duplicate_coach"]
        if request.POST.get("confirm") == "yes":
            try:
                services.coach_merge(keep=keep, duplicate=duplicate, actor=request.user)
            except ValidationError as error:
                form.add_error(None, error)
            else:
                messages.success(request, f"Coach {duplicate.number} is merged into {keep}; the ratings are recalculated.")
                return redirect("staff_coach_merge")
        preview = [
            (label, coach, GameSide.objects.filter(coach=coach).count(), coach.participations.count(), coach.awards.count())
            for label, coach in (("Keep", keep), ("Fold in and delete", duplicate))
        ]
    return render(request, "staff/coach_merge.html", {"form": form, "preview": preview})


@perms.permission_required(perms.LINK_ACCOUNTS, "auth.view_user")
def member_list(request):
    query = request.GET.get("q", "").strip()
    users = User.objects.select_related("coach").prefetch_related("groups").order_by("username")
    if query:
        users = users.filter(Q(username__icontains=query) | Q(email__icontains=query) | Q(coach__name__icontains=query))
    table = MemberTable(users)
    RequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    return render(request, "staff/member_list.html", {"table": table, "q": query})


@perms.permission_required(perms.LINK_ACCOUNTS, "auth.view_user")
@require_http_methods(["GET", "POST"])
def member_link(request, pk: int):
    member = get_object_or_404(User.objects.select_related("coach"), pk=pk)
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
                f"{member.get_username()} is linked to {coach}." if coach else f"{member.get_username()} is no longer linked to a coach.",
            )
            return redirect("staff_member_list")
    return render(request, "staff/member_link.html", {"member": member, "current": current, "form": form})


@perms.permission_required(perms.READ_AUDIT)
def audit_log(request):
    audit_filter = AuditFilter(request.GET, queryset=AuditRecord.objects.select_related("actor"))
    table = AuditTable(audit_filter.qs)
    RequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    return render(request, "staff/audit_log.html", {"filter": audit_filter, "table": table})
