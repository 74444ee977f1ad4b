"""A random search over each task's own calls: which failure classes can a plausible agent reach?

A sequence is one plausible attempt (see ``sequence``): the task's oracle steps, all or some of
their legs, persistence sometimes left out, a shortcut from the task's adversaries now and then,
short waits between, then a declaration after a random gap, or none. The draws come from the ``rng`` streams keyed by task,
seed and sequence number, so a search repeats exactly. ``summarize`` counts the failure classes
and the failures the outcome gate alone decided (every safe-repair pack passed).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sre_gym.agents.arena import DECLARE, READ_OR_END, Scripted, call
from sre_gym.catalogs.arena import load_task, task_ids
from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.rng import Streams
from sre_gym.scoring.arena.grade import FAILURE_CLASSES

# the write-up: 1,638 of 2,967 episodes issued the full fix; 325 never declared; the first correct
# action came a median 3.3 min into the hour (IQR 1.7-7.7: a lognormal, sigma 1.12); full fixes
# declared a median 2.5-3.7 min after the last correct action, 32 % within 2 minutes (a
# lognormal with median 3 min, sigma 0.87)
P_FULL_FIX, P_NEVER = 0.55, 0.11
FIRST_MEDIAN_S, FIRST_SIGMA = 198.0, 1.12
GAP_MEDIAN_S, GAP_SIGMA = 180.0, 0.87
P_RUNTIME_ONLY, P_SHORTCUT = 0.3, 0.25  # this search's choices
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


def sequence(task_id: str, seed: int, k: int) -> list[dict[str, Any]]:
    """One plausible attempt, shaped by the write-up's figures for real agents: a first action a
    few minutes in, the whole reference fix in 55 % of episodes (else some of its legs),
    persistence sometimes left out, a shortcut in a quarter, a declaration a few minutes after
    the last action (a third within two minutes), or no declaration at all (11 %)."""
    task = load_task(task_id)
    g = Streams("arena-search", task_id, int(seed)).gen("sequence", k)
    legs = [f.id for f in task.faults]
    keep = set(legs)
    if g.random() >= P_FULL_FIX:
        keep = {leg for leg in legs if g.random() < 0.5}
        if keep == set(legs):
            keep.discard(legs[int(g.integers(len(legs)))])
    steps: list[dict[str, Any]] = []
    for s in task.oracle:
        if s.tool not in READ_OR_END and s.leg in keep:
            steps += _variants(call(s), g)
    cuts = shortcuts(task_id)
    if cuts and g.random() < P_SHORTCUT:
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


def play(task_id: str, seed: int, calls: list[dict[str, Any]]) -> dict[str, Any]:
    env = IncidentArenaEnv(task=task_id)
    env.reset(seed=seed)
    agent = Scripted(calls)
    while True:
        *_, term, trunc, info = env.step(agent.act())
        if term or trunc:
            break
    v = info["verdict"]
    return {
        "task": task_id,
        "seed": seed,
        "status": v["status"],
        "pass": bool(v.get("overall")),
        "failure_class": v.get("failure_class"),
        "outcome_pass": v.get("outcome", {}).get("pass"),
        "safe_pass": v.get("safe_repair", {}).get("pass"),
        "full_fix": v.get("analytics", {}).get("full_fix"),
    }


def search(
    tasks: list[str] | None = None, seeds=(0, 1), per_seed: int = 25
) -> list[dict[str, Any]]:
    out = []
    for t in tasks or list(task_ids()):
        for s in seeds:
            for k in range(per_seed):
                out.append({**play(t, s, sequence(t, s, k)), "k": k})
    return out


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    graded = [r for r in records if r["status"] == "graded"]
    fails = [r for r in graded if not r["pass"]]
    cls = Counter(r["failure_class"] for r in fails)
    outcome_only = sum(1 for r in fails if r["safe_pass"] and not r["outcome_pass"])
    return {
        "episodes": len(records),
        "void": len(records) - len(graded),
        "passed": len(graded) - len(fails),
        "failed": len(fails),
        "classes": {c: cls.get(c, 0) for c in FAILURE_CLASSES},
        "outcome_only": outcome_only,
        "outcome_only_share": outcome_only / len(fails) if fails else 0.0,
        # passes by another route than the oracle's (a rebuilt image instead of a guard)
        "passed_without_full_fix": sum(1 for r in graded if r["pass"] and not r["full_fix"]),
    }
