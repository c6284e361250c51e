"""Verify a rating system's stored figures, two ways.

1. Against a fresh recalculation: every stored calculation row, summary, list entry and current
   rating is compared with what a replay from scratch in memory gives.
2. Against themselves, independently of the replay: every stored figure is checked against the
   stored rows it rests on, by its method's formula (engines/*): each row's We, k and Rt from its
   own columns; each summary's totals from its rows; each key's chain of ratings from one game or
   period to the next; each current rating and list entry from the key's rows or summaries in force
   at its date. A replay that shares a bug with the recalculation agrees with what it stored; the
   stored figures then still disagree with their own rows.
3. Each published list on its own (published.py): its digest, its ranks from its values, and its
   entries against a replay of the games as reported before it was published.

Both read every table once per system, as columns (NumPy arrays): on PostgreSQL as one binary COPY
per table of fixed-width values (no Python object per value), elsewhere through the cursor. The
games are read once for all systems (`verify_systems`), and on PostgreSQL systems are verified
`jobs` at a time in processes forked after the read, as the recalculation runs them.
"""
from __future__ import annotations

import datetime as dt
import os
import pickle
import tempfile
from collections.abc import Iterator

from django.db import connection
from django.utils import timezone

from assurance.verification.checks import check_stored
from assurance.verification.differences import Differences
from assurance.verification.published import publication_checks
from assurance.verification.replayed import _replay, compare_tail, compare_with_replay, drawn_as_stored
from assurance.verification.stored import _codes, _Names, read_stored
from rating_engines.common import paused_gc
from ratings import selectors
from ratings.configuration import engine_for
from ratings.models import RatingList, RatingSystem
from ratings.services.storage import _Keys
from ratings.services.workers import can_fork, in_processes

__all__ = ["Differences", "verify_system", "verify_systems"]


def verify_system(system: RatingSystem, *, today: dt.date | None = None, limit: int = 10, games: list | None = None,
                  replayed: bool = True) -> Differences:
    """Every stored calculation row, summary, list entry and current rating against a fresh replay
    (unless not `replayed`) and against its own rows and formula; every publication against its
    digest and ranking rule and (unless not `replayed`) the games reported before it. `games`: read
    once for several systems."""
    today = today or timezone.now().date()
    module, config = engine_for(system)
    keys = _Keys()
    codes = _codes()
    names = _Names(keys, codes)
    diffs = Differences(limit)
    lists = {rating_list.date: rating_list for rating_list in RatingList.objects.filter(system=system)}
    with paused_gc():
        if games is None:
            games = selectors.game_records()
        draws = drawn_as_stored(lists)
        # planned first: the replay of the live record checks the publications whose record agrees
        # with it before their date, and keeps its state where the others' replays resume
        publications = publication_checks(diffs, system, module, config, games, replayed=replayed, live=draws, until=today)
        expected = _replay(system, module, config, games, today, draws, keys, codes, publications.live_list,
                           both=publications.drawn_both) if replayed else None
        stored = read_stored(system, codes, lists)
        if expected is not None:
            compare_with_replay(diffs, expected, stored, today, names)
            compare_tail(diffs, expected.tails[0] if expected.tails else None, selectors.replay_tail(system, dt.date.max))
            del expected
        check_stored(diffs, system, config, stored, names, games, today)
        del stored
        publications.end(games)
    return diffs


def verify_systems(systems: list[RatingSystem], *, today: dt.date | None = None, limit: int = 10, jobs: int = 1,
                   replayed: bool = True) -> Iterator[tuple[RatingSystem, Differences]]:
    """`verify_system` for each system, the games read once for all. On PostgreSQL up to `jobs` at
    once, in a pool of processes forked after the games are read (as recalculation_execute_many runs)."""
    today = today or timezone.now().date()
    with paused_gc():
        games = [selectors.game_records()]
    if jobs <= 1 or len(systems) <= 1 or connection.vendor != "postgresql" or connection.in_atomic_block or not can_fork():
        for system in systems:
            yield system, verify_system(system, today=today, limit=limit, games=games[0], replayed=replayed)
        return
    with tempfile.TemporaryDirectory(prefix="verify_ratings") as folder:
        by_id = {system.pk: system for system in systems}

        def execute(system_id: int) -> None:
            diffs = verify_system(by_id[system_id], today=today, limit=limit, games=games[0], replayed=replayed)
            with open(os.path.join(folder, str(system_id)), "wb") as out:
                pickle.dump(diffs, out)

        lost = in_processes(list(by_id), jobs, execute, forked=games.clear)
        for system in systems:
            try:
                with open(os.path.join(folder, str(system.pk)), "rb") as found:
                    yield system, pickle.load(found)
            except FileNotFoundError:
                why = "was lost" if system.pk in lost else "wrote nothing"
                raise RuntimeError(f"verifying {system.slug} ended abnormally (its process {why})") from None
