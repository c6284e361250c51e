"""Account pages: login with a limit on failed attempts, and the member's own page."""
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse

from ratingsite.context_processors import reverse_or_none

from . import permissions
from .forms import LoginForm


class LoginView(auth_views.LoginView):
    form_class = LoginForm
    redirect_authenticated_user = True

    def get_default_redirect_url(self):
        return reverse("profile")


@login_required
def profile(request):
    """The member's own page: his account, his roles and the coach it is linked to."""
    user = request.user
    coach = getattr(user, "coach", None)
    return render(request, "registration/profile.html", {
        "coach": coach,
        "coach_url": reverse_or_none("coach_detail", coach.number) if coach else None,
        "roles": sorted(user.groups.values_list("name", flat=True)),
        "is_organiser": user.has_perm(permissions.ENTER_EVENTS),
        "is_staff_member": user.has_perm(permissions.SANCTION_EVENTS),
        "events": user.organised_events.select_related("variant").order_by("-start_date")[:10],
    })
