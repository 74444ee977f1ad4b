"""The live backend (first slice): the read tools and the interventions against a real cluster.

``LiveBackend`` implements the ``Backend`` protocol over a real Kubernetes API (the official
``kubernetes`` client: ``CoreV1Api``, ``AppsV1Api``, ``NetworkingV1Api``) and a real Prometheus HTTP API
(``prometheus_api_client.PrometheusConnect``), with the same return shapes as ``SimBackend``, so the
guarded ``Toolbox`` and every agent drive a real cluster unchanged:

    backend = LiveBackend("online-boutique", prometheus_url="http://localhost:9090")
    toolbox = Toolbox(backend, Evidence(manifest={}))
    toolbox.execute({"tool": "k8s_get", "args": {"kind": "pods"}}, backend.now, 1, 110)

Time is the wall clock, read only through the injected ``clock`` (``advance_to`` waits through the
injected ``sleep``), so tests drive time without sleeping.

Out of scope in this slice: fault injection and the orchestrator (no schedule, no reverts, no
persistence challenge), traces, source access and the build pipeline (the Toolbox answers those tools
with a clear "not available on this backend" error), and the scoring evidence a live run would need:
``drain_evidence`` returns only the alert transitions this backend has observed (the interventions
are recorded by the Toolbox itself) and ``evidence_arrays`` returns ``{}`` (no probes, no traffic).

Alerts come from polling Prometheus' ``/api/v1/alerts`` at every ``advance_to``: an alert is known from
the first poll that sees it *firing* (pending alerts are ignored) and becomes resolved at the first
poll that no longer sees it. Logs are read with ``read_namespaced_pod_log`` from the current
containers of the service's pods; their level is inferred from the line (JSON ``severity``/``level``,
logfmt ``level=``, or an ERROR/WARN word), since Kubernetes keeps no level.

This module imports ``kubernetes`` and ``prometheus_api_client`` (the ``live`` extra); nothing in the
core package imports it, so ``import sre_gym`` stays light.
"""

from __future__ import annotations

import ast
import datetime as _dt
import hashlib
import json
import math
import re
import time
from collections.abc import Callable
from typing import Any

try:
    import requests
    import urllib3
    from kubernetes import client as k8s
    from kubernetes import config as k8s_config
    from kubernetes.client.exceptions import ApiException
    from prometheus_api_client import PrometheusConnect
    from prometheus_api_client.exceptions import PrometheusApiClientException
    from urllib3.util.retry import Retry
except ImportError as e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        f"sre_gym.backends.live needs the 'live' extra ({e.name or e} is not installed): "
        "pip install 'sre_gym[live]'"
    ) from e

from sre_gym.backends.base import OperationError, alert_entities, alert_view, app_topology
from sre_gym.catalogs import RELEASE, load_app
from sre_gym.catalogs.schema import parse_cpu, parse_mem
from sre_gym.clock import EPISODE_S, MAX_REPLICAS, TICK_S, parse_time, rfc3339
from sre_gym.sim.k8s_view import EVENT_KIND, age

REQUEST_TIMEOUT_S = 30.0
REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"
HASH_LABEL = "pod-template-hash"
RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
# deployment annotations ``kubectl rollout undo`` keeps instead of taking them from the ReplicaSet
ROLLBACK_KEEP = frozenset(
    {
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        "deployment.kubernetes.io/revision-history",
        "deployment.kubernetes.io/desired-replicas",
        "deployment.kubernetes.io/max-replicas",
        "deprecated.deployment.rollback.to",
    }
)
PROBE_HANDLERS = ("httpGet", "grpc", "tcpSocket")
_HEX_SHA = re.compile(r"^[0-9a-f]{7,64}$")
_PROM_HTTP = re.compile(r"^HTTP Status Code (\d+) \((.*)\)$", re.DOTALL)
_ERROR_WORD = re.compile(r"\b(ERROR|ERR|FATAL|PANIC|CRITICAL|SEVERE|EMERG|ALERT)\b|^fail:|^panic:")
_WARN_WORD = re.compile(r"\b(WARN|WARNING)\b|^warn:")
_LOGFMT_LEVEL = re.compile(r"\blevel=\"?(\w+)")


# ---------------------------------------------------------------------------------------- helpers
def _age(now: float, t: float | None) -> str:
    return "<unknown>" if t is None else age(now, t)


def _iso(t: float | None) -> str | None:
    return rfc3339(t) if t is not None else None


def _meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def _annotations(obj: dict) -> dict[str, str]:
    return _meta(obj).get("annotations") or {}


def _labels(obj: dict) -> dict[str, str]:
    return _meta(obj).get("labels") or {}


def _revision(obj: dict) -> int | None:
    v = _annotations(obj).get(REVISION)
    return int(v) if isinstance(v, str) and v.isdigit() else None


def _containers(template: dict) -> list[dict]:
    return (template.get("spec") or {}).get("containers") or []


def _image(template: dict) -> str | None:
    cs = _containers(template)
    return cs[0].get("image") if cs else None


def _probe_port(probe: dict | None) -> Any:
    if not probe:
        return None
    for h in PROBE_HANDLERS:
        if isinstance(probe.get(h), dict) and "port" in probe[h]:
            return probe[h]["port"]
    return None


def _template_view(container: dict, annotations: dict[str, str]) -> dict:
    """A container the way the simulator's ``describe`` shows a pod template."""
    env = []
    for e in container.get("env") or []:
        if "valueFrom" in e:
            env.append({"name": e.get("name"), "value_from": e["valueFrom"]})
        else:
            env.append({"name": e.get("name"), "value": e.get("value", "")})
    limits = (container.get("resources") or {}).get("limits") or {}
    port = _probe_port(container.get("readinessProbe"))
    return {
        "image": container.get("image"),
        "env": env,
        "resources": {"limits": {"cpu": limits.get("cpu"), "memory": limits.get("memory")}},
        "readinessProbe": {"port": port} if port is not None else None,
        "annotations": dict(annotations),
    }


def _template_key(template: dict) -> str:
    """A pod template's identity without the pod-template-hash label (as ``rollout undo`` compares)."""
    t = json.loads(json.dumps(template))
    ((t.get("metadata") or {}).get("labels") or {}).pop(HASH_LABEL, None)
    return json.dumps(t, sort_keys=True)


def _owner_deployment(pod: dict) -> str | None:
    """The deployment of a pod: its ReplicaSet's name minus the pod-template-hash (or its app label)."""
    h = _labels(pod).get(HASH_LABEL)
    for ref in _meta(pod).get("ownerReferences") or []:
        name = ref.get("name") or ""
        if ref.get("kind") == "ReplicaSet" and h and name.endswith(f"-{h}"):
            return name[: -len(h) - 1]
    return _labels(pod).get("app")


def _rs_deployment(rs: dict) -> str | None:
    for ref in _meta(rs).get("ownerReferences") or []:
        if ref.get("kind") == "Deployment":
            return ref.get("name")
    return None


def pod_status(pod: dict) -> str:
    """The STATUS column of ``kubectl get pods`` (waiting/terminated reasons win over the phase)."""
    st = pod.get("status") or {}
    if _meta(pod).get("deletionTimestamp"):
        return "Unknown" if st.get("reason") == "NodeLost" else "Terminating"
    reason = st.get("reason") or st.get("phase") or "Unknown"
    running = False
    for cs in reversed(st.get("containerStatuses") or []):
        state = cs.get("state") or {}
        waiting, term = state.get("waiting") or {}, state.get("terminated") or {}
        if waiting.get("reason"):
            reason = waiting["reason"]
        elif term.get("reason"):
            reason = term["reason"]
        elif term:
            reason = (
                f"Signal:{term['signal']}"
                if term.get("signal")
                else f"ExitCode:{term.get('exitCode')}"
            )
        elif cs.get("ready") and state.get("running") is not None:
            running = True
    if reason == "Completed" and running:
        reason = "Running"
    return reason


def log_level(line: str) -> str:
    """``error``, ``warning`` or ``info``, inferred from a log line (Kubernetes keeps no level)."""
    s = line.strip()
    if s.startswith("{"):
        try:
            obj = json.loads(s)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            for key in ("severity", "level", "lvl", "levelname", "log.level", "loglevel"):
                v = obj.get(key)
                if isinstance(v, int | float) and not isinstance(v, bool):  # pino / bunyan numbers
                    return "error" if v >= 50 else "warning" if v >= 40 else "info"
                if isinstance(v, str) and v:
                    v = v.lower()
                    if v.startswith(("err", "fatal", "crit", "panic", "alert", "emerg", "severe")):
                        return "error"
                    return "warning" if v.startswith("warn") else "info"
    m = _LOGFMT_LEVEL.search(s)
    if m:
        v = m.group(1).lower()
        if v.startswith(("err", "fatal", "crit", "panic")):
            return "error"
        return "warning" if v.startswith("warn") else "info"
    if _ERROR_WORD.search(s):
        return "error"
    if _WARN_WORD.search(s):
        return "warning"
    return "info"


def _prometheus_error(e: PrometheusApiClientException) -> str:
    """Prometheus' own error text out of prometheus-api-client's exception (which only keeps the
    status code and the repr of the body)."""
    text = str(e)
    m = _PROM_HTTP.match(text)
    if not m:
        return f"prometheus: {text}"
    status, body = m.group(1), m.group(2)
    try:
        raw = ast.literal_eval(body)
        data = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
    except (ValueError, SyntaxError, TypeError, UnicodeDecodeError):
        return f"prometheus answered HTTP {status}: {body[:500]}"
    if isinstance(data, dict) and data.get("error"):
        kind = data.get("errorType")
        return f"{kind}: {data['error']}" if kind else str(data["error"])
    return f"prometheus answered HTTP {status}: {body[:500]}"


def _result_type(result: Any, *, ranged: bool) -> str:
    """The ``resultType`` that prometheus-api-client drops: a bare ``[ts, value]`` pair is a scalar
    (or a string, if the value is not a number); series with ``values`` are a matrix."""
    if ranged:
        return "matrix"
    if isinstance(result, list) and len(result) == 2 and not isinstance(result[0], dict):
        try:
            float(result[1])
        except (TypeError, ValueError):
            return "string"
        return "scalar"
    if isinstance(result, list) and result and isinstance(result[0], dict):
        return "matrix" if "values" in result[0] else "vector"
    return "vector"


# ---------------------------------------------------------------------------------------- backend
class LiveBackend:
    """One episode on a real cluster: reads and interventions through the Kubernetes API and
    Prometheus. Create a new one per episode; ``close()`` releases the HTTP sessions."""

    def __init__(
        self,
        app: str,
        *,
        namespace: str | None = None,
        api_client: k8s.ApiClient | None = None,
        prometheus_url: str,
        prometheus_headers: dict[str, str] | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        seed: int = 0,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
    ) -> None:
        self.topo_app = load_app(app)
        self.app, self.seed, self.release = app, int(seed), RELEASE
        self.namespace = namespace or self.topo_app.namespace
        self.clock, self.sleep = clock, sleep
        self.tick_s = TICK_S
        self.t0 = self.episode_start = float(clock())
        self.episode_end = self.episode_start + EPISODE_S
        self.timeout_s = request_timeout_s
        self._owns_client = api_client is None
        self.api = api_client if api_client is not None else _load_api_client()
        self.core = k8s.CoreV1Api(self.api)
        self.apps = k8s.AppsV1Api(self.api)
        self.net = k8s.NetworkingV1Api(self.api)
        # no status retries: a 5xx would otherwise be retried with real, unmockable back-off sleeps
        self.prom = PrometheusConnect(
            url=prometheus_url.rstrip("/"),
            headers=prometheus_headers,
            retry=Retry(total=1, read=False, status_forcelist=(), backoff_factor=0),
            timeout=request_timeout_s,
        )
        self._alerts: dict[str, dict[str, Any]] = {}
        self._alert_order: list[str] = []
        self._open: dict[tuple[tuple[str, str], ...], str] = {}
        self._pending: list[dict[str, Any]] = []
        self.last_poll: float | None = None
        self.poll_error: str | None = None

    def close(self) -> None:
        """Close the Prometheus session and the Kubernetes client this backend created."""
        self.prom.close()
        if self._owns_client:
            self.api.close()

    def __enter__(self) -> LiveBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ time
    @property
    def now(self) -> float:
        return float(self.clock())

    def advance_to(self, t: float) -> None:
        """Wait (through ``sleep``) until the clock reaches ``t``, then poll Prometheus' alerts."""
        now = self.now
        while now < t:
            self.sleep(t - now)
            later = self.now
            if later <= now:
                raise RuntimeError("advance_to: the clock did not move while sleeping")
            now = later
        self.poll_alerts()

    # ------------------------------------------------------------------ Kubernetes plumbing
    def _k8s(
        self, what: str, name: str | None, fn: Callable[..., Any], *args: Any, **kw: Any
    ) -> Any:
        """Call the API; a 404 or any other refusal becomes an OperationError naming the object."""
        try:
            return fn(*args, _request_timeout=self.timeout_s, **kw)
        except ApiException as e:
            if e.status == 404 and name is not None:
                raise OperationError(f"no {what} {name!r} in namespace {self.namespace}") from None
            raise OperationError(_api_refusal(e, what, name)) from None
        except (urllib3.exceptions.HTTPError, OSError) as e:
            raise OperationError(
                f"kubernetes API at {self.api.configuration.host} unreachable: {e}"
            ) from None

    def _plain(self, obj: Any) -> Any:
        """A client model as the API's own JSON dict (camelCase keys), whatever the client version."""
        return self.api.sanitize_for_serialization(obj)

    def _list(self, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> list[dict]:
        return self._plain(self._k8s(what, None, fn, *args, **kw)).get("items") or []

    def _pods(self, **kw: Any) -> list[dict]:
        return self._list("pods", self.core.list_namespaced_pod, self.namespace, **kw)

    def _replicasets(self, deployment: str | None = None) -> list[dict]:
        rss = self._list("replicasets", self.apps.list_namespaced_replica_set, self.namespace)
        if deployment is not None:
            rss = [r for r in rss if _rs_deployment(r) == deployment]
        return sorted(rss, key=lambda r: (_rs_deployment(r) or "", _revision(r) or 0))

    def _deployment(self, name: str) -> dict:
        return self._plain(
            self._k8s(
                "deployment", name, self.apps.read_namespaced_deployment, name, self.namespace
            )
        )

    def _events(self, kind: str | None = None, name: str | None = None) -> list[dict]:
        sel = ",".join(
            f"involvedObject.{k}={v}" for k, v in (("kind", kind), ("name", name)) if v is not None
        )
        evs = self._list(
            "events", self.core.list_namespaced_event, self.namespace, field_selector=sel or None
        )
        evs = [
            e
            for e in evs
            if (kind is None or (e.get("involvedObject") or {}).get("kind") == kind)
            and (name is None or (e.get("involvedObject") or {}).get("name") == name)
        ]
        return sorted((self._event(e) for e in evs), key=lambda e: (e["_t"], e["object"]))

    @staticmethod
    def _event(e: dict) -> dict:
        inv = e.get("involvedObject") or {}
        first = parse_time(e.get("firstTimestamp")) or parse_time(e.get("eventTime"))
        last = (
            parse_time(e.get("lastTimestamp"))
            or first
            or parse_time(_meta(e).get("creationTimestamp"))
        )
        return {
            "type": e.get("type"),
            "reason": e.get("reason"),
            "object": f"{str(inv.get('kind', '')).lower()}/{inv.get('name', '')}",
            "message": e.get("message"),
            "count": int(e.get("count") or 1),
            "first_seen": _iso(first or last),
            "last_seen": _iso(last),
            "_t": last or 0.0,
        }

    def _events_for(self, kind: str, name: str, limit: int = 20) -> list[dict]:
        return [_strip(e) for e in self._events(kind, name)[-limit:]]

    # ------------------------------------------------------------------ renderers
    def _pod_row(self, pod: dict, now: float) -> dict:
        st = pod.get("status") or {}
        statuses = st.get("containerStatuses") or []
        total = len((pod.get("spec") or {}).get("containers") or []) or len(statuses)
        return {
            "name": _meta(pod).get("name"),
            "ready": f"{sum(1 for c in statuses if c.get('ready'))}/{total}",
            "status": pod_status(pod),
            "restarts": sum(int(c.get("restartCount") or 0) for c in statuses),
            "age": _age(now, parse_time(_meta(pod).get("creationTimestamp"))),
            "node": (pod.get("spec") or {}).get("nodeName"),
            "deployment": _owner_deployment(pod),
        }

    def _deployment_row(self, dep: dict, now: float) -> dict:
        spec, st = dep.get("spec") or {}, dep.get("status") or {}
        replicas = spec.get("replicas", 1)
        return {
            "name": _meta(dep).get("name"),
            "ready": f"{int(st.get('readyReplicas') or 0)}/{replicas}",
            "up_to_date": int(st.get("updatedReplicas") or 0),
            "available": int(st.get("availableReplicas") or 0),
            "revision": _revision(dep),
            "image": _image(spec.get("template") or {}),
            "age": _age(now, parse_time(_meta(dep).get("creationTimestamp"))),
        }

    def _rows(self, kind: str) -> list[dict]:
        now = self.now
        ns = self.namespace
        if kind == "pods":
            return sorted((self._pod_row(p, now) for p in self._pods()), key=lambda r: r["name"])
        if kind == "deployments":
            deps = self._list("deployments", self.apps.list_namespaced_deployment, ns)
            return sorted((self._deployment_row(d, now) for d in deps), key=lambda r: r["name"])
        if kind == "replicasets":
            return [
                {
                    "name": _meta(r).get("name"),
                    "desired": int((r.get("spec") or {}).get("replicas") or 0),
                    "current": int((r.get("status") or {}).get("replicas") or 0),
                    "ready": int((r.get("status") or {}).get("readyReplicas") or 0),
                    "revision": _revision(r),
                    "image": _image((r.get("spec") or {}).get("template") or {}),
                }
                for r in self._replicasets()
            ]
        if kind == "services":
            out = []
            for s in self._list("services", self.core.list_namespaced_service, ns):
                spec = s.get("spec") or {}
                out.append(
                    {
                        "name": _meta(s).get("name"),
                        "type": spec.get("type", "ClusterIP"),
                        "cluster_ip": spec.get("clusterIP"),
                        "ports": [
                            f"{p.get('port')}/{p.get('protocol', 'TCP')}"
                            for p in spec.get("ports") or []
                        ],
                        "selector": spec.get("selector") or {},
                    }
                )
            return sorted(out, key=lambda r: r["name"])
        if kind == "nodes":
            return [self._node_row(n) for n in self._list("nodes", self.core.list_node)]
        if kind == "events":
            return [_strip(e) for e in self._events()[-200:]]
        if kind == "configmaps":
            cms = self._list("configmaps", self.core.list_namespaced_config_map, ns)
            return sorted(
                ({"name": _meta(c).get("name"), "data": dict(c.get("data") or {})} for c in cms),
                key=lambda r: r["name"],
            )
        if kind == "networkpolicies":
            pols = self._list("networkpolicies", self.net.list_namespaced_network_policy, ns)
            return sorted((self._netpol_row(p) for p in pols), key=lambda r: r["name"])
        if kind == "namespaces":
            return [
                {
                    "name": _meta(n).get("name"),
                    "status": (n.get("status") or {}).get("phase", "Active"),
                }
                for n in self._list("namespaces", self.core.list_namespace)
            ]
        raise OperationError(f"unknown kind {kind!r}")

    @staticmethod
    def _node_row(n: dict) -> dict:
        conds = {c.get("type"): c for c in (n.get("status") or {}).get("conditions") or []}
        ready = (conds.get("Ready") or {}).get("status") == "True"
        status = "Ready" if ready else "NotReady"
        if (n.get("spec") or {}).get("unschedulable"):
            status += ",SchedulingDisabled"
        labels = _labels(n)
        roles = sorted(
            k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/")
        )
        return {
            "name": _meta(n).get("name"),
            "status": status,
            "zone": labels.get("topology.kubernetes.io/zone")
            or labels.get("failure-domain.beta.kubernetes.io/zone"),
            "roles": ",".join(r for r in roles if r) or "<none>",
        }

    @staticmethod
    def _netpol_row(p: dict) -> dict:
        spec = p.get("spec") or {}
        return {
            "name": _meta(p).get("name"),
            "pod_selector": (spec.get("podSelector") or {}).get("matchLabels") or {},
            "policy_types": list(spec.get("policyTypes") or ["Ingress"]),
            "ingress": spec.get("ingress") or [],
            "egress": spec.get("egress") or [],
            "created": _iso(parse_time(_meta(p).get("creationTimestamp"))),
        }

    # ------------------------------------------------------------------ reads
    def k8s_get(self, kind: str, name: str | None) -> Any:
        """``kubectl get <kind> [name]`` in the application namespace, as the simulator shows it."""
        if kind == "secrets":  # the policy layer blocks this before it gets here
            raise OperationError("secrets are not readable")
        items = self._rows(kind)
        if name is None:
            return items
        for it in items:
            if it.get("name") == name or it.get("object") == name:
                return it
        raise OperationError(f"{kind} {name!r} not found in namespace {self.namespace}")

    def k8s_describe(self, kind: str, name: str) -> dict[str, Any]:
        """``kubectl describe <kind> <name>``: spec, status and recent events."""
        if kind == "secrets":
            raise OperationError("secrets are not readable")
        ns, now = self.namespace, self.now
        if kind == "pods":
            pod = self._plain(self._k8s("pod", name, self.core.read_namespaced_pod, name, ns))
            spec, st = pod.get("spec") or {}, pod.get("status") or {}
            containers = spec.get("containers") or [{}]
            cstat = next(iter(st.get("containerStatuses") or []), {})
            last = None
            term = (cstat.get("lastState") or {}).get("terminated")
            if term:
                last = {
                    "terminated": {
                        "reason": term.get("reason"),
                        "exit_code": term.get("exitCode"),
                        "finished_at": _iso(parse_time(term.get("finishedAt"))),
                    }
                }
            owner = next(
                (r for r in _meta(pod).get("ownerReferences") or [] if r.get("controller")),
                None,
            ) or next(iter(_meta(pod).get("ownerReferences") or []), None)
            started = ((cstat.get("state") or {}).get("running") or {}).get("startedAt")
            return {
                **self._pod_row(pod, now),
                "controlled_by": f"{owner.get('kind')}/{owner.get('name')}" if owner else None,
                "container": {
                    "name": containers[0].get("name"),
                    **_template_view(containers[0], _annotations(pod)),
                },
                "state": pod_status(pod),
                "last_state": last,
                "started_at": _iso(parse_time(started or st.get("startTime"))),
                "events": self._events_for("Pod", name),
            }
        if kind == "deployments":
            dep = self._deployment(name)
            spec = dep.get("spec") or {}
            template = spec.get("template") or {}
            strategy = spec.get("strategy") or {}
            ru = strategy.get("rollingUpdate") or {}
            stype = strategy.get("type", "RollingUpdate")
            return {
                **self._deployment_row(dep, now),
                "replicas": spec.get("replicas", 1),
                "strategy": f"{stype} (maxSurge {ru.get('maxSurge', '25%')}, maxUnavailable {ru.get('maxUnavailable', '25%')})"
                if stype == "RollingUpdate"
                else stype,
                "template": _template_view(
                    next(iter(_containers(template)), {}), _annotations(template)
                ),
                "revision_history": [
                    {
                        "revision": _revision(r),
                        "change_cause": _annotations(r).get(CHANGE_CAUSE, ""),
                        "image": _image((r.get("spec") or {}).get("template") or {}),
                        "created": _iso(parse_time(_meta(r).get("creationTimestamp"))),
                    }
                    for r in self._replicasets(name)
                ],
                "events": self._events_for("Deployment", name),
            }
        if kind == "nodes":
            node = self._plain(self._k8s("node", name, self.core.read_node, name))
            pods = self._pods(field_selector=f"spec.nodeName={name}")
            return {
                "name": name,
                "zone": self._node_row(node)["zone"],
                "conditions": [
                    {k: c.get(k) for k in ("type", "status", "reason", "message")}
                    for c in (node.get("status") or {}).get("conditions") or []
                ],
                "pods": sorted(
                    (
                        self._pod_row(p, now)
                        for p in pods
                        if (p.get("spec") or {}).get("nodeName") == name
                    ),
                    key=lambda r: r["name"],
                ),
                "events": self._events_for("Node", name),
            }
        return self.k8s_get(kind, name) | {
            "events": self._events_for(EVENT_KIND.get(kind, kind), name)
        }

    def logs(
        self,
        service: str,
        since: float,
        until: float,
        *,
        contains: str | None = None,
        level: str = "any",
        limit: int = 50,
    ) -> list[str]:
        """Log lines of a service's pods (label ``app=<service>``) in [since, until], newest last."""
        known = [s.name for s in self.topo_app.services]
        if service not in known:
            raise OperationError(f"service {service!r} has no logs (known: {', '.join(known)})")
        since_s = max(1, math.ceil(self.now - since))
        lines: list[tuple[float, str, str]] = []
        for pod in sorted(
            self._pods(label_selector=f"app={service}"), key=lambda p: _meta(p).get("name", "")
        ):
            name = _meta(pod).get("name", "")
            containers = (pod.get("spec") or {}).get("containers") or []
            try:
                text = self.core.read_namespaced_pod_log(
                    name,
                    self.namespace,
                    container=containers[0].get("name") if containers else None,
                    since_seconds=since_s,
                    timestamps=True,
                    _request_timeout=self.timeout_s,
                )
            except ApiException as e:
                if e.status in (400, 404):
                    continue  # the pod is gone, or its container has not started: no log yet
                raise OperationError(_api_refusal(e, "pod log", name)) from None
            except (urllib3.exceptions.HTTPError, OSError) as e:
                raise OperationError(
                    f"kubernetes API at {self.api.configuration.host} unreachable: {e}"
                ) from None
            for raw in str(text or "").splitlines():
                stamp, _, line = raw.partition(" ")
                ts = parse_time(stamp)
                if ts is None:
                    ts, line = until, raw
                if ts < since or ts > until:
                    continue
                if level != "any" and log_level(line) != level:
                    continue
                if contains and contains not in line:
                    continue
                lines.append((ts, name, line))
        lines.sort(key=lambda x: (x[0], x[1]))
        return [line for _, _, line in lines[-limit:]] if limit > 0 else []

    def promql_instant(self, query: str, t: float) -> dict[str, Any]:
        """Prometheus' ``data`` object of an instant query at ``t``."""
        result = self._prom(
            lambda: self.prom.custom_query(query, params={"time": f"{float(t):.3f}"})
        )
        return {"resultType": _result_type(result, ranged=False), "result": result}

    def promql_range(self, query: str, start: float, end: float, step: float) -> dict[str, Any]:
        """Prometheus' ``data`` object of a range query (start and end at whole seconds)."""
        result = self._prom(
            lambda: self.prom.custom_query_range(
                query,
                start_time=_dt.datetime.fromtimestamp(start, tz=_dt.UTC),
                end_time=_dt.datetime.fromtimestamp(end, tz=_dt.UTC),
                step=f"{float(step):g}",
            )
        )
        return {"resultType": "matrix", "result": result}

    def _prom(self, fn: Callable[[], Any]) -> Any:
        try:
            result = fn()
        except PrometheusApiClientException as e:
            raise OperationError(_prometheus_error(e)) from None
        except (requests.RequestException, ValueError, KeyError) as e:
            raise OperationError(f"prometheus at {self.prom.url} failed: {e}") from None
        return result if result is not None else []

    # ------------------------------------------------------------------ alerts
    def poll_alerts(self) -> None:
        """Read Prometheus' firing alerts now and update the history (``advance_to`` calls this).

        A failed poll changes nothing (no alert is resolved on missing data); ``poll_error`` says why.
        """
        t = self.now
        pc = self.prom
        try:
            resp = pc._session.request(
                "GET",
                f"{pc.url}/api/v1/alerts",
                headers=pc.headers,
                auth=pc.auth,
                verify=pc._session.verify,
                cert=pc._session.cert,
                timeout=self.timeout_s,
            )
            if resp.status_code != 200:
                raise ValueError(f"HTTP {resp.status_code}: {resp.text[:300]}")
            raw = resp.json()["data"]["alerts"]
        except (requests.RequestException, ValueError, KeyError, TypeError) as e:
            self.poll_error = f"polling {pc.url}/api/v1/alerts failed: {e}"
            return
        self.poll_error, self.last_poll = None, t
        firing: dict[tuple[tuple[str, str], ...], dict] = {}
        for a in raw:
            if not isinstance(a, dict) or a.get("state") != "firing":
                continue
            labels = {str(k): str(v) for k, v in (a.get("labels") or {}).items()}
            firing.setdefault(tuple(sorted(labels.items())), a | {"labels": labels})
        for key, aid in list(self._open.items()):
            if key not in firing:
                self._alerts[aid]["resolved_at"] = t
                del self._open[key]
                self._pending.append({"type": "alert_resolved", "t": t, "id": aid})
        for key in sorted(k for k in firing if k not in self._open):
            a = firing[key]
            aid = f"ALR-{len(self._alert_order) + 1:04d}"
            labels = a["labels"]
            annotations = {str(k): str(v) for k, v in (a.get("annotations") or {}).items()}
            view = {
                "id": aid,
                "name": labels.get("alertname", ""),
                "severity": labels.get("severity", "none"),
                "labels": labels,
                "annotations": annotations,
                "active_at": parse_time(a.get("activeAt")),
                "seen_at": t,
                "resolved_at": None,
            }
            self._alerts[aid] = view
            self._alert_order.append(aid)
            self._open[key] = aid
            self._pending.append(
                {
                    "type": "alert",
                    "t": t,
                    "id": aid,
                    "name": view["name"],
                    "labels": labels,
                    "severity": view["severity"],
                    "entities": alert_entities(labels),
                }
            )

    def alerts(self, t: float) -> list[dict[str, Any]]:
        """Every alert seen firing at or before ``t`` (polled), with its state as of ``t``.

        ``starts_at`` is Prometheus' ``activeAt`` (as Alertmanager reports it)."""
        out = []
        for aid in self._alert_order:
            a = self._alerts[aid]
            if a["seen_at"] <= t:
                start = a["active_at"] if a["active_at"] is not None else a["seen_at"]
                out.append(alert_view(aid, a, start, t))
        return out

    def alert_entities(self, alert_id: str) -> list[str]:
        a = self._alerts.get(alert_id)
        return alert_entities(a["labels"]) if a else []

    def runbook(self, alert_id: str) -> str:
        a = self._alerts.get(alert_id)
        if not a:
            return ""
        return a["annotations"].get("runbook") or a["annotations"].get("runbook_url", "")

    # ------------------------------------------------------------------ catalog, changes, entities
    def topology(self) -> dict[str, Any]:
        """The app's topology from the catalog (the same view as the simulator's)."""
        return app_topology(self.topo_app) | {"namespace": self.namespace}

    def changes(self) -> list[dict[str, Any]]:
        """One change per deployment revision (from the ReplicaSets), oldest first.

        The kind is ``image`` when the revision changed the image, else ``config``; ``sha`` is the
        image tag of an ``image`` revision when it is a hex commit, else a stable digest of
        (namespace, deployment, revision). ``time`` is the ReplicaSet's creation: a rollback reuses
        an old ReplicaSet (new revision number, old creation time), as Kubernetes does.
        """
        out = []
        by_dep: dict[str, list[dict]] = {}
        for r in self._replicasets():
            dep = _rs_deployment(r)
            if dep is not None and _revision(r) is not None:
                by_dep.setdefault(dep, []).append(r)
        for dep, rss in by_dep.items():
            prev_image = None
            for r in sorted(rss, key=lambda r: _revision(r) or 0):
                rev = _revision(r)
                image = _image((r.get("spec") or {}).get("template") or {}) or ""
                created = parse_time(_meta(r).get("creationTimestamp"))
                t = created if created is not None else self.t0
                tag = image.split("@", 1)[0].rsplit("/", 1)[-1]
                tag = tag.rsplit(":", 1)[1].lower() if ":" in tag else ""
                new_image = image != prev_image
                # the commit belongs to the revision that deployed it; later config-only revisions of
                # the same image get their own digest, so that every sha names one change
                sha = (
                    tag
                    if new_image and _HEX_SHA.match(tag)
                    else hashlib.sha256(f"{self.namespace}/{dep}@{rev}".encode()).hexdigest()[:40]
                )
                cause = _annotations(r).get(CHANGE_CAUSE, "")
                out.append(
                    {
                        "sha": sha,
                        "service": dep,
                        "kind": "image" if new_image else "config",
                        "title": cause or f"{dep} revision {rev}",
                        "author": "",
                        "time": rfc3339(t),
                        "t": t,
                        "files": [],
                        "diff": "",
                        "image": image,
                        "revision": rev,
                        "pipeline": {},
                    }
                )
                prev_image = image
        return sorted(out, key=lambda c: (c["t"], c["service"], c["revision"]))

    def entity_of(self, kind: str, name: str) -> str | None:
        """The workload an object belongs to (for scope checks); None if unknown or unreadable."""
        ns = self.namespace
        try:
            if kind == "deployments":
                return _meta(self._deployment(name)).get("name")
            if kind == "pods":
                pod = self._plain(self._k8s("pod", name, self.core.read_namespaced_pod, name, ns))
                return _owner_deployment(pod)
            if kind == "networkpolicies":
                pol = self._plain(
                    self._k8s(
                        "networkpolicy", name, self.net.read_namespaced_network_policy, name, ns
                    )
                )
                sel = ((pol.get("spec") or {}).get("podSelector") or {}).get("matchLabels") or {}
                return sel.get("app") or next(iter(sel.values()), None)
        except OperationError:
            return None
        return None

    def node_of_pod(self, name: str) -> str | None:
        try:
            pod = self._plain(
                self._k8s("pod", name, self.core.read_namespaced_pod, name, self.namespace)
            )
        except OperationError:
            return None
        return (pod.get("spec") or {}).get("nodeName")

    # ------------------------------------------------------------------ interventions
    def rollback(self, deployment: str, to_revision: int | None, t: float) -> str:
        """``kubectl rollout undo``: put the pod template of the previous (or the requested)
        revision's ReplicaSet back into the deployment, with that ReplicaSet's annotations."""
        dep = self._deployment(deployment)
        rss = [r for r in self._replicasets(deployment) if _revision(r) is not None]
        revisions = sorted({_revision(r) for r in rss})  # type: ignore[type-var]
        current = _revision(dep) or (revisions[-1] if revisions else None)
        if to_revision is None:
            if len(revisions) < 2:
                raise OperationError(
                    f"deployment {deployment!r} has no previous revision to roll back to"
                )
            target = revisions[-2]
        else:
            target = int(to_revision)
            if target not in revisions:
                have = ", ".join(str(r) for r in revisions) or "none"
                raise OperationError(
                    f"deployment {deployment!r} has no revision {target} (have: {have})"
                )
            if target == current:
                raise OperationError(
                    f"revision {target} is already the current revision of {deployment!r}"
                )
        rs = next(r for r in rss if _revision(r) == target)
        template = json.loads(json.dumps((rs.get("spec") or {}).get("template") or {}))
        if _template_key(template) == _template_key((dep.get("spec") or {}).get("template") or {}):
            raise OperationError(
                f"the current template of {deployment!r} already matches revision {target}"
            )
        labels = (template.get("metadata") or {}).get("labels") or {}
        labels.pop(HASH_LABEL, None)
        annotations = {k: v for k, v in _annotations(dep).items() if k in ROLLBACK_KEEP}
        annotations.update({k: v for k, v in _annotations(rs).items() if k not in ROLLBACK_KEEP})
        patch = [
            {"op": "replace", "path": "/spec/template", "value": template},
            {"op": "add", "path": "/metadata/annotations", "value": annotations},
        ]
        self._patch_deployment(deployment, patch)
        return f"deployment.apps/{deployment} rolled back to revision {target} (image {_image(template)})"

    def patch_config(self, deployment: str, key: str, value: str, t: float) -> str:
        """Set one setting of the first container: ``env.<NAME>``, ``resources.limits.cpu|memory``
        or ``readinessProbe.port`` (a strategic-merge patch, so the rest of the template stays)."""
        value = str(value)
        dep = self._deployment(deployment)
        containers = _containers((dep.get("spec") or {}).get("template") or {})
        if not containers:
            raise OperationError(f"deployment {deployment!r} has no containers")
        c = containers[0]
        change: dict[str, Any]
        if key in ("resources.limits.cpu", "resources.limits.memory"):
            res = key.rsplit(".", 1)[1]
            try:
                (parse_cpu if res == "cpu" else parse_mem)(value)
            except ValueError as e:
                raise OperationError(str(e)) from None
            current = ((c.get("resources") or {}).get("limits") or {}).get(res)
            change = {"resources": {"limits": {res: value}}}
        elif key == "readinessProbe.port":
            if not value.isdigit() or not 0 < int(value) < 65536:
                raise OperationError(f"readinessProbe.port must be a port number, got {value!r}")
            probe = c.get("readinessProbe") or {}
            handler = next((h for h in PROBE_HANDLERS if isinstance(probe.get(h), dict)), None)
            if handler is None:
                raise OperationError(
                    f"container {c.get('name')!r} of {deployment!r} has no readiness probe with a port"
                )
            current = probe[handler].get("port")
            change = {"readinessProbe": {handler: {"port": int(value)}}}
        elif key.startswith("env."):
            var = key[4:]
            if not var or not var.replace("_", "").isalnum():
                raise OperationError(f"invalid environment variable name {var!r}")
            old = next((e for e in c.get("env") or [] if e.get("name") == var), None)
            current = old.get("value") if old is not None and "valueFrom" not in old else None
            entry: dict[str, Any] = {"name": var, "value": value}
            if old is not None and "valueFrom" in old:
                entry["valueFrom"] = None  # a literal value replaces the reference
            change = {"env": [entry]}
        else:
            raise OperationError(
                f"unsupported key {key!r}: use env.<NAME>, resources.limits.cpu, resources.limits.memory or readinessProbe.port"
            )
        if current is not None and str(current) == value:
            return f"deployment.apps/{deployment} not changed ({key} is already {value})"
        body = {"spec": {"template": {"spec": {"containers": [{"name": c.get("name"), **change}]}}}}
        self._patch_deployment(deployment, body)
        return f"deployment.apps/{deployment} patched ({key}={value}); rolling out a new revision"

    def _patch_deployment(self, name: str, body: Any) -> None:
        """A strategic-merge patch (a dict body) or a JSON patch (a list body) of one deployment."""
        self._k8s(
            "deployment", name, self.apps.patch_namespaced_deployment, name, self.namespace, body
        )

    def scale(self, deployment: str, replicas: int, t: float) -> str:
        if not 0 <= int(replicas) <= MAX_REPLICAS:
            raise OperationError(f"replicas must be between 0 and {MAX_REPLICAS}, got {replicas}")
        self._k8s(
            "deployment",
            deployment,
            self.apps.patch_namespaced_deployment_scale,
            deployment,
            self.namespace,
            {"spec": {"replicas": int(replicas)}},
        )
        return f"deployment.apps/{deployment} scaled to {int(replicas)}"

    def restart(self, deployment: str, t: float) -> str:
        """``kubectl rollout restart``, stamped with the episode time ``t`` (not the wall clock)."""
        body = {"spec": {"template": {"metadata": {"annotations": {RESTARTED_AT: rfc3339(t)}}}}}
        self._patch_deployment(deployment, body)
        return f"deployment.apps/{deployment} restarted"

    def delete(self, kind: str, name: str, t: float) -> str:
        if kind == "pods":
            self._k8s("pod", name, self.core.delete_namespaced_pod, name, self.namespace)
            return f'pod "{name}" deleted'
        if kind == "networkpolicies":
            self._k8s(
                "networkpolicy",
                name,
                self.net.delete_namespaced_network_policy,
                name,
                self.namespace,
            )
            return f'networkpolicy.networking.k8s.io "{name}" deleted'
        raise OperationError(f"deleting {kind} is not supported; delete pods or networkpolicies")

    # ------------------------------------------------------------------ evidence
    def drain_evidence(self) -> list[dict[str, Any]]:
        """Alert transitions observed since the last call (the Toolbox records interventions)."""
        out = sorted(self._pending, key=lambda e: e["t"])
        self._pending = []
        return out

    def evidence_arrays(self) -> dict[str, Any]:
        """Nothing yet: probes and entry-point traffic need the live orchestrator (out of scope)."""
        return {}


def _strip(e: dict) -> dict:
    return {k: v for k, v in e.items() if not k.startswith("_")}


def _api_refusal(e: ApiException, what: str, name: str | None) -> str:
    message = ""
    try:
        body = json.loads(e.body) if e.body else {}
        message = body.get("message", "") if isinstance(body, dict) else ""
    except (TypeError, ValueError):
        message = str(e.body or "")[:300]
    target = f"{what} {name!r}" if name else what
    return f"kubernetes API refused the request on {target}: {e.status} {e.reason}" + (
        f": {message}" if message else ""
    )


def _load_api_client() -> k8s.ApiClient:
    """A client from the kube config, else the in-cluster service account."""
    cfg = k8s.Configuration()
    try:
        k8s_config.load_kube_config(client_configuration=cfg)
    except (k8s_config.ConfigException, OSError) as kube_err:
        try:
            k8s_config.load_incluster_config(client_configuration=cfg)
        except k8s_config.ConfigException as cluster_err:
            raise RuntimeError(
                f"no Kubernetes configuration: kube config ({kube_err}); in-cluster ({cluster_err}); "
                "pass api_client= or set KUBECONFIG"
            ) from None
    return k8s.ApiClient(cfg)
