"""HorizontalPodAutoscalers (autoscaling/v2) on CPU utilisation, synced every 15 s.

The algorithm of the Kubernetes documentation ("Horizontal Pod Autoscaling", algorithm details) with
its defaults: the desired count is ``ceil(replicas * utilisation / target)`` over the ready pods'
CPU use as a share of their CPU request, left alone within a 10 % tolerance; scaling up takes effect
at once (at most doubling, or four pods, per sync), scaling down only to the highest recommendation of
the last five minutes (the scale-down stabilisation window); the result stays within [min, max]. A
deployment scaled to zero is left alone (the controller disables scaling), and a count an operator
sets by hand is overridden at the next sync when it falls outside the recommendation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from sre_gym.catalogs.schema import Autoscaler, parse_cpu

if TYPE_CHECKING:
    from sre_gym.sim.cluster import SimCluster

TOLERANCE = 0.1
DOWN_WINDOW_S = 300.0
UP_MAX_PODS = 4


@dataclass
class HPA:
    spec: Autoscaler
    dep: int  # deployment index
    request: float  # CPU request per pod, cores
    history: list[tuple[float, int]] = field(default_factory=list)  # (t, recommendation)
    utilisation: float | None = None  # last observed, percent of request
    desired: int = 0

    @property
    def name(self) -> str:
        return self.spec.deployment


def build(cl: SimCluster) -> list[HPA]:
    out = []
    for a in cl.topo.app.autoscalers:
        dep = cl.world.deployment(a.deployment)
        req = parse_cpu(cl.topo.app.service(a.deployment).resources.cpu_request)
        out.append(HPA(a, dep.index, req, desired=dep.replicas))
    return out


def sync(cl: SimCluster, hpas: list[HPA], t: float, usage: np.ndarray) -> None:
    """One controller pass at ``t``; ``usage`` is the cores each pod row burnt in the last tick."""
    p = cl.pods
    live = p.live()
    ready = live[p.ready[live]]
    ready = ready[ready < len(usage)]
    ready_dep = p.dep[ready]
    for h in hpas:
        dep = cl.world.deployments[h.dep]
        if dep.replicas == 0:
            h.utilisation = None
            continue
        rows = ready[ready_dep == h.dep]
        if not len(rows):
            continue
        util = float(usage[rows].mean()) / max(h.request, 1e-9) * 100.0
        h.utilisation = util
        ratio = util / h.spec.target_cpu_pct
        cur = dep.replicas
        want = cur if abs(ratio - 1.0) <= TOLERANCE else int(math.ceil(cur * ratio))
        want = min(max(want, h.spec.min_replicas), h.spec.max_replicas)
        while h.history and t - h.history[0][0] >= DOWN_WINDOW_S:  # oldest first
            h.history.pop(0)
        h.history.append((t, want))
        if want > cur:
            new = min(want, max(2 * cur, cur + UP_MAX_PODS))
        else:
            new = max(r for _, r in h.history)  # scale-down stabilisation
            new = min(new, cur)
        if new != cur:
            reason = "above" if new > cur else "below"
            cl.world.event(
                t,
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler",
                h.name,
                f"New size: {new}; reason: cpu resource utilization (percentage of request) "
                f"{reason} target",
            )
            cl.scale(h.name, new, t)
        h.desired = new


def view(cl: SimCluster, hpas: list[HPA]) -> list[dict]:
    """``kubectl get hpa``: reference, targets, bounds and replicas."""
    out = []
    for h in hpas:
        dep = cl.world.deployments[h.dep]
        cur = "<unknown>" if h.utilisation is None else f"{h.utilisation:.0f}%"
        out.append(
            {
                "name": h.name,
                "reference": f"Deployment/{h.name}",
                "targets": f"cpu: {cur}/{h.spec.target_cpu_pct}%",
                "min_pods": h.spec.min_replicas,
                "max_pods": h.spec.max_replicas,
                "replicas": dep.replicas,
            }
        )
    return out
