"""The three methods' engines as the replay takes them: each module checked (by mypy) to implement
the Engine protocol, KNSB also LateResults."""
from collections.abc import Callable
from typing import Any, cast

from . import glicko, knsb, naf_elo
from .glicko import GlickoConfig, GlickoState
from .knsb import KnsbConfig, KnsbState
from .naf_elo import EloConfig, EloState
from .protocol import Engine, LateResults

NAF_ELO: Engine[EloConfig, EloState] = naf_elo
GLICKO: Engine[GlickoConfig, GlickoState] = glicko
KNSB: LateResults[KnsbConfig, KnsbState] = knsb

# A replay of at least this many games runs NAF Elo's compiled history. Month by month it rates
# no faster than the Python history (7.0 s each over 2,000,000 games); what it saves is the row
# objects, which reach the lists and COPY as columns (the whole replay 17.9 s -> 16.2 s, about
# 0.85 µs a game), against 0.25 s a process to load numba and the cached kernels.
COMPILED_FROM_GAMES = 500_000


class _CompiledHistory:
    """`engine` with `run_history` taken from its compiled module: the same arguments and results
    (tests/engines/test_naf_elo_compiled.py holds them equal, chunk by chunk in place too)."""

    def __init__(self, engine: Engine[Any, Any], run_history: Callable[..., Any]) -> None:
        self.engine = engine
        self.run_history = run_history

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def for_replay(engine: Engine[Any, Any], games: int) -> Engine[Any, Any]:
    """The engine a replay of `games` games runs: NAF Elo's compiled history for a long one (a
    full run, a verification), else `engine`. Glicko and KNSB keep their Python histories here:
    a replay hands them a month at a time from a state, which their compiled paths give back to
    Python (Glicko rates a period when it closes, in its vectorised step either way; KNSB's
    compiled path starts from no state). Callers are recalculations and checks, never a web
    request's page: the compiled module imports numba."""
    if engine is NAF_ELO and games >= COMPILED_FROM_GAMES:
        from .naf_elo import compiled

        return cast(Engine[Any, Any], _CompiledHistory(engine, compiled.run_history))
    return engine
