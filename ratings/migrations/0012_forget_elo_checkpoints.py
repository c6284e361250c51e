"""NAF Elo checkpoints before this held boards whose values could be stale (a coach in two
overlapping events): forget them, so the next run of an Elo system replays from the first game."""
from django.db import migrations


def forget(apps, schema_editor):
    apps.get_model("ratings", "EngineCheckpoint").objects.filter(system__method="naf_elo").delete()


class Migration(migrations.Migration):
    dependencies = [("ratings", "0011_derived_indexes_without_system")]
    operations = [migrations.RunPython(forget, migrations.RunPython.noop)]
