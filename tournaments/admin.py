from django.contrib import admin

from .models import Award, Coach, Event, Game, Participant, Race, Round, Variant


@admin.register(Race)
class RaceAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "ranked", "stunty"]
    list_filter = ["ranked", "stunty"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Coach)
class CoachAdmin(admin.ModelAdmin):
    list_display = ["number", "name", "nationality", "member_since", "member_until", "user"]
    list_filter = ["nationality", "member_since"]
    search_fields = ["name", "=number"]
    autocomplete_fields = ["user"]


class ParticipantInline(admin.TabularInline):
    model = Participant
    extra = 0
    autocomplete_fields = ["coach", "race"]


class RoundInline(admin.TabularInline):
    model = Round
    extra = 0
    show_change_link = True


class GameInline(admin.TabularInline):
    model = Game
    fk_name = "event"
    extra = 0
    autocomplete_fields = ["round", "home_coach", "home_race", "away_coach", "away_race"]
    fields = [
        "round", "played_at", "home_coach", "home_race", "home_touchdowns", "away_touchdowns",
        "away_coach", "away_race", "home_casualties", "away_casualties", "conceded_by", "kind",
    ]
    # Inline game edits in admin bypass the sides; keep admin read-only here and correct through the site.
    readonly_fields = fields
    can_delete = False
    max_num = 0
    show_change_link = True


class AwardInline(admin.TabularInline):
    model = Award
    extra = 0
    autocomplete_fields = ["coach", "race"]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["name", "start_date", "end_date", "variant", "country", "city", "is_major", "status"]
    list_filter = ["status", "is_major", "variant", "country", "start_date"]
    search_fields = ["name", "city"]
    date_hierarchy = "start_date"
    autocomplete_fields = ["organiser"]
    inlines = [ParticipantInline, RoundInline, GameInline, AwardInline]
    list_select_related = ["variant"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["event", "number", "date", "start_time"]
    search_fields = ["event__name"]
    list_filter = ["date"]
    autocomplete_fields = ["event"]
    list_select_related = ["event"]


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["played_at", "event", "home_coach", "home_race", "home_touchdowns", "away_touchdowns", "away_coach", "away_race", "kind"]
    list_filter = ["kind", "conceded_by", "event__variant", "event__status"]
    search_fields = ["event__name", "home_coach__name", "away_coach__name", "=home_coach__number", "=away_coach__number"]
    autocomplete_fields = ["round", "event", "home_coach", "home_race", "away_coach", "away_race"]
    list_select_related = ["event", "home_coach", "home_race", "away_coach", "away_race"]
    date_hierarchy = "played_at"

    def save_model(self, request, obj, form, change):
        from .services import game_record

        game_record(game=obj)


@admin.register(Award)
class AwardAdmin(admin.ModelAdmin):
    list_display = ["event", "category", "coach", "race"]
    list_filter = ["category"]
    search_fields = ["event__name", "coach__name", "category"]
    autocomplete_fields = ["event", "coach", "race"]
    list_select_related = ["event", "coach", "race"]


@admin.register(Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = ["event", "coach", "race"]
    search_fields = ["event__name", "coach__name", "=coach__number"]
    autocomplete_fields = ["event", "coach", "race"]
    list_select_related = ["event", "coach", "race"]
