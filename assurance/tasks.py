"""Celery tasks of the assurance: take ids, call one function, safe to run twice."""
from celery import shared_task

from assurance.accuracy.report import accuracy_reports_refresh
from ratings import services
from ratings.models import RatingSystem


# its name stays ratings.tasks.refresh_accuracy: the recalculation's outbox sends it by that name
@shared_task(name=services.ACCURACY_TASK)
def refresh_accuracy(system_ids: list[int]) -> int:
    """Store the systems' accuracy reports anew (after their runs); returns how many."""
    return len(accuracy_reports_refresh(systems=list(RatingSystem.objects.filter(pk__in=system_ids).order_by("pk"))))
