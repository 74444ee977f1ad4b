"""What the Keep baseline reads off observations and tool results: pure functions and records.

Alerts are parsed into ``Alert`` (the workload, pod, node or call edge each one is about, when it
started and resolved) and sorted into families by name; the services with their own firing signals
are the *abnormal* ones. Workloads of the kinds in ``NOT_SERVING`` serve no request. Network
policies are evaluated with the standard Kubernetes semantics to find the calls of the call graph
they drop, and the one policy responsible for each. Pods and deploys are looked up in the lists
``k8s_get`` and ``list_changes`` returned. A ``Suspect`` is a candidate root cause formed from these
cues. Nothing here holds state: the agent (``sre_gym.agents.keep``) keeps it.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from typing import Any

POD_ALERTS = frozenset(
    {
        "KubePodCrashLooping",
        "KubePodNotReady",
        "KubeContainerWaiting",
        "KubeContainerOOMKilled",
        "CPUThrottlingHigh",
        "ContainerMemoryNearLimit",
    }
)
DEPLOYMENT_ALERTS = frozenset({"KubeDeploymentReplicasMismatch", "KubeDeploymentRolloutStuck"})
OWN_ALERTS = POD_ALERTS | DEPLOYMENT_ALERTS
SERVICE_ALERTS = frozenset({"ServiceHighErrorRate", "ServiceHighLatency"})
ENTRY_ALERTS = frozenset(  # the entry point's user-facing symptoms
    {
        "EntrypointHighErrorRate",
        "EntrypointHighLatency",
        "EntrypointRouteErrors",
        "EntrypointSlowRequests",
        "EntrypointErrorBudgetBurn",
    }
)
NODE_ALERT = "KubeNodeNotReady"
NOT_SERVING = frozenset({"loadgen", "infra", "batch"})  # topology kinds that serve no request
POD_FAULT_ALERTS = frozenset(
    {
        "CPUThrottlingHigh",
        "KubeContainerOOMKilled",
        "KubePodCrashLooping",
        "ContainerMemoryNearLimit",
    }
)


@functools.lru_cache(maxsize=8192)
def parse_time(iso: str | None) -> float:
    """Seconds since the Unix epoch of an RFC 3339 UTC time (0.0 for none)."""
    if not iso:
        return 0.0
    return dt.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC).timestamp()


@dataclass
class Alert:
    id: str
    name: str
    t: float
    firing: bool
    service: str | None = None  # the workload the alert is about (the callee for edge alerts)
    pod: str | None = None
    node: str | None = None
    client: str | None = None
    server: str | None = None
    end: float | None = None  # when it resolved (None while firing)

    @classmethod
    def parse(cls, a: dict[str, Any]) -> Alert:
        lab = a.get("labels", {})
        name = a.get("name", "")
        pod = lab.get("pod")
        al = cls(a["id"], name, parse_time(a.get("starts_at")), a.get("state") == "firing", pod=pod)
        if not al.firing:
            al.end = parse_time(a.get("ends_at")) or al.t
        if lab.get("client") and lab.get("server"):  # call failures: the callee fails
            al.client, al.server = lab.get("client"), lab.get("server")
            al.service = al.server
        elif name == NODE_ALERT:
            al.node = lab.get("node")
        else:
            al.service = lab.get("service_name") or lab.get("deployment")
            if al.service is None and pod and pod.count("-") >= 2:
                al.service = pod.rsplit("-", 2)[0]
        return al

    @property
    def workload(self) -> str | None:
        return self.node or self.service

    def lasted(self, now: float) -> float:
        """How long it has fired (until it resolved, or until ``now``)."""
        return (now if self.end is None else self.end) - self.t


@dataclass
class Suspect:
    key: tuple
    kind: str  # node | netpol | deploy | scaled | pod
    culprit: str  # the service or node reported as the root cause
    artifact: str
    since: float  # when its evidence starts
    service: str | None = None
    peer: str | None = None  # netpol: the service whose egress it denies
    change: dict[str, Any] | None = None
    pod: str | None = None


def abnormal_services(alerts: list[Alert]) -> set[str]:
    """Services with their own firing signals (pod, deployment or service alerts)."""
    return {
        a.service
        for a in alerts
        if a.firing and a.service and (a.name in OWN_ALERTS or a.name in SERVICE_ALERTS)
    }


def rule_admits(rule: dict[str, Any], key: str, peer: str, port: int | None) -> bool:
    """Does an ingress (``from``) or egress (``to``) rule of a NetworkPolicy admit pods of
    ``peer`` on ``port``? (standard semantics: no peers or no ports means all of them; pods carry
    the ``app`` label of their service)"""
    ports = rule.get("ports")
    if ports and port is not None and not any(p.get("port") == port for p in ports):
        return False
    peers = rule.get(key)
    if not peers:
        return True
    for x in peers:
        if "podSelector" not in x or "namespaceSelector" in x:
            continue  # another namespace (DNS and the like)
        labels = (x["podSelector"] or {}).get("matchLabels") or {}
        if all(k == "app" and v == peer for k, v in labels.items()):
            return True
    return False


def denied_calls(
    policies: list[dict[str, Any]], edges: list[tuple[str, str]], ports: dict[str, int]
) -> set[tuple[str, str]]:
    """The calls (caller, callee) the policies drop: a pod selected by a policy of a type accepts
    or sends only what the union of those policies' rules of that type admit."""

    def selects(p: dict[str, Any], svc: str) -> bool:
        sel = p.get("pod_selector") or {}
        return all((k == "app" and v == svc) for k, v in sel.items())

    out = set()
    for a, b in edges:
        eg = [p for p in policies if "Egress" in (p.get("policy_types") or []) and selects(p, a)]
        ig = [p for p in policies if "Ingress" in (p.get("policy_types") or []) and selects(p, b)]
        port = ports.get(b)
        if (
            eg
            and not any(rule_admits(r, "to", b, port) for p in eg for r in p.get("egress", []))
            or ig
            and not any(rule_admits(r, "from", a, port) for p in ig for r in p.get("ingress", []))
        ):
            out.add((a, b))
    return out


def denying_policies(
    netpols: list[dict[str, Any]], callees: dict[str, set[str]], ports: dict[str, int]
) -> list[tuple[dict[str, Any], tuple[str, str]]]:
    """Policies that drop a call of the call graph which the other policies would let
    through, each with the first such (caller, callee): the namespace's own allow rules and
    default deny drop nothing the application needs."""
    edges = sorted((a, b) for a, bs in callees.items() for b in bs)
    if not edges or not netpols:
        return []
    denied_all = denied_calls(netpols, edges, ports)
    out = []
    for p in netpols:
        rest = [q for q in netpols if q is not p]
        freed = [e for e in edges if e in denied_all and e not in denied_calls(rest, edges, ports)]
        if freed:
            out.append((p, freed[0]))
    return out


def reverted(ch: dict[str, Any], changes: dict[str, dict[str, Any]]) -> bool:
    """Was deploy ``ch`` reverted by a later change of the same service?"""
    undo = f'Revert "{ch.get("title", "")}"'
    t = parse_time(ch["time"])
    return any(
        o["service"] == ch["service"] and parse_time(o["time"]) >= t and o.get("title") == undo
        for o in changes.values()
    )


def pod_of(pods: list[dict[str, Any]], svc: str) -> str | None:
    """The first pod of deployment ``svc`` that is not terminating."""
    mine = [p for p in pods if p.get("deployment") == svc]
    mine = [p for p in mine if p.get("status") != "Terminating"]
    return mine[0]["name"] if mine else None


def node_of(pods: list[dict[str, Any]], pod: str) -> str | None:
    """The node pod ``pod`` runs on."""
    return next((p.get("node") for p in pods if p["name"] == pod), None)
