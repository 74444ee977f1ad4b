"""The Runbook baseline (no ground truth): group alerts by workload, apply a fixed alert-to-action table.

Each invocation, firing alerts that are in no incident yet are grouped by the workload their labels
name; a workload without an open incident gets one (root cause: that workload; artifact: the table's
fault category, which is why runbook rarely localizes), otherwise the alerts join its incident. The
action comes from the highest-priority rule in the group: a rule that names the broken object (crash
loop, stuck rollout, OOM kill) beats a symptom rule (errors, latency), as in the paper's Runbook.
"""

from __future__ import annotations

from typing import Any

from sre_gym.agents.base import Agent, alerts_of, call
from sre_gym.backends.base import alert_entities

# alert name -> (priority, category reported as the artifact, action)
TABLE: dict[str, tuple[int, str, str | None]] = {
    "KubeContainerWaiting": (0, "bad-image", "rollback"),
    "KubeDeploymentScaledDown": (0, "scaled-down", "scale"),
    "KubeDeploymentRolloutStuck": (0, "stuck-rollout", "rollback"),
    "KubePodCrashLooping": (1, "crash-loop", "restart"),
    "KubeContainerOOMKilled": (1, "out-of-memory", "restart"),
    "ContainerMemoryNearLimit": (2, "memory-pressure", "restart"),
    "KubePodNotReady": (2, "pod-not-ready", "restart"),
    "KubeDeploymentReplicasMismatch": (2, "replicas-unavailable", "restart"),
    "KubeServiceWithoutEndpoints": (2, "no-endpoints", "restart"),
    "CPUThrottlingHigh": (3, "cpu-saturation", "scale"),
    "ServiceHighLatency": (4, "latency", "scale"),
    "ServiceHighErrorRate": (4, "errors", "restart"),
    "DependencyCallErrors": (4, "dependency-errors", "restart"),
    **dict.fromkeys(
        (
            "RedisClientErrors",
            "MongoDBClientErrors",
            "MySQLClientErrors",
            "DatastoreClientErrors",
            "ValkeyClientErrors",
            "PostgresClientErrors",
            "KafkaProducerErrors",
        ),
        (4, "datastore-errors", "restart"),
    ),
    "KafkaConsumerGroupLag": (4, "consumer-lag", "restart"),
    "ServiceTrafficStopped": (5, "traffic-stopped", None),
    "DataIntegrityFailures": (5, "data-integrity", None),
    "KubeNodeNotReady": (5, "node-failure", None),
    "KubeNodeUnreachable": (5, "node-failure", None),
    "KubeZoneDown": (5, "zone-outage", None),
    "EntrypointHighErrorRate": (6, "user-facing-errors", None),
    "EntrypointRouteErrors": (6, "user-facing-errors", None),
    "EntrypointHighLatency": (6, "user-facing-latency", None),
    "EntrypointSlowRequests": (6, "user-facing-latency", None),
    "EntrypointErrorBudgetBurn": (6, "error-budget", None),
}


def _actionable(workload: str) -> bool:
    """Runbooks act on application workloads: not on nodes, nor on the load generator that drives
    the benchmark (touching it is forbidden)."""
    name = workload.lower()
    return not name.startswith("kind-") and "loadgenerator" not in name.replace("-", "")


class RunbookAgent(Agent):
    name = "runbook"

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.incident_of: dict[str, str] = {}  # workload -> open incident id
        self.grouped: set[str] = set()
        self.acted: dict[str, int] = {}  # incident -> invocation of the last action
        self.n_reports = 0
        self.members: dict[str, set[str]] = {}  # incident -> its alert ids

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        inv = int(obs["invocation"])
        alerts = alerts_of(obs)
        calls: list[dict[str, Any]] = []
        # close incidents whose alerts have all resolved; the workload's next alerts open a new one
        firing = {a["id"] for a in alerts if a["state"] == "firing"}
        for workload, iid in list(self.incident_of.items()):
            if not firing & self.members.get(iid, set()):
                calls.append(
                    call(
                        "resolve_incident", incident_id=iid, summary="runbook: all alerts resolved"
                    )
                )
                del self.incident_of[workload]
        groups: dict[str, list[dict]] = {}
        for a in alerts:
            if a["state"] != "firing" or a["id"] in self.grouped:
                continue
            # call-failure rules name the callee that fails in ``server``; others name their workload
            ents = alert_entities(a["labels"])
            workload = a["labels"].get("server") or (ents[0] if ents else None)
            if workload is None:
                continue
            groups.setdefault(workload, []).append(a)
        for workload in sorted(groups):
            group = groups[workload]
            self.grouped.update(a["id"] for a in group)
            best = min(
                (TABLE.get(a["name"], (9, "unknown", None)) for a in group), key=lambda x: x[0]
            )
            ids = [a["id"] for a in group]
            iid = self.incident_of.get(workload)
            if iid is not None:
                self.members[iid].update(ids)
            if iid is None:
                self.n_reports += 1
                iid = self.incident_of[workload] = f"INC-{self.n_reports:04d}"
                self.members[iid] = set(ids)
                calls.append(
                    call(
                        "report_incident",
                        alert_ids=ids,
                        root_cause_services=[workload],
                        artifact=best[1],
                        summary=f"runbook: {best[1]} on {workload}",
                    )
                )
            else:
                calls.append(call("update_incident", incident_id=iid, add_alert_ids=ids))
            action = best[2]
            if action is None or inv - self.acted.get(iid, -99) < 3 or not _actionable(workload):
                continue
            self.acted[iid] = inv
            if action == "scale":
                calls.append(call("scale", deployment=workload, replicas=2, incident_id=iid))
            else:
                calls.append(call(action, deployment=workload, incident_id=iid))
        return calls
