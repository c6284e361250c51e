"""Queued runs are the outbox of the recalculation messages: a run records when its message went
to the broker, so that one lost to a broker outage is sent again by the dispatcher."""
from django.db import migrations, models
from django.utils import timezone


def runs_before_are_sent(apps, schema_editor):
    # the runs before this were sent, or carried out in process: none is owed a message
    apps.get_model("ratings", "RecalculationRun").objects.update(enqueued_at=timezone.now())


def add_dispatcher(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_minute, _ = IntervalSchedule.objects.get_or_create(every=1, period="minutes")
    PeriodicTask.objects.update_or_create(
        name="Send the queued recalculations", defaults={"task": "ratings.tasks.dispatch_queued_runs", "interval": every_minute, "enabled": True},
    )


def remove_dispatcher(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name="Send the queued recalculations").delete()


class Migration(migrations.Migration):
    dependencies = [("ratings", "0012_forget_stale_checkpoints"), ("django_celery_beat", "0019_alter_periodictasks_options")]
    operations = [
        migrations.AddField(model_name="recalculationrun", name="enqueued_at", field=models.DateTimeField(blank=True, null=True)),
        migrations.RunPython(runs_before_are_sent, migrations.RunPython.noop),
        migrations.RunPython(add_dispatcher, remove_dispatcher),
    ]
