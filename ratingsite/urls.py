from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("tournaments.urls_accounts")),
    path("organiser/", include("tournaments.urls_organiser")),
    path("staff/", include("ratings.urls_staff")),
    path("staff/", include("tournaments.urls_staff")),
    path("stats/", include("stats.urls")),
    path("", include("ratings.urls")),
    path("", include("tournaments.urls")),
]
