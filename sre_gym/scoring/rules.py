"""The scoring rules that other parts of sre_gym reuse, stated once.

The scorer (``scorer.py``) applies them to a whole run; the simulator's persistence challenge uses
``fits_fault`` to decide which interventions to follow; qualification (``rollouts/qualify.py``)
explains a run's outcome with ``scope``, ``attributable``, ``incidents`` and ``names_fault``. A rule
changed here changes all of them together.

- An entity or artifact is compared ``norm``-alised (stripped, lower case).
- A fault's *scope* is its affected services plus its culprits.
- An alert is *attributable* to a fault when it started firing inside the fault's window plus the
  attribution grace, on an entity in the fault's scope.
- An intervention *acts on* a fault when its workload is in the fault's scope, or the object it
  names is one of the fault's artifact aliases.
- An incident *names* a fault when its final root-cause set equals the fault's culprits and its
  artifact matches one of the fault's aliases (a commit may be given by any prefix of 7 or more hex
  digits).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

INFRA_MECHANISMS = frozenset({"node_failure", "zone_outage"})
_HEX = re.compile(r"^[0-9a-f]{7,40}$")


def norm(s: object) -> str:
    return str(s).strip().lower()


def scope(affected: Iterable[str], culprits: Iterable[str]) -> set[str]:
    """A fault's scope: its affected services and culprits, normalised."""
    return {norm(s) for s in (*affected, *culprits)}


def acts_on(target: str | None, obj: str | None, scope: set[str], artifacts: list[str]) -> bool:
    """Does an intervention on workload ``target`` naming object ``obj`` act on a fault with this
    scope and these artifact aliases?"""
    return (target is not None and norm(target) in scope) or norm(obj or "") in artifacts


def fits_fault(
    target: str | None,
    obj: str | None,
    affected: Iterable[str],
    culprits: Iterable[str],
    artifacts: list[str],
) -> bool:
    """``acts_on`` with the fault's scope built from its affected services and culprits."""
    return acts_on(target, obj, scope(affected, culprits), artifacts)


def attributable(alert: dict, start: float, end: float, scope: set[str], grace_s: float) -> bool:
    """Did ``alert`` (its start ``t`` and ``entities``) fire on a fault of this window and scope?"""
    return _attributable(alert["t"], _entities(alert), start, end, scope, grace_s)


def attributable_by_fault(
    alerts: list[dict], windows: list[tuple[float, float, set[str]]], grace_s: float
) -> list[dict[str, float]]:
    """For each fault window ``(start, end, scope)``: id -> start time of each of ``alerts``
    attributable to it (each alert's entities normalised once, and only the alerts that started
    inside a window looked at for it)."""
    alerts = sorted(alerts, key=lambda a: a["t"])
    times = [a["t"] for a in alerts]
    ents = [_entities(a) for a in alerts]
    out = []
    for start, end, scope in windows:
        lo, hi = bisect.bisect_left(times, start), bisect.bisect_right(times, end + grace_s)
        out.append(
            {
                alerts[i]["id"]: times[i]
                for i in range(lo, hi)
                if _attributable(times[i], ents[i], start, end, scope, grace_s)
            }
        )
    return out


def _entities(alert: dict) -> set[str]:
    return {norm(x) for x in alert["entities"]}


def _attributable(
    t: float, entities: set[str], start: float, end: float, scope: set[str], grace_s: float
) -> bool:
    return start <= t <= end + grace_s and not scope.isdisjoint(entities)


def artifact_matches(reported: str | None, aliases: list[str], commit: str | None) -> bool:
    if not reported:
        return False
    r = norm(reported)
    if r in aliases:
        return True
    return bool(commit and _HEX.match(r) and commit.startswith(r))


@dataclass
class Incident:
    """A reported incident as its events left it by a cutoff."""

    id: str
    order: int
    reported_at: float
    alerts: dict[str, float] = field(default_factory=dict)  # alert id -> time it joined
    culprits: frozenset[str] = frozenset()
    artifact: str | None = None
    located_at: float = 0.0  # time the final (culprits, artifact) pair was set
    status: str = "open"


def names_fault(inc: Incident, f: dict) -> bool:
    """The incident's final root causes are exactly f's culprits and its artifact one of f's aliases
    (localization, before its deadline is checked)."""
    return inc.culprits == frozenset(norm(c) for c in f["culprits"]) and artifact_matches(
        inc.artifact, f["artifacts"], f.get("commit")
    )


def incidents(events: list[dict], cutoff: float) -> list[Incident]:
    """The incidents reported strictly before ``cutoff``, in report order."""
    out: dict[str, Incident] = {}
    for e in events:
        if e["type"] != "incident" or e["t"] >= cutoff:
            continue
        inc = out.get(e["id"])
        if inc is None:
            inc = out[e["id"]] = Incident(e["id"], len(out), e["t"])
        for a in e["alerts"]:
            inc.alerts.setdefault(a, e["t"])
        cul = frozenset(norm(c) for c in e["culprits"])
        art = e.get("artifact")
        if cul != inc.culprits or art != inc.artifact:
            inc.culprits, inc.artifact, inc.located_at = cul, art, e["t"]
        inc.status = e["status"]
    return list(out.values())
