"""PostgreSQL only: list entries, calculation rows and summaries become tables partitioned by rating
system, with a default partition for systems that have none of their own yet (ratings/partitions.py).

Their primary key becomes (id, system_id), as a partitioned table's keys must hold the partition
column; ids still come from one sequence per table. The rows are copied over.
"""
import re

from django.db import migrations

TABLES = ["ratings_ratinglistentry", "ratings_calculationrow", "ratings_periodsummary"]


def partition(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexname <> %s",
                [table, f"{table}_pkey"],
            )
            indexes = cursor.fetchall()
            cursor.execute(f"ALTER TABLE {table} RENAME TO {table}_unpartitioned")
            cursor.execute(f"ALTER TABLE {table}_unpartitioned DROP CONSTRAINT {table}_pkey")
            for name, _ in indexes:
                cursor.execute(f"DROP INDEX {name}")
            cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}_unpartitioned")
            next_id = cursor.fetchone()[0]
            cursor.execute(f"ALTER TABLE {table}_unpartitioned ALTER id DROP IDENTITY")
            cursor.execute(
                f"CREATE TABLE {table} (LIKE {table}_unpartitioned INCLUDING CONSTRAINTS) PARTITION BY LIST (system_id)"
            )
            cursor.execute(f"CREATE SEQUENCE {table}_id_seq OWNED BY {table}.id START {int(next_id)}")
            cursor.execute(f"ALTER TABLE {table} ALTER id SET DEFAULT nextval('{table}_id_seq')")
            cursor.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_pkey PRIMARY KEY (id, system_id)")
            cursor.execute(f"CREATE TABLE {table}_default PARTITION OF {table} DEFAULT")
            for _, definition in indexes:
                cursor.execute(re.sub(r" ON (ONLY )?\S+ USING ", f" ON {table} USING ", definition))
            cursor.execute(f"INSERT INTO {table} SELECT * FROM {table}_unpartitioned")
            cursor.execute(f"DROP TABLE {table}_unpartitioned")


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0005_derived_indexes_and_partial_lists'),
    ]

    operations = [
        migrations.RunPython(partition, migrations.RunPython.noop, elidable=False),
    ]
