"""Writing the audit trail: every service that changes something on a person's behalf calls this."""
from audit.models import SUBJECT_LINKS, Action, AuditRecord


def audit_record(*, actor, action: Action, obj, before=None, after=None, note: str = "") -> AuditRecord:
    """Write who did what to which object, from what to what; `obj` gets its typed link."""
    link = SUBJECT_LINKS.get(obj._meta.label_lower)
    return AuditRecord.objects.create(
        actor=actor if actor is not None and getattr(actor, "is_authenticated", False) else None,
        action=Action(action), object_type=obj._meta.model_name, object_id=str(obj.pk), object_repr=str(obj)[:300],
        before=before, after=after, note=note, **({link: obj} if link else {}),
    )
