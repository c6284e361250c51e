from django.urls import path

from rating_pages import staff_views as views
from rating_pages.urls import MonthConverter  # noqa: F401  (registers the month converter these paths use)

urlpatterns = [
    path("", views.index, name="staff_index"),
    path("systems/", views.system_list, name="staff_system_list"),
    path("systems/<int:pk>/", views.system_edit, name="staff_system_edit"),
    path("runs/", views.run_list, name="staff_run_list"),
    path("runs/<int:pk>/", views.run_detail, name="staff_run_detail"),
    path("runs/<int:pk>/rerun/", views.run_rerun, name="staff_run_rerun"),
    path("runs/<int:pk>/cancel/", views.run_cancel, name="staff_run_cancel"),
    path("events/<int:pk>/recalculation/", views.event_runs, name="staff_event_runs"),
    path("lists/<slug:system>/<month:month>/republish/", views.list_republish, name="staff_list_republish"),
]
