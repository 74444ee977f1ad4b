"""A random search over each task's own calls: which failure classes can a plausible agent reach?

A sequence is one plausible attempt (``agents.arena.plausible_sequence``): the task's oracle
steps, all or some of their legs, persistence sometimes left out, a shortcut from the task's
adversaries now and then, short waits between, then a declaration after a random gap, or none. The draws come from the ``rng`` streams keyed by task,
seed and sequence number, so a search repeats exactly. ``summarize`` counts the failure classes
and the failures the outcome gate alone decided (every safe-repair pack passed).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from sre_gym.agents.arena import Scripted, plausible_sequence
from sre_gym.catalogs.arena import task_ids
from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.scoring.arena.grade import FAILURE_CLASSES


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
                out.append({**play(t, s, plausible_sequence(t, s, k)), "k": k})
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
