"""Staff pages of the ratings: the staff home, rating-system settings and recalculation runs.

Each view checks its permission on the server; each change goes through a service that writes the
audit record and queues the recalculation.
"""
import datetime as dt
import json

import django_tables2 as tables
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from rating_pages.filters import RunFilter
from rating_pages.staff_forms import RatingSystemForm
from ratings import selectors
from ratings.choices import RunStatus
from ratings.models import RatingSystem, RecalculationRun
from ratings.services import list_republish as republish
from ratings.services import rating_system_update, recalculation_cancel, recalculation_rerun
from ratingsite.page_cache import checked_parameters, paginate_table
from tournaments import permissions as perms
from tournaments import selectors as record_selectors
from tournaments.models import Event
from tournaments.organiser_views import _posted

PER_PAGE = 50
MAX_PER_PAGE = 200
# how often a page of unfinished runs reloads itself (a meta refresh: no JavaScript)
REFRESH_SECONDS = 3
UNFINISHED = (RunStatus.QUEUED, RunStatus.RUNNING)


class RunTable(tables.Table):
    id = tables.LinkColumn("staff_run_detail", args=[tables.A("pk")], verbose_name="Run")
    requested_by = tables.Column(accessor="requested_by__username", default="system")
    status = tables.TemplateColumn(template_name="_status.html")

    class Meta:
        model = RecalculationRun
        fields = ["id", "system", "trigger", "reason", "requested_by", "from_date", "status", "games_processed",
                  "duration", "created_at"]
        empty_text = gettext_lazy("No recalculation runs yet.")

    def render_duration(self, value):
        return f"{value:.1f} s"


def _system(pk: int) -> RatingSystem:
    try:
        return selectors.rating_system_get(pk=pk)
    except RatingSystem.DoesNotExist:
        raise Http404("There is no rating system with this number.") from None


def _run(pk: int) -> RecalculationRun:
    try:
        return selectors.run_get(pk=pk)
    except RecalculationRun.DoesNotExist:
        raise Http404("There is no recalculation run with this number.") from None


@perms.permission_required(perms.SANCTION_EVENTS)
def index(request):
    return render(request, "staff/index.html", {
        "submitted": selectors.submitted_event_count(),
        "runs": selectors.recent_runs(limit=5),
    })


@perms.permission_required(perms.CONFIGURE_SYSTEMS)
def system_list(request):
    return render(request, "staff/system_list.html", {"systems": selectors.staff_systems()})


@perms.permission_required(perms.CONFIGURE_SYSTEMS)
@require_http_methods(["GET", "POST"])
def system_edit(request, pk: int):
    """One field per parameter, each checked by the engine's configuration, its message on its field."""
    system = _system(pk)
    form = RatingSystemForm.for_system(system, _posted(request))
    if request.method == "POST" and form.is_valid():
        try:
            rating_system_update(system=selectors.rating_system_get(pk=pk), actor=request.user, **form.changes())
        except ValidationError as error:
            if hasattr(error, "error_dict"):
                for field, errors in error.error_dict.items():
                    form.add_error(field if field in form.fields else None, errors)
            else:
                form.add_error(None, error)
        else:
            messages.success(request, gettext("%(system)s is saved; it is recalculated from the first game.") % {"system": system.name})
            return redirect("staff_system_list")
    return render(request, "staff/system_form.html", {
        "system": system, "form": form, "parameter_names": list(form.parameter_fields),
        "stored_parameters": json.dumps(system.parameters, indent=2, ensure_ascii=False, sort_keys=True),
    })


@perms.permission_required(perms.READ_RUNS)
@checked_parameters
def run_list(request):
    run_filter = RunFilter(request.GET, queryset=selectors.run_list())
    table = RunTable(run_filter.qs)
    paginate_table(request, table, PER_PAGE, max_per_page=MAX_PER_PAGE)
    return render(request, "staff/run_list.html", {"filter": run_filter, "table": table})


@perms.permission_required(perms.READ_RUNS)
def run_detail(request, pk: int):
    run = _run(pk)
    can_rerun = request.user.has_perm(perms.RERUN)
    return render(request, "staff/run_detail.html", {
        "run": run, "can_rerun": can_rerun, "can_cancel": can_rerun and run.status == RunStatus.QUEUED,
        "retries": run.retries.order_by("pk"),
        "refresh": REFRESH_SECONDS if run.status in UNFINISHED else None,
    })


@perms.permission_required(perms.SANCTION_EVENTS, perms.READ_RUNS)
def event_runs(request, pk: int):
    """The runs an event's sanction queued and how far each has gone, reloading until all have finished."""
    try:
        event = record_selectors.event_get(pk=pk)
    except Event.DoesNotExist:
        raise Http404("There is no event with this number.") from None
    runs = selectors.sanction_runs(event=event)
    now = timezone.now()
    for run in runs:
        run.elapsed = (now - run.started_at).total_seconds() if run.status == RunStatus.RUNNING and run.started_at else None
    unfinished = [run for run in runs if run.status in UNFINISHED]
    return render(request, "staff/event_runs.html", {
        "event": event, "runs": runs, "unfinished": len(unfinished),
        "failed": [run for run in runs if run.status == RunStatus.FAILED],
        "refresh": REFRESH_SECONDS if unfinished else None,
    })


@perms.permission_required(perms.READ_RUNS, perms.RERUN)
@require_POST
def run_rerun(request, pk: int):
    run = _run(pk)
    rerun = recalculation_rerun(run=run, actor=request.user)
    if run.from_date:
        messages.success(request, gettext("Run %(run)s is queued: %(system)s from %(day)s.")
                         % {"run": rerun.pk, "system": run.system.name, "day": run.from_date})
    else:
        messages.success(request, gettext("Run %(run)s is queued: %(system)s from the first game.")
                         % {"run": rerun.pk, "system": run.system.name})
    return redirect("staff_run_detail", rerun.pk)


@perms.permission_required(perms.READ_RUNS, perms.RERUN)
@require_POST
def run_cancel(request, pk: int):
    """Cancel a queued run (one stuck behind a lost one, say); a rerun queues it again."""
    run = _run(pk)
    try:
        recalculation_cancel(run=run, actor=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, gettext("Run %(run)s is cancelled: it will not run.") % {"run": run.pk})
    return redirect("staff_run_detail", run.pk)


@perms.permission_required(perms.CONFIGURE_SYSTEMS)
@require_POST
def list_republish(request, system: str, month: tuple[int, int]):
    """Publish a monthly list again, as computed now, with the reason: a new edition; the earlier stay readable."""
    rating_system = selectors.public_system_get(system)
    if rating_system is None:
        raise Http404(f"There is no rating system “{system}”.")
    try:
        edition = int(request.POST.get("edition", ""))
    except ValueError:
        messages.error(request, gettext(
            "Reload the page of the list and publish again from there: the form did not say which edition it follows."
        ))
        return redirect("rating_list_detail", rating_system.slug, month)
    try:
        publication = republish(
            system=rating_system, date=dt.date(*month, 1), actor=request.user, reason=request.POST.get("reason", "")[:1000],
            edition=edition,
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("rating_list_detail", rating_system.slug, month)
    messages.success(request, gettext("%(publication)s is on record; edition %(edition)s stays readable at its own address.")
                     % {"publication": publication, "edition": publication.edition - 1})
    return redirect("rating_list_detail", rating_system.slug, month)
