"""The ratings' vocabulary: the methods, what starts a recalculation and how a run ends. Plain
choices, no table: the pages read them without reaching for the models (ratings.models re-exports them)."""
from django.db import models


class Method(models.TextChoices):
    NAF_ELO = "naf_elo", "NAF Elo"
    GLICKO = "glicko", "Glicko-2"
    KNSB = "knsb", "KNSB list rating"


class Trigger(models.TextChoices):
    SANCTIONED = "sanctioned", "Event sanctioned"
    CORRECTED = "corrected", "Sanctioned event corrected"
    BACKDATED = "backdated", "Late (backdated) event"
    MERGE = "merge", "Coaches merged"
    PARAMETERS = "parameters", "System parameters changed"
    SCHEDULE = "schedule", "Scheduled (list publication)"
    MANUAL = "manual", "Requested by staff"
    RERUN = "rerun", "Rerun of an earlier run"
    RETRY = "retry", "Retry of a run whose process was lost"


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"
