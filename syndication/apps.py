from django.apps import AppConfig


class SyndicationConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "syndication"
    verbose_name = "Feeds and embeds"
