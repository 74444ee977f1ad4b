"""The live backend's reads: ``kubectl get`` and ``describe`` views, events, logs and PromQL.

``LiveReads`` renders the Kubernetes objects of the application namespace with the simulator's row
and ``describe`` shapes (pods, deployments, ReplicaSets, services, nodes, events, configmaps,
NetworkPolicies, namespaces), merges the logs of a service's pods, answers instant and range PromQL
queries with Prometheus' ``data`` object, and reads the change history (one change per deployment
revision) and the workload an object belongs to. Secrets are never read.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import math
import re
from typing import Any

from sre_gym.backends.base import OperationError, app_topology
from sre_gym.backends.live_client import ApiException, LiveClient, _api_refusal, urllib3
from sre_gym.backends.live_objects import (
    CHANGE_CAUSE,
    _age,
    _annotations,
    _containers,
    _image,
    _iso,
    _labels,
    _meta,
    _owner_deployment,
    _revision,
    _rs_deployment,
    _template_view,
    log_level,
    pod_status,
)
from sre_gym.backends.live_time import compress_promql
from sre_gym.clock import parse_time, rfc3339
from sre_gym.sim.k8s_view import EVENT_KIND

_HEX_SHA = re.compile(r"^[0-9a-f]{7,64}$")


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


class LiveReads(LiveClient):
    """The read side of ``LiveBackend`` (every method reads; none changes the cluster)."""

    # ------------------------------------------------------------------ events
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
        out = sorted((self._event(e) for e in evs), key=lambda e: (e["_t"], e["object"]))
        self._keep_events(out)
        return out

    def _keep_events(self, events: list[dict]) -> None:
        """Copy the events a read saw into the evidence (Kubernetes forgets them after an hour)."""
        log = getattr(self, "_event_log", None)
        if log is None:
            return
        now = self.now
        for e in events:
            key = (e["object"], e["reason"], e["first_seen"], e["count"])
            if key in log:
                continue
            rec = {"type": "k8s_event", "t": now, "event_type": e["type"]}
            rec.update(
                {
                    k: e[k]
                    for k in ("object", "reason", "message", "count", "first_seen", "last_seen")
                }
            )
            log[key] = rec
            self._events_pending.append(rec)

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

    def _scaled(self, query: str) -> str:
        """The query on Prometheus' clock (the identity unless the episode is time-compressed)."""
        scale = getattr(self, "timescale", None)
        if scale is None or scale.identity:
            return query
        try:
            return compress_promql(query, scale)
        except ValueError as e:
            raise OperationError(str(e)) from None

    def _unscale(self, result: Any) -> Any:
        """Result timestamps back on the episode clock."""
        scale = getattr(self, "timescale", None)
        if scale is None or scale.identity or not isinstance(result, list):
            return result
        if len(result) == 2 and not isinstance(result[0], dict):
            return [scale.from_prom(float(result[0])), result[1]]
        out = []
        for s in result:
            s = dict(s)
            if "value" in s:
                s["value"] = [scale.from_prom(float(s["value"][0])), s["value"][1]]
            if "values" in s:
                s["values"] = [[scale.from_prom(float(ts)), v] for ts, v in s["values"]]
            out.append(s)
        return out

    def promql_instant(self, query: str, t: float) -> dict[str, Any]:
        """Prometheus' ``data`` object of an instant query at ``t``."""
        scale = getattr(self, "timescale", None)
        at = scale.to_prom(t) if scale is not None else float(t)
        q = self._scaled(query)
        result = self._prom(lambda: self.prom.custom_query(q, params={"time": f"{at:.3f}"}))
        return {"resultType": _result_type(result, ranged=False), "result": self._unscale(result)}

    def promql_range(self, query: str, start: float, end: float, step: float) -> dict[str, Any]:
        """Prometheus' ``data`` object of a range query (start and end at whole seconds)."""
        scale = getattr(self, "timescale", None)
        if scale is not None and not scale.identity:
            start, end, step = scale.to_prom(start), scale.to_prom(end), scale.seconds(step)
        q = self._scaled(query)
        result = self._prom(
            lambda: self.prom.custom_query_range(
                q,
                start_time=_dt.datetime.fromtimestamp(start, tz=_dt.UTC),
                end_time=_dt.datetime.fromtimestamp(end, tz=_dt.UTC),
                step=f"{float(step):g}",
            )
        )
        return {"resultType": "matrix", "result": self._unscale(result)}

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


def _strip(e: dict) -> dict:
    return {k: v for k, v in e.items() if not k.startswith("_")}
