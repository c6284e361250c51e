"""The outbox of the statistics refresh messages, and its dispatcher on the beat schedule."""
import django.utils.timezone
from django.db import migrations, models


def add_dispatcher(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_minute, _ = IntervalSchedule.objects.get_or_create(every=1, period="minutes")
    PeriodicTask.objects.update_or_create(
        name="Send the owed statistics refresh", defaults={"task": "stats.tasks.dispatch_owed_refresh", "interval": every_minute, "enabled": True},
    )


def remove_dispatcher(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name="Send the owed statistics refresh").delete()


class Migration(migrations.Migration):
    dependencies = [("stats", "0001_initial"), ("django_celery_beat", "0019_alter_periodictasks_options")]
    operations = [
        migrations.CreateModel(
            name="SummaryRefreshRequest",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("created_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                ("enqueued_at", models.DateTimeField(blank=True, null=True)),
            ],
        ),
        migrations.RunPython(add_dispatcher, remove_dispatcher),
    ]
