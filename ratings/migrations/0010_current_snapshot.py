import django.db.models.deletion
from django.db import migrations, models


def store_blobs_uncompressed(apps, schema_editor):
    """PostgreSQL: checkpoints and snapshots are LZ4 already; TOAST trying to compress megabytes
    of them again only costs time."""
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE ratings_enginecheckpoint ALTER COLUMN state SET STORAGE EXTERNAL")
    schema_editor.execute("ALTER TABLE ratings_currentsnapshot ALTER COLUMN columns SET STORAGE EXTERNAL")


def store_blobs_compressed(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE ratings_enginecheckpoint ALTER COLUMN state SET STORAGE EXTENDED")


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0009_recalculated_at'),
    ]

    operations = [
        migrations.CreateModel(
            name='CurrentSnapshot',
            fields=[
                ('system', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='ratings.ratingsystem')),
                ('rows', models.PositiveIntegerField()),
                ('last_id', models.BigIntegerField()),
                ('columns', models.BinaryField()),
            ],
        ),
        migrations.RunPython(store_blobs_uncompressed, store_blobs_compressed),
    ]
