"""Writing what a replay yields: calculation rows, summaries, list entries and current ratings,
encoded as database rows (COPY), and the current ratings rewritten only where they changed."""
from __future__ import annotations

import datetime as dt
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat

import lz4.frame
import numpy as np
from django.db import connection, models

from rating_engines.common import CalculationRow as EngineRow
from rating_engines.common import RowColumns
from ratings.bulk import BulkWriter, ChangedRows, bulk_insert, fetch_binary
from ratings.models import (
    CalculationRow,
    CurrentRating,
    CurrentSnapshot,
    EngineCheckpoint,
    PeriodSummary,
    RatingList,
    RatingListEntry,
    RatingSystem,
)
from ratings.replay import Chunk, Entries
from tournaments.models import Race, Variant

ROW_FIELDS = [
    "system", "game", "side", "coach", "race", "variant", "opponent", "opponent_race", "played_at", "period", "chunk",
    "w", "counted", "reason", "r0", "rc", "we", "k", "rt", "wx", "list_date", "depot_date", "opponent_phi", "g",
]


SUMMARY_FIELDS = [
    "system", "coach", "race", "variant", "period", "effective", "chunk", "rl", "rn", "nt", "games_played", "wt",
    "wet", "rtt", "rct", "wxt", "lpr", "limitation", "nv", "mu", "phi", "sigma", "mu_before", "phi_before",
    "sigma_before", "is_start",
]


ENTRY_FIELDS = [
    "rating_list", "system", "coach", "race", "variant", "value", "mu", "phi", "sigma", "nv", "games", "rank",
    "overall_rank", "change", "games_counted", "games_played",
]


CHECKPOINT_FIELDS = ["system", "as_of", "games", "state"]


CURRENT_FIELDS = [
    "system", "coach", "race", "variant", "value", "mu", "phi", "sigma", "nv", "games", "rank", "overall_rank",
    "wins", "draws", "losses", "last_played", "value_change", "rank_change",
]


def _delete_from(system: RatingSystem, start: dt.date | None, *, swapped: bool, changes: bool = False) -> None:
    """Delete what the run will write again. `swapped`: entries, rows and summaries are replaced
    whole by fresh partitions instead; `changes` (execution._writes_changes): they, and the lists,
    are rewritten where they changed, after the replay. Tables in the order of partitions.PARTITIONED
    (lock order)."""
    rows = CalculationRow.objects.filter(system=system)
    summaries = PeriodSummary.objects.filter(system=system)
    lists = RatingList.objects.filter(system=system)
    checkpoints = EngineCheckpoint.objects.filter(system=system)
    if start is not None:
        rows = rows.filter(chunk__gte=start)
        summaries = summaries.filter(chunk__gte=start)
        lists = lists.filter(date__gt=start)
        checkpoints = checkpoints.filter(as_of__gt=start)
    entries = RatingListEntry.objects.filter(system=system, rating_list__in=lists)
    deleted = (checkpoints,) if changes else (lists, checkpoints) if swapped else (entries, rows, summaries, lists, checkpoints)
    for queryset in deleted:
        queryset._raw_delete(queryset.db)


def _replace_current(system: RatingSystem, entries: Entries | None, keys: _Keys, *, full: bool) -> int:
    """Make the system's stored current ratings exactly `entries` (None: none); returns the rows written.

    On PostgreSQL only the rows that differ are written: a key's new figures over its stored row
    (_update_current), a new key inserted, a key gone deleted. An event changes a few dozen ratings
    and moves thousands of ranks; rewriting each moved row with its index entries was most of a
    small run. A partial run finds what differs by comparing columns with the snapshot of what the
    previous run wrote; a `full` run (or one without a valid snapshot) compares with every stored
    row read back, so it also repairs rows changed by hand.
    """
    stored = CurrentRating.objects.filter(system=system)
    if connection.vendor != "postgresql" or entries is None:
        stored._raw_delete(stored.db)
        CurrentSnapshot.objects.filter(system=system).delete()
        return bulk_insert(CurrentRating, CURRENT_FIELDS, current_rows(system.pk, entries, keys)) if entries else 0
    packed, figures = _current_figures(entries, keys)
    snapshot = None if full or packed is None else _current_snapshot(system)
    if snapshot is None or packed is None or figures is None:
        written = _replace_current_by_rows(system, entries, keys)
    else:
        written = _replace_current_by_snapshot(system, entries, keys, packed, figures, *snapshot)
    CurrentSnapshot.objects.filter(system=system).delete()
    if packed is not None and figures is not None:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT coalesce(max(id), 0) FROM {CurrentRating._meta.db_table} WHERE system_id = %s", [system.pk])
            last_id = cursor.fetchone()[0]
        order = np.argsort(packed)  # stored by key, ready for the next run's searchsorted
        blob = lz4.frame.compress(pickle.dumps((packed[order], figures[order]), protocol=pickle.HIGHEST_PROTOCOL))
        bulk_insert(CurrentSnapshot, ["system", "rows", "last_id", "columns"], [(system.pk, len(entries), last_id, blob)])
    return written


_KEY_BITS = 12  # race and variant ids packed beside the coach into one int64 key


def _current_figures(entries: Entries, keys: _Keys) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Each entry's key packed into an int64, and its stored columns (CURRENT_FIELDS after the key)
    as a float64 matrix with one NaN for none; (None, None) if an id is too large to pack."""
    coaches, races, variants = _key_arrays(entries, keys)
    if len(entries) and max(races.max(), variants.max()) >= 1 << _KEY_BITS:
        return None, None
    packed = (coaches << 2 * _KEY_BITS) | (races << _KEY_BITS) | variants
    arrays = entries.arrays()
    figures = np.column_stack([arrays[name].astype(np.float64) for name in CURRENT_FIELDS[4:]]) if len(entries) else (
        np.empty((0, len(CURRENT_FIELDS) - 4)))
    figures[np.isnan(figures)] = np.nan  # one NaN, so that rows compare by their bits
    return packed, figures


def _current_snapshot(system: RatingSystem) -> tuple[np.ndarray, np.ndarray] | None:
    """(packed keys, figures) the last run wrote, sorted by key, if the stored rows are still exactly those."""
    found = fetch_binary(
        f"SELECT s.rows, s.last_id, s.columns, (SELECT count(*) FROM {CurrentRating._meta.db_table} WHERE system_id = %s),"
        f" (SELECT coalesce(max(id), 0) FROM {CurrentRating._meta.db_table} WHERE system_id = %s)"
        f" FROM {CurrentSnapshot._meta.db_table} s WHERE s.system_id = %s",
        [system.pk, system.pk, system.pk],
    )
    if not found or found[0][0] != found[0][3] or found[0][1] != found[0][4]:
        return None
    return pickle.loads(lz4.frame.decompress(found[0][2]))


def _replace_current_by_snapshot(
    system: RatingSystem, entries: Entries, keys: _Keys, packed: np.ndarray, figures: np.ndarray,
    old_packed: np.ndarray, old_figures: np.ndarray,
) -> int:
    stored = np.zeros(len(packed), dtype=bool)  # the key has a stored row
    same = np.zeros(len(packed), dtype=bool)  # ... with these very figures
    kept = np.zeros(len(old_packed), dtype=bool)
    if len(old_packed) and len(packed):
        match = np.minimum(np.searchsorted(old_packed, packed), len(old_packed) - 1)  # stored sorted by key
        stored = old_packed[match] == packed
        same = stored & np.all(old_figures[match].view(np.int64) == figures.view(np.int64), axis=1)
        kept[match[stored]] = True
    gone = old_packed[~kept]
    if len(gone):
        mask = (1 << _KEY_BITS) - 1
        races = ((gone >> _KEY_BITS) & mask).tolist()
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {CurrentRating._meta.db_table} c USING unnest(%s::bigint[], %s::int[], %s::int[]) k(coach, race, variant)"
                " WHERE c.system_id = %s AND c.coach_id = k.coach AND c.race_id IS NOT DISTINCT FROM k.race AND c.variant_id = k.variant",
                [_array((gone >> 2 * _KEY_BITS).tolist()), _array(races, zero_is_null=True), _array((gone & mask).tolist()), system.pk],
            )
    updated = _update_current(system.pk, current_rows(system.pk, entries.take(np.flatnonzero(stored & ~same)), keys))
    return updated + bulk_insert(CurrentRating, CURRENT_FIELDS, current_rows(system.pk, entries.take(np.flatnonzero(~stored)), keys))


def _array(ids: Iterable[int], *, zero_is_null: bool = False) -> str:
    """Ids as one PostgreSQL array literal (`zero_is_null`: 0 as NULL, a pooled race): quoting
    tens of thousands of parameters one by one took longer than the statement."""
    return "{" + ",".join("NULL" if zero_is_null and not i else str(i) for i in ids) + "}"


def _replace_current_by_rows(system: RatingSystem, entries: Entries, keys: _Keys) -> int:
    table = CurrentRating._meta.db_table
    columns = ", ".join(_column(CurrentRating, name) for name in CURRENT_FIELDS)
    old: dict[tuple, tuple[int, tuple]] = {}
    twice = []  # the unique constraint lets a pooled key (race NULL) be stored twice: one row is kept
    for pk, *stored in fetch_binary(f"SELECT id, {columns} FROM {table} WHERE system_id = %s ORDER BY id", [system.pk]):
        if tuple(stored[:4]) in old:
            twice.append(pk)
        else:
            old[tuple(stored[:4])] = (pk, tuple(stored))
    changed, new = [], []
    for values in current_rows(system.pk, entries, keys):
        found = old.pop(values[:4], None)
        if found is None:
            new.append(values)
        elif found[1] != values:
            changed.append(values)
    gone = [pk for pk, _ in old.values()] + twice  # the keys no longer rated, and the rows stored twice
    if gone:
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {table} WHERE id = ANY(%s)", [gone])
    return _update_current(system.pk, changed) + bulk_insert(CurrentRating, CURRENT_FIELDS, new)


def _update_current(system_id: int, rows: Iterable[tuple]) -> int:
    """Rows (CURRENT_FIELDS order) of stored keys, written over the stored ones in place. No index
    holds a rank (CurrentRating.VARIANT_ORDER): a row whose rank alone moved is a HOT update, in the
    room the table's fillfactor leaves, touching no index."""
    rows = list(rows)
    if not rows:
        return 0
    table = CurrentRating._meta.db_table
    columns = [_column(CurrentRating, name) for name in CURRENT_FIELDS]
    same_key = (
        "c.system_id = %s AND c.coach_id = k.coach_id AND c.race_id IS NOT DISTINCT FROM k.race_id AND c.variant_id = k.variant_id"
    )
    # no try/finally: a statement that fails aborts the run's transaction, and its rollback drops the table
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE current_changes AS SELECT {', '.join(columns)} FROM {table} WITH NO DATA")
        bulk_insert(CurrentRating, CURRENT_FIELDS, rows, table="current_changes")
        # the system as a constant: the join then reads its rows alone, not every system's
        cursor.execute(
            f"UPDATE {table} c SET {', '.join(f'{column} = k.{column}' for column in columns[4:])}"
            f" FROM current_changes k WHERE {same_key}", [system_id],
        )
        if cursor.rowcount < len(rows):  # a key the comparison took for stored is not (a row deleted by hand): add it
            cursor.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(columns)} FROM current_changes k"
                f" WHERE NOT EXISTS (SELECT 1 FROM {table} c WHERE {same_key})", [system_id],
            )
        cursor.execute("DROP TABLE current_changes")
    return len(rows)


def _column(model: type[models.Model], name: str) -> str:
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field), f"{model.__name__}.{name} is a concrete field"
    return field.column


class _Keys:
    """Slug-to-id lookups for writing engine output."""

    def __init__(self):
        self.race = {None: None, **dict(Race.objects.values_list("slug", "id"))}  # pooled: no race
        self.variant = dict(Variant.objects.values_list("slug", "id"))


_NO_REASON = {None: ""}  # the column holds "" for a counted game


def row_tuples(sid: int, rows: Sequence[EngineRow], chunk_date: dt.date, keys: _Keys) -> Iterator[tuple]:
    """Calculation rows as stored, in ROW_FIELDS order (two million a run): an engine's RowColumns
    zipped as they are, objects a row at a time (a generator: faster than a map a field)."""
    race, variant = keys.race, keys.variant
    if isinstance(rows, RowColumns):
        n, column = len(rows), rows.column
        reasons = list(column("reason"))
        return zip(
            repeat(sid, n), column("game_id"), column("side"), column("coach"), map(race.__getitem__, column("race")),
            map(variant.__getitem__, column("variant")), column("opponent"), map(race.__getitem__, column("opponent_race")),
            column("played_at"), column("period"), repeat(chunk_date, n), column("w"), column("counted"),
            map(_NO_REASON.get, reasons, reasons),
            *(column(name) for name in ("r0", "rc", "we", "k", "rt", "wx", "list_date", "depot_date", "opponent_phi", "g")),
        )
    return (
        (
            sid, r.game_id, r.side, r.coach, race[r.race], variant[r.variant], r.opponent, race[r.opponent_race],
            r.played_at, r.period, chunk_date, r.w, r.counted, r.reason or "", r.r0, r.rc, r.we, r.k, r.rt, r.wx,
            r.list_date, r.depot_date, r.opponent_phi, r.g,
        )
        for r in rows
    )


def summary_values(sid: int, s, chunk_date: dt.date, keys: _Keys) -> tuple:
    """A period summary as stored, in SUMMARY_FIELDS order."""
    return (
        sid, s.coach, keys.race[s.race], keys.variant[s.variant], s.period, s.effective, chunk_date, s.rl, s.rn,
        s.nt, s.games_played, s.wt, s.wet, s.rtt, s.rct, s.wxt, s.lpr, s.limitation, s.nv, s.mu, s.phi, s.sigma,
        s.mu_before, s.phi_before, s.sigma_before, s.is_start,
    )


def _key_arrays(entries: Entries, keys: _Keys) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each entry's coach, race id (0: pooled) and variant id."""
    if not entries.groups:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    assert entries.coach is not None and entries.group is not None, "entries of a list carry their keys' columns"
    ids = np.zeros((max(entries.groups) + 1, 2), dtype=np.int64)
    for group, (variant, race) in entries.groups.items():
        ids[group] = keys.race[race] or 0, keys.variant[variant]
    return entries.coach, ids[entries.group, 0], ids[entries.group, 1]


def _key_columns(entries: Entries, keys: _Keys) -> tuple[list, list, list]:
    coaches, races, variants = _key_arrays(entries, keys)
    return coaches.tolist(), [race or None for race in races.tolist()], variants.tolist()


def _entry_columns(sid: int, entries: Entries, keys: _Keys, fields: list[str], *first: int) -> Iterator[tuple]:
    """`entries` as stored: `first` (the list's id), system, coach, race, variant, then `fields`
    (named as Entries.columns names them)."""
    columns, n = entries.columns(), len(entries)
    return zip(*(repeat(value, n) for value in (*first, sid)), *_key_columns(entries, keys), *(columns[name] for name in fields))


def entry_rows(sid: int, entries: Entries, keys: _Keys, rating_list: int) -> Iterator[tuple]:
    """A list's entries as stored, in ENTRY_FIELDS order: each tuple made once (a million a full run)."""
    return _entry_columns(sid, entries, keys, ENTRY_FIELDS[5:], rating_list)


def current_rows(sid: int, entries: Entries, keys: _Keys) -> Iterator[tuple]:
    """The current ratings as stored, in CURRENT_FIELDS order."""
    return _entry_columns(sid, entries, keys, CURRENT_FIELDS[4:])


def _kept(written: BulkWriter | ChangedRows) -> str:
    """What a writer of changes kept, for the run's log."""
    return f" ({written.kept} as they were kept, {written.deleted} replaced)" if isinstance(written, ChangedRows) else ""


class _Output:
    """What one run writes. Calculation rows (most of it) stream to the database while the replay
    runs; summaries, lists, current ratings and checkpoints are kept until it ends and the
    connection is free again. The summaries are kept pickled, a period's at a time: as tuples, the
    two million of a full run held some 400 MB more in each run's process."""

    def __init__(self, system: RatingSystem, keys: _Keys, tables: dict, *, start: dt.date | None, changes: bool = False):
        self.system, self.sid, self.keys = system, system.pk, keys
        self.tables = tables  # model -> the fresh table it is written to, when not its own
        self.start = start  # the checkpoint the run replays from (None: the first game)
        self.changes = changes  # write only what differs from what is stored from `start` on (ChangedRows)
        self.summaries: dict[str, bytes] = {}  # period label -> its latest summaries (a pickled list of tuples)
        self.lists: list[tuple[RatingList, Entries]] = []
        self.current: Entries | None = None
        self.checkpoints: list[tuple] = []  # CHECKPOINT_FIELDS

    def writer(self, model: type[models.Model], fields: list[str], where: str, params: list) -> BulkWriter | ChangedRows:
        """Where the run writes `model`'s rows: the changes to those `where` selects (ChangedRows),
        or all of them by COPY (into its fresh table, if it has one)."""
        if self.changes:
            return ChangedRows(model, fields, where=where, params=params)
        return BulkWriter(model, fields, table=self.tables.get(model), freeze=model in self.tables)

    def add(self, chunk: Chunk, rows: BulkWriter | ChangedRows) -> None:
        sid, keys, chunk_date = self.sid, self.keys, chunk.start
        rows.write(row_tuples(sid, chunk.rows, chunk_date, keys))
        # An event still open at a chunk's end is summarised again, cumulatively, by the next chunk.
        by_label: dict[str, list[tuple]] = {}
        for s in chunk.summaries:
            by_label.setdefault(s.period, []).append(summary_values(sid, s, chunk_date, keys))
        for label, values in by_label.items():
            self.summaries[label] = pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL)
        if chunk.is_list:
            rating_list = RatingList(
                system=self.system, date=chunk.end, rated=chunk.rated, ranked=chunk.ranked, starters=chunk.starters,
                complete=chunk.complete,
            )
            self.lists.append((rating_list, chunk.entries))
        else:
            self.current = chunk.entries

    def save(self, lap: Callable[[str], None] = lambda what: None) -> int:
        """Write what the replay kept; `lap(what)` after each table, for the run's log."""
        system, start = self.system, self.start
        if start is not None:  # summaries of events that were open at the checkpoint, now summarised again
            PeriodSummary.objects.filter(system=system, period__in=list(self.summaries), chunk__lt=start).delete()
        with self.writer(PeriodSummary, SUMMARY_FIELDS, "system_id = %s AND chunk >= %s", [self.sid, start]) as summaries:
            for label in list(self.summaries):
                summaries.write(pickle.loads(self.summaries.pop(label)))
        lap(f"{summaries.count} summaries written" + _kept(summaries))
        saved = self._saved_lists(start) if self.changes else RatingList.objects.bulk_create(
            [rating_list for rating_list, _ in self.lists])
        with self.writer(RatingListEntry, ENTRY_FIELDS, "system_id = %s AND rating_list_id = ANY(%s)",
                         [self.sid, [rating_list.pk for rating_list in saved]]) as entries:
            for rating_list, (_, listed) in zip(saved, self.lists):
                entries.write(entry_rows(self.sid, listed, self.keys, rating_list.pk))
        lap(f"{len(saved)} list{'' if len(saved) == 1 else 's'}, {entries.count} entries written" + _kept(entries))
        current = _replace_current(system, self.current, self.keys, full=start is None)
        lap(f"{current} current ratings written")
        # COPY: megabytes of state each, which an INSERT would send and parse as hex text
        bulk_insert(EngineCheckpoint, CHECKPOINT_FIELDS, self.checkpoints)
        lap(f"{len(self.checkpoints)} checkpoint{'' if len(self.checkpoints) == 1 else 's'} written")
        return summaries.count + entries.count + current

    def _saved_lists(self, start: dt.date | None) -> list[RatingList]:
        """The lists drawn, as stored: a list of a date already stored keeps its row (its entries
        are rewritten where they changed), new dates are added, and stored lists from `start` on
        that the replay no longer draws go with their entries."""
        stored = {rating_list.date: rating_list for rating_list in RatingList.objects.filter(system=self.system, date__gt=start)}
        drawn = []
        for rating_list, _ in self.lists:
            kept = stored.pop(rating_list.date, None)
            if kept is not None:
                rating_list.pk = kept.pk
            drawn.append(rating_list)
        if stored:
            gone = [rating_list.pk for rating_list in stored.values()]
            RatingListEntry.objects.filter(system=self.system, rating_list__in=gone)._raw_delete(RatingListEntry.objects.db)
            RatingList.objects.filter(pk__in=gone)._raw_delete(RatingList.objects.db)
        RatingList.objects.bulk_update([r for r in drawn if r.pk is not None], ["rated", "ranked", "starters", "complete"])
        RatingList.objects.bulk_create([r for r in drawn if r.pk is None])
        return drawn
