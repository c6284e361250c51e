"""Mutation testing of the rating engines: do tests/engines notice when the engines' code changes?

    python tools/mutants.py --seed 7 --sample 40     (`make mutants` runs the project's seeded sample)

Each mutant is one small change to one engine module (rating_engines): a comparison flipped
(< to <=, == to !=, is to is not, in to not in), an arithmetic operator swapped (+ to -, * to /),
a number moved by +1 or -1, True and False swapped, `and` to `or`, a `not` dropped, a `return`
dropped. The runner draws a reproducible sample of them (--seed, --sample), and for each runs
`pytest tests/engines -x` with this file loaded as a plugin that hands the mutated module to the
import system in place of the file on disk (nothing is written into the worktree). A mutant is
killed when a test fails, survives when all pass. The score counts the meaningful mutants: those in
tools/mutants_equivalent.toml change no result on any input (each with its reason) and are skipped.

Not mutated: docstrings and strings, annotations, decorators, assert statements (type narrowing,
not results), a function's closing `return None` (dropping it changes nothing).
"""
from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINES = "rating_engines"
TESTS = "tests/engines"
EQUIVALENTS = Path(__file__).resolve().parent / "mutants_equivalent.toml"
ENV = "ENGINE_MUTANT"  # the mutant a pytest run under this plugin applies (JSON)

COMPARISONS: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}
ARITHMETIC: dict[type, type] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult,
}
SYMBOLS = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in", ast.Add: "+",
    ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
}


@dataclass(frozen=True)
class Mutant:
    """One change: the `index`-th node of the file's ast.walk order gets `change` (operator, constant...)."""

    file: str  # relative to the project
    index: int
    change: str  # op:<NewOp> | const:<delta> | bool | boolop | not | return
    line: int
    function: str  # qualified name of the enclosing function or class ("" at module level)
    original: str  # source of the node before
    mutated: str  # and after
    occurrence: int  # 1 for the first mutant of this (function, original, mutated), 2 for the next...

    @property
    def key(self) -> tuple:
        return self.file, self.function, self.original, self.mutated, self.occurrence

    def describe(self) -> str:
        where = f"{self.file}:{self.line}" + (f" ({self.function})" if self.function else "")
        return f"{where}\n    - {self.original}\n    + {self.mutated}"


# -- finding and applying mutations --

def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes never mutated: annotations, decorators, asserts, docstrings and what they hold."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            roots += node.decorator_list
            if node.returns is not None:
                roots.append(node.returns)
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    roots.append(arg.annotation)
        elif isinstance(node, ast.ClassDef):
            roots += node.decorator_list
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        elif isinstance(node, ast.Assert):
            roots.append(node)
    skipped = {id(n) for root in roots for n in ast.walk(root)}
    for node in ast.walk(tree):  # dropping a function's closing `return None` changes nothing
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            last = node.body[-1]
            if isinstance(last, ast.Return) and (last.value is None or _is_none(last.value)):
                skipped.add(id(last))
    return skipped


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _changes(node: ast.AST) -> list[str]:
    """The mutations this node offers."""
    if isinstance(node, ast.Compare):
        return [f"op{i}:{COMPARISONS[type(op)].__name__}" for i, op in enumerate(node.ops)]
    if isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in ARITHMETIC:
        return [f"op:{ARITHMETIC[type(node.op)].__name__}"]
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return ["bool"]
        if isinstance(node.value, int | float):
            return ["const:+1", "const:-1"]
    if isinstance(node, ast.BoolOp):
        return ["boolop"]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return ["not"]
    if isinstance(node, ast.Return):
        return ["return"]
    return []


def _apply(node: ast.AST, change: str) -> ast.AST:
    """A mutated copy of `node` (a `pass` for a dropped return; the operand for a dropped not)."""
    new = copy.deepcopy(node)
    kind, _, arg = change.partition(":")
    if kind.startswith("op") and isinstance(new, ast.Compare):
        new.ops[int(kind[2:])] = getattr(ast, arg)()
    elif kind == "op" and isinstance(new, ast.BinOp | ast.AugAssign):
        new.op = getattr(ast, arg)()
    elif kind == "const" and isinstance(new, ast.Constant) and isinstance(new.value, int | float):
        new.value = new.value + int(arg)
    elif kind == "bool" and isinstance(new, ast.Constant):
        new.value = not new.value
    elif kind == "boolop" and isinstance(new, ast.BoolOp):
        new.op = ast.Or() if isinstance(new.op, ast.And) else ast.And()
    elif kind == "not" and isinstance(new, ast.UnaryOp):
        return ast.copy_location(new.operand, node)
    elif kind == "return":
        return ast.copy_location(ast.Pass(), node)
    return new


def _replace(tree: ast.AST, target: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, name, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is target:
                        value[i] = new
                        return
    raise LookupError("node not in tree")


def mutated_tree(source: str, index: int, change: str) -> ast.Module:
    """The module of `source` with the mutation applied (line numbers of the rest unchanged)."""
    tree = ast.parse(source)
    target = list(ast.walk(tree))[index]
    _replace(tree, target, _apply(target, change))
    return ast.fix_missing_locations(tree)


def _functions(tree: ast.AST) -> dict[int, str]:
    """id(node) -> qualified name of the innermost function or class holding it."""
    names: dict[int, str] = {}

    def visit(node: ast.AST, name: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = name
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = f"{name}.{child.name}" if name else child.name
            names[id(child)] = inner
            visit(child, inner)

    visit(tree, "")
    return names


def _shown(node: ast.AST) -> str:
    return "pass" if isinstance(node, ast.Pass) else ast.unparse(node)


def _in_line(lines: list[bytes], node: ast.AST, text: str | None) -> str | None:
    """The source line of a one-line `node`, with the node's text replaced by `text` if given
    (offsets count UTF-8 bytes); None for a node over several lines."""
    first = getattr(node, "lineno", 0)
    if first == 0 or first != getattr(node, "end_lineno", None):
        return None
    line = lines[first - 1]
    if text is None:
        return line.decode().strip()
    start, end = getattr(node, "col_offset", 0), getattr(node, "end_col_offset", 0)
    return (line[:start].decode() + text + line[end:].decode()).strip()


def mutants_of(file: str) -> list[Mutant]:
    """Every mutant of one engine module, in a fixed order."""
    source = (ROOT / file).read_text()
    lines = source.encode().splitlines()
    tree = ast.parse(source)
    skipped = _skipped_nodes(tree)
    functions = _functions(tree)
    seen: dict[tuple, int] = {}
    found = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skipped:
            continue
        for change in _changes(node):
            before, after = _shown(node), _shown(_apply(node, change))
            if before == after:
                continue
            original, mutated = _in_line(lines, node, None) or before, _in_line(lines, node, after) or after
            function = functions.get(id(node), "")
            n = seen[(function, original, mutated)] = seen.get((function, original, mutated), 0) + 1
            found.append(Mutant(file, index, change, getattr(node, "lineno", 0), function, original, mutated, n))
    return found


def all_mutants(files: list[str] | None = None) -> list[Mutant]:
    paths = files or sorted(str(p.relative_to(ROOT)) for p in (ROOT / ENGINES).rglob("*.py"))
    return [m for path in paths for m in mutants_of(path)]


def known_equivalents() -> dict[tuple, str]:
    """key -> reason, from tools/mutants_equivalent.toml."""
    entries = tomllib.loads(EQUIVALENTS.read_text()).get("equivalent", [])
    return {(e["file"], e["function"], e["original"], e["mutated"], e.get("occurrence", 1)): e["reason"]
            for e in entries}


def drawn(candidates: list[Mutant], seed: int, n: int) -> list[Mutant]:
    """The `n` mutants whose keys hash lowest with `seed`, in file order: a mutant's place in the
    draw depends on its own text only, so a change elsewhere in the engines leaves the sample as it was
    but for the mutants it adds or removes."""
    def rank(m: Mutant) -> str:
        return hashlib.sha256(repr((seed, *m.key)).encode()).hexdigest()

    chosen = set(map(id, sorted(candidates, key=rank)[:n]))
    return [m for m in candidates if id(m) in chosen]


# -- the pytest plugin side: loaded with -p in each mutant's run --

class _MutantLoader(importlib.machinery.SourceFileLoader):
    """Loads the module from the mutated tree (never from or into the bytecode cache)."""

    def __init__(self, fullname: str, path: str, index: int, change: str):
        super().__init__(fullname, path)
        self.index, self.change = index, change

    def get_code(self, fullname):
        source = Path(self.path).read_text()
        return compile(mutated_tree(source, self.index, self.change), self.path, "exec")


class _MutantFinder:
    def __init__(self, module: str, path: str, index: int, change: str):
        self.module, self.path, self.index, self.change = module, path, index, change
        self.loaded = False

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.module:
            return None
        self.loaded = True
        loader = _MutantLoader(fullname, self.path, self.index, self.change)
        is_package = self.path.endswith("__init__.py")
        return importlib.util.spec_from_file_location(
            fullname, self.path, loader=loader,
            submodule_search_locations=[str(Path(self.path).parent)] if is_package else None)


_finder: _MutantFinder | None = None


def _install_from_environment() -> None:
    global _finder
    spec = os.environ.get(ENV)
    if not spec:
        return
    m = json.loads(spec)
    module = m["file"].removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    _finder = _MutantFinder(module, str(ROOT / m["file"]), m["index"], m["change"])
    sys.meta_path.insert(0, _finder)
    from hypothesis import settings  # the same examples on every run: a mutant is killed or not, reproducibly

    settings.register_profile("mutants", derandomize=True, database=None)
    settings.load_profile("mutants")


def pytest_sessionfinish(session, exitstatus):
    if _finder is not None and not _finder.loaded:
        print(f"\nmutant module {_finder.module} was never imported", file=sys.stderr)
        session.exitstatus = 3


if __name__ != "__main__":
    _install_from_environment()


# -- the runner --

def _test_files(mutant_file: str | None) -> list[str]:
    """Every test file of tests/engines; those of the mutated engine first, so a kill comes early."""
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / TESTS).glob("test_*.py"))
    if mutant_file is None:
        return files
    engine = Path(mutant_file).relative_to(ENGINES).parts[0].removesuffix(".py")
    return sorted(files, key=lambda f: (engine not in Path(f).stem, "fast_path" in f, f))


def run_tests(mutant: Mutant | None, timeout: float) -> tuple[str, float]:
    """('killed' | 'survived' | 'timeout' | 'passed' | 'failed', seconds) of one pytest run."""
    # the engines' compiled kernels (rating_engines/*/compiled.py) run as Python here: numba's cache
    # is keyed by the file on disk, which a mutant leaves as it is, so a mutant kernel would load the
    # unmutated machine code
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1", NUMBA_DISABLE_JIT="1")
    if mutant is not None:
        env[ENV] = json.dumps({"file": mutant.file, "index": mutant.index, "change": mutant.change})
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "tools.mutants",
               *_test_files(mutant.file if mutant else None)]
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start
    seconds = time.monotonic() - start
    if done.returncode == 3:
        raise SystemExit(f"{mutant}: {done.stderr.strip()}")
    if mutant is None:
        if done.returncode != 0:
            sys.exit("the tests fail without a mutant:\n" + done.stdout[-3000:])
        return "passed", seconds
    if done.returncode in (1, 2):  # a test failed, or the mutated module broke collection
        return "killed", seconds
    if done.returncode == 0:
        return "survived", seconds
    sys.exit(f"pytest exited {done.returncode} on {mutant.describe()}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--sample", type=int, default=None, help="mutants to draw (default: all)")
    parser.add_argument("--file", action="append", help="mutate only this engine file (repeatable)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds a mutant's tests may take (default: 3 times the unmutated run, at least 60)")
    parser.add_argument("--list", action="store_true", help="print the sample, run nothing")
    args = parser.parse_args(argv)

    candidates = all_mutants(args.file)
    equivalents = known_equivalents()
    stale = set(equivalents) - {m.key for m in all_mutants()}
    for key in sorted(stale):
        print(f"warning: no such mutant any more in {EQUIVALENTS.name}: {key}")
    sample = candidates if args.sample is None else drawn(candidates, args.seed, args.sample)
    to_run = [m for m in sample if m.key not in equivalents]
    print(f"{len(candidates)} mutants of {ENGINES}; sample of {len(sample)} (seed {args.seed}), "
          f"{len(sample) - len(to_run)} known equivalent")
    if args.list:
        for m in sample:
            print(("[equivalent] " if m.key in equivalents else "") + m.describe())
        return 0

    timeout = args.timeout
    if timeout is None:
        _, baseline = run_tests(None, 3600)
        timeout = max(60.0, 3 * baseline)
        print(f"tests pass unmutated in {baseline:.0f} s; timeout per mutant {timeout:.0f} s")
    outcomes: dict[str, list[Mutant]] = {"killed": [], "survived": [], "timeout": []}
    for i, m in enumerate(to_run, 1):
        outcome, seconds = run_tests(m, timeout)
        outcomes[outcome].append(m)
        print(f"[{i}/{len(to_run)}] {outcome:8} {seconds:5.1f} s  {m.file}:{m.line}  {m.original}  ->  {m.mutated}",
              flush=True)
    if outcomes["survived"]:
        print("\nsurvivors (no test fails with this change):")
        for m in outcomes["survived"]:
            print(m.describe())
    killed = len(outcomes["killed"]) + len(outcomes["timeout"])
    score = 100.0 * killed / len(to_run) if to_run else 100.0
    print(f"\nkilled {len(outcomes['killed'])}, timed out {len(outcomes['timeout'])}, "
          f"survived {len(outcomes['survived'])} of {len(to_run)} meaningful mutants: score {score:.1f} %")
    return 1 if outcomes["survived"] else 0


if __name__ == "__main__":
    sys.exit(main())
