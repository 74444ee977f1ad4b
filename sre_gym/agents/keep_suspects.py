"""How the Keep baseline forms suspects: the evidence it trusts and the causes it suspects.

Evidence is a service's own signals that persisted (an alert that fired for ``PERSIST_S``, a pod not
ready for ``ROLLOUT_S``: a rollout's transient is not a fault), outside the ``SETTLE_S`` after keep
acted on the service; CPU throttling on ``SURGE_SERVICES`` services at once is load, not a fault;
errors and latency a failing hard dependency explains are inherited, and those whose logs blame an
outside dependency timing out are a third party's (keep reads the error logs of every service
with such symptoms, and trusts symptoms alone only once it has). It is *convincing* with a pod or
deployment signal, or with two kinds of symptom, or with one that lasted ``POD_PERSIST_S``.

The causes: a node whose NotReady alert fired for ``NODE_DOWN_S`` (the kubelet flaps of a production
namespace end before the alert fires), a NetworkPolicy that drops calls of the call graph, the
latest change of a service that was healthy before it and turned abnormal on convincing evidence
within ``DEPLOY_EFFECT_S`` (or that since cannot reach a callee which its other callers reach: when
they all fail, the callee is the trouble, not one caller's change), a deployment scaled to
zero, and a service whose pods misbehave without a change (errors alone are not that: no restart
mends code). ``Diagnosis`` is mixed into
``sre_gym.agents.keep.KeepAgent`` and reads its state (topology, reads, keep's own actions).
"""

from __future__ import annotations

from typing import Any

from sre_gym.agents.keep_cues import (
    ENTRY_ALERTS,
    OWN_ALERTS,
    SERVICE_ALERTS,
    Alert,
    Suspect,
    denying_policies,
    node_of,
    parse_time,
    pod_of,
    reverted,
)

CHANGE_WINDOW_S = 900  # a deploy stays a suspect this long
DEPLOY_EFFECT_S = 360  # a deploy is suspect only if its service's signals turn abnormal this soon
LAG_S = 30  # a deploy's effects reach an alert at least this late
PERSIST_S = 60  # an alert is evidence once it has fired this long (a one-scrape flap is not)
POD_PERSIST_S = 150  # one kind of symptom alone is evidence once it has fired this long
# a node whose NotReady alert (it holds for 1m) has fired this long, and that our last read shows
# NotReady, is down: the kubelet flaps of a production namespace (25-90 s, NotReady after a 40 s
# grace) end before the alert fires
NODE_DOWN_S = 30
SETTLE_S = 240  # a service's signals this soon after keep acted on it are the action's transients
ROLLOUT_S = 180  # a pod not ready this long is not a rollout's transient
SURGE_SERVICES = 3  # CPU throttling on this many services at once is load, not a fault
OUTSIDE_S = 240  # a service's errors named an outside dependency this recently
ROLLOUT_ALERTS = frozenset(
    {
        "KubePodNotReady",
        "KubeServiceWithoutEndpoints",
        "KubeDeploymentReplicasMismatch",
        "ServiceTrafficStopped",
    }
)
WEAK_ALERTS = frozenset({"CPUThrottlingHigh", *SERVICE_ALERTS, *ENTRY_ALERTS})
ERROR_ALERTS = frozenset({"ServiceHighErrorRate", *ENTRY_ALERTS})
NEVER = -1e18


class Diagnosis:
    """Suspects and how well each explains an alert (mixed into ``KeepAgent``)."""

    # the agent's state this reads (see KeepAgent.reset)
    now: float
    seen_until: float
    entry: str | None
    services: set[str]
    nodes: set[str]
    callers: dict[str, set[str]]
    callees: dict[str, set[str]]
    hard_callees: dict[str, set[str]]
    ports: dict[str, int]
    pods: list[dict[str, Any]]
    netpols: list[dict[str, Any]]
    changes: dict[str, dict[str, Any]]
    down_since: dict[str, float]
    zero_since: dict[str, float]
    touched: dict[str, float]
    undone: set[str]
    outside: dict[str, float]
    logs_at: dict[str, float]

    def _inherited(self, svc: str, abnormal: set[str]) -> bool:
        """Are svc's service-level symptoms explained by an abnormal hard dependency?"""
        return bool(self.hard_callees.get(svc, set()) & abnormal)

    def _settling(self, svc: str | None, t: float) -> bool:
        """Did alert time t fall in the transients of keep's own action on svc?"""
        at = self.touched.get(svc or "", NEVER)
        return at <= t < at + SETTLE_S

    def _suspects(self, alerts: list[Alert], abnormal: set[str], now: float) -> list[Suspect]:
        """This invocation's suspects, one per cause (``abnormal``: services with own signals)."""
        out: list[Suspect] = []
        for node in sorted(self.down_since):
            fired = [a.t for a in alerts if a.node == node and a.firing]
            if node in self.nodes and fired and now - min(fired) >= NODE_DOWN_S:
                key = ("node", node, self.down_since[node])  # (a node may fail twice)
                out.append(Suspect(key, "node", node, node, min(fired)))
        for p, (src, peer) in denying_policies(self.netpols, self.callees, self.ports):
            out.append(
                Suspect(
                    ("netpol", p["name"], p.get("created")),  # (a name may come back)
                    "netpol",
                    src,
                    f"networkpolicy/{p['name']}",
                    parse_time(p.get("created")) or now,
                    service=src,
                    peer=peer,
                )
            )
        ctx = {
            "abnormal": abnormal,
            "surge": len({a.service for a in alerts if a.firing and a.name == "CPUThrottlingHigh"})
            >= SURGE_SERVICES,
            "outside": {s for s, t in self.outside.items() if now - t <= OUTSIDE_S},
        }
        out += self._deploy_suspects(alerts, ctx)
        for svc, since in sorted(self.zero_since.items()):
            if svc in self.services and now - since >= PERSIST_S:
                out.append(Suspect(("scaled", svc), "scaled", svc, f"deployment/{svc}", since, svc))
        taken = {s.service for s in out if s.kind in ("deploy", "scaled")}
        bad_nodes = {s.culprit for s in out if s.kind == "node"}
        out += self._pod_suspects(alerts, ctx, taken, bad_nodes)
        uniq: dict[tuple, Suspect] = {}
        for s in out:
            uniq.setdefault(s.key, s)
        return list(uniq.values())

    def _signals(
        self, svc: str, alerts: list[Alert], lo: float, hi: float, ctx: dict[str, Any]
    ) -> list[Alert]:
        """svc's own signals that started in [lo, hi] and count as evidence: each fired for
        ``PERSIST_S`` (a rollout's not-ready spell for ``ROLLOUT_S``), outside keep's own action's
        transients; no CPU throttling while the load surges on many services; no service-level
        symptom a failing hard dependency or a flaky third party explains."""
        out = []
        for a in alerts:
            if a.service != svc or a.client is not None or not lo <= a.t <= hi:
                continue
            lasted = a.lasted(self.now)
            if lasted < PERSIST_S or self._settling(svc, a.t):
                continue
            if a.name in ROLLOUT_ALERTS and lasted < ROLLOUT_S:
                continue
            if a.name == "CPUThrottlingHigh" and ctx["surge"]:
                continue
            symptom = a.name in SERVICE_ALERTS or (svc == self.entry and a.name in ENTRY_ALERTS)
            if symptom and (self._inherited(svc, ctx["abnormal"]) or svc in ctx["outside"]):
                continue
            if symptom or a.name in OWN_ALERTS | ROLLOUT_ALERTS:
                out.append(a)
        return out

    def _convincing(self, svc: str, sig: list[Alert], ctx: dict[str, Any]) -> bool:
        """Evidence enough to act on: a pod or deployment signal; or two kinds of symptom, or
        latency or errors that lasted (not during a load surge), once svc's error logs have been
        read since they began (they may blame a third party)."""
        names = {a.name for a in sig}
        if names - WEAK_ALERTS:
            return True
        if names - {"CPUThrottlingHigh"} and self.logs_at.get(svc, NEVER) < min(a.t for a in sig):
            return False
        if len(names) >= 2:
            return True
        return not ctx["surge"] and any(
            a.name != "CPUThrottlingHigh" and a.lasted(self.now) >= POD_PERSIST_S for a in sig
        )

    def _pod_suspects(
        self, alerts: list[Alert], ctx: dict[str, Any], taken: set, bad_nodes: set
    ) -> list[Suspect]:
        """Services whose pods misbehave without a change, on convincing evidence since keep last
        acted on them; the artifact is the pod whose signal came first."""
        out = []
        for svc in sorted(ctx["abnormal"] & self.services - taken):
            lo = self.touched.get(svc, NEVER) + LAG_S
            sig = [a for a in self._signals(svc, alerts, lo, self.now, ctx) if a.firing]
            if not sig or not self._convincing(svc, sig, ctx):
                continue
            if {a.name for a in sig} <= ERROR_ALERTS:
                continue  # errors alone, without a change: no restart makes code right
            if not any(a.pod for a in sig) and max(a.t for a in sig) > self.seen_until - LAG_S:
                continue  # service symptoms only: a deploy we have not read may explain them
            first = min(sig, key=lambda a: (a.pod is None, a.t))
            pod = first.pod or pod_of(self.pods, svc)
            if pod is None or node_of(self.pods, pod) in bad_nodes:
                continue
            t = min(a.t for a in sig)
            out.append(Suspect(("pod", svc), "pod", svc, f"pod/{pod}", t, svc, pod=pod))
        return out

    def _deploy_suspects(self, alerts: list[Alert], ctx: dict[str, Any]) -> list:
        """The latest change of each service, if the service was healthy before it and turned
        abnormal on convincing evidence soon after it (or cannot reach a callee that looks healthy
        and that its other callers reach)."""
        latest: dict[str, dict[str, Any]] = {}
        for ch in self.changes.values():
            svc, t = ch["service"], parse_time(ch["time"])
            if svc not in latest or parse_time(latest[svc]["time"]) < t:
                latest[svc] = ch
        out = []
        for svc, ch in sorted(latest.items()):
            t = parse_time(ch["time"])
            if svc not in self.services or self.now - t > CHANGE_WINDOW_S:
                continue
            if str(ch.get("title", "")).startswith("Revert") or ch["sha"] in self.undone:
                continue
            if reverted(ch, self.changes) or self.touched.get(svc, NEVER) >= t:
                continue  # undone, or keep acted on the service since: its signals are not ch's
            before = self._signals(svc, alerts, t - CHANGE_WINDOW_S, t, ctx)
            if any(a.end is None or a.end > t for a in before):
                continue  # the service was sick before the change
            sig = self._signals(svc, alerts, t, t + DEPLOY_EFFECT_S, ctx)
            failing = {
                a.server
                for a in alerts
                if a.client == svc
                and a.server not in ctx["abnormal"]
                and t <= a.t <= t + DEPLOY_EFFECT_S
                and a.lasted(self.now) >= PERSIST_S
            }
            # ...while the callee's other callers reach it (else the callee is the trouble)
            cannot_reach = any(
                not any(a.server == srv and a.client != svc and a.t >= t - LAG_S for a in alerts)
                for srv in failing
            )
            if cannot_reach or (sig and self._convincing(svc, sig, ctx)):
                art = ch["sha"]  # a drift's key is already service@revision
                out.append(Suspect(("deploy", art), "deploy", svc, art, t, svc, change=ch))
        return out

    def _explains(self, s: Suspect, a: Alert) -> int:
        """How well suspect s explains alert a (0: not at all)."""
        if a.t < s.since - 60:
            return 0
        if s.kind == "node":
            if a.node == s.culprit:
                return 10
            if a.pod and node_of(self.pods, a.pod) == s.culprit:
                return 8
            on_node = {p.get("deployment") for p in self.pods if p.get("node") == s.culprit}
            return 5 if a.service in on_node else 0
        svc = s.service or ""
        if s.kind == "netpol":
            if a.client == svc and a.server == s.peer:
                return 10
            if a.service == svc and a.name in SERVICE_ALERTS | ENTRY_ALERTS:
                return 7  # the service whose calls the policy drops fails its own requests
        else:
            if a.pod and s.pod and a.pod == s.pod:
                return 9
            if a.service == svc and a.client is None:
                return 8 if a.name in OWN_ALERTS else 7
            if a.server == svc or (a.client == svc and s.kind == "deploy"):
                return 6
        if a.name in ENTRY_ALERTS:
            return 2
        return 3 if a.service in self.callers.get(svc, ()) else 0
