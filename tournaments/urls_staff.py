from django.urls import path

from . import staff_views as views

urlpatterns = [
    path("events/", views.event_queue, name="staff_event_queue"),
    path("events/<int:pk>/", views.event_review, name="staff_event_review"),
    path("events/<int:pk>/sanction/", views.event_sanction, name="staff_event_sanction"),
    path("events/<int:pk>/reject/", views.event_reject, name="staff_event_reject"),
    path("events/<int:pk>/correct/", views.event_correct, name="staff_event_correct"),
    path("coaches/merge/", views.coach_merge, name="staff_coach_merge"),
    path("coaches/<int:number>/privacy/", views.coach_privacy, name="staff_coach_privacy"),
    path("coaches/<int:number>/data/", views.coach_data, name="staff_coach_data"),
    path("members/", views.member_list, name="staff_member_list"),
    path("members/<int:pk>/coach/", views.member_link, name="staff_member_link"),
    path("members/<int:pk>/unlock/", views.member_unlock, name="staff_member_unlock"),
    path("audit/", views.audit_log, name="staff_audit_log"),
]
