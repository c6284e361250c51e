from django.db import migrations

NAME = "Write the open data (nightly dump)"


def add_schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    # after the daily Global Glicko refresh (00:15) and the monthly lists (00:05 on the 1st)
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="30", hour="2", day_of_month="*", month_of_year="*", day_of_week="*", timezone="UTC"
    )
    PeriodicTask.objects.update_or_create(
        name=NAME, defaults={"task": "downloads.tasks.dump_open_data", "crontab": crontab, "enabled": True},
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [("django_celery_beat", "0019_alter_periodictasks_options")]
    operations = [migrations.RunPython(add_schedule, remove_schedule)]
