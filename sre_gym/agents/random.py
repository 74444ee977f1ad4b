"""The Random baseline: uniformly random, well-formed tool calls of every kind (a sanity floor).

Seeded through ``make_agent("random", seed=...)`` and re-seeded at the start of every episode, so an
episode is reproducible. Each invocation it makes one to six calls, each drawn from the three tool
kinds: reads (alerts, metrics, logs, topology, k8s objects, changes) with random arguments, reports
(a new incident citing one to three random alerts and a random root cause; or updating or resolving
one of its own open incidents), and interventions (rollback, restart, scale or deleting a pod of a
random service) that cite one of its own open incidents. It learns service and pod names only from
what it sees (alert labels, its topology and pod reads), never reads secrets and never touches the
load generator, so it is never penalised for forbidden operations.

What it can do: occasionally correlate an alert with a fault by chance. What it cannot do: localize
or repair except by luck; its interventions are as likely to cause harm as to help.
"""

from __future__ import annotations

import json
import random
from typing import Any

from sre_gym.agents.base import Agent, alerts_of, call
from sre_gym.tools.policy import BENCHMARK_WORKLOADS

READ_QUERIES = (
    'sum by (service_name) (rate(traces_span_metrics_calls_total{status_code="STATUS_CODE_ERROR"}[1m]))',
    "sum by (pod) (rate(container_cpu_usage_seconds_total[1m]))",
    "kube_deployment_status_replicas_available",
)
K8S_KINDS = ("pods", "deployments", "services", "nodes", "events", "configmaps", "networkpolicies")
KINDS = ("read", "read", "read", "report", "intervene")


class RandomAgent(Agent):
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = 0 if seed is None else int(seed)
        self.reset()

    def reset(self) -> None:
        self.rng = random.Random(self.seed)
        self.services: set[str] = set()
        self.pods: dict[str, str] = {}  # pod -> its deployment
        self.protected: set[str] = set(BENCHMARK_WORKLOADS)
        self.shas: set[str] = set()
        self.sent: list[dict[str, Any]] = []

    def _learn(self, obs: dict[str, Any], alerts: list[dict[str, Any]]) -> None:
        for a in alerts:
            lab = a.get("labels", {})
            for k in ("service_name", "deployment", "client", "server"):
                if lab.get(k):
                    self.services.add(lab[k])
        try:
            results = json.loads(obs.get("tool_results") or "[]")
        except json.JSONDecodeError:
            results = []
        for r in results if isinstance(results, list) else []:
            res = r.get("result") if isinstance(r, dict) and r.get("ok") else None
            if r.get("tool") == "get_topology" and isinstance(res, dict):
                for s in res.get("services", []):
                    kind = s.get("kind")
                    (self.protected if kind == "loadgen" else self.services).add(s["name"])
            elif r.get("tool") == "k8s_get" and isinstance(res, list):
                self.pods.update(
                    {
                        p["name"]: p["deployment"]
                        for p in res
                        if isinstance(p, dict) and "deployment" in p
                    }
                )
            elif r.get("tool") == "list_changes" and isinstance(res, list):
                self.shas |= {c["sha"] for c in res if isinstance(c, dict) and "sha" in c}
        self.services -= self.protected
        self.pods = {p: d for p, d in self.pods.items() if d not in self.protected}

    def _pick(self, items: set[str] | list[str]) -> str | None:
        items = sorted(items)
        return self.rng.choice(items) if items else None

    def _read(self) -> dict[str, Any]:
        r = self.rng
        svc = self._pick(self.services)
        options = [
            call("get_alerts", state=r.choice(["all", "firing", "resolved"])),
            call("query_metrics", query=r.choice(READ_QUERIES)),
            call("get_topology"),
            call("k8s_get", kind=r.choice(K8S_KINDS)),
            call("list_changes", limit=r.randint(1, 20)),
        ]
        if svc is not None:
            options += [
                call("query_logs", service=svc, since_s=r.choice([60, 300, 900])),
                call("k8s_describe", kind="deployments", name=svc),
                call("list_changes", service=svc, limit=5),
            ]
        sha = self._pick(self.shas)
        if sha is not None:
            options.append(call("show_change", sha=sha[: r.randint(7, 40)]))
        return r.choice(options)

    def _report(self, alerts: list[dict[str, Any]], open_ids: list[str]) -> dict[str, Any] | None:
        r = self.rng
        firing = [a["id"] for a in alerts if a["state"] == "firing"]
        choice = r.choice(["report", "report", "update", "resolve"])
        if choice == "report" or not open_ids:
            if not firing:
                return None
            ids = r.sample(firing, min(len(firing), r.randint(1, 3)))
            culprit = self._pick(self.services)
            artifact = self._pick(self.shas) or culprit
            return call(
                "report_incident",
                alert_ids=sorted(ids),
                root_cause_services=[culprit] if culprit else [],
                artifact=artifact,
                summary="random guess",
            )
        iid = r.choice(open_ids)
        if choice == "update" and firing:
            return call("update_incident", incident_id=iid, add_alert_ids=[r.choice(firing)])
        return call("resolve_incident", incident_id=iid, summary="random")

    def _intervene(self, open_ids: list[str]) -> dict[str, Any] | None:
        r = self.rng
        svc = self._pick(self.services)
        if not open_ids or svc is None:
            return None
        iid = r.choice(open_ids)
        kind = r.choice(["rollback", "restart", "scale", "delete_pod"])
        if kind == "rollback":
            return call("rollback", deployment=svc, incident_id=iid)
        if kind == "restart":
            return call("restart", deployment=svc, incident_id=iid)
        if kind == "scale":
            return call("scale", deployment=svc, replicas=r.randint(1, 3), incident_id=iid)
        pod = self._pick(list(self.pods))
        if pod is None:
            return call("restart", deployment=svc, incident_id=iid)
        return call("delete_resource", kind="pods", name=pod, incident_id=iid)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        alerts = alerts_of(obs)
        self._learn(obs, alerts)
        try:
            open_ids = sorted(i["id"] for i in json.loads(obs.get("incidents") or "[]"))
        except (json.JSONDecodeError, TypeError, KeyError):
            open_ids = []
        calls: list[dict[str, Any]] = [call("get_topology")] if not self.services else []
        for _ in range(self.rng.randint(1, 6)):
            kind = self.rng.choice(KINDS)
            if kind == "read":
                c = self._read()
            elif kind == "report":
                c = self._report(alerts, open_ids)
            else:
                c = self._intervene(open_ids)
            if c is not None:
                calls.append(c)
        return calls
