"""The Backend protocol: what the tools, the env and the recorder need from a cluster.

The embedded simulator implements it (``sre_gym.backends.sim``); a live Kubernetes + Prometheus
backend implements the same methods. Reads never change the world; interventions return a short
message or raise ``OperationError`` with a precise reason (state unchanged).
"""

from __future__ import annotations

from typing import Any, Protocol

from sre_gym.clock import rfc3339


class OperationError(ValueError):
    """A refused operation (unknown object, invalid value). Nothing was changed."""


def alert_view(aid: str, a: dict[str, Any], started_at: float, t: float) -> dict[str, Any]:
    """What ``get_alerts`` shows of one alert as of ``t``: ``a`` holds its name, severity, labels,
    annotations and ``resolved_at`` (None while it fires)."""
    resolved = a["resolved_at"] is not None and a["resolved_at"] <= t
    return {
        "id": aid,
        "name": a["name"],
        "severity": a["severity"],
        "state": "resolved" if resolved else "firing",
        "labels": a["labels"],
        "starts_at": rfc3339(started_at),
        "ends_at": rfc3339(a["resolved_at"]) if resolved else None,
        "summary": a["annotations"].get("summary", ""),
        "description": a["annotations"].get("description", ""),
    }


def app_topology(app: Any) -> dict[str, Any]:
    """What ``get_topology`` shows of a catalog app: services, their calls, nodes and zones."""
    calls: dict[str, list[dict[str, Any]]] = {}
    for e in app.edges:
        calls.setdefault(e.caller, []).append(
            {"service": e.callee, "dependency": "hard" if e.hard else "soft"}
        )
    return {
        "app": app.name,
        "namespace": app.namespace,
        "entrypoint": app.entrypoint,
        "services": [
            {
                "name": s.name,
                "language": s.language,
                "kind": s.kind,
                "port": s.port,
                "calls": calls.get(s.name, []),
            }
            for s in app.services
        ],
        "nodes": [{"name": n.name, "zone": n.zone} for n in app.nodes],
    }


class Backend(Protocol):
    app: str
    seed: int
    release: str
    t0: float  # time of the first scrape
    tick_s: int
    episode_start: float
    episode_end: float
    now: float  # time the world has been simulated / observed up to

    def advance_to(self, t: float) -> None: ...

    # reads
    def alerts(self, t: float) -> list[dict[str, Any]]: ...
    def promql_instant(self, query: str, t: float) -> dict[str, Any]: ...
    def promql_range(self, query: str, start: float, end: float, step: float) -> dict[str, Any]: ...
    def logs(
        self,
        service: str,
        since: float,
        until: float,
        *,
        contains: str | None,
        level: str,
        limit: int,
    ) -> list[str]: ...
    def topology(self) -> dict[str, Any]: ...
    def k8s_get(self, kind: str, name: str | None) -> Any: ...
    def k8s_describe(self, kind: str, name: str) -> dict[str, Any]: ...
    def changes(self) -> list[dict[str, Any]]: ...
    def entity_of(self, kind: str, name: str) -> str | None: ...

    # interventions
    def rollback(self, deployment: str, to_revision: int | None, t: float) -> str: ...
    def patch_config(self, deployment: str, key: str, value: str, t: float) -> str: ...
    def scale(self, deployment: str, replicas: int, t: float) -> str: ...
    def restart(self, deployment: str, t: float) -> str: ...
    def delete(self, kind: str, name: str, t: float) -> str: ...

    # evidence (pulled by the recorder after each invocation)
    def drain_evidence(self) -> list[dict[str, Any]]: ...
    def evidence_arrays(self) -> dict[str, Any]: ...


def alert_entities(labels: dict[str, str]) -> list[str]:
    """Workloads, nodes or zones an alert is about, read from its labels."""
    out: list[str] = []
    for key in ("service_name", "deployment", "client", "server", "node", "service", "zone"):
        v = labels.get(key)
        if v and v not in out:
            out.append(v)
    pod = labels.get("pod")
    if pod and pod.count("-") >= 2:
        dep = pod.rsplit("-", 2)[0]
        if dep not in out:
            out.append(dep)
    return out
