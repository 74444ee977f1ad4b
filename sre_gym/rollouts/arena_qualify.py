"""``sre-gym qualify --suite arena`` and ``sre-gym rollout --suite arena``.

Qualification runs every task's matrix (oracle; declare at once; never declare; every half-fix;
every named shortcut; harmless drift and a wrong report, which must pass) over seeds, and counts
false positives (a must-fail policy that passed) and false negatives (a must-pass policy that
failed, or any void verdict). A task qualifies with FP = FN = 0 and current calibration.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from sre_gym.agents.arena import make_agent, policies
from sre_gym.catalogs.arena import load_task, task_ids
from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.scoring.arena.grade import FAILURE_CLASSES

DEFAULT_SEEDS = tuple(range(8))


def run(task_id: str, seed: int, agent: Any, bundle_dir: str | None = None) -> dict[str, Any]:
    """One episode; a compact record (verdict essentials, analytics, seconds taken)."""
    env = IncidentArenaEnv(task=task_id, bundle_dir=bundle_dir)
    t0 = time.process_time()
    obs, _ = env.reset(seed=seed)
    agent.reset()
    while True:
        obs, reward, term, trunc, info = env.step(agent.act(obs))
        if term or trunc:
            break
    v = info["verdict"]
    return {
        "task": task_id,
        "seed": int(seed),
        "reward": float(reward),
        "status": v["status"],
        "pass": bool(v.get("overall")),
        "declared": bool(term),
        "failure_class": v.get("failure_class"),
        "failure_subkind": v.get("failure_subkind"),
        "analytics": v.get("analytics", {}),
        "provisional": v.get("provisional", True),
        "cpu_s": round(time.process_time() - t0, 4),
        "bundle": info.get("bundle"),
    }


def qualify_task(task_id: str, seeds=DEFAULT_SEEDS, only: set[str] | None = None) -> dict[str, Any]:
    from sre_gym.agents.arena import Scripted

    task = load_task(task_id)
    rows = []
    fp = fn = 0
    provisional = False
    for name, (calls, must) in policies(task).items():
        if only is not None and name not in only:
            continue
        results = [run(task_id, s, Scripted(calls, name)) for s in seeds]
        passed = [r["pass"] for r in results]
        void = sum(r["status"] != "graded" for r in results)
        provisional |= any(r["provisional"] for r in results)
        bad = void + (0 if must == "info" else sum(p != (must == "pass") for p in passed))
        if must == "pass":
            fn += bad
        elif must == "fail":
            fp += bad
        else:
            fn += void
        rows.append(
            {
                "policy": name,
                "must": must,
                "passed": sum(passed),
                "seeds": len(seeds),
                "void": void,
                "classes": dict(Counter(r["failure_class"] for r in results if r["failure_class"])),
                "ok": bad == 0,
            }
        )
    return {
        "task": task_id,
        "fp": fp,
        "fn": fn,
        "provisional": provisional,
        "qualified": fp == 0 and fn == 0 and not provisional,
        "policies": rows,
    }


def qualify(tasks: list[str] | None = None, seeds=DEFAULT_SEEDS) -> list[dict[str, Any]]:
    return [qualify_task(t, seeds) for t in (tasks or list(task_ids()))]


def format_qualification(results: list[dict[str, Any]]) -> str:
    lines = []
    for r in results:
        state = "QUALIFIED" if r["qualified"] else "NOT QUALIFIED"
        prov = " (provisional calibration)" if r["provisional"] else ""
        lines.append(f"{r['task']}: {state}  FP={r['fp']} FN={r['fn']}{prov}")
        for p in r["policies"]:
            cls = ", ".join(f"{k} {v}" for k, v in sorted(p["classes"].items()))
            mark = "-- " if p["must"] == "info" else "ok " if p["ok"] else "BAD"
            lines.append(
                f"  {mark} {p['policy']:<28} must {p['must']:<4} passed {p['passed']}/{p['seeds']}"
                + (f"  void {p['void']}" if p["void"] else "")
                + (f"  [{cls}]" if cls else "")
            )
    n = sum(r["qualified"] for r in results)
    lines.append(f"{n}/{len(results)} tasks qualified with FP = FN = 0")
    return "\n".join(lines)


# ---------------------------------------------------------------------- rollouts and leaderboard
def rollout(
    agents: list[str], tasks: list[str], seeds, bundle_dir: str | None = None
) -> list[dict[str, Any]]:
    out = []
    for a in agents:
        for t in tasks:
            for s in seeds:
                rec = run(t, s, make_agent(a, t, s), bundle_dir)
                out.append({"agent": a, **rec})
    return out


def leaderboard_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per agent: pass rate, failure-class shares (of failures), and the analytics columns."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by.setdefault(r["agent"], []).append(r)
    if len(by) > 1:
        by["(all)"] = list(records)  # every agent's failures pooled, as the write-up counts them
    rows = []
    for agent, recs in by.items():
        graded = [r for r in recs if r["status"] == "graded"]
        fails = [r for r in graded if not r["pass"]]
        cls = Counter(r["failure_class"] for r in fails)
        first = [r["analytics"]["first_correct_action_s"] for r in graded]
        gap = [r["analytics"]["last_correct_action_to_declare_s"] for r in graded]
        first = [x for x in first if x is not None]
        gap = [x for x in gap if x is not None]
        row = {
            "agent": agent,
            "episodes": len(recs),
            "void": len(recs) - len(graded),
            "pass_rate": sum(r["pass"] for r in graded) / len(graded) if graded else float("nan"),
            "full_fix": sum(r["analytics"].get("full_fix", False) for r in graded)
            / max(1, len(graded)),
            "first_correct_s": _median(first),
            "gap_to_declare_s": _median(gap),
        }
        for c in FAILURE_CLASSES:
            row[c] = cls.get(c, 0) / len(fails) if fails else 0.0
        rows.append(row)
    rows.sort(key=lambda r: (r["agent"] == "(all)", -r["pass_rate"], r["agent"]))
    return rows


def _median(xs: list[float]) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    m = len(s) // 2
    return float(s[m]) if len(s) % 2 else (s[m - 1] + s[m]) / 2


SHORT = {
    "never_declared": "never",
    "off_permitted_list": "offlist",
    "planted_cause_left": "planted",
    "repair_did_not_last": "nolast",
    "declared_too_early": "early",
    "other_integrity": "other",
}


def format_leaderboard(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'agent':<8} {'eps':>4} {'pass':>5} {'fullfix':>7} {'first_s':>7} {'gap_s':>6} "
        + " ".join(f"{SHORT[c]:>7}" for c in FAILURE_CLASSES)
    )
    lines = [head]
    for r in rows:
        f = "-" if r["first_correct_s"] is None else f"{r['first_correct_s']:.0f}"
        g = "-" if r["gap_to_declare_s"] is None else f"{r['gap_to_declare_s']:.0f}"
        lines.append(
            f"{r['agent']:<8} {r['episodes']:>4} {r['pass_rate']:>5.2f} {r['full_fix']:>7.2f} {f:>7} {g:>6} "
            + " ".join(f"{r[c]:>7.2f}" for c in FAILURE_CLASSES)
        )
    lines.append("failure-class columns: share of each agent's failed episodes")
    return "\n".join(lines)
