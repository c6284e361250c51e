"""No web request pays a compile: the web process (its settings, URLs and every app's views) never
loads numba, which only the engines' compiled paths (rating_engines.<engine>.compiled) import; Glicko's
and KNSB's tests check theirs the same way."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LOADED = "import sys; print(sorted(m for m in ('numba', 'llvmlite') if m in sys.modules))"


def loaded_after(code: str) -> str:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ratingsite.settings.test"}
    done = subprocess.run([sys.executable, "-c", f"{code}; {LOADED}"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    return done.stdout.strip().splitlines()[-1]


def test_the_web_process_does_not_load_numba():
    code = ("import django; django.setup(); from django.urls import get_resolver; "
            "resolver = get_resolver(); resolver.url_patterns; import rating_engines.naf_elo")
    assert loaded_after(code) == "[]"


def test_the_compiled_path_does():
    assert loaded_after("import rating_engines.naf_elo.compiled") == "['llvmlite', 'numba']"


def test_a_short_replay_does_not_and_a_long_one_does():
    pick = "from rating_engines import methods; methods.for_replay(methods.NAF_ELO, {})"
    assert loaded_after(pick.format("methods.COMPILED_FROM_GAMES - 1")) == "[]"
    assert loaded_after(pick.format("methods.COMPILED_FROM_GAMES")) == "['llvmlite', 'numba']"
