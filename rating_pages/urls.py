"""Public rating pages: rankings, coach pages and breakdowns, monthly lists, calculator, about."""
from django.urls import path, register_converter

from . import views


class MonthConverter:
    """YYYY-MM in a URL, as (year, month); an impossible month is no match (404)."""

    regex = r"[0-9]{4}-[0-9]{2}"

    def to_python(self, value: str) -> tuple[int, int]:
        year, month = int(value[:4]), int(value[5:])
        if not 1 <= month <= 12 or year < 1900:
            raise ValueError(value)
        return year, month

    def to_url(self, value) -> str:
        if isinstance(value, str):
            return value
        return f"{value[0]:04d}-{value[1]:02d}"


register_converter(MonthConverter, "month")

urlpatterns = [
    path("rankings/", views.rankings_index, name="rankings_index"),
    path("rankings/<slug:system>/", views.ranking, name="rankings"),
    path("rankings/<slug:system>/latest/", views.ranking, name="ranking_latest"),
    path("rankings/<slug:system>/<month:month>/", views.ranking, name="ranking_month"),
    path("coaches/", views.coach_list, name="coach_list"),
    path("coaches/<int:number>/", views.coach_detail, name="coach_detail"),
    path("coaches/<int:number>/breakdown/<slug:system>/", views.breakdown, name="breakdown"),
    path("lists/", views.rating_list_index, name="rating_list_index"),
    path("lists/<slug:system>/", views.rating_lists, name="rating_lists"),
    path("lists/<slug:system>/<month:month>/", views.rating_list_detail, name="rating_list_detail"),
    path("lists/<slug:system>/<month:month>/edition/<int:edition>/", views.rating_list_detail, name="rating_list_edition"),
    path("events/", views.event_list, name="event_list"),
    path("events/<int:pk>/", views.event_detail, name="event_detail"),
    path("events/<int:pk>/predictions/", views.event_predictions, name="event_predictions"),
    path("calculator/", views.calculator, name="calculator"),
    path("about/ratings/", views.about_ratings, name="about_ratings"),
]
