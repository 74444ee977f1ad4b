"""Baselines and qualification policies for IncidentArena-v0.

All are scripted from public task data or seeded streams: the oracle replays the task's reference
fix, the adversaries replay the task's named shortcuts, ``noop`` declares at once, ``never`` never
declares, ``random`` draws plausible calls from the ``rng`` streams. None reads the simulator.
"""

from __future__ import annotations

import itertools
from typing import Any

from sre_gym.catalogs.arena import load_substrate, load_task
from sre_gym.catalogs.arena.schema import Task
from sre_gym.rng import Streams

WAIT = {"tool": "wait", "args": {"seconds": 600}}
DECLARE = {"tool": "declare_repair_complete", "args": {}}
WRONG_REPORT = {
    "tool": "submit_incident_report",
    "args": {"summary": "The search index was overloaded.", "components": ["svc-search.index"]},
}


def call(step: Any) -> dict[str, Any]:
    return {"tool": step.tool, "args": dict(step.args)}


class Scripted:
    """Plays a fixed list of calls, then waits until the episode ends."""

    def __init__(self, calls: list[dict[str, Any]], name: str = "scripted") -> None:
        self.calls, self.name, self.i = list(calls), name, 0

    def reset(self) -> None:
        self.i = 0

    def act(self, obs: Any = None) -> dict[str, Any]:
        if self.i < len(self.calls):
            self.i += 1
            return self.calls[self.i - 1]
        return WAIT


def oracle_calls(task: Task) -> list[dict[str, Any]]:
    return [call(s) for s in task.oracle]


def half_fixes(task: Task) -> dict[str, list[dict[str, Any]]]:
    """Every proper, non-empty subset of the legs, repaired as the oracle does, then declared."""
    legs = [f.id for f in task.faults]
    out = {}
    for r in range(1, len(legs)):
        for sub in itertools.combinations(legs, r):
            steps = [call(s) for s in task.oracle if s.leg in sub]
            out["half_fix_" + "+".join(sub)] = [
                *steps,
                {"tool": "wait", "args": {"seconds": 60}},
                DECLARE,
            ]
    return out


def harmless_drift(task: Task) -> list[dict[str, Any]]:
    """The oracle plus a change to a harmless setting (a log level) before declaring."""
    sub = load_substrate(task.substrate)
    key = sorted(sub.harmless)[0]
    svc, name = key.split(".", 1)
    drift = {
        "tool": "http_admin",
        "args": {"service": svc, "method": "PUT", "path": "/admin/config", "body": {name: "debug"}},
    }
    calls = oracle_calls(task)
    return [drift, *calls]


def wrong_report(task: Task) -> list[dict[str, Any]]:
    calls = oracle_calls(task)
    return [*calls[:-1], WRONG_REPORT, calls[-1]]


# the shortcuts that over-repair (capacity past its ceiling, a schedule still unsafe, a broader
# change than the fault): played after the full fix, as agents "undoing their own success"
OVER_REPAIRS = (
    "pool_inflation",
    "unsafe_offset",
    "raise_max_connections",
    "raise_connections",
    "maxmemory_zero",
    "message_pool_overrepair",
    "guard_removed",
    "grant_all",
    "pool_tweak",
)
READ_OR_END = ("wait", "declare_repair_complete", "submit_incident_report")


def fix_calls(task: Task) -> list[dict[str, Any]]:
    """The oracle's interventions, without its wait and declaration."""
    return [call(s) for s in task.oracle if s.tool not in READ_OR_END]


def runtime_only(task: Task) -> list[dict[str, Any]] | None:
    """The oracle's fix made only at runtime (no CONFIG REWRITE, no ACL SAVE, no persisted
    schedule), or None when the fix has no runtime-only variant."""
    out = []
    for c in oracle_calls(task):
        if c["tool"] == "redis" and c["args"].get("op") in ("config_rewrite", "acl_save"):
            continue
        body = c["args"].get("body")
        if isinstance(body, dict) and body.get("persist") is True:
            c = {"tool": c["tool"], "args": {**c["args"], "body": {**body, "persist": False}}}
        out.append(c)
    return None if out == oracle_calls(task) else out


def over_repair(task: Task) -> list[dict[str, Any]] | None:
    """The full fix, then one of the task's over-repairing shortcuts."""
    name = next((n for n in OVER_REPAIRS if n in task.adversaries), None)
    if name is None:
        return None
    extra = [call(s) for s in task.adversaries[name].calls if s.tool not in READ_OR_END]
    return [*fix_calls(task), *extra, {"tool": "wait", "args": {"seconds": 300}}, DECLARE]


def policies(task: Task) -> dict[str, tuple[list[dict[str, Any]], str]]:
    """Name -> (calls, "pass", "fail" or "info"): the qualification matrix of one task. An "info"
    row is reported, not judged: the full fix declared at once passes where the repaired system
    recovers at once and fails where recovery takes time."""
    out: dict[str, tuple[list[dict[str, Any]], str]] = {
        "oracle": (oracle_calls(task), "pass"),
        "declare_at_once": ([DECLARE], "fail"),
        "never_declare": ([], "fail"),
        "fix_and_declare_at_once": ([*fix_calls(task), DECLARE], "info"),
        "fix_and_wait_600s": ([*fix_calls(task), WAIT, DECLARE], "pass"),
    }
    rt = runtime_only(task)
    if rt is not None:
        out["runtime_only_fix"] = (rt, "fail")
    ov = over_repair(task)
    if ov is not None:
        out["over_repair_after_fix"] = (ov, "fail")
    for name, calls in half_fixes(task).items():
        out[name] = (calls, "fail")
    for name, adv in task.adversaries.items():
        out[name] = ([call(s) for s in adv.calls], adv.must)
    out["harmless_drift"] = (harmless_drift(task), "pass")
    out["wrong_report"] = (wrong_report(task), "pass")
    return out


class RandomArena:
    """Seeded random calls: reads, waits and the task's own candidate interventions (from the
    oracle and adversaries, shuffled), declaring with probability 0.05 per step."""

    def __init__(self, task_id: str, seed: int) -> None:
        self.task = load_task(task_id)
        self.streams = Streams("arena-random", task_id, int(seed))
        self.k = 0
        cands = [
            call(s) for s in self.task.oracle if s.tool not in ("wait", "declare_repair_complete")
        ]
        for adv in self.task.adversaries.values():
            cands += [
                call(s) for s in adv.calls if s.tool not in ("wait", "declare_repair_complete")
            ]
        self.cands = cands
        self.services = load_substrate(self.task.substrate).services

    def reset(self) -> None:
        self.k = 0

    def act(self, obs: Any = None) -> dict[str, Any]:
        g = self.streams.gen("act", self.k)
        self.k += 1
        if self.k > 40 or g.random() < 0.05:
            return DECLARE
        r = g.random()
        if r < 0.3:
            return {"tool": "metrics", "args": {"window_s": 60}}
        if r < 0.45:
            svc = self.services[int(g.integers(len(self.services)))]
            return {"tool": "logs", "args": {"service": svc}}
        if r < 0.6:
            return {"tool": "wait", "args": {"seconds": int(g.integers(5, 120))}}
        if self.cands and r < 0.85:
            return self.cands[int(g.integers(len(self.cands)))]
        return {"tool": "db_query", "args": {"kind": "settings"}}


BASELINES = ("oracle", "noop", "random", "never")


def make_agent(name: str, task_id: str, seed: int):
    task = load_task(task_id)
    if name == "oracle":
        return Scripted(oracle_calls(task), "oracle")
    if name == "noop":
        return Scripted([DECLARE], "noop")
    if name == "never":
        return Scripted([], "never")
    if name == "random":
        return RandomArena(task_id, seed)
    raise ValueError(f"unknown arena agent {name!r}; agents: {', '.join(BASELINES)}")
