from django.apps import AppConfig


class MembersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "members"
    verbose_name = "Members"

    def ready(self):
        from members import (
            receivers,
            tasks,  # noqa: F401  registers the notices' task, which the receiver sends by name
        )
        from ratings import signals
        from tournaments import signals as record_signals

        signals.run_committed.connect(receivers.notices_after_run, dispatch_uid="members-notices-after-run")
        record_signals.coach_public_name_changed.connect(receivers.notices_rename, dispatch_uid="members-notices-rename")
