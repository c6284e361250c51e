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


def _redacted(value, texts: list[str], replacement: str):
    if isinstance(value, str):
        for text in texts:
            value = value.replace(text, replacement)
        return value
    if isinstance(value, list):
        return [_redacted(item, texts, replacement) for item in value]
    if isinstance(value, dict):
        return {key: _redacted(item, texts, replacement) for key, item in value.items()}
    return value


def audit_records_redact(*, coach_id: int, member_id: int | None, texts: list[str], replacement: str) -> int:
    """Replace each of `texts` (an erased coach's names) by `replacement` in the records about that
    coach or member: the record of what was done stays, without whom it named. Answers the records changed."""
    texts = sorted({text for text in texts if text}, key=len, reverse=True)
    if not texts:
        return 0
    records = AuditRecord.objects.filter(coach_id=coach_id) | (
        AuditRecord.objects.filter(member_id=member_id) if member_id is not None else AuditRecord.objects.none())
    changed = []
    for record in records:
        fields = {name: _redacted(getattr(record, name), texts, replacement) for name in ("object_repr", "before", "after", "note")}
        if any(fields[name] != getattr(record, name) for name in fields):
            for name, value in fields.items():
                setattr(record, name, value)
            changed.append(record)
    AuditRecord.objects.bulk_update(changed, ["object_repr", "before", "after", "note"], batch_size=500)
    return len(changed)
