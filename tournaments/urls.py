from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("about/privacy/", views.about_privacy, name="about_privacy"),
]
