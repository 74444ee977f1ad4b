"""The import rules of docs/architecture.md, read off the source with ``ast``.

Known exceptions are listed by name. The lists must match exactly, so that a new violation fails and
a fixed one is struck off."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "sre_gym"

GROUND = ("clock", "rng", "unidiff")  # import nothing from sre_gym
LOWER = ("sim", "telemetry", "orchestrator", "scoring", "bundle", "tools", "backends", "catalogs")
UPPER = ("envs", "wrappers", "rollouts", "agents", "serve", "cli", "testing")
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


def test_scoring_reads_only_evidence():
    allowed = {"scoring", "bundle", "clock", "rng", "catalogs"}
    assert {m: d - allowed for m, d in modules("scoring").items() if d - allowed} == {}
