"""Notices store what they are about and are worded when read, in the reader's language; a run's
notices are owed in an outbox (NoticeRun) that a members task answers, with its dispatcher on the
beat schedule. The English titles recorded before are kept (fallback_title) and parsed where they
can be into what they say, so those notices are worded in Dutch too; one that does not parse keeps
its English title."""
import datetime as dt
import re

import django.utils.timezone
from django.db import migrations, models

RATING = re.compile(
    r"^(?:Your|.+'s) .+? rating \((?P<race>[^,]+), (?P<variant>.+)\) is now -?[\d.]+ \((?:was -?[\d.]+|new)\)$",
)
LIST = re.compile(r"^.+: the list of (?P<month>[A-Z][a-z]+) (?P<year>\d{4}) is published, (?P<rated>\d+) coaches rated$")
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
DISPATCHER = "Send the owed notices of runs"


def parsed(kind: str, title: str) -> dict:
    """What an English title of a notice says, as the params a notice stores now ({} if it does not parse)."""
    if kind == "list":
        found = LIST.match(title)
        if found is None or found["month"] not in MONTHS:
            return {}
        date = dt.date(int(found["year"]), MONTHS.index(found["month"]) + 1, 1)
        return {"date": date.isoformat(), "rated": int(found["rated"])}
    found = RATING.match(title)
    if found is None:
        return {}
    return {"race": "" if found["race"] == "all races" else found["race"], "variant": found["variant"]}


def params_from_titles(apps, schema_editor):
    Notice = apps.get_model("members", "Notice")
    for notice in Notice.objects.filter(params={}).exclude(fallback_title="").only("pk", "kind", "fallback_title", "system", "coach").iterator():
        params = parsed(notice.kind, notice.fallback_title)
        if notice.system_id is None or (notice.kind != "list" and notice.coach_id is None):
            params = {}  # nothing to word it from: its English title stays
        if params:
            Notice.objects.filter(pk=notice.pk).update(params=params)


def titles_from_params(apps, schema_editor):
    """Back to stored titles: the notices recorded since get an English one from what they store."""
    Notice = apps.get_model("members", "Notice")
    for notice in Notice.objects.filter(fallback_title="").select_related("system", "coach").iterator():
        system = notice.system.name if notice.system_id else ""
        if notice.kind == "list" and notice.params.get("date"):
            date = dt.date.fromisoformat(notice.params["date"])
            title = f"{system}: the list of {date:%B %Y} is published, {notice.params.get('rated', 0)} coaches rated"
        else:
            places = 0 if notice.system_id and notice.system.method == "knsb" else 2
            after = f"{notice.after or 0:.{places}f}"
            value = f"{after} (was {notice.before:.{places}f})" if notice.before is not None else f"{after} (new)"
            whose = "Your" if notice.kind == "own" else f"{notice.coach.public_name if notice.coach_id else 'A coach'}'s"
            key = f"{notice.params.get('race') or 'all races'}, {notice.params.get('variant', '')}"
            title = f"{whose} {system} rating ({key}) is now {value}"
        Notice.objects.filter(pk=notice.pk).update(fallback_title=title[:300])


def add_dispatcher(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_minute, _ = IntervalSchedule.objects.get_or_create(every=1, period="minutes")
    PeriodicTask.objects.update_or_create(
        name=DISPATCHER, defaults={"task": "members.tasks.dispatch_owed_notices", "interval": every_minute, "enabled": True},
    )


def remove_dispatcher(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=DISPATCHER).delete()


class Migration(migrations.Migration):
    dependencies = [("members", "0001_initial"), ("django_celery_beat", "0019_alter_periodictasks_options")]

    operations = [
        migrations.RenameField(model_name="notice", old_name="title", new_name="fallback_title"),
        migrations.AlterField(
            model_name="notice",
            name="fallback_title",
            field=models.CharField(
                blank=True, max_length=300,
                help_text="The English title a notice recorded before notices were worded when read: shown when its params are empty.",
            ),
        ),
        migrations.AddField(
            model_name="notice",
            name="params",
            field=models.JSONField(
                blank=True, default=dict,
                help_text="What the words need besides the columns: race and variant of a rating, date and coaches rated of a list.",
            ),
        ),
        migrations.AddField(
            model_name="notice",
            name="email_wanted",
            field=models.BooleanField(default=False, help_text="Its member wanted it mailed when it was recorded."),
        ),
        migrations.AddField(model_name="notice", name="emailed_at", field=models.DateTimeField(blank=True, null=True)),
        migrations.CreateModel(
            name="NoticeRun",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("run_id", models.BigIntegerField(help_text="The recalculation run (ratings.RecalculationRun).", unique=True)),
                ("system_id", models.BigIntegerField()),
                ("published", models.JSONField(blank=True, default=list, help_text="The ids of the publications the run made, oldest first.")),
                ("created_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                ("enqueued_at", models.DateTimeField(blank=True, null=True)),
                ("noticed_at", models.DateTimeField(blank=True, null=True)),
                ("mailed_at", models.DateTimeField(blank=True, null=True)),
                ("mail_attempts", models.PositiveSmallIntegerField(default=0)),
                ("mail_error", models.TextField(blank=True)),
            ],
        ),
        migrations.RunPython(params_from_titles, titles_from_params),
        migrations.RunPython(add_dispatcher, remove_dispatcher),
    ]
