"""The ratings' vocabulary: the methods, what starts a recalculation and how a run ends. Plain
choices, no table: the pages read them without reaching for the models (ratings.models re-exports them)."""
from django.db import models
from django.utils.translation import gettext_lazy as _


class Method(models.TextChoices):
    NAF_ELO = "naf_elo", "NAF Elo"
    GLICKO = "glicko", "Glicko-2"
    KNSB = "knsb", _("KNSB list rating")


class Trigger(models.TextChoices):
    SANCTIONED = "sanctioned", _("Event sanctioned")
    CORRECTED = "corrected", _("Sanctioned event corrected")
    BACKDATED = "backdated", _("Late (backdated) event")
    MERGE = "merge", _("Coaches merged")
    PARAMETERS = "parameters", _("System parameters changed")
    SCHEDULE = "schedule", _("Scheduled (list publication)")
    MANUAL = "manual", _("Requested by staff")
    RERUN = "rerun", _("Rerun of an earlier run")
    RETRY = "retry", _("Retry of a run whose process was lost")


class RunStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    SUCCEEDED = "succeeded", _("Succeeded")
    FAILED = "failed", _("Failed")
    CANCELLED = "cancelled", _("Cancelled")
