"""The Django admin shows the record read-only: every change goes through the site's pages, whose
services write the audit record and queue the recalculation (an admin save would do neither)."""
from django.contrib import admin

from .models import Award, Coach, Event, Game, Participant, Race, Round, Variant, search_key


class ReadOnly:
    """Look, search and filter; add, change and delete on the site's pages."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Race)
class RaceAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["name", "slug", "ranked", "stunty"]
    list_filter = ["ranked", "stunty"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Variant)
class VariantAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Coach)
class CoachAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["number", "name", "nationality", "member_since", "member_until", "user"]
    list_filter = ["nationality", "member_since"]
    search_fields = ["search_name", "=number"]
    autocomplete_fields = ["user"]

    def get_search_results(self, request, queryset, search_term):
        # the search key of what was typed, as the site's searches match it ("toth" and "Tóth" find Tóth)
        return super().get_search_results(request, queryset, search_key(search_term))


class ParticipantInline(ReadOnly, admin.TabularInline):
    model = Participant
    extra = 0
    autocomplete_fields = ["coach", "race"]


class RoundInline(ReadOnly, admin.TabularInline):
    model = Round
    extra = 0
    show_change_link = True


class GameInline(ReadOnly, admin.TabularInline):
    model = Game
    fk_name = "event"
    extra = 0
    autocomplete_fields = ["round", "home_coach", "home_race", "away_coach", "away_race"]
    fields = [
        "round", "played_at", "home_coach", "home_race", "home_touchdowns", "away_touchdowns",
        "away_coach", "away_race", "home_casualties", "away_casualties", "conceded_by", "kind",
    ]
    show_change_link = True


class AwardInline(ReadOnly, admin.TabularInline):
    model = Award
    extra = 0
    autocomplete_fields = ["coach", "race"]


@admin.register(Event)
class EventAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["name", "start_date", "end_date", "variant", "country", "city", "is_major", "status"]
    list_filter = ["status", "is_major", "variant", "country", "start_date"]
    search_fields = ["name", "city"]
    date_hierarchy = "start_date"
    autocomplete_fields = ["organiser"]
    inlines = [ParticipantInline, RoundInline, GameInline, AwardInline]
    list_select_related = ["variant"]


@admin.register(Round)
class RoundAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["event", "number", "date", "start_time"]
    search_fields = ["event__name"]
    list_filter = ["date"]
    autocomplete_fields = ["event"]
    list_select_related = ["event"]


@admin.register(Game)
class GameAdmin(ReadOnly, admin.ModelAdmin):
    list_display = [
        "played_at", "event", "home_coach", "home_race", "home_touchdowns", "away_touchdowns", "away_coach", "away_race", "kind",
        "reported_on",
    ]
    list_filter = ["kind", "conceded_by", "event__variant", "event__status"]
    search_fields = ["event__name", "home_coach__name", "away_coach__name", "=home_coach__number", "=away_coach__number"]
    autocomplete_fields = ["round", "event", "home_coach", "home_race", "away_coach", "away_race"]
    list_select_related = ["event", "home_coach", "home_race", "away_coach", "away_race"]
    date_hierarchy = "played_at"


@admin.register(Award)
class AwardAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["event", "category", "coach", "race"]
    list_filter = ["category"]
    search_fields = ["event__name", "coach__name", "category"]
    autocomplete_fields = ["event", "coach", "race"]
    list_select_related = ["event", "coach", "race"]


@admin.register(Participant)
class ParticipantAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["event", "coach", "race"]
    search_fields = ["event__name", "coach__name", "=coach__number"]
    autocomplete_fields = ["event", "coach", "race"]
    list_select_related = ["event", "coach", "race"]
