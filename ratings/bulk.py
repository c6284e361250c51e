"""Bulk writes for calculation rows and lists: COPY on PostgreSQL, executemany elsewhere."""
from collections.abc import Iterable

from django.db import connection


def _columns(model, fields: list[str]) -> list[str]:
    return [model._meta.get_field(name).column for name in fields]


def bulk_insert(model, fields: list[str], rows: Iterable[tuple]) -> int:
    """Insert plain tuples (in `fields` order) without building model instances; returns the count."""
    table = model._meta.db_table
    columns = _columns(model, fields)
    count = 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            sql = f'COPY {table} ({", ".join(columns)}) FROM STDIN'
            with cursor.cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(row)
                    count += 1
            return count
        sql = f'INSERT INTO {table} ({", ".join(columns)}) VALUES ({", ".join(["%s"] * len(columns))})'
        batch = []
        for row in rows:
            batch.append(row)
            if len(batch) == 5000:
                cursor.executemany(sql, batch)
                count += len(batch)
                batch.clear()
        if batch:
            cursor.executemany(sql, batch)
            count += len(batch)
    return count
