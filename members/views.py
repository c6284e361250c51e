"""The members' pages: sign-up and its confirmation, the member's own page (ratings, claims,
follows, notices, preferences), claiming a coach, following one, and the private feed."""
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.syndication.views import Feed
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.feedgenerator import Atom1Feed
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme, urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from members import selectors, services
from members.forms import ClaimCodeForm, ClaimRequestForm, MemberPrivacyForm, PreferencesForm, SignUpForm
from ratingsite.login_limits import minutes_text, requests_counted
from ratingsite.middleware import client_address
from tournaments import privacy
from tournaments.models import Coach

User = get_user_model()


def _posted(request):
    return request.POST if request.method == "POST" else None


# --- sign-up ----------------------------------------------------------------------------------------


def _confirm_url(request):
    def url(user) -> str:
        uid = urlsafe_base64_encode(force_bytes(user.pk))
        return request.build_absolute_uri(reverse("signup_confirm", args=[uid, services.sign_up_tokens.make_token(user)]))
    return url


@require_http_methods(["GET", "POST"])
def sign_up(request):
    if request.user.is_authenticated:
        return redirect("member_home")
    form = SignUpForm(_posted(request))
    if request.method == "POST":
        # every attempt counts, a refused one too: the form says whether a user name is taken
        minutes = requests_counted(
            "sign-up", address=client_address(request), email=request.POST.get("email", "")[:254],
            per_address=settings.SIGNUP_LIMIT_PER_ADDRESS, per_email=settings.SIGNUP_LIMIT_PER_EMAIL,
        )
        if minutes is not None:
            form.add_error(None, _("Too many sign-ups from your address or for this e-mail address. "
                                   "Try again in %(minutes)s.") % {"minutes": minutes_text(minutes)})
            return render(request, "members/sign_up.html", {"form": form}, status=429)
    if request.method == "POST" and form.is_valid():
        services.member_sign_up(
            username=form.cleaned_data["username"], email=form.cleaned_data["email"], password=form.cleaned_data["password1"],
            confirm_url=_confirm_url(request), login_url=request.build_absolute_uri(reverse("password_reset")),
        )
        return redirect("signup_done")
    return render(request, "members/sign_up.html", {"form": form}, status=400 if form.errors else 200)


def sign_up_done(request):
    return render(request, "members/sign_up_done.html")


def _signed_up(uidb64: str, token: str):
    try:
        user = User.objects.get(pk=urlsafe_base64_decode(uidb64).decode())
    except (TypeError, ValueError, OverflowError, User.DoesNotExist):
        return None
    return user if services.sign_up_tokens.check_token(user, token) else None


@require_http_methods(["GET", "POST"])
def sign_up_confirm(request, uidb64: str, token: str):
    """GET shows a button (a mail scanner that follows the link confirms nothing); POST confirms."""
    user = _signed_up(uidb64, token)
    if user is None:
        return render(request, "members/sign_up_confirm.html", {"valid": False}, status=400)
    if request.method == "POST":
        services.member_confirm(user=user)
        messages.success(request, _("Your e-mail address is confirmed: log in."))
        return redirect("login")
    return render(request, "members/sign_up_confirm.html", {"valid": True, "account": user})


# --- the member's page ------------------------------------------------------------------------------


def _privacy_form(coach: Coach, data=None) -> MemberPrivacyForm:
    return MemberPrivacyForm(data, initial={"visibility": coach.visibility, "pseudonym": coach.pseudonym},
                             auto_id=f"id_privacy_{coach.number}_%s")


def _privacy_context(member, bound: MemberPrivacyForm | None = None, bound_number: int | None = None) -> list[dict]:
    """Each claimed coach with its privacy form (the one posted, with its errors) and its erasure's due date."""
    return [
        {"coach": coach, "form": bound if bound is not None and coach.number == bound_number else _privacy_form(coach),
         "erasure_due": privacy.erasure_due_at(coach) if coach.erasure_requested_at else None}
        for coach in selectors.claimed_coaches(member=member)
    ]


def _home_context(member, preferences_form=None, privacy_form=None, privacy_number=None) -> dict:
    coach = selectors.claimed_coach(member=member)
    preferences = services.preferences_get(member=member)
    return {
        "coach": coach,
        "ratings": selectors.member_ratings(coach=coach),
        "claims": selectors.member_claims(member=member),
        "follows": selectors.member_follows(member=member),
        "notices": selectors.member_notices(member=member),
        "preferences_form": preferences_form or PreferencesForm(systems=selectors.notice_systems(), initial={
            "email_notices": preferences.email_notices, "systems": list(preferences.systems.values_list("pk", flat=True)),
            "language": preferences.language,
        }),
        "feed_path": reverse("member_feed", args=[preferences.feed_token]),
        "privacy": _privacy_context(member, privacy_form, privacy_number),
    }


@login_required
def member_home(request):
    return render(request, "members/home.html", _home_context(request.user))


@login_required
@require_POST
def member_preferences(request):
    form = PreferencesForm(request.POST, systems=selectors.notice_systems())
    if form.is_valid():
        try:
            services.preferences_update(
                member=request.user, email_notices=form.cleaned_data["email_notices"], system_ids=form.cleaned_data["systems"],
                language=form.cleaned_data["language"] or None,
            )
        except ValidationError as error:
            form.add_error(None, error)
    if form.errors:
        messages.error(request, _("Your preferences are not saved: see the message beside them."))
        return render(request, "members/home.html", _home_context(request.user, form), status=400)
    messages.success(request, _("Your preferences are saved."))
    return redirect("member_home")


@login_required
@require_POST
def member_feed_reset(request):
    services.feed_token_reset(member=request.user)
    messages.success(request, _("Your feed has a new address: the old one no longer answers."))
    return redirect("member_home")


@login_required
@require_http_methods(["GET", "POST"])
def member_claim(request):
    """Claim a coach record: at once with a claim code, or by asking staff (the button says which)."""
    way = request.POST.get("way") if request.method == "POST" else None
    if way not in (None, "code", "request"):
        return HttpResponseBadRequest(_("Unknown way of claiming."))
    code_form = ClaimCodeForm(request.POST if way == "code" else None, prefix="code")
    request_form = ClaimRequestForm(request.POST if way == "request" else None, prefix="request")
    status = 200
    if way == "code" and code_form.is_valid():
        minutes = requests_counted(
            "claim-code", address=client_address(request), email=f"member:{request.user.pk}",
            per_address=settings.CLAIM_CODE_FAILURE_LIMIT, per_email=settings.CLAIM_CODE_FAILURE_LIMIT,
        )
        if minutes is not None:
            code_form.add_error(None, _("Too many claim codes tried. Try again in %(minutes)s.") % {"minutes": minutes_text(minutes)})
            status = 429
        else:
            try:
                claim = services.claim_by_code(
                    member=request.user, number=code_form.cleaned_data["number"], code=code_form.cleaned_data["code"],
                )
            except ValidationError as error:
                code_form.add_error(None, error)
            else:
                messages.success(request, _("Coach %(number)s, %(name)s, is yours.") % {
                    "number": claim.coach.number, "name": claim.coach.name,
                })
                return redirect("member_home")
    elif way == "request" and request_form.is_valid():
        try:
            claim = services.claim_request(
                member=request.user, number=request_form.cleaned_data["number"], note=request_form.cleaned_data["note"],
            )
        except ValidationError as error:
            request_form.add_error(None, error)
        else:
            messages.success(
                request, _("You asked for coach %(number)s: the staff will approve or refuse it.") % {"number": claim.coach.number},
            )
            return redirect("member_home")
    if way is not None and status == 200:
        status = 400
    return render(request, "members/claim.html", {
        "code_form": code_form, "request_form": request_form, "coach": selectors.claimed_coach(member=request.user),
    }, status=status)


# --- the member's privacy: what the public sees of his coach, his data, his erasure ----------------


def _own_coach(request, number: int) -> Coach:
    """The member's own claimed coach: any other number (another's coach, or none) is a 404, telling nothing."""
    coach = selectors.claimed_coach_get(member=request.user, number=number)
    if coach is None:
        raise Http404(_("You hold no coach record with this number."))
    return coach


@login_required
@require_POST
def member_privacy(request, number: int):
    coach = _own_coach(request, number)
    form = _privacy_form(coach, request.POST)
    if form.is_valid():
        try:
            coach = privacy.coach_privacy_set(coach=coach, visibility=form.cleaned_data["visibility"],
                                              pseudonym=form.cleaned_data["pseudonym"], actor=request.user)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, _("The public now sees coach %(number)s as “%(name)s”.") % {
                "number": coach.number, "name": coach.public_name,
            })
            return redirect("member_home")
    messages.error(request, _("Your choice is not saved: see the message beside it."))
    return render(request, "members/home.html", _home_context(request.user, privacy_form=form, privacy_number=coach.number),
                  status=400)


@login_required
@require_http_methods(["GET", "POST"])
def member_erasure(request, number: int):
    """GET says what an erasure does and when it would fall due; POST asks for it."""
    coach = _own_coach(request, number)
    if request.method == "POST":
        try:
            coach = privacy.coach_erasure_request(coach=coach, actor=request.user)
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            messages.success(request, _("Coach %(number)s will be erased on %(day)s, unless you cancel it or log in before then.") % {
                "number": coach.number, "day": date_format(privacy.erasure_due_at(coach), "DATE_FORMAT"),
            })
        return redirect("member_home")
    if coach.erasure_requested_at is not None:
        return redirect("member_home")
    return render(request, "members/erasure_confirm.html", {
        "coach": coach, "erasure_due": timezone.now() + privacy.ERASURE_GRACE, "grace_days": privacy.ERASURE_GRACE.days,
        "label": coach.label,
    })


@login_required
@require_POST
def member_erasure_cancel(request, number: int):
    coach = _own_coach(request, number)
    privacy.coach_erasure_cancel(coach=coach, actor=request.user, note="cancelled by the member")
    messages.success(request, _("The erasure of coach %(number)s is cancelled.") % {"number": coach.number})
    return redirect("member_home")


@login_required
@require_http_methods(["GET"])
def member_data(request, number: int):
    """Everything held about the member's coach, as a JSON download (the export is on record)."""
    coach = _own_coach(request, number)
    data = privacy.coach_data_export(coach=coach, actor=request.user)
    response = JsonResponse(data, json_dumps_params={"indent": 2, "ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="coach-{coach.number}-data.json"'
    response["Cache-Control"] = "private, no-store"
    return response


# --- following --------------------------------------------------------------------------------------


def _coach(number: int) -> Coach:
    coach = Coach.objects.filter(number=number).first()
    if coach is None:
        raise Http404(_("There is no coach with this number."))
    return coach


def _back(request, coach: Coach):
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return redirect(target)
    return redirect("coach_detail", coach.number)


def _follow_change(request, number: int, *, following: bool):
    coach = _coach(number)
    if following:
        services.follow_add(member=request.user, coach=coach)
        messages.success(request, _("You follow %(name)s: their rating changes reach your notices.") % {"name": coach.public_name})
    else:
        services.follow_remove(member=request.user, coach=coach)
        messages.success(request, _("You no longer follow %(name)s.") % {"name": coach.public_name})
    return _back(request, coach)


@login_required
@require_POST
def follow(request, number: int):
    return _follow_change(request, number, following=True)


@login_required
@require_POST
def unfollow(request, number: int):
    return _follow_change(request, number, following=False)


# --- the private feed -------------------------------------------------------------------------------


class NoticeFeed(Feed):
    """A member's notices as Atom, at an address only he knows (he can renew it)."""

    feed_type = Atom1Feed
    description_template = None

    def __call__(self, request, *args, **kwargs):
        response = super().__call__(request, *args, **kwargs)
        response["Cache-Control"] = "private, no-store"
        response["X-Robots-Tag"] = "noindex"
        return response

    def get_object(self, request, token: str):
        member = selectors.feed_owner(token=token)
        if member is None:
            raise Http404(_("There is no feed at this address."))
        return member

    def title(self, member):
        return _("Rating notices for %(username)s") % {"username": member.get_username()}

    def link(self, member):
        return reverse("member_home")

    def subtitle(self, member):
        return _("Changes of your rating and of the coaches you follow, and new rating lists.")

    def items(self, member):
        return selectors.member_notices(member=member)

    def item_title(self, notice):
        return notice.title

    def item_description(self, notice):
        return notice.text

    def item_link(self, notice):
        return notice.href

    def item_guid(self, notice):
        # an Atom entry's id is an IRI that never changes: a tag URI (RFC 4151)
        return f"tag:{urlsplit(settings.SITE_URL).hostname or 'localhost'},{notice.created_at:%Y-%m-%d}:notice-{notice.pk}"

    def item_guid_is_permalink(self, notice):
        return False

    def item_pubdate(self, notice):
        return notice.created_at

    def item_updateddate(self, notice):
        return notice.created_at


member_feed = NoticeFeed()
