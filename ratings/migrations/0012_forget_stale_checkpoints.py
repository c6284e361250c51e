"""Checkpoints made before this could carry stale figures: NAF Elo boards whose values missed a
coach's last game in an overlapping event, KNSB states without the games of unrated coaches by
month (a starter's Gt). Forget them, so the next run of those systems replays from the first game."""
from django.db import migrations


def forget(apps, schema_editor):
    apps.get_model("ratings", "EngineCheckpoint").objects.filter(system__method__in=["naf_elo", "knsb"]).delete()


class Migration(migrations.Migration):
    dependencies = [("ratings", "0011_derived_indexes_without_system")]
    operations = [migrations.RunPython(forget, migrations.RunPython.noop)]
