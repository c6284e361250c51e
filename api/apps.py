from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The open-data API (/api/v1/): read-only JSON over the ratings' and the record's selectors.
    Nothing imports it."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = "Open-data API"
