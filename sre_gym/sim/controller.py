"""Deployment controller and scheduler: rolling updates with the Kubernetes defaults.

Rolling update with maxSurge 25 % (rounded up) and maxUnavailable 25 % (rounded down): new pods are
created up to desired + surge; old pods go only while enough pods stay available, unready old pods
first. With one replica that means the old pod keeps serving until its replacement is ready, so a new
revision that never gets ready leaves a stuck rollout rather than an outage.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sre_gym.rng import stable_hash
from sre_gym.sim.pods import TERMINATING
from sre_gym.sim.state import Deployment

if TYPE_CHECKING:
    from sre_gym.sim.cluster import SimCluster

_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def k8s_suffix(n: int, *parts: object) -> str:
    """A Kubernetes-style random suffix of ``n`` characters, derived from ``parts``."""
    h = int(stable_hash(*parts, digits=24), 16)
    out = []
    for _ in range(n):
        h, r = divmod(h, len(_ALPHABET))
        out.append(_ALPHABET[r])
    return "".join(out)


def rollout_state(cl: SimCluster, dep: Deployment) -> tuple[list[int], list[int]]:
    """Live (non-terminating) pod rows of a deployment: (current revision, older revisions)."""
    p = cl.pods
    n = p.n
    rows = np.nonzero(p.alive[:n] & (p.state[:n] != TERMINATING) & (p.dep[:n] == dep.index))[0]
    current = p.rev[rows] == dep.current.number
    return rows[current].tolist(), rows[~current].tolist()


def reconcile(cl: SimCluster, dep: Deployment, t: float) -> None:
    p = cl.pods
    new, old = rollout_state(cl, dep)
    desired = dep.replicas
    surge = math.ceil(0.25 * desired)
    unav = math.floor(0.25 * desired)
    if desired and not surge and not unav:
        unav = 1
    # too many pods of the current revision (scale down): unready and newest go first
    if len(new) > desired:
        order = sorted(new, key=lambda r: (bool(p.ready[r]), -p.created[r]))
        for r in order[: len(new) - desired]:
            cl.delete_pod_row(r, t, reason="ScalingReplicaSet")
        new = [r for r in new if p.alive[r] and p.state[r] != TERMINATING]
    total = len(new) + len(old)
    create = min(desired - len(new), desired + surge - total)
    for _ in range(max(create, 0)):
        new.append(cl.create_pod(dep, t))
    # old pods: unhealthy ones first, then as many as availability allows
    for r in [r for r in old if not p.ready[r]]:
        cl.delete_pod_row(r, t, reason="ScalingReplicaSet")
    old = [r for r in old if p.ready[r]]
    if old:
        new_unavailable = sum(1 for r in new if not p.ready[r])
        can = (len(new) + len(old)) - (desired - unav) - new_unavailable
        if desired == 0:
            can = len(old)
        for r in sorted(old, key=lambda r: p.created[r])[: max(can, 0)]:
            cl.delete_pod_row(r, t, reason="ScalingReplicaSet")
        old = [r for r in old if p.alive[r] and p.state[r] != TERMINATING]
    done = len(new) == desired and not old and all(p.ready[r] for r in new)
    dep.dirty = not done


def pick_node(cl: SimCluster, dep: Deployment) -> int:
    """A ready node: spread the deployment over zones, then over nodes, then fill the emptiest node
    (the default scheduler's topology spread, deterministic); -1 if no node is ready."""
    p = cl.pods
    n = p.n
    nodes = cl.world.nodes
    live = p.alive[:n] & (p.state[:n] != TERMINATING) & (p.node[:n] >= 0)
    counts = np.bincount(p.node[:n][live], minlength=len(nodes))
    mine = np.bincount(p.node[:n][live & (p.dep[:n] == dep.index)], minlength=len(nodes))
    zones = [nd.zone for nd in nodes]
    zone_mine = {
        z: sum(int(mine[i]) for i in range(len(nodes)) if zones[i] == z) for z in set(zones)
    }
    best, key = -1, None
    for i, node in enumerate(nodes):
        if not node.ready:
            continue
        k = (zone_mine[zones[i]], int(mine[i] > 0), int(counts[i]), i)
        if key is None or k < key:
            best, key = i, k
    return best
