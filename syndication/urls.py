"""The public feeds (Atom) and the embeds (leaderboards for an iframe, the coach's badge)."""
from django.urls import path

from ratingsite.page_cache import cached_page

from . import feeds, views

urlpatterns = [
    path("feeds/events/", cached_page(feeds.SanctionedEventFeed()), name="feed_events"),
    path("feeds/lists/<slug:system>/", cached_page(feeds.RatingListFeed()), name="feed_lists"),
    path("feeds/coaches/<int:number>/", cached_page(feeds.CoachRatingFeed()), name="feed_coach"),
    path("embed/", views.embed_index, name="embed_index"),
    path("embed/<slug:system>/country/<str:code>/", views.leaderboard_country, name="embed_country"),
    path("embed/<slug:system>/race/<slug:race>/", views.leaderboard_race, name="embed_race"),
    path("embed/<slug:system>/badge/<int:number>.svg", views.badge, name="embed_badge"),
]
