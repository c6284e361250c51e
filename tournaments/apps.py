from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        from . import (
            privacy,
            tasks,  # noqa: F401  registers the daily erasure task
        )

        user_logged_in.connect(privacy.cancel_erasure_on_login, dispatch_uid="tournaments-erasure-login")
