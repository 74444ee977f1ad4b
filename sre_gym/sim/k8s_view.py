"""Kubernetes objects of a SimCluster rendered the way kubectl shows them (plain dicts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sre_gym.clock import rfc3339
from sre_gym.sim import autoscaler, netpol
from sre_gym.sim import pods as P
from sre_gym.sim.controller import k8s_suffix
from sre_gym.sim.state import Deployment

if TYPE_CHECKING:
    from sre_gym.sim.cluster import SimCluster

# the kind name events are recorded under, per kubectl resource name
EVENT_KIND = {
    "pods": "Pod",
    "deployments": "Deployment",
    "replicasets": "ReplicaSet",
    "services": "Service",
    "nodes": "Node",
    "configmaps": "ConfigMap",
    "networkpolicies": "NetworkPolicy",
    "namespaces": "Namespace",
    "horizontalpodautoscalers": "HorizontalPodAutoscaler",
}
NAMESPACES = ("default", "kube-system", "kube-node-lease", "monitoring")


class NotFound(KeyError):
    pass


def age(now: float, t: float) -> str:
    """kubectl's AGE column."""
    s = max(0, int(now - t))
    if s < 120:
        return f"{s}s"
    if s < 7200:
        return f"{s // 60}m"
    return f"{s // 3600}h{(s % 3600) // 60}m"


def _status(cl: SimCluster, r: int) -> str:
    p = cl.pods
    st = p.state[r]
    if st == P.TERMINATING:
        return "Terminating"
    if st == P.IMAGE_WAIT:
        return "ErrImagePull" if p.pulls[r] % 4 == 1 else "ImagePullBackOff"
    if st == P.BACKOFF:
        return (
            "CrashLoopBackOff"
            if p.restarts[r] > 1
            else ("OOMKilled" if p.last_term[r] == P.TERM_OOM else "Error")
        )
    if st == P.PENDING:
        return "Pending" if p.node[r] < 0 else "ContainerCreating"
    node = cl.world.nodes[p.node[r]]
    return "Running" if node.ready else "Unknown"


def _rs_name(cl: SimCluster, dep: Deployment, rev: int) -> str:
    return f"{dep.name}-{k8s_suffix(10, cl.release, cl.seed, 'rs', dep.name, rev)}"


def _pod_rows(cl: SimCluster) -> list[int]:
    p = cl.pods
    return [int(r) for r in np.nonzero(p.alive[: p.n])[0]]


def pod_summary(cl: SimCluster, r: int) -> dict:
    p = cl.pods
    dep = cl.world.deployments[p.dep[r]]
    return {
        "name": p.names[r],
        "ready": f"{int(p.ready[r])}/1",
        "status": _status(cl, r),
        "restarts": int(p.restarts[r]),
        "age": age(cl.now, p.created[r]),
        "node": cl.world.nodes[p.node[r]].name if p.node[r] >= 0 else None,
        "deployment": dep.name,
    }


def deployment_summary(cl: SimCluster, dep: Deployment) -> dict:
    # counted for this deployment alone (``deployment_status`` counts every deployment): a
    # listing or a reader describing each deployment in turn would count them all each time
    p = cl.pods
    live = p.live()
    mine = live[p.dep[live] == dep.index]
    available = int(np.count_nonzero(p.ready[mine]))
    return {
        "name": dep.name,
        "ready": f"{available}/{dep.replicas}",
        "up_to_date": int(np.count_nonzero(p.rev[mine] == dep.current.number)),
        "available": available,
        "revision": dep.current.number,
        "image": dep.current.template.image,
        "age": age(cl.now, dep.revisions[0].created),
    }


def _template(tpl) -> dict:
    return {
        "image": tpl.image,
        "env": [{"name": k, "value": v} for k, v in tpl.env],
        "resources": {"limits": {"cpu": tpl.cpu_limit, "memory": tpl.mem_limit}},
        "readinessProbe": {"port": tpl.readiness_port} if tpl.readiness_port else None,
        "annotations": {"kubectl.kubernetes.io/restartedAt": tpl.restarted_at}
        if tpl.restarted_at
        else {},
    }


def _events_for(cl: SimCluster, kind: str, name: str, limit: int = 20) -> list[dict]:
    return [_event(cl, e) for e in cl.world.events_of(kind, name)[-limit:]]


def _event(cl: SimCluster, e) -> dict:
    return {
        "type": e.type,
        "reason": e.reason,
        "object": f"{e.kind.lower()}/{e.name}",
        "message": e.message,
        "count": e.count,
        "first_seen": rfc3339(e.first),
        "last_seen": rfc3339(e.last),
    }


def get(cl: SimCluster, kind: str, name: str | None = None) -> list[dict] | dict:
    """``kubectl get <kind> [name]`` in the application namespace."""
    items = _list(cl, kind)
    if name is None:
        return items
    for it in items:
        if it.get("name") == name or it.get("object") == name:
            return it
    raise NotFound(f"{kind} {name!r} not found in namespace {cl.topo.app.namespace}")


def _list(cl: SimCluster, kind: str) -> list[dict]:
    w = cl.world
    ns = cl.topo.app.namespace
    if kind == "pods":
        return [pod_summary(cl, r) for r in _pod_rows(cl)]
    if kind == "deployments":
        return [deployment_summary(cl, d) for d in w.deployments]
    if kind == "replicasets":
        p = cl.pods
        out = []
        for d in w.deployments:
            for rev in d.revisions[-4:]:
                rows = [
                    r
                    for r in _pod_rows(cl)
                    if p.dep[r] == d.index
                    and p.rev[r] == rev.number
                    and p.state[r] != P.TERMINATING
                ]
                out.append(
                    {
                        "name": _rs_name(cl, d, rev.number),
                        "desired": d.replicas if rev is d.current else 0,
                        "current": len(rows),
                        "ready": sum(int(p.ready[r]) for r in rows),
                        "revision": rev.number,
                        "image": rev.template.image,
                    }
                )
        return out
    if kind == "services":
        out = []
        for i, s in enumerate(cl.topo.app.services):
            if s.port is None:
                continue
            port = s.service_port or s.port
            out.append(
                {
                    "name": s.name,
                    "type": "ClusterIP",
                    "cluster_ip": f"10.96.{(i * 37) % 250 + 1}.{(i * 91) % 250 + 2}",
                    "ports": [f"{port}/TCP"],
                    "selector": {"app": s.name},
                }
            )
        return out
    if kind == "nodes":
        return [
            {
                "name": n.name,
                "status": "Ready" if n.ready else "NotReady",
                "zone": n.zone,
                "roles": "<none>",
            }
            for n in w.nodes
        ]
    if kind == "events":
        return [_event(cl, e) for e in sorted(w.events, key=lambda e: e.last)[-200:]]
    if kind == "configmaps":
        return [{"name": k, "data": dict(v)} for k, v in sorted(w.configmaps.items())]
    if kind == "networkpolicies":
        return [netpol.render(p, rfc3339) for p in sorted(w.netpols, key=lambda p: p.name)]
    if kind == "namespaces":
        return [{"name": n, "status": "Active"} for n in (*NAMESPACES, ns)]
    if kind == "horizontalpodautoscalers":
        return autoscaler.view(cl, cl.hpas)
    if kind == "secrets":  # the policy layer blocks this before it gets here
        raise NotFound("secrets are not readable")
    raise NotFound(f"unknown kind {kind!r}")


def describe(cl: SimCluster, kind: str, name: str) -> dict:
    """``kubectl describe <kind> <name>``: spec, status and recent events."""
    w, p = cl.world, cl.pods
    if kind == "pods":
        r = p.index_of(name)
        if r is None:
            raise NotFound(f"pod {name!r} not found in namespace {cl.topo.app.namespace}")
        dep = w.deployments[p.dep[r]]
        rev = dep.revision(int(p.rev[r])) or dep.current
        last = None
        if p.last_term[r] != P.TERM_NONE:
            last = {
                "terminated": {
                    "reason": P.TERM_NAMES[p.last_term[r]],
                    "exit_code": 137 if p.last_term[r] == P.TERM_OOM else 2,
                    "finished_at": rfc3339(p.last_term_at[r]),
                }
            }
        return {
            **pod_summary(cl, r),
            "controlled_by": f"ReplicaSet/{_rs_name(cl, dep, int(p.rev[r]))}",
            "container": {"name": dep.container, **_template(rev.template)},
            "state": _status(cl, r),
            "last_state": last,
            "started_at": rfc3339(p.started[r]) if np.isfinite(p.started[r]) else None,
            "events": _events_for(cl, "Pod", name),
        }
    if kind == "deployments":
        dep = w.deployment(name)
        if dep is None:
            raise NotFound(f"deployment {name!r} not found in namespace {cl.topo.app.namespace}")
        st = deployment_summary(cl, dep)
        return {
            **st,
            "replicas": dep.replicas,
            "strategy": "RollingUpdate (maxSurge 25%, maxUnavailable 25%)",
            "template": _template(dep.current.template),
            "revision_history": [
                {
                    "revision": r.number,
                    "change_cause": r.change_cause,
                    "image": r.template.image,
                    "created": rfc3339(r.created),
                }
                for r in dep.revisions
            ],
            "events": _events_for(cl, "Deployment", name),
        }
    if kind == "nodes":
        for i, n in enumerate(w.nodes):
            if n.name == name:
                pods = [pod_summary(cl, r) for r in _pod_rows(cl) if p.node[r] == i]
                return {
                    "name": n.name,
                    "zone": n.zone,
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "True" if n.ready else "Unknown",
                            "reason": "KubeletReady" if n.ready else "NodeStatusUnknown",
                            "message": "kubelet is posting ready status"
                            if n.ready
                            else "Kubelet stopped posting node status.",
                        }
                    ],
                    "pods": pods,
                    "events": _events_for(cl, "Node", name),
                }
        raise NotFound(f"node {name!r} not found")
    return get(cl, kind, name) | {"events": _events_for(cl, EVENT_KIND.get(kind, kind), name)}  # type: ignore[operator]
