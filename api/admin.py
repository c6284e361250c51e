from django.contrib import admin

from api.models import ApiKey


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    """The keys issued (`manage.py api_key --issue`): who holds them, their limit, revoked or not. A key
    is issued by the command only, which shows it once; here the staff see and revoke them."""

    list_display = ("name", "prefix", "per_minute", "created_at", "revoked_at")
    search_fields = ("name", "prefix")
    readonly_fields = ("name", "prefix", "digest", "created_at")
    fields = ("name", "prefix", "digest", "per_minute", "created_at", "revoked_at")

    def has_add_permission(self, request):
        return False
