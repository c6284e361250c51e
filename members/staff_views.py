"""The staff's side of claims: the queue of requests to approve or refuse, releases and their undoing."""
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from members import selectors, services
from members.forms import DecisionForm, ReleaseForm
from tournaments import permissions as perms


def _queue(request, *, status: int = 200, errors: list[str] | None = None):
    return render(request, "members/staff/claims.html", {
        "queue": selectors.claim_queue(), "recent": selectors.claims_recent(), "linked": selectors.linked_without_claim(),
        "errors": errors or [],
    }, status=status)


def _refused(request, error: ValidationError):
    return _queue(request, status=400, errors=error.messages)


@perms.permission_required(perms.LINK_ACCOUNTS)
def claim_queue(request):
    return _queue(request)


@perms.permission_required(perms.LINK_ACCOUNTS)
@require_POST
def claim_decide(request, pk: int):
    form = DecisionForm(request.POST)
    if not form.is_valid():
        return _refused(request, ValidationError(_("Choose approve or refuse.")))
    approve = form.cleaned_data["decision"] == "approve"
    try:
        claim = services.claim_decide(claim_id=pk, approve=approve, actor=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as error:
        return _refused(request, error)
    messages.success(
        request, (_("Coach %(number)s is now %(username)s's.") if approve
                  else _("%(username)s's request for coach %(number)s is refused."))
        % {"number": claim.coach.number, "username": claim.member.get_username()},
    )
    return redirect("staff_claim_queue")


@perms.permission_required(perms.LINK_ACCOUNTS)
@require_POST
def claim_release(request, number: int):
    form = ReleaseForm(request.POST)
    if not form.is_valid():
        return _refused(request, ValidationError(_("Say why the claim is released.")))
    try:
        claim = services.claim_release(number=number, actor=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as error:
        return _refused(request, error)
    messages.success(request, _("Coach %(number)s is released from %(username)s. Restore it below to undo.") % {
        "number": number, "username": claim.member.get_username(),
    })
    return redirect("staff_claim_queue")


@perms.permission_required(perms.LINK_ACCOUNTS)
@require_POST
def claim_restore(request, pk: int):
    try:
        claim = services.claim_restore(claim_id=pk, actor=request.user)
    except ValidationError as error:
        return _refused(request, error)
    messages.success(request, _("Coach %(number)s is %(username)s's again.") % {
        "number": claim.coach.number, "username": claim.member.get_username(),
    })
    return redirect("staff_claim_queue")
