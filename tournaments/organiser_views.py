"""Organiser pages: enter and edit one's own events, upload results, submit them for sanctioning.

Each view checks the role on the server and finds the event among the ones the user may open
(his own; staff: any), so another organiser's event is a 404. Writes go through the services.
"""
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from audit.selectors import last_rejection
from ratingsite.csv_export import csv_download

from . import selectors, services
from .forms import MORE_GAME_ROWS, CoachForm, ConfirmForm, EventEntry, EventForm, NewCoachFormSet, UploadForm, with_more_game_rows
from .importers.naf_report import is_naf_report, parse_naf_report
from .models import Event
from .permissions import CREATE_COACHES, ENTER_EVENTS, permission_required
from .uploads import COLUMN_NAMES, COLUMNS, MAX_UPLOAD_GAMES, Upload, parse_results, race_lookup


def _event(request, pk: int) -> Event:
    try:
        return selectors.organiser_event_get(user=request.user, pk=pk)
    except Event.DoesNotExist:
        raise Http404("There is no event with this number among yours.") from None


def _posted(request):
    """The POST data of a POST (even an empty one, which must still be validated), else None."""
    return request.POST if request.method == "POST" else None


def _error_messages(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [message for messages_ in error.message_dict.values() for message in messages_]
    return error.messages


@permission_required(ENTER_EVENTS)
def event_list(request):
    page = Paginator(selectors.organiser_events(organiser=request.user), 50).get_page(request.GET.get("page"))
    return render(request, "organiser/event_list.html", {"page": page})


@permission_required(ENTER_EVENTS)
@require_http_methods(["GET", "POST"])
def event_new(request):
    form = EventForm(_posted(request), prefix="event")
    if request.method == "POST" and form.is_valid():
        try:
            event = services.event_create(actor=request.user, **form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, _("%(name)s is saved as a draft. Enter its participants, rounds and games, or upload them.")
                % {"name": event.name})
            return redirect("organiser_event_edit", event.pk)
    return render(request, "organiser/event_new.html", {"form": form})


@permission_required(ENTER_EVENTS)
def event_detail(request, pk: int):
    event = _event(request, pk)
    return render(request, "organiser/event_detail.html", {
        "event": event, "games": selectors.event_games(event=event),
        "rejection": last_rejection(event=event) if event.status == "rejected" else None,
        "participants": selectors.event_participants(event=event),
        "awards": selectors.event_awards(event=event),
        "editable": event.status in services.EDITABLE_STATUSES,
        **_duplicate_context(event),
    })


def _not_editable(request, event: Event):
    messages.error(request, _("%(name)s is %(status)s: only a draft or a rejected event can be changed.") % {
        "name": event.name, "status": event.get_status_display().lower()})
    return redirect("organiser_event_detail", event.pk)


def _round_of_page(request) -> int | None:
    """The round whose games the edit page shows (?round=N); None: the event and its participants."""
    raw = request.GET.get("round")
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise Http404("There is no such round.") from None


def _edit_url(event: Event, round_number: int | None) -> str:
    url = reverse("organiser_event_edit", args=[event.pk])
    return url if round_number is None else f"{url}?round={round_number}"


def _destination(event: Event, entry: EventEntry, go: str) -> str | None:
    """The part of the edit page a "go" button asks for: "event", "round-N", or "games" (the first round)."""
    numbers = sorted(r.number for r in entry.entries()["rounds"])
    if go == "event":
        return _edit_url(event, None)
    if go == "games":
        return _edit_url(event, numbers[0]) if numbers else None
    number = go.removeprefix("round-")
    if number.isdigit() and int(number) in numbers:
        return _edit_url(event, int(number))
    return None


@permission_required(ENTER_EVENTS)
@require_http_methods(["GET", "POST"])
def event_edit(request, pk: int):
    """The entry page, in parts: the event with its participants, rounds and awards; then each round's
    games (?round=N). Each part saves on its own, with the other parts as saved; moving to another
    part is a button that saves this one first, so nothing typed is lost on the way."""
    event = _event(request, pk)
    if event.status not in services.EDITABLE_STATUSES:
        return _not_editable(request, event)
    round_number = _round_of_page(request)
    action = request.POST.get("action") if request.method == "POST" else None
    more_rows = action == "more_games"
    data = with_more_game_rows(request.POST, round_number=round_number) if more_rows else _posted(request)
    entry = EventEntry(data, event=selectors.event_get(pk=event.pk), round_number=round_number)
    if round_number is not None and round_number not in {r["number"] for r in entry.rounds_saved()}:
        messages.error(request, _("%(name)s has no round %(number)s yet: add it to the rounds, then enter its games.") % {
            "name": event.name, "number": round_number})
        return redirect("organiser_event_edit", event.pk)
    problems: list[str] = []
    if action == "create_coaches":
        created = _create_coaches(request)
        if created:
            messages.success(request, ngettext(
                "Created %(count)s coach: check the page and save it.", "Created %(count)s coaches: check the page and save it.", created,
            ) % {"count": created})
        entry.is_valid()
    elif request.method == "POST" and not more_rows and entry.is_valid():
        go = request.POST.get("go", "")
        changed = entry.changed()
        if changed:
            try:
                services.event_update(event=event, actor=request.user, **entry.entries())
            except ValidationError as error:
                problems = _error_messages(error)
        if not problems:
            if go:
                destination = _destination(event, entry, go)
                if destination is None:
                    messages.warning(request, _("Add a round to the list of rounds first: its games are entered on its own page."))
                if changed:
                    messages.success(request, _("Saved."))
                return redirect(destination or _edit_url(event, None))
            messages.success(request, _("The event is saved."))
            for overlap in selectors.overlapping_entries(event=event):
                messages.warning(request, _overlap_warning(overlap))
            return redirect("organiser_event_detail", event.pk)
    summary = entry.error_summary()
    elsewhere = [(_edit_url(event, part), message) for part, message in entry.elsewhere_summary()]
    return render(request, "organiser/event_edit.html", {
        "event": event, "entry": entry, "problems": problems, "edit_url": request.get_full_path(),
        "summary": summary, "elsewhere": elsewhere, "problem_count": len(summary) + len(elsewhere) + len(problems),
        "more_rows": MORE_GAME_ROWS, "round_number": round_number, "rounds": entry.rounds_saved(),
        "games_legend": _("Games of round %(round)s") % {"round": round_number} if round_number is not None else _("Games"),
        "coach_choices": selectors.event_coach_choices(event=event),
        "new_coaches": NewCoachFormSet(prefix="coaches", initial=[{"number": n, "create": True} for n in entry.unknown_numbers])
        if entry.unknown_numbers and request.user.has_perm(CREATE_COACHES) else None,
        "overlaps": [] if round_number is not None else [
            _overlap_warning(o) for o in selectors.overlapping_entries(event=event, numbers=entry.participant_numbers())
        ],
    })


def _duplicate_context(event: Event, *, entries=None, staff: bool = False) -> dict:
    """The likely duplicates of the event (or of an upload's `entries`) and the events only a few of
    its coaches are in at the same time, as its pages show them; an organiser sees only the events
    he may open (public ones, his own)."""
    found = selectors.event_likely_duplicates(event=event, entries=entries, seen_by_organiser=not staff)
    return {"likely_duplicates": [d for d in found if d.likely], "overlapping_events": [d for d in found if not d.likely],
            "staff_links": staff}


def _overlap_warning(overlap: dict) -> str:
    return _("%(name)s (%(number)s) is also entered in %(event)s, %(start)s to %(end)s: the dates overlap.") % {
        "name": overlap["name"], "number": overlap["number"], "event": overlap["event"],
        "start": f"{overlap['start']:%Y-%m-%d}", "end": f"{overlap['end']:%Y-%m-%d}",
    }


def _session_key(event: Event) -> str:
    return f"results-upload-{event.pk}"


# Games per page of an upload's preview, and problems listed at most: a whole World Cup on one page
# is megabytes of HTML.
PREVIEW_PER_PAGE = 200
PROBLEMS_SHOWN = 200


def _parse(event: Event, data: bytes) -> Upload:
    """The upload's verdict: a NAF report (XML) as tournament programs export it, else the CSV."""
    races, find_coaches = race_lookup(selectors.race_refs()), lambda numbers: selectors.coach_numbers_known(numbers=numbers)
    if is_naf_report(data):
        return parse_naf_report(
            data, races=races, start=event.start_date, end=event.end_date, find_coaches=find_coaches,
            find_names=lambda names: selectors.coach_numbers_named(names=names),
        )
    return parse_results(data, races=races, start=event.start_date, end=event.end_date, find_coaches=find_coaches)


def _preview(upload: Upload, page_number) -> tuple[list[dict], object]:
    """One page of the upload's games in round order, with the names of their coaches and races."""
    page = Paginator(sorted(upload.games, key=lambda g: (g.round, g.line)), PREVIEW_PER_PAGE).get_page(page_number)
    coaches = selectors.coach_names(numbers={n for g in page for _, n, _ in g.coaches()})
    races = selectors.race_names()
    rows = [
        {"game": game, "home_name": coaches.get(game.home_coach, ""), "away_name": coaches.get(game.away_coach, ""),
         "home_race": races.get(game.home_race, game.home_race), "away_race": races.get(game.away_race, "")}
        for game in page
    ]
    return rows, page


def _upload_page(request, event: Event, *, form=None, upload: Upload | None = None, staged=None, problems=()):
    context = {
        "event": event, "form": form or UploadForm(), "columns": COLUMNS, "upload": upload,
        "file_name": staged.name if staged else "", "problems": problems, "example": ",".join(c.example for c in COLUMNS),
        "header": ",".join(COLUMN_NAMES), "replaced": selectors.event_game_count(event=event),
        "max_games": MAX_UPLOAD_GAMES, "problems_shown": PROBLEMS_SHOWN,
    }
    if upload is not None:
        context["more_problems"] = max(0, len(upload.errors) - PROBLEMS_SHOWN)
        if upload.unknown_coaches:
            context["new_coaches"] = NewCoachFormSet(
                prefix="coaches", initial=[{"number": n, "name": name, "create": True} for n, name in upload.unknown_coaches.items()]
            )
        if upload.is_valid:
            context["confirm"] = ConfirmForm(initial={"digest": staged.digest})
            context["preview"], context["preview_page"] = _preview(upload, request.GET.get("page"))
            context["preview_count"] = len(upload.games)
            context["rounds"] = len({g.round for g in upload.games})
            context.update(_duplicate_context(event, entries=upload.games))
    return render(request, "organiser/event_upload.html", context, status=200)


def _staged(request, event: Event):
    """The upload this user checked for the event and has not saved yet (None: there is none)."""
    digest = (request.session.get(_session_key(event)) or {}).get("digest")
    return selectors.results_upload_staged(event=event, user=request.user, digest=digest) if digest else None


@permission_required(ENTER_EVENTS)
@require_http_methods(["GET", "POST"])
def event_upload(request, pk: int):
    """Upload, check, preview (page by page), confirm: nothing is saved until the whole file is valid
    and confirmed. The file waits in the database meanwhile; the session holds its digest only."""
    event = _event(request, pk)
    if event.status not in services.EDITABLE_STATUSES:
        return _not_editable(request, event)
    key = _session_key(event)
    if request.method == "GET":
        staged = _staged(request, event)
        upload = _parse(event, bytes(staged.data)) if staged else None
        return _upload_page(request, event, upload=upload, staged=staged)
    action = request.POST.get("action", "check")
    if action == "check":
        form = UploadForm(request.POST, request.FILES)
        if not form.is_valid():
            return _upload_page(request, event, form=form)
        file = form.cleaned_data["file"]
        data = file.read()
        staged = services.results_upload_stage(event=event, actor=request.user, name=file.name, data=data)
        request.session[key] = {"digest": staged.digest}  # the name is the staged upload's
        return _upload_page(request, event, upload=_parse(event, data), staged=staged)
    staged = _staged(request, event)
    if staged is None:
        messages.error(request, _("Upload the file again: the checked upload is no longer there."))
        return redirect("organiser_event_upload", event.pk)
    if action == "create_coaches":
        created = _create_coaches(request)
        if created:
            messages.success(request, ngettext("Created %(count)s coach.", "Created %(count)s coaches.", created) % {"count": created})
        return _upload_page(request, event, upload=_parse(event, bytes(staged.data)), staged=staged)
    if action == "confirm":
        form = ConfirmForm(request.POST)
        if not form.is_valid() or form.cleaned_data["digest"] != staged.digest:
            messages.error(request, _("The results changed since the preview: check them again."))
            return redirect("organiser_event_upload", event.pk)
        upload = _parse(event, bytes(staged.data))
        if not upload.is_valid:
            return _upload_page(request, event, upload=upload, staged=staged)
        try:
            services.results_upload(event=event, actor=request.user, games=upload.games, file_name=staged.name)
        except ValidationError as error:
            return _upload_page(request, event, upload=upload, staged=staged, problems=_error_messages(error))
        del request.session[key]
        messages.success(request, _("Saved %(games)s games from %(file)s.") % {"games": len(upload.games), "file": staged.name})
        return redirect("organiser_event_detail", event.pk)
    return redirect("organiser_event_upload", event.pk)


def _create_coaches(request) -> int:
    if not request.user.has_perm(CREATE_COACHES):
        messages.error(request, _("Your account cannot create coaches."))
        return 0
    formset = NewCoachFormSet(request.POST, prefix="coaches")
    if not formset.is_valid():
        messages.error(request, _("Give every new coach a name."))
        return 0
    created = 0
    for form in formset:
        data = form.cleaned_data
        if not data or not data.get("create"):
            continue
        try:
            services.coach_create(actor=request.user, number=data["number"], name=data["name"])
        except ValidationError as error:
            messages.error(request, _("Coach %(number)s: %(problems)s")
                % {"number": data["number"], "problems": " ".join(_error_messages(error))})
        else:
            created += 1
    return created


@permission_required(ENTER_EVENTS)
def event_upload_template(request, pk: int):
    """The upload's header, followed by the games already entered (so a download can be edited and sent back)."""
    event = _event(request, pk)
    rows = ([value for value in (
        game.round.number, game.round.date.isoformat(),
        game.round.start_time.strftime("%H:%M") if game.round.start_time else "",
        game.home_coach.number, game.home_coach.name, game.home_race.name, game.home_touchdowns, game.away_touchdowns,
        game.away_coach.number if game.away_coach_id else "", game.away_coach.name if game.away_coach_id else "",
        game.away_race.name if game.away_race_id else "", game.home_casualties, game.away_casualties,
        game.conceded_by or "", game.kind,
    )] for game in selectors.event_games(event=event))
    return csv_download(COLUMN_NAMES, rows, filename=f"results-event-{event.pk}")


@permission_required(ENTER_EVENTS)
@require_http_methods(["GET", "POST"])
def event_submit(request, pk: int):
    event = _event(request, pk)
    problems = []
    if request.method == "POST":
        try:
            services.event_submit(event=event, actor=request.user)
        except ValidationError as error:
            problems = _error_messages(error)
        else:
            messages.success(request, _("%(name)s is submitted: staff will sanction it or tell you what to correct.")
                % {"name": event.name})
            return redirect("organiser_event_detail", event.pk)
    return render(request, "organiser/event_submit.html", {
        "event": event, "problems": problems, **selectors.event_counts(event=event), **_duplicate_context(event),
    })


@permission_required(CREATE_COACHES)
@require_http_methods(["GET", "POST"])
def coach_new(request):
    """Create a coach the federation does not know yet, then go back to where the number was missing."""
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        next_url = ""
    form = CoachForm(_posted(request), initial={"number": request.GET.get("number"), "name": request.GET.get("name", "")})
    if request.method == "POST" and form.is_valid():
        try:
            coach = services.coach_create(actor=request.user, **form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, _("Created %(coach)s.") % {"coach": coach})
            return redirect(next_url or reverse("organiser_event_list"))
    return render(request, "organiser/coach_new.html", {"form": form, "next": next_url})
