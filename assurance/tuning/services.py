"""Running the parameter search over the record and storing it; the configured systems are never changed."""
from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from assurance.tuning.search import SearchResult, Setup, WindowError, search, windows_for
from rating_engines.common import paused_gc
from ratings import selectors
from ratings.configuration import engine_for, list_rules
from ratings.models import ParameterSearch, RatingSystem


def parameter_search_run(
    *, systems: list[RatingSystem], split: dt.date | None = None, since: dt.date | None = None,
    today: dt.date | None = None, searched: Callable[[RatingSystem, SearchResult, float], None] | None = None,
) -> list[ParameterSearch]:
    """Search each system's parameter over the record (read once) and store one ParameterSearch per
    system, all or none. The evaluation window runs from `split` (default: two years before the
    record's last game) to that game, the tuning window from `since` (default: the first game) to the
    split. `searched` is told of each system as its search ends. WindowError if a window is empty."""
    today = today or timezone.now().date()
    with paused_gc():  # a replay per grid value builds millions of acyclic rows
        games = selectors.games_from(None, reported=False)
        last = max((g.played_at.date() for g in games if g.sanctioned), default=None)
        if last is None:
            raise WindowError("the record holds no game of a sanctioned event")
        windows = windows_for(last, split=split, since=since)
        found = []
        for system in systems:
            module, config = engine_for(system)
            began = time.perf_counter()
            result = search(Setup(module, config, list_rules(system, config), system.per_race), games, windows=windows, until=today)
            seconds = time.perf_counter() - began
            if searched:
                searched(system, result, seconds)
            found.append((system, result, seconds))
    computed_at = timezone.now()
    with transaction.atomic():
        return [
            ParameterSearch.objects.create(
                system=system, parameter=result.parameter, configured=result.configured, best=result.best,
                tuning_from=result.tuning_first, tuning_to=windows.split - dt.timedelta(days=1), tuning_games=result.tuning_games,
                evaluation_from=windows.split, evaluation_to=windows.evaluation_to, evaluation_games=result.evaluation_games,
                grid=[{"value": p.value, "tuning": p.tuning, "evaluation": p.evaluation} for p in result.grid],
                seconds=seconds, computed_at=computed_at,
            )
            for system, result, seconds in found
        ]
