"""Scorer-independent checks on evidence, used to bound what an adversary honestly earns."""

from __future__ import annotations

import math
from typing import Any

from sre_gym.bundle.evidence import Evidence
from sre_gym.scoring.rules import norm

# Faults whose responsible artifact no agent action removes (a node that stopped reporting): the
# honest repair moves the workloads away, so "artifact gone" cannot be asked of them.
UNREMOVABLE_ARTIFACT = frozenset({"node_failure"})


def unjustified_interventions(evidence: Evidence, grace_s: float | None = None) -> tuple[int, int]:
    """(interventions outside the cited incident's *true* scope, all interventions).

    An incident's true scope is the union of the affected scopes (affected services and culprits)
    of the faults it holds an attributable alert for, as of the intervention: an alert fired inside
    the fault's window plus the attribution grace, on an entity of its scope. What the agent
    declared (root-cause services, which alerts name which services) does not widen it.
    """
    if grace_s is None:
        grace_s = float(evidence.manifest["scoring"]["attribution_grace_s"])
    faults = [e for e in evidence.events if e["type"] == "injection"]
    scopes = [{norm(s) for s in (*f["affected"], *f["culprits"])} for f in faults]
    alerts = {e["id"]: e for e in evidence.events if e["type"] == "alert"}
    members: dict[str, set[str]] = {}
    out = total = 0
    for e in evidence.events:
        if e["type"] == "incident":
            members.setdefault(e["id"], set()).update(e["alerts"])
            continue
        if e["type"] != "intervention":
            continue
        total += 1
        scope: set[str] = set()
        for aid in members.get(e.get("incident_id") or "", ()):
            al = alerts.get(aid)
            if al is None:
                continue
            ents = {norm(x) for x in al["entities"]}
            for f, sc in zip(faults, scopes, strict=True):
                if f["t"] <= e["t"] and f["start"] <= al["t"] <= f["end"] + grace_s and ents & sc:
                    scope |= sc
        hit = {norm(e.get("target") or ""), norm(e.get("node") or "")} & scope
        out += not hit
    return out, total


def relapsed(evidence: Evidence, details: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Faults credited as repaired whose responsible artifact is back in place on the last tick
    before the orchestrator's revert (the repair did not last)."""
    man = evidence.manifest
    art = evidence.arrays.get("artifact")
    if art is None:
        return []
    t0, tick_s = float(man["t0"]), float(man["tick_s"])
    out = []
    for d in details:
        if d["repaired_at"] is None or d.get("mechanism") in UNREMOVABLE_ARTIFACT:
            continue
        last = math.ceil((d["end"] - t0) / tick_s) - 1
        if last < art.shape[1] and art[d["index"], last] == 1:
            out.append(d)
    return out
