"""The open data's page, in every language of the site (its files are outside the language prefix:
ratingsite/urls.py)."""
from django.urls import path

from downloads import views

urlpatterns = [
    path("data/", views.data_index, name="data"),
]
