"""Open play gets a status of its own (public, never rated): the FUMBBL open-play months imported
as "rejected" become "open_play". Run `recalculate` afterwards: the ratings then leave out the
games of every event that is not public."""
from django.db import migrations, models

OPEN_PLAY_SOURCE_PREFIX = "fumbbl-open:"


def open_play(apps, schema_editor):
    Event = apps.get_model("tournaments", "Event")
    Event.objects.filter(source__startswith=OPEN_PLAY_SOURCE_PREFIX, status="rejected").update(status="open_play")


def back_to_rejected(apps, schema_editor):
    Event = apps.get_model("tournaments", "Event")
    Event.objects.filter(status="open_play").update(status="rejected")


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0011_coach_search_name"),
    ]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="status",
            field=models.CharField(
                choices=[("draft", "Draft"), ("submitted", "Submitted"), ("sanctioned", "Sanctioned"), ("rejected", "Rejected"),
                         ("open_play", "Open play (unsanctioned)")],
                db_index=True, default="draft", max_length=12,
            ),
        ),
        migrations.RunPython(open_play, back_to_rejected),
    ]
