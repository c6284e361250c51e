"""Every game carries the date its result entered the record. The games recorded so far count as
reported at their event's end if it is sanctioned (the history as loaded), else not yet."""
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def reported_at_event_end(apps, schema_editor):
    Event = apps.get_model("tournaments", "Event")
    Game = apps.get_model("tournaments", "Game")
    ends = Event.objects.filter(pk=OuterRef("event_id")).values("end_date")[:1]
    Game.objects.filter(event__status="sanctioned").update(reported_on=Subquery(ends))


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0008_results_upload")]
    operations = [
        migrations.AddField(
            model_name="game", name="reported_on",
            field=models.DateField(
                blank=True, null=True,
                help_text="When the result entered the record: its event's sanction, or the correction applied to it "
                          "(history loaded in bulk: its event's end). None while its event is not sanctioned.",
            ),
        ),
        migrations.RunPython(reported_at_event_end, migrations.RunPython.noop),
    ]
