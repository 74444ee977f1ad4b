"""The import rules of docs/architecture.md, read off the source with ``ast``.

Known exceptions are listed by name. The lists must match exactly, so that a new violation fails and
a fixed one is struck off."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "sre_gym"

GROUND = ("clock", "rng", "fmath", "unidiff")  # import nothing from sre_gym
LOWER = ("sim", "telemetry", "orchestrator", "scoring", "bundle", "tools", "backends", "catalogs")
UPPER = ("envs", "wrappers", "rollouts", "agents", "serve", "cli", "testing", "twin")
NO_SIM = ("orchestrator", "scoring", "telemetry", "agents")

KNOWN_UPWARD: set[str] = set()
KNOWN_SIM = {
    "agents/oracle.py",  # reads the simulator's ground truth by design
}


def imports(path: Path) -> set[str]:
    """The top-level sre_gym packages (or modules) a file imports, anywhere in it."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for n in names:
            parts = n.split(".")
            if parts[0] == "sre_gym" and len(parts) > 1:
                out.add(parts[1])
    return out


def modules(*packages: str) -> dict[str, set[str]]:
    out = {}
    for pkg in packages:
        base = ROOT / pkg
        files = (
            [base.with_suffix(".py")] if base.with_suffix(".py").exists() else base.rglob("*.py")
        )
        for f in files:
            out[f.relative_to(ROOT).as_posix()] = imports(f)
    return out


def test_the_ground_floor_imports_nothing_of_sre_gym():
    assert {m: deps for m, deps in modules(*GROUND).items() if deps} == {}


def test_nothing_imports_back_up_the_flow():
    upward = {m for m, deps in modules(*LOWER).items() if deps & set(UPPER)}
    assert upward == KNOWN_UPWARD


def test_orchestrator_scoring_telemetry_and_agents_keep_off_the_simulator():
    on_sim = {m for m, deps in modules(*NO_SIM).items() if "sim" in deps}
    assert on_sim == KNOWN_SIM


def test_nothing_outside_the_twin_imports_it():
    """The twin is reached only through its registration's entry-point strings, so that
    ``import sre_gym`` and the full simulator never load it."""
    users = {m for m, deps in modules(*LOWER, *UPPER, *GROUND).items() if "twin" in deps}
    assert {m for m in users if not m.startswith("twin/")} == set()


def test_scoring_reads_only_evidence():
    allowed = {"scoring", "bundle", "clock", "rng", "catalogs"}
    assert {m: d - allowed for m, d in modules("scoring").items() if d - allowed} == {}


# ------------------------------------------------------------------ import cycles
def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def import_graph() -> dict[str, set[str]]:
    """Module -> the sre_gym modules it imports at run time: anywhere in the file (functions
    included), except under ``if TYPE_CHECKING:``. ``from pkg import mod`` depends on ``pkg.mod``
    when that is a module, else on ``pkg``."""
    files = {
        _module_name(p): p for p in ROOT.rglob("*.py") if "catalogs/source" not in p.as_posix()
    }
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        deps: set[str] = set()

        def add(name: str, mod: str = mod, deps: set[str] = deps) -> None:
            while name and name not in files:
                name = name.rpartition(".")[0]
            if name and name != mod:
                deps.add(name)

        def visit(node: ast.AST, mod: str = mod, path: Path = path) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and _type_checking(child):
                    for c in child.orelse:
                        visit_one(c, mod, path)
                    continue
                visit_one(child, mod, path)

        def visit_one(child: ast.AST, mod: str, path: Path) -> None:
            if isinstance(child, ast.Import):
                for a in child.names:
                    add(a.name)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
                    base = base[: len(base) - (child.level - 1)]
                    src = ".".join(base + ([child.module] if child.module else []))
                else:
                    src = child.module or ""
                for a in child.names:
                    add(f"{src}.{a.name}" if f"{src}.{a.name}" in files else src)
            visit(child)

        visit(ast.parse(path.read_text()))
        graph[mod] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(g) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_outside_type_checking():
    assert cycles(import_graph()) == []


def test_no_module_is_over_700_lines():
    """The service source trees under catalogs/source are data, not modules of sre_gym."""
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in ROOT.rglob("*.py")
        if "catalogs/source" not in p.as_posix() and (n := len(p.read_text().splitlines())) > 700
    }
    assert long == {}
