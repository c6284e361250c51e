from django.urls import path

from . import staff_views

urlpatterns = [
    path("claims/", staff_views.claim_queue, name="staff_claim_queue"),
    path("claims/<int:pk>/decide/", staff_views.claim_decide, name="staff_claim_decide"),
    path("claims/<int:pk>/restore/", staff_views.claim_restore, name="staff_claim_restore"),
    path("coaches/<int:number>/release/", staff_views.claim_release, name="staff_claim_release"),
]
