"""The Backend protocol: what the tools, the env and the recorder need from a cluster.

The embedded simulator implements it (``sre_gym.backends.sim``); a live Kubernetes + Prometheus
backend implements the same methods (``sre_gym.backends.live``). Reads never change the world;
interventions return a short message or raise ``OperationError`` with a precise reason (state
unchanged). What only some backends have (source, the build pipeline, traces, flags, an orchestrator,
ground truth) is a small runtime-checkable capability protocol of its own, checked with ``isinstance``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

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


@runtime_checkable
class Backend(Protocol):
    """What every backend has: the episode's clock, the read tools, the interventions, evidence."""

    app: str
    seed: int
    release: str
    t0: float  # time of the first scrape
    tick_s: int
    episode_start: float
    episode_end: float

    @property
    def now(self) -> float:
        """The time the world has been simulated / observed up to."""
        ...

    def advance_to(self, t: float) -> None:
        """Run (or wait) the world up to ``t``."""
        ...

    def close(self) -> None:
        """Let go of what the episode holds (connections, telemetry); nothing is read after."""
        ...

    # reads
    def alerts(self, t: float) -> list[dict[str, Any]]:
        """Every alert that started firing at or before ``t``, as ``alert_view`` shows it."""
        ...

    def alert_listing(self, t: float) -> list[dict[str, Any]]:
        """``alerts(t)`` for readers that change nothing: the views may be shared between calls,
        and a shared view is replaced, never changed, when its alert's state changes (so a reader
        may keep what it worked out from a view for as long as the view is the same object)."""
        ...

    def alert_entities(self, alert_id: str) -> list[str]:
        """The workloads, nodes or zones an alert is about (``[]`` for an unknown id)."""
        ...

    def runbook(self, alert_id: str) -> str:
        """The alert's runbook annotation (``""`` when it has none)."""
        ...

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
    def changes(self) -> list[dict[str, Any]]:
        """Every change deployed so far, oldest first (``t`` is its time in seconds)."""
        ...

    def entity_of(self, kind: str, name: str) -> str | None:
        """The workload an object belongs to (for scope checks); None if unknown."""
        ...

    def node_of_pod(self, name: str) -> str | None:
        """The node a pod runs on; None if unknown or unscheduled."""
        ...

    # interventions
    def rollback(self, deployment: str, to_revision: int | None, t: float) -> str: ...
    def patch_config(self, deployment: str, key: str, value: str, t: float) -> str: ...
    def scale(self, deployment: str, replicas: int, t: float) -> str: ...
    def restart(self, deployment: str, t: float) -> str: ...
    def delete(self, kind: str, name: str, t: float) -> str: ...

    # evidence (pulled by the recorder after each invocation)
    def drain_evidence(self) -> list[dict[str, Any]]:
        """Evidence events produced since the last call, by time."""
        ...

    def evidence_arrays(self) -> dict[str, Any]:
        """The per-tick arrays the scorer reads (probes, artifacts, entry traffic)."""
        ...


# ------------------------------------------------------------------ capabilities
# What only some backends have (the simulator has them all; the live backend none yet). The Toolbox
# checks them with ``isinstance`` and answers a tool whose capability is missing with a clear error.


@runtime_checkable
class SourceBackend(Protocol):
    """Services' source repositories (``read_source``)."""

    def list_source(self, service: str) -> list[str]:
        """Files of the service's repository head."""
        ...

    def read_source(self, service: str, path: str) -> str: ...


@runtime_checkable
class PipelineBackend(Protocol):
    """The build pipeline (``submit_patch``)."""

    def submit_patch(self, service: str, diff: str, t: float) -> Any:
        """Apply, lint, test and build a source patch, then roll the image out."""
        ...


@runtime_checkable
class RevertBackend(Protocol):
    """Repositories that know their history: a revert is merged on the head, not a reversed diff."""

    def revert_diff(self, service: str, sha: str) -> str:
        """The diff that reverts one of the service's commits on its head (``git revert``)."""
        ...


@runtime_checkable
class TraceBackend(Protocol):
    """Trace queries (``get_traces``)."""

    def traces(
        self,
        service: str | None,
        since: float,
        until: float,
        *,
        errors_only: bool,
        min_duration_ms: float | None,
        limit: int,
        trace_id: str | None,
        spans: bool,
    ) -> list[dict[str, Any]]: ...


@runtime_checkable
class FlagBackend(Protocol):
    """Feature flags that name the service they change (a flagd patch is scoped to that service)."""

    def flag_owner(self, key: str) -> str | None:
        """The service a feature flag key (``flags.<name>``) changes, if it names one."""
        ...


@runtime_checkable
class OrchestratedBackend(Protocol):
    """An orchestrator that follows the interventions (it schedules repair persistence checks)."""

    def note_intervention(self, t: float, target: str | None, obj: str) -> None: ...


@runtime_checkable
class GroundTruthBackend(Protocol):
    """Hidden truth for privileged baselines (the oracle) and analysis; never shown to agents."""

    def ground_truth(self) -> dict[str, Any]: ...


CAPABILITIES: tuple[type, ...] = (
    SourceBackend,
    PipelineBackend,
    RevertBackend,
    TraceBackend,
    FlagBackend,
    OrchestratedBackend,
    GroundTruthBackend,
)


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
