"""The derived tables' indexes leave the system out (ratings/models.py), their chunk indexes are
block ranges on PostgreSQL, and there the partitioned ones lose their primary keys.

A partitioned table's primary key must hold the partition column, so theirs were (id, system_id):
one more index for every full run to build over millions of rows, which no query reads (nothing
addresses a derived row by its id, and the ids come from one sequence per table).
"""
import ratings.models
from django.db import migrations, models

PARTITIONED = ["ratings_ratinglistentry", "ratings_calculationrow", "ratings_periodsummary"]


def drop_primary_keys(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        for table in PARTITIONED:
            cursor.execute(f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {table}_pkey")
            # a full run's partition keeps the unique index it was built with, detached from the key
            cursor.execute(
                "SELECT i.indexrelid::regclass::text FROM pg_inherits p JOIN pg_index i ON i.indrelid = p.inhrelid"
                " WHERE p.inhparent = %s::regclass AND i.indisunique",
                [table],
            )
            for (index,) in cursor.fetchall():
                cursor.execute(f"DROP INDEX {index}")


def add_primary_keys(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in PARTITIONED:
        schema_editor.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_pkey PRIMARY KEY (id, system_id)")


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0010_current_snapshot'),
        ('tournaments', '0005_coach_page_covering_index'),
    ]

    operations = [
        migrations.RunPython(drop_primary_keys, add_primary_keys),
        migrations.RemoveIndex(
            model_name='calculationrow',
            name='calc_row_game_idx',
        ),
        migrations.RemoveIndex(
            model_name='calculationrow',
            name='calc_row_chunk_idx',
        ),
        migrations.RemoveIndex(
            model_name='calculationrow',
            name='calc_row_period_idx',
        ),
        migrations.RemoveIndex(
            model_name='calculationrow',
            name='calc_row_uncounted_idx',
        ),
        migrations.RemoveIndex(
            model_name='periodsummary',
            name='summary_coach_idx',
        ),
        migrations.RemoveIndex(
            model_name='periodsummary',
            name='summary_chunk_idx',
        ),
        migrations.RemoveIndex(
            model_name='periodsummary',
            name='summary_period_idx',
        ),
        migrations.RemoveIndex(
            model_name='ratinglistentry',
            name='entry_key_idx',
        ),
        migrations.AddIndex(
            model_name='calculationrow',
            index=models.Index(fields=['game'], name='calc_row_game_idx'),
        ),
        migrations.AddIndex(
            model_name='calculationrow',
            index=ratings.models.ChunkIndex(fields=['chunk'], name='calc_row_chunk_idx'),
        ),
        migrations.AddIndex(
            model_name='calculationrow',
            index=models.Index(fields=['coach', 'period'], name='calc_row_period_idx'),
        ),
        migrations.AddIndex(
            model_name='calculationrow',
            index=models.Index(condition=models.Q(('counted', False)), fields=['coach'], name='calc_row_uncounted_idx'),
        ),
        migrations.AddIndex(
            model_name='periodsummary',
            index=models.Index(fields=['coach', 'effective'], name='summary_coach_idx'),
        ),
        migrations.AddIndex(
            model_name='periodsummary',
            index=ratings.models.ChunkIndex(fields=['chunk'], name='summary_chunk_idx'),
        ),
        migrations.AddIndex(
            model_name='periodsummary',
            index=models.Index(fields=['period'], name='summary_period_idx'),
        ),
        migrations.AddIndex(
            model_name='ratinglistentry',
            index=models.Index(fields=['coach', 'race', 'variant'], name='entry_key_idx'),
        ),
    ]
