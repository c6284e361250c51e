"""The three methods' engines as the replay takes them: each module checked (by mypy) to implement
the Engine protocol, KNSB also LateResults."""
from . import glicko, knsb, naf_elo
from .glicko import GlickoConfig, GlickoState
from .knsb import KnsbConfig, KnsbState
from .naf_elo import EloConfig, EloState
from .protocol import Engine, LateResults

NAF_ELO: Engine[EloConfig, EloState] = naf_elo
GLICKO: Engine[GlickoConfig, GlickoState] = glicko
KNSB: LateResults[KnsbConfig, KnsbState] = knsb
