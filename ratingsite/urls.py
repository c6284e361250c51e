from django.contrib import admin
from django.urls import include, path

from tournaments.forms import AdminLoginForm

from . import login_limits

# the admin's login counts against the same limits as the site's
admin.site.login_form = AdminLoginForm

urlpatterns = [
    path("admin/", admin.site.urls),
    # before the accounts pages: the reset form with its throttle (the name stays theirs)
    path("accounts/password/reset/", login_limits.PasswordResetView.as_view()),
    path("accounts/", include("tournaments.urls_accounts")),
    path("organiser/", include("tournaments.urls_organiser")),
    path("staff/", include("rating_pages.urls_staff")),
    path("staff/", include("tournaments.urls_staff")),
    path("stats/", include("stats.urls")),
    path("", include("rating_pages.urls")),
    path("", include("assurance.urls")),
    path("", include("tournaments.urls")),
]

handler400 = "ratingsite.errors.bad_request"
handler403 = "ratingsite.errors.permission_denied"
handler404 = "ratingsite.errors.page_not_found"
handler500 = "ratingsite.errors.server_error"
