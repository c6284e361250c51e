"""The audit trail moves from the record's app (tournaments) into its own, keeping its table and
rows; its actions get choices and its records typed links to what they name."""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

LINKS = {"event": "event", "game": "game", "coach": "coach", "ratingsystem": "rating_system", "recalculationrun": "run",
         "user": "member"}


def link_subjects(apps, schema_editor):
    """Fill each record's typed link from its object type and id."""
    AuditRecord = apps.get_model("audit", "AuditRecord")
    for object_type, field in LINKS.items():
        for record in AuditRecord.objects.filter(object_type=object_type).only("id", "object_id"):
            if record.object_id.isdigit():
                AuditRecord.objects.filter(pk=record.pk).update(**{f"{field}_id": int(record.object_id)})


def move_content_type(apps, schema_editor):
    """The permission to read the trail (and the staff group's hold of it) follows the model."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    old = ContentType.objects.filter(app_label="tournaments", model="auditrecord").first()
    if old is not None and not ContentType.objects.filter(app_label="audit", model="auditrecord").exists():
        old.app_label = "audit"
        old.save(update_fields=["app_label"])


def link(to):
    return models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL,
                             related_name="+", to=to)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_coach_page_covering_index"),
        ("ratings", "0012_forget_stale_checkpoints"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditRecord",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("action", models.CharField(db_index=True, max_length=50)),
                        ("object_type", models.CharField(db_index=True, max_length=50)),
                        ("object_id", models.CharField(db_index=True, max_length=50)),
                        ("object_repr", models.CharField(max_length=300)),
                        ("before", models.JSONField(blank=True, null=True)),
                        ("after", models.JSONField(blank=True, null=True)),
                        ("note", models.TextField(blank=True)),
                        ("at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("actor", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                                    related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"db_table": "tournaments_auditrecord", "ordering": ["-at", "-id"]},
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterField(
            model_name="auditrecord", name="action",
            field=models.CharField(choices=[
                ("event.create", "event entered"), ("event.update", "event changed"), ("event.upload", "event uploaded"),
                ("event.submit", "event submitted"), ("event.sanction", "event sanctioned"), ("event.reject", "event rejected"),
                ("game.correct", "game corrected"), ("coach.create", "coach added"), ("coach.merge", "coaches merged"),
                ("user.link_coach", "account linked to a coach"), ("rating_system.update", "rating system changed"),
                ("run.rerun", "run queued again"),
            ], db_index=True, max_length=50),
        ),
        migrations.AddField(model_name="auditrecord", name="event", field=link("tournaments.event")),
        migrations.AddField(model_name="auditrecord", name="game", field=link("tournaments.game")),
        migrations.AddField(model_name="auditrecord", name="coach", field=link("tournaments.coach")),
        migrations.AddField(model_name="auditrecord", name="rating_system", field=link("ratings.ratingsystem")),
        migrations.AddField(model_name="auditrecord", name="run", field=link("ratings.recalculationrun")),
        migrations.AddField(model_name="auditrecord", name="member", field=link(settings.AUTH_USER_MODEL)),
        migrations.RunPython(link_subjects, migrations.RunPython.noop),
        migrations.RunPython(move_content_type, migrations.RunPython.noop),
    ]
