from django.urls import path

from . import organiser_views as views

urlpatterns = [
    path("events/", views.event_list, name="organiser_event_list"),
    path("events/new/", views.event_new, name="organiser_event_new"),
    path("events/<int:pk>/", views.event_detail, name="organiser_event_detail"),
    path("events/<int:pk>/edit/", views.event_edit, name="organiser_event_edit"),
    path("events/<int:pk>/upload/", views.event_upload, name="organiser_event_upload"),
    path("events/<int:pk>/upload/results.csv", views.event_upload_template, name="organiser_event_upload_template"),
    path("events/<int:pk>/submit/", views.event_submit, name="organiser_event_submit"),
    path("coaches/new/", views.coach_new, name="organiser_coach_new"),
]
