from django.apps import AppConfig


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self):
        from ratings import (
            receivers,
            tasks,  # noqa: F401  registers the tasks, which the services enqueue by name
        )
        from tournaments import signals

        signals.results_changed.connect(receivers.recalculate_from, dispatch_uid="ratings-recalculate")
        signals.coach_merged.connect(receivers.forget_merged_coach, dispatch_uid="ratings-merged-coach")
        signals.event_change_blocked.connect(receivers.running_recalculation, dispatch_uid="ratings-running")
        signals.sanction_previewed.connect(receivers.sanction_preview, dispatch_uid="ratings-sanction-preview")
