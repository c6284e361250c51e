import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("ratings", "0016_published_sigma"),
    ]

    operations = [
        migrations.CreateModel(
            name="AccuracyReport",
            fields=[
                ("system", models.OneToOneField(
                    on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name="accuracy", serialize=False,
                    to="ratings.ratingsystem",
                )),
                ("computed_at", models.DateTimeField()),
                ("figures", models.JSONField()),
                ("run", models.ForeignKey(
                    blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+",
                    to="ratings.recalculationrun",
                )),
            ],
        ),
    ]
