"""PostgreSQL: the three large derived tables (list entries, calculation rows, summaries) are
partitioned by rating system (migration 0006).

A full run writes each of them into a fresh table without indexes, builds the indexes once over
the loaded rows, and swaps the fresh table in for the system's partition just before it commits.
Rewriting millions of rows through live indexes, and deleting the old ones, cost most of a full
run; building an index over loaded rows is several times cheaper, and dropping a partition is free.
Everything is in the run's transaction: a failed run leaves the old partitions as they were.
"""
from __future__ import annotations

import re

from django.db import connection

from ratings.models import CalculationRow, PeriodSummary, RatingListEntry, RecalculationRun, RunStatus

# Lock order: the order every run first touches these tables (_delete_from), so that a swap and
# a partial run of another system cannot wait on each other.
PARTITIONED = (RatingListEntry, CalculationRow, PeriodSummary)


def partitioned() -> bool:
    """True when the database holds the derived tables partitioned (PostgreSQL after migration 0006)."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_partitioned_table WHERE partrelid = ANY(%s::regclass[])",
            [[model._meta.db_table for model in PARTITIONED]],
        )
        return cursor.fetchone()[0] == len(PARTITIONED)


def partition_name(model, system_id: int) -> str:
    return f"{model._meta.db_table}_s{system_id}"


class FreshPartitions:
    """One full run's fresh tables for a system: `tables` (model -> table) to write into, `swap()` before commit.

    `create()` runs before the run's transaction (autocommit): creating a table LIKE its parent
    locks the parent until commit, and two runs each holding that lock while asking for the
    parent's exclusive lock to swap would deadlock. So the tables outlive a failed run, and
    `discard()` drops them (a run that crashed outright leaves them to the next run of its system).
    """

    def __init__(self, system_id: int, run_id: int):
        self.system_id, self.run_id = system_id, run_id
        self.tables = {model: f"{partition_name(model, system_id)}_r{run_id}" for model in PARTITIONED}

    def create(self) -> None:
        # this run's own tables, if there are any, are left by an attempt of it whose process was lost
        running = set(RecalculationRun.objects.filter(status=RunStatus.RUNNING).exclude(pk=self.run_id).values_list("pk", flat=True))
        with connection.cursor() as cursor:
            for model, table in self.tables.items():
                parent = model._meta.db_table
                cursor.execute(
                    "SELECT relname FROM pg_class WHERE relkind = 'r' AND relname LIKE %s",
                    [f"{partition_name(model, self.system_id)}\\_r%"],
                )
                for (left,) in cursor.fetchall():
                    if int(left.rsplit("_r", 1)[1]) not in running:
                        cursor.execute(f"DROP TABLE IF EXISTS {left}")
                cursor.execute(f"CREATE TABLE {table} (LIKE {parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
                # lets ATTACH skip scanning the rows for their partition bound
                cursor.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_system CHECK (system_id = {int(self.system_id)})")

    def begin(self) -> None:
        """Inside the run's transaction, before writing: empty the fresh tables (they are), so that
        the run may COPY into them FREEZE (PostgreSQL allows it only into a table created or
        truncated in the same transaction): rows written frozen, with their pages all-visible."""
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {', '.join(self.tables.values())}")

    def discard(self) -> None:
        """Drop the tables not swapped in (the run failed, or did not start from scratch after all)."""
        with connection.cursor() as cursor:
            for table in self.tables.values():
                cursor.execute(f"DROP TABLE IF EXISTS {table}")

    def _others_running(self) -> bool:
        return RecalculationRun.objects.filter(status=RunStatus.RUNNING).exclude(pk=self.run_id).exists()

    def swap(self) -> None:
        """Index the fresh tables like their parents, then put them in place of the system's partitions."""
        sid = int(self.system_id)
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL maintenance_work_mem TO '256MB'")
            if self._others_running():
                # their runs keep the cores busy: workers helping build an index would only wait on them
                cursor.execute("SET LOCAL max_parallel_maintenance_workers TO 0")
            for model, table in self.tables.items():
                cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = %s", [model._meta.db_table])
                for (definition,) in cursor.fetchall():
                    # "CREATE INDEX name ON ONLY public.parent USING ..." -> the same index, unnamed, on the fresh table
                    cursor.execute(re.sub(r"^CREATE (UNIQUE )?INDEX \S+ ON (ONLY )?\S+", rf"CREATE \1INDEX ON {table}", definition))
                cursor.execute(f"ANALYZE {table}")
            for model, table in self.tables.items():
                parent, current = model._meta.db_table, partition_name(model, sid)
                cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [current])
                if cursor.fetchone()[0]:
                    cursor.execute(f"ALTER TABLE {parent} DETACH PARTITION {current}")
                    cursor.execute(f"DROP TABLE {current}")
                # rows of the system from before it had a partition of its own
                cursor.execute(f"DELETE FROM {parent}_default WHERE system_id = %s", [sid])
                cursor.execute(f"ALTER TABLE {table} RENAME TO {current}")
                cursor.execute(f"ALTER TABLE {parent} ATTACH PARTITION {current} FOR VALUES IN ({sid})")


def autovacuum_on() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('autovacuum') = 'on'")
        return cursor.fetchone()[0]


def vacuum_grown(system_id: int) -> list[str]:
    """Where autovacuum is off, vacuum the system's partitions as autovacuum would: each whose dead
    rows (a partial run deletes the rows from its checkpoint on and writes them again) pass the
    server's own autovacuum threshold. Without it a partition only grows: each sanction's run adds
    the space of the rows it replaced, for good, and later runs and pages read past it. Returns the
    tables vacuumed. Outside a transaction only (PostgreSQL refuses VACUUM inside one)."""
    if not partitioned() or connection.in_atomic_block or autovacuum_on():
        return []
    tables = [partition_name(model, system_id) for model in PARTITIONED]
    with connection.cursor() as cursor:
        if connection.pg_version >= 150000:  # this connection's counts of the run, then read (else up to a second late)
            cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute(
            "SELECT relname FROM pg_stat_user_tables WHERE relname = ANY(%s) AND n_dead_tup >"
            " current_setting('autovacuum_vacuum_threshold')::float8"
            " + current_setting('autovacuum_vacuum_scale_factor')::float8 * n_live_tup",
            [tables],
        )
        grown = sorted(name for (name,) in cursor.fetchall())
        for table in grown:
            cursor.execute(f"VACUUM (TRUNCATE false) {table}")  # TRUNCATE false: see _maintain_after_run
    return grown
