from django.apps import AppConfig


class StatsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "stats"
    verbose_name = "Statistics"

    def ready(self):
        from stats import (
            receivers,
            tasks,  # noqa: F401  registers the tasks, which the services send by name
        )
        from tournaments import signals

        signals.results_changed.connect(receivers.refresh_after_commit, dispatch_uid="stats-results-changed")
        signals.record_changed.connect(receivers.refresh_after_commit, dispatch_uid="stats-record-changed")
