"""The members' pages: sign-up beside the other account pages, the member's own pages under members/."""
from django.urls import path

from . import views

urlpatterns = [
    path("accounts/signup/", views.sign_up, name="signup"),
    path("accounts/signup/sent/", views.sign_up_done, name="signup_done"),
    path("accounts/signup/confirm/<uidb64>/<token>/", views.sign_up_confirm, name="signup_confirm"),
    path("members/me/", views.member_home, name="member_home"),
    path("members/me/claim/", views.member_claim, name="member_claim"),
    path("members/me/preferences/", views.member_preferences, name="member_preferences"),
    path("members/me/feed/reset/", views.member_feed_reset, name="member_feed_reset"),
    path("members/me/coaches/<int:number>/privacy/", views.member_privacy, name="member_privacy"),
    path("members/me/coaches/<int:number>/erasure/", views.member_erasure, name="member_erasure"),
    path("members/me/coaches/<int:number>/erasure/cancel/", views.member_erasure_cancel, name="member_erasure_cancel"),
    path("members/me/coaches/<int:number>/data/", views.member_data, name="member_data"),
    path("members/feed/<str:token>/", views.member_feed, name="member_feed"),
    path("members/follow/<int:number>/", views.follow, name="member_follow"),
    path("members/unfollow/<int:number>/", views.unfollow, name="member_unfollow"),
]
