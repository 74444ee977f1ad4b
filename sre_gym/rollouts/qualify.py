"""Qualification (Incident-Arena style): is every seed of a release fair to agents?

For each (app, seed) the privileged oracle and the no-op agent each play one episode. A seed qualifies
when the oracle scores at least ``ORACLE_MIN`` on the paper's Marathon-Score and ``ORACLE_NET_MIN``
on net_score (the faults are observable and repairable in time, and the oracle's grouping, reports
and interventions are clean), and the no-op scores exactly ``NOOP_MAX`` = 0 on both (nothing is
credited without work). ``split`` draws the schedules from one part of the held-out fault split
(``train`` or ``heldout``; default all). Every fault the oracle
did not fully handle is listed with the reason, read from the run's evidence and ground truth:

- no attributable alert: no alert started firing on the fault's scope between its start and its revert
  plus the attribution grace (the rules never saw the symptom);
- alert too late: the first attributable alert left no invocation early enough for a repair to hold
  for the hold period before the orchestrator's revert;
- not reported / not localized: no incident held an attributable alert, or none named the culprit and
  artifact;
- no remedy: nothing cited the fault's incident and acted on its scope before the revert;
- repair did not take effect / did not hold: the probe stayed failing after the remedy, recovered
  and failed again, relapsed under the orchestrator's persistence challenge, or recovered too close
  to the revert to stay healthy for the hold period;
- repaired, but not through its incident: the recovery is credited to another incident's action.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, TextIO

import numpy as np

ORACLE_MIN = 90.0
ORACLE_NET_MIN = 85.0
NOOP_MAX = 0.0


def _rel(t: float, ep0: float) -> str:
    return f"+{t - ep0:.0f}s"


def fault_report(evidence: Any) -> list[dict[str, Any]]:
    """Per injected fault: its window, the stages reached, and why it was not handled (if not).

    The stages come from the scorer's per-fault view (``score(..., per_fault=True)``: the same
    one-to-one matching); the reasons are read from the evidence (alerts, incidents,
    interventions, probe samples, challenges).
    """
    from sre_gym.scoring import rules
    from sre_gym.scoring.config import ScoringConfig
    from sre_gym.scoring.scorer import score

    man = evidence.manifest
    cfg = ScoringConfig.from_dict(man["scoring"])
    ep0, t0, tick_s = float(man["episode_start"]), float(man["t0"]), float(man["tick_s"])
    events = evidence.events
    probe = evidence.arrays.get("probe")
    alerts = [e for e in events if e["type"] == "alert"]
    resolved = {e["id"]: float(e["t"]) for e in events if e["type"] == "alert_resolved"}
    injections = [e for e in events if e["type"] == "injection"]
    incidents = rules.incidents(events, float("inf"))
    by_id = {inc.id: inc for inc in incidents}
    interventions = [e for e in events if e["type"] == "intervention"]
    by_inc: dict[str, list[dict]] = {}
    for x in interventions:
        by_inc.setdefault(x.get("incident_id") or "", []).append(x)
    challenges: dict[int, list[dict]] = {}
    for e in events:
        if e["type"] == "challenge":
            challenges.setdefault(int(e["index"]), []).append(e)
    matched = {int(d["index"]): d for d in score(evidence, per_fault=True)["faults"]}
    hold = cfg.repair_hold_s
    out = []
    for f in injections:
        start, end = float(f["start"]), float(f["end"])
        scope = rules.scope(f["affected"], f["culprits"])
        attributable = [
            a for a in alerts if rules.attributable(a, start, end, scope, cfg.attribution_grace_s)
        ]
        # the scorer's one-to-one matching decides the stages
        d = matched[int(f["index"])]
        inc = by_id.get(d["incident"]) if d["incident"] else None
        corr = [inc] if inc is not None else []
        loc = corr if d["localized_at"] is not None else []
        rep = loc if d["outcome"] == "handled" else []
        item = {
            "index": int(f["index"]),
            "fault_id": f["fault_id"],
            "category": f["category"],
            "mechanism": f["mechanism"],
            "target": f["target"],
            "start_s": start - ep0,
            "end_s": end - ep0,
            "correlated": bool(corr),
            "localized": bool(loc),
            "repaired": bool(rep),
            "handled": bool(rep),
            "reason": None,
        }
        if not rep:
            ctx = {
                "ep0": ep0,
                "t0": t0,
                "tick_s": tick_s,
                "hold": hold,
                "inv_s": cfg.invocation_s,
                "challenges": challenges.get(int(f["index"]), []),
                "details": d,
                "already": sorted(
                    a["id"]
                    for a in alerts
                    if a["t"] < start
                    and resolved.get(a["id"], math.inf) > start
                    and scope.intersection(rules.norm(x) for x in a["entities"])
                ),
                "others": [
                    g
                    for g in injections
                    if g is not f
                    and g["target"] == f["target"]
                    and g["start"] < end
                    and g["end"] > start
                ],
            }
            item["reason"] = _why(f, attributable, corr, loc, by_inc, probe, ctx)
        out.append(item)
    return out


def _why(f, attributable, corr, loc, by_inc, probe, ctx: dict[str, Any]) -> str:
    ep0, t0, tick_s, hold, inv_s = (ctx[k] for k in ("ep0", "t0", "tick_s", "hold", "inv_s"))
    start, end = float(f["start"]), float(f["end"])
    others = ctx["others"]
    overlap = (
        " (overlapping fault(s) on "
        + f["target"]
        + ": "
        + ", ".join(f"#{g['index']} {g['fault_id']}" for g in others)
        + ")"
        if others
        else ""
    )
    row = probe[int(f["index"])] if probe is not None else None
    k0 = int(math.ceil((start - t0) / tick_s))
    k1 = int(math.ceil((end - t0) / tick_s))
    if not attributable:
        failed = row is not None and bool((row[k0:k1] == 0).any())
        if not failed:
            detail = "the probe never failed: the fault had no visible symptom"
        elif ctx["already"]:
            detail = (
                "the probe did fail, but the alerts on its scope were already firing before it "
                f"started ({', '.join(ctx['already'][:4])}), so none started in its window"
            )
        else:
            detail = "the probe did fail, but no rule fired on the fault's scope"
        return (
            f"no attributable alert in the window {_rel(start, ep0)}..{_rel(end, ep0)} "
            f"(revert) + grace; {detail}"
        )
    first = min(a["t"] for a in attributable)
    act = ep0 + math.ceil((first - ep0) / inv_s - 1e-9) * inv_s  # first invocation that sees it
    if act + hold >= end:
        return (
            f"alert too late to repair before the revert: first attributable alert at "
            f"{_rel(first, ep0)}, first invocation to see it at {_rel(act, ep0)}, revert at "
            f"{_rel(end, ep0)} (a repair must hold {hold}s)"
        )
    if not corr:
        return (
            f"not reported: no incident holds an attributable alert (first at {_rel(first, ep0)})"
        )
    if not loc:
        inc = corr[0]
        from sre_gym.scoring.rules import names_fault

        if inc.located_at >= end and names_fault(inc, f):
            return (
                f"localized too late: {inc.id} named the culprit and artifact at "
                f"{_rel(inc.located_at, ep0)}, after the revert at {_rel(end, ep0)}"
            )
        return (
            f"reported as {inc.id} but not localized (named {sorted(inc.culprits)} / "
            f"{inc.artifact!r}, expected {sorted(f['culprits'])} / one of {f['artifacts'][:2]})"
        )
    acts = sorted(
        (x for inc in loc for x in by_inc.get(inc.id, []) if start <= x["t"] < end),
        key=lambda x: x["t"],
    )
    if not acts:
        return f"no remedy applied before the revert at {_rel(end, ep0)} (incident {loc[0].id})"
    x = acts[0]
    what = f"{x['tool']} {x.get('object') or x.get('target')} at {_rel(x['t'], ep0)}"
    d = ctx.get("details")
    if d is not None and d["outcome"] == "repaired_not_handled":
        mine = loc[0].id
        other = [i for i in d["interventions"] if i["incident_id"] != mine]
        via = (
            f" after {other[0]['tool']} of {other[0]['target']} citing {other[0]['incident_id']} "
            f"at {_rel(other[0]['t'], ep0)}"
            if other
            else ""
        )
        return (
            f"repaired, but not through its incident {mine}: it recovered at "
            f"{_rel(d['recovered_at'], ep0)}{via}, and the repair is credited to that action"
        )
    relapsed = [c for c in ctx["challenges"] if c.get("outcome") not in (None, "held")]
    if relapsed:
        c = relapsed[0]
        return (
            f"repair did not hold: after {what} the fault relapsed under the orchestrator's "
            f"persistence challenge ({c.get('kind')} of {c.get('target')} at {_rel(c['t'], ep0)})"
        )
    if row is None:
        return f"repair not verifiable (no probe evidence) after {what}"
    k = int(math.floor((x["t"] - t0) / tick_s)) + 1
    seg = row[k:k1]
    ok = np.nonzero(seg == 1)[0]
    if len(ok) == 0:
        return (
            f"repair did not take effect: probe still failing at the revert {_rel(end, ep0)} "
            f"after {what}{overlap}"
        )
    healthy = t0 + (k + int(ok[0])) * tick_s
    later_fail = np.nonzero(seg[int(ok[0]) :] == 0)[0]
    if len(later_fail):
        again = t0 + (k + int(ok[0]) + int(later_fail[0])) * tick_s
        return (
            f"repair did not hold: after {what} the probe was healthy at {_rel(healthy, ep0)} but "
            f"failed again at {_rel(again, ep0)}{overlap}"
        )
    if healthy + hold >= end:
        return (
            f"repair did not hold long enough: after {what} the probe was healthy only from "
            f"{_rel(healthy, ep0)}, less than {hold}s before the revert at {_rel(end, ep0)}"
        )
    return (
        f"repair not confirmed: after {what} the probe was healthy from {_rel(healthy, ep0)}, "
        "but no persistence challenge of the orchestrator confirmed this repair"
    )


def qualify_seed(app: str, seed: int, split: str | None = None) -> dict[str, Any]:
    """Oracle and no-op on one seed: scores, pass/fail, and the faults the oracle missed (with why)."""
    import gymnasium as gym

    import sre_gym  # noqa: F401
    from sre_gym.agents import make_agent
    from sre_gym.rollouts.episode import ENV_ID, play

    seed = int(seed)
    cards = {}
    missed: list[dict[str, Any]] = []
    check = None
    schedule = None if split is None else {"profile": "marathon", "split": split}
    for name in ("oracle", "noop"):
        env = gym.make(ENV_ID, app=app, schedule=schedule)
        try:
            info, _ = play(env, make_agent(name, env=env, seed=seed), seed)
            cards[name] = info["scorecard"]
            if name == "oracle":
                report = fault_report(env.unwrapped.evidence)
                missed = [r for r in report if not r["handled"]]
                check = sum(r["handled"] for r in report) == cards[name]["outcomes"]["handled"]
        finally:
            env.close()
    oracle = float(cards["oracle"]["marathon_score"])
    noop = float(cards["noop"]["marathon_score"])
    oracle_net = float(cards["oracle"]["net_score"])
    noop_net = float(cards["noop"]["net_score"])
    return {
        "app": app,
        "seed": seed,
        "split": split or "all",
        "oracle": oracle,
        "noop": noop,
        "oracle_net": oracle_net,
        "noop_net": noop_net,
        "n_faults": int(cards["oracle"]["n_faults"]),
        # (scores are sums of fractions: 89.99999999999999 is 90)
        "passed": round(oracle, 9) >= ORACLE_MIN
        and round(oracle_net, 9) >= ORACLE_NET_MIN
        and noop == noop_net == NOOP_MAX,
        "missed": missed,
        "analysis_matches_scorer": bool(check),
    }


def qualify(
    apps: str | Iterable[str],
    seeds: str | int | Iterable[int],
    workers: int | None = None,
    address: str | None = None,
    *,
    progress: bool = True,
    progress_stream: TextIO | None = None,
    split: str | None = None,
) -> list[dict[str, Any]]:
    """``qualify_seed`` for every (app, seed), in order; serial or with Ray like ``rollout``;
    ``split`` draws the faults from one part of the held-out fault split."""
    from sre_gym.rollouts.runner import Progress, map_tasks, parse_apps, parse_seeds, task_options

    keys = [(a, s, split) for a in parse_apps(apps) for s in parse_seeds(seeds)]
    out: dict[int, dict[str, Any]] = {}
    bar = Progress(len(keys), "qualify", progress_stream, progress)

    def done(i: int, res: dict[str, Any]) -> None:
        out[i] = res
        bar.update()

    map_tasks(
        qualify_seed,
        keys,
        done,
        workers=workers,
        address=address,
        options=task_options(),
    )
    return [out[i] for i in range(len(keys))]


def format_report(results: list[dict[str, Any]]) -> str:
    """The human-readable qualification report."""
    lines = []
    for r in results:
        status = "PASS" if r["passed"] else "FAIL"
        lines.append(
            f"{status}  {r['app']}  seed={r['seed']:<4d} oracle={r['oracle']:6.2f} "
            f"(net {r['oracle_net']:6.2f})  noop={r['noop']:.2f} (net {r['noop_net']:.2f})  "
            f"faults={r['n_faults']}  oracle missed {len(r['missed'])}"
        )
        for m in r["missed"]:
            lines.append(
                f"    #{m['index']:<3d} {m['fault_id']:<36} {m['start_s']:5.0f}s-{m['end_s']:5.0f}s  "
                f"{m['reason']}"
            )
    n_pass = sum(r["passed"] for r in results)
    lines.append(
        f"{n_pass}/{len(results)} seeds qualify (oracle >= {ORACLE_MIN:g}, net >= "
        f"{ORACLE_NET_MIN:g}; noop == {NOOP_MAX:g} on both)"
    )
    return "\n".join(lines)
