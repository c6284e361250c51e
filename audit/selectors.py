"""Reading the audit trail: the log, and the records about one object."""
from django.db.models import Model, QuerySet

from audit.models import Action, AuditRecord


def audit_records() -> QuerySet[AuditRecord]:
    """Every audit record with who made it, newest first."""
    return AuditRecord.objects.select_related("actor")


def audit_records_for(*, obj: Model) -> QuerySet[AuditRecord]:
    """The records about this object (by its type and id, so they outlive it), newest first."""
    return AuditRecord.objects.filter(object_type=obj._meta.model_name, object_id=str(obj.pk)).select_related("actor")


def last_rejection(*, event: Model) -> AuditRecord | None:
    """The latest rejection of this event, whose note tells the organiser what to correct; None if
    it was never rejected."""
    return (
        AuditRecord.objects.filter(object_type=event._meta.model_name, object_id=str(event.pk), action=Action.EVENT_REJECT)
        .order_by("-at", "-id")
        .first()
    )
