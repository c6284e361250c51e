"""The assurance's public page; its URL and name as they were under ratings."""
from django.urls import path

from . import views

urlpatterns = [
    path("about/accuracy/", views.about_accuracy, name="about_accuracy"),
]
