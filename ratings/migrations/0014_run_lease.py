"""A run names the process that holds it, so that a run whose process is gone is found and failed
(a periodic sweep, and the next run of its system); staff may cancel a queued run."""
from django.db import migrations, models


def add_sweep(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_minute, _ = IntervalSchedule.objects.get_or_create(every=1, period="minutes")
    PeriodicTask.objects.update_or_create(
        name="Fail the runs whose process is gone", defaults={"task": "ratings.tasks.sweep_lost_runs", "interval": every_minute, "enabled": True},
    )


def remove_sweep(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name="Fail the runs whose process is gone").delete()


class Migration(migrations.Migration):
    dependencies = [("ratings", "0013_run_outbox")]
    operations = [
        migrations.AddField(model_name="recalculationrun", name="worker", field=models.CharField(blank=True, max_length=100)),
        migrations.AlterField(
            model_name="recalculationrun", name="status",
            field=models.CharField(
                choices=[("queued", "Queued"), ("running", "Running"), ("succeeded", "Succeeded"), ("failed", "Failed"),
                         ("cancelled", "Cancelled")],
                db_index=True, default="queued", max_length=10,
            ),
        ),
        migrations.RunPython(add_sweep, remove_sweep),
    ]
