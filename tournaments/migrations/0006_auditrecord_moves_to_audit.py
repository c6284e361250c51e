"""The audit trail is an app of its own now (audit 0001 takes over the model and its table)."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_coach_page_covering_index"),
        ("audit", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="AuditRecord")], database_operations=[]),
    ]
