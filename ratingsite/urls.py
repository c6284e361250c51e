from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

from downloads import views as downloads
from tournaments.forms import AdminLoginForm

from . import languages, login_limits

# the admin's login counts against the same limits as the site's
admin.site.login_form = AdminLoginForm

# Outside the language prefix: the admin (a staff tool, in English), the language switch, which
# leads to a page in a language rather than being one, and the API.
urlpatterns = [
    path("admin/", admin.site.urls),
    path("language/<str:code>/", languages.switch_language, name="switch_language"),
    # the open-data API: in English, its numbers never written the way a language writes them
    path("api/v1/", include("api.urls")),
    # the open-data files: one address each whatever the language (the page about them is /data/)
    path("data/manifest.json", downloads.data_manifest, name="data_manifest"),
    path("data/files/<path:path>", downloads.data_file, name="data_file"),
]

# Every page in English at its bare address and in Dutch under /nl/ (ratingsite.languages); a CSV
# download is its page's with ?_export=csv, the same in either (ratingsite.csv_export).
urlpatterns += i18n_patterns(
    # before the accounts pages: the reset form with its throttle (the name stays theirs)
    path("accounts/password/reset/", login_limits.PasswordResetView.as_view()),
    path("accounts/", include("tournaments.urls_accounts")),
    path("organiser/", include("tournaments.urls_organiser")),
    path("staff/", include("rating_pages.urls_staff")),
    path("staff/", include("tournaments.urls_staff")),
    path("staff/", include("members.urls_staff")),
    path("stats/", include("stats.urls")),
    path("", include("members.urls")),
    path("", include("rating_pages.urls")),
    path("", include("assurance.urls")),
    path("", include("syndication.urls")),
    path("", include("tournaments.urls")),
    path("", include("downloads.urls")),
    prefix_default_language=False,
)

handler400 = "ratingsite.errors.bad_request"
handler403 = "ratingsite.errors.permission_denied"
handler404 = "ratingsite.errors.page_not_found"
handler500 = "ratingsite.errors.server_error"
