"""The staff group reads the audit trail in its new app (a new database gets the permission here)."""
from django.db import migrations

from tournaments.permissions import groups_sync


def sync(apps, schema_editor):
    groups_sync(apps=apps, using=schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial"), ("tournaments", "0006_auditrecord_moves_to_audit")]
    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
