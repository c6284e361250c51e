from django.db import migrations

SCHEDULE = [
    # (name, task, minute, hour, day_of_month)
    ("Publish the monthly lists", "ratings.tasks.publish_monthly_lists", "5", "0", "1"),
    ("Refresh Global Glicko", "ratings.tasks.refresh_daily", "15", "0", "*"),
]


def add_schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, minute, hour, day in SCHEDULE:
        crontab, _ = CrontabSchedule.objects.get_or_create(
            minute=minute, hour=hour, day_of_month=day, month_of_year="*", day_of_week="*", timezone="UTC"
        )
        PeriodicTask.objects.update_or_create(name=name, defaults={"task": task, "crontab": crontab, "enabled": True})


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name__in=[s[0] for s in SCHEDULE]).delete()


class Migration(migrations.Migration):
    dependencies = [("ratings", "0002_default_rating_systems"), ("django_celery_beat", "0019_alter_periodictasks_options")]
    operations = [migrations.RunPython(add_schedule, remove_schedule)]
