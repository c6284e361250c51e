from django.urls import path

from . import views

urlpatterns = [
    path("", views.index, name="stats_index"),
    path("games/", views.games, name="stats_games"),
    path("win-ratios/", views.win_ratios, name="stats_win_ratios"),
    path("race-grid/", views.race_grid, name="stats_race_grid"),
    path("rank-over-time/", views.rank_over_time, name="stats_rank_over_time"),
    path("head-to-head/", views.head_to_head, name="stats_head_to_head"),
    path("differentials/", views.differentials, name="stats_differentials"),
    path("top/", views.top, name="stats_top"),
    path("awards/", views.awards, name="stats_awards"),
    path("legends/", views.legends, name="stats_legends"),
    path("map/", views.world_map, name="stats_map"),
]
