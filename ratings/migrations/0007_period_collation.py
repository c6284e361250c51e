"""PostgreSQL only: period labels ("event:123", "2024-03") compare byte by byte (collation "C").

They are ASCII, so nothing orders differently; but indexes over them build several times faster
without the locale's collation, and a full run builds them over millions of rows.
"""
from django.db import migrations

COLUMNS = [("ratings_calculationrow", "period"), ("ratings_periodsummary", "period")]


def collate_c(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        for table, column in COLUMNS:
            cursor.execute(f'ALTER TABLE {table} ALTER COLUMN {column} TYPE varchar(20) COLLATE "C"')


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0006_partition_derived_tables'),
    ]

    operations = [
        migrations.RunPython(collate_c, migrations.RunPython.noop, elidable=False),
    ]
