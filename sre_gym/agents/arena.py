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


# the write-up: 1,638 of 2,967 episodes issued the full fix; 325 never declared; the first correct
# action came a median 3.3 min into the hour (IQR 1.7-7.7: a lognormal, sigma 1.12); full fixes
# declared a median 2.5-3.7 min after the last correct action, 32 % within 2 minutes (a
# lognormal with median 3 min, sigma 0.87)
P_FULL_FIX, P_NEVER = 0.55, 0.11
FIRST_MEDIAN_S, FIRST_SIGMA = 198.0, 1.12
GAP_MEDIAN_S, GAP_SIGMA = 180.0, 0.87
# shortcuts: 329 of the 1,638 full fixes failed a safety check, mostly over-repairs after the fix
# (a still-unsafe window, a pool past its ceiling): about one in five; of the 809 failures that left
# a planted fault, only 170 failed on that rule first, the rest had gone off the list or never
# declared: a partial fix mostly comes with a shortcut
P_SHORTCUT_FULL, P_SHORTCUT_PARTIAL = 0.2, 0.75
P_RUNTIME_ONLY = 0.3  # this search's choice: how often a persisting step is left out
BETWEEN = (0, 0, 0, 30, 120)  # seconds between two actions
MAX_WAIT = 600


def _variants(c: dict[str, Any], g: Any) -> list[dict[str, Any]]:
    """The call, or now and then the same call without persistence (a runtime-only repair)."""
    if c["tool"] == "redis" and c["args"].get("op") in ("config_rewrite", "acl_save"):
        return [] if g.random() < P_RUNTIME_ONLY else [c]
    body = c["args"].get("body")
    if isinstance(body, dict) and body.get("persist") is True and g.random() < P_RUNTIME_ONLY:
        return [{"tool": c["tool"], "args": {**c["args"], "body": {**body, "persist": False}}}]
    return [c]


def shortcuts(task_id: str) -> list[dict[str, Any]]:
    """The adversaries' interventions that are not the oracle's own."""
    task = load_task(task_id)
    own = [call(s) for s in task.oracle]
    out: list[dict[str, Any]] = []
    for adv in task.adversaries.values():
        for s in adv.calls:
            c = call(s)
            if c["tool"] not in READ_OR_END and c not in own and c not in out:
                out.append(c)
    return out


def plausible_sequence(task_id: str, seed: int, k: int) -> list[dict[str, Any]]:
    """One plausible attempt, shaped by the write-up's figures for real agents: a first action a
    few minutes in, the whole reference fix in 55 % of episodes (else some of its legs),
    persistence sometimes left out, a shortcut (one in five full fixes, most partial ones), a
    declaration a few minutes after the last action (a third within two minutes), or no
    declaration at all (11 %)."""
    task = load_task(task_id)
    g = Streams("arena-plausible", task_id, int(seed)).gen("sequence", k)
    legs = [f.id for f in task.faults]
    keep = set(legs)
    full = g.random() < P_FULL_FIX
    if not full:
        keep = {leg for leg in legs if g.random() < 0.5}
        if keep == set(legs):
            keep.discard(legs[int(g.integers(len(legs)))])
    steps: list[dict[str, Any]] = []
    for s in task.oracle:
        if s.tool not in READ_OR_END and s.leg in keep:
            steps += _variants(call(s), g)
    cuts = shortcuts(task_id)
    if cuts and g.random() < (P_SHORTCUT_FULL if full else P_SHORTCUT_PARTIAL):
        steps.insert(int(g.integers(len(steps) + 1)), cuts[int(g.integers(len(cuts)))])
    calls = _wait(min(1800.0, FIRST_MEDIAN_S * float(g.lognormal(0.0, FIRST_SIGMA))))
    for c in steps:
        calls.append(c)
        w = BETWEEN[int(g.integers(len(BETWEEN)))]
        if w:
            calls.append({"tool": "wait", "args": {"seconds": w}})
    if g.random() < P_NEVER:
        return calls  # never declares: waits out the hour
    calls += _wait(min(1200.0, GAP_MEDIAN_S * float(g.lognormal(0.0, GAP_SIGMA))))
    return [*calls, DECLARE]


def _wait(seconds: float) -> list[dict[str, Any]]:
    """Wait calls covering ``seconds`` (a wait call lasts at most MAX_WAIT)."""
    left, out = int(round(seconds)), []
    while left > 0:
        out.append({"tool": "wait", "args": {"seconds": min(left, MAX_WAIT)}})
        left -= MAX_WAIT
    return out


class Plausible(Scripted):
    """A plausible agent: one ``plausible_sequence`` per (task, seed), played as a script."""

    def __init__(self, task_id: str, seed: int) -> None:
        super().__init__(plausible_sequence(task_id, seed, 0), "plausible")


BASELINES = ("oracle", "noop", "random", "never", "plausible")


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
    if name == "plausible":
        return Plausible(task_id, seed)
    raise ValueError(f"unknown arena agent {name!r}; agents: {', '.join(BASELINES)}")
