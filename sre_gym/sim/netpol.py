"""NetworkPolicies with the standard ``networking.k8s.io/v1`` semantics, and the namespace's own.

A pod is isolated for ingress (egress) once any policy with that policy type selects it; it then
accepts (sends) only what the union of those policies' rules allows. A rule with no peers allows
every peer, a rule with no ports every port; a policy type with no rules allows nothing. A call
from service A to service B needs both A's egress and B's ingress to allow it; a denied connection
is dropped (the caller waits for its deadline).

Like most production namespaces (the Kubernetes documentation's "default deny" recipe, and the
network-policy examples of the demos' Helm charts), the app starts with a ``default-deny-ingress``
policy and one ``allow-<service>`` policy per service that admits exactly its callers on its port
(the entry point admits everyone: it sits behind the ingress controller). Deleting one of them is no
harmless clean-up: with default deny in place, its service stops receiving traffic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sre_gym.catalogs.schema import App

Labels = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Rule:
    """One ingress (``from``) or egress (``to``) rule: peers by pod labels (None: every peer;
    ``namespace`` peers select pods outside the app) and ports (None: every port)."""

    peers: tuple[Labels, ...] | None = None
    namespaces: tuple[Labels, ...] = ()
    ports: tuple[tuple[int, str], ...] | None = None

    def admits(self, labels: dict[str, str], port: int) -> bool:
        if self.ports is not None and port not in {p for p, _ in self.ports}:
            return False
        if self.peers is None and not self.namespaces:
            return True
        return any(_matches(sel, labels) for sel in self.peers or ())


@dataclass(frozen=True)
class NetworkPolicy:
    name: str
    pod_selector: Labels  # () selects every pod of the namespace
    policy_types: tuple[str, ...]
    ingress: tuple[Rule, ...] = ()
    egress: tuple[Rule, ...] = ()
    created: float = 0.0
    annotations: Labels = ()

    def selects(self, labels: dict[str, str]) -> bool:
        return _matches(self.pod_selector, labels)

    def workload(self) -> str | None:
        """The service whose pods it selects by ``app``, if it selects one."""
        return dict(self.pod_selector).get("app")


def _matches(selector: Labels, labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector)


def labels_of(service: str) -> dict[str, str]:
    return {"app": service}


def blocked(app: App, names: tuple[str, ...], policies: list[NetworkPolicy]) -> np.ndarray:
    """[caller, callee] True where the policies drop the connection."""
    n = len(names)
    out = np.zeros((n, n), dtype=bool)
    if not policies:
        return out
    labels = [labels_of(s) for s in names]
    ports = [int(app.service(s).port or 0) for s in names]
    index = {s: i for i, s in enumerate(names)}
    sel_memo: dict[Labels, np.ndarray] = {}

    def selected(sel: Labels) -> np.ndarray:
        """Which services' pods ``sel`` matches; the usual ``app=<service>`` selector at once (a
        service's pods carry ``labels_of(service)``)."""
        m = sel_memo.get(sel)
        if m is None:
            if len(sel) == 1 and sel[0][0] == "app":
                m = np.zeros(n, dtype=bool)
                if sel[0][1] in index:
                    m[index[sel[0][1]]] = True
            else:
                m = np.array([_matches(sel, la) for la in labels], dtype=bool)
            sel_memo[sel] = m
        return m

    def peers_of(r: Rule) -> np.ndarray:
        """Which services' pods the rule's peers match (ports aside)."""
        if r.peers is None and not r.namespaces:
            return np.ones(n, dtype=bool)
        m = np.zeros(n, dtype=bool)
        for sel in r.peers or ():
            m |= selected(sel)
        return m

    def port_ok(r: Rule) -> np.ndarray:
        """Per callee, whether the rule admits its port."""
        if r.ports is None:
            return np.ones(n, dtype=bool)
        return np.isin(ports, [p for p, _ in r.ports])

    # a pod isolated for egress (ingress) sends (accepts) only what the union of the rules of the
    # policies selecting it admits: one mask per policy rather than one check per pair
    eg_admit = np.zeros((n, n), dtype=bool)  # [caller, callee]
    ig_admit = np.zeros((n, n), dtype=bool)
    eg_iso = np.zeros(n, dtype=bool)
    ig_iso = np.zeros(n, dtype=bool)
    for p in policies:
        who = selected(p.pod_selector)
        if "Egress" in p.policy_types:
            eg_iso |= who
            for r in p.egress:
                eg_admit[who] |= peers_of(r) & port_ok(r)
        if "Ingress" in p.policy_types:
            ig_iso |= who
            for r in p.ingress:
                ig_admit[:, who & port_ok(r)] |= peers_of(r)[:, None]
    out |= eg_iso[:, None] & ~eg_admit
    out |= ig_iso[None, :] & ~ig_admit
    return out


def baseline(app: App, created: float) -> list[NetworkPolicy]:
    """The policies a production namespace of this app starts with (see the module docstring)."""
    callers: dict[str, set[str]] = {}
    for e in app.edges:
        callers.setdefault(e.callee, set()).add(e.caller)
    router = app.router or app.entrypoint
    for r in app.routes:
        for s in r.calls:
            callers.setdefault(s, set()).add(router)
    if router != app.entrypoint:
        callers.setdefault(router, set()).add(app.entrypoint)
    ann = (("policy.platform/owner", "platform-team"),)
    out = [NetworkPolicy("default-deny-ingress", (), ("Ingress",), (), (), created, ann)]
    for s in app.services:
        if s.port is None or s.kind == "loadgen":
            continue
        port = ((int(s.port), "TCP"),)
        if s.name == app.entrypoint:
            rule = Rule(None, (), port)  # behind the ingress controller: every source
        else:
            peers = tuple((("app", c),) for c in sorted(callers.get(s.name, ())))
            if not peers:
                continue
            rule = Rule(peers, (), port)
        out.append(
            NetworkPolicy(
                f"allow-{s.name}", (("app", s.name),), ("Ingress",), (rule,), (), created, ann
            )
        )
    return out


def egress_allowlist(
    app: App, name: str, service: str, denied: str, created: float
) -> NetworkPolicy:
    """An egress allow-list for ``service`` that names its callees except ``denied`` (and DNS): the
    shape of the egress lockdowns platform teams roll out, with one dependency forgotten."""
    callees = sorted({e.callee for e in app.edges if e.caller == service} - {denied})
    rules = (
        [
            Rule(
                tuple((("app", c),) for c in callees),
                (),
                tuple((int(app.service(c).port or 0), "TCP") for c in callees),
            )
        ]
        if callees
        else []
    )
    rules.append(Rule((), ((("kubernetes.io/metadata.name", "kube-system"),),), ((53, "UDP"),)))
    return NetworkPolicy(
        name,
        (("app", service),),
        ("Egress",),
        (),
        tuple(rules),
        created,
        (("policy.platform/owner", "platform-team"),),
    )


def render(p: NetworkPolicy, stamp) -> dict:
    """The policy as ``kubectl get networkpolicy -o yaml`` shows its spec (plain dicts)."""

    def peers(r: Rule) -> list[dict]:
        out = [{"podSelector": {"matchLabels": dict(sel)}} for sel in r.peers or ()]
        out += [{"namespaceSelector": {"matchLabels": dict(sel)}} for sel in r.namespaces]
        return out

    def rule(r: Rule, key: str) -> dict:
        d: dict = {}
        if r.peers is not None or r.namespaces:
            d[key] = peers(r)
        if r.ports is not None:
            d["ports"] = [{"port": port, "protocol": proto} for port, proto in r.ports]
        return d

    return {
        "name": p.name,
        "pod_selector": dict(p.pod_selector),
        "policy_types": list(p.policy_types),
        "ingress": [rule(r, "from") for r in p.ingress],
        "egress": [rule(r, "to") for r in p.egress],
        "annotations": dict(p.annotations),
        "created": stamp(p.created),
    }
