"""The engine interface: the three methods' modules implement the Engine protocol (mypy checks
their signatures in rating_engines.methods); these check what holds at run time."""
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

from rating_engines import glicko, knsb, methods, naf_elo
from rating_engines.common import GameRecord
from rating_engines.protocol import Engine, LateResults

GAMES = [
    GameRecord(i, datetime(2024, 1 + i % 3, 1 + i, 10), 1 + i % 4, "blood-bowl-2020", 5 + i % 3, "human",
               9 + i % 2, "orc", (1.0, 0.5, 0.0)[i % 3], event_coaches=12)
    for i in range(1, 20)
]


def test_each_method_is_its_module_and_only_knsb_takes_late_results():
    assert methods.NAF_ELO is naf_elo and methods.GLICKO is glicko and methods.KNSB is knsb
    for module in (naf_elo, glicko, knsb):
        assert isinstance(module, Engine)
    assert isinstance(knsb, LateResults)
    assert not isinstance(naf_elo, LateResults) and not isinstance(glicko, LateResults)


def test_only_naf_elo_keeps_a_rating_after_every_game():
    elo = naf_elo.run_history(GAMES, naf_elo.EloConfig())
    assert elo.state.ratings and naf_elo.current_ratings(elo.state) == elo.state.ratings
    for module, config in ((glicko, glicko.GlickoConfig()), (knsb, knsb.KnsbConfig())):
        result = module.close_periods(module.run_history(GAMES, config).state, config, date(2024, 6, 1))
        assert result.summaries  # rated: their ratings are in the summaries, not kept per game
        assert module.current_ratings(result.state) is None


def test_the_engines_import_neither_django_nor_any_app():
    code = (
        "import sys; import rating_engines.methods, rating_engines.common, rating_engines.protocol; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'ratings', 'tournaments', 'stats', 'audit', 'ratingsite'}))"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]"
