"""A loopback exporter whose series the fake cluster's state drives, for a real Prometheus to scrape.

``FakeExporter`` serves ``/metrics/<job>`` on 127.0.0.1 in Prometheus' text format for the jobs the
rule pack reads: ``otel-collector`` (span metrics, service graph, the entry point's HTTP server
metrics), ``kube-state-metrics`` (deployments, pods, containers, nodes), ``kubelet`` (CPU throttling,
memory working set), ``slo-exporter`` (latency objectives) and ``integrity-checker``. Each scrape
first brings the fake cluster up to its clock (``FakeWorld.sync``), then reads its traffic
(``FakeWorld.rates``).

Counters advance by (the episode's rate per second) x (Prometheus seconds since the last scrape),
read on the ``wall`` clock that Prometheus keeps: with a time-compressed episode
(``sre_gym.backends.live_time``) a ``rate()`` over the compressed window then reads the episode's
rates unchanged. Prometheus adds ``job`` and ``instance``; the rules match on ``job``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sre_gym.testing.fake_http import Response, _Server
from sre_gym.testing.fake_world import _ready

if TYPE_CHECKING:
    from sre_gym.testing.fake_kube_routes import KubeRoutes

JOBS = ("otel-collector", "kube-state-metrics", "kubelet", "slo-exporter", "integrity-checker")
LE_MS = (5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000)
SERVER = "SPAN_KIND_SERVER"


def _labels(d: dict[str, Any]) -> str:
    inner = ",".join(
        f'{k}="{str(v).replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
        for k, v in d.items()
    )
    return "{" + inner + "}"


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


class FakeExporter(_Server):
    """The series of a fake cluster (``kube``, a ``FakeKubernetes`` with a world), served on
    127.0.0.1. ``wall`` is the clock Prometheus keeps (default: the wall clock)."""

    def __init__(self, kube: KubeRoutes, wall: Callable[[], float] = time.time) -> None:
        super().__init__()
        if kube.world is None:
            raise ValueError("the exporter needs a FakeKubernetes made with world=True")
        self.kube, self.world, self.wall = kube, kube.world, wall
        self.counters: dict[tuple[str, str], float] = {}
        self.last: float | None = None
        self.scrapes = 0

    def _advance(self, rates: dict[tuple[str, str], float]) -> None:
        now = self.wall()
        dt = 0.0 if self.last is None else max(0.0, now - self.last)
        self.last = now
        for key, r in rates.items():
            self.counters[key] = self.counters.get(key, 0.0) + r * dt

    def handle(
        self, method: str, path: str, params: dict[str, str], ctype: str, body: bytes
    ) -> Response:
        job = path.removeprefix("/metrics/")
        if method != "GET" or job not in JOBS:
            return 404, "text/plain; charset=utf-8", b"404 page not found\n"
        with self.kube.lock:
            self.world.sync()
            self.scrapes += 1
            text = self._render(job)
        return 200, "text/plain; version=0.0.4; charset=utf-8", text.encode()

    # ------------------------------------------------------------------ series
    def _render(self, job: str) -> str:
        w, st = self.world, self.kube
        ns = st.namespace
        r = w.rates()
        counting: dict[tuple[str, str], float] = {}
        gauges: list[tuple[str, str, float]] = []
        for s in w.topo.names:
            req, err = r.req[s], r.err[s]
            base = {"namespace": ns, "service_name": s, "span_kind": SERVER}
            counting[
                (
                    "traces_span_metrics_calls_total",
                    _labels({**base, "status_code": "STATUS_CODE_UNSET"}),
                )
            ] = req * (1 - err)
            counting[
                (
                    "traces_span_metrics_calls_total",
                    _labels({**base, "status_code": "STATUS_CODE_ERROR"}),
                )
            ] = req * err
            med = max(r.p95[s], 0.1) / math.exp(1.645 * 0.45)
            for le in (*LE_MS, "+Inf"):
                share = 1.0 if le == "+Inf" else _phi((math.log(le) - math.log(med)) / 0.45)
                counting[
                    (
                        "traces_span_metrics_duration_milliseconds_bucket",
                        _labels({**base, "le": le}),
                    )
                ] = req * share
            counting[("traces_span_metrics_duration_milliseconds_count", _labels(base))] = req
            counting[
                ("app_data_integrity_failures_total", _labels({"namespace": ns, "service_name": s}))
            ] = req * r.corrupt[s]
            healthy = w.topo.base_ms[w.topo.index[s]] * math.exp(
                1.645 * w.topo.sigma[w.topo.index[s]]
            )
            gauges.append(
                (
                    "slo_latency_p95_milliseconds",
                    _labels({"namespace": ns, "service_name": s}),
                    round(2.0 * healthy, 3),
                )
            )
        for (c, sv), (att, fail) in r.edges.items():
            lab = _labels({"namespace": ns, "client": c, "server": sv})
            counting[("traces_service_graph_request_total", lab)] = att
            counting[("traces_service_graph_request_failed_total", lab)] = att * fail
        route = {
            "namespace": ns,
            "service_name": r.entry,
            "http_request_method": "GET",
            "http_route": "/",
        }
        e = r.err[r.entry]
        for code, share in (("200", 1 - e), ("500", e)):
            counting[
                (
                    "http_server_request_duration_seconds_count",
                    _labels({**route, "http_response_status_code": code}),
                )
            ] = r.req[r.entry] * share
        for pod, thr in r.throttled.items():
            lab = _labels({"namespace": ns, "pod": pod, "container": "server"})
            counting[("container_cpu_cfs_throttled_periods_total", lab)] = thr
            counting[("container_cpu_cfs_periods_total", lab)] = 10.0
        self._advance(counting)
        want = {
            "otel-collector": ("traces_", "http_server"),
            "integrity-checker": ("app_data",),
            "kubelet": ("container_",),
        }.get(job, ())
        lines = (
            [
                f"{n}{lab} {v:.6f}"
                for (n, lab), v in sorted(self.counters.items())
                if n.startswith(want)
            ]
            if want
            else []
        )
        if job == "slo-exporter":
            lines = [f"{n}{lab} {v}" for n, lab, v in gauges]
        elif job == "kube-state-metrics":
            lines = self._state(ns)
        elif job == "kubelet":
            lines += self._kubelet(ns)
        return "\n".join(lines) + "\n"

    def _state(self, ns: str) -> list[str]:
        st, out = self.kube, []
        for (o_ns, name), d in sorted(st.objects["deployments"].items()):
            if o_ns != ns:
                continue
            lab = _labels({"namespace": ns, "deployment": name})
            spec, status = d["spec"], d.get("status") or {}
            out.append(f"kube_deployment_spec_replicas{lab} {int(spec.get('replicas', 1))}")
            for k, key in (
                ("replicas", "replicas"),
                ("replicas_available", "availableReplicas"),
                ("replicas_updated", "updatedReplicas"),
                ("replicas_ready", "readyReplicas"),
            ):
                out.append(f"kube_deployment_status_{k}{lab} {int(status.get(key) or 0)}")
        for (o_ns, name), p in sorted(st.objects["pods"].items()):
            if o_ns != ns:
                continue
            c = p["spec"]["containers"][0]["name"]
            base = {"namespace": ns, "pod": name}
            ready = _ready(p)
            for cond in ("true", "false"):
                out.append(
                    f"kube_pod_status_ready{_labels({**base, 'condition': cond})} {int(ready == (cond == 'true'))}"
                )
            owner = (p["metadata"].get("ownerReferences") or [{}])[0]
            out.append(
                f"kube_pod_info{_labels({**base, 'node': p['spec'].get('nodeName') or '', 'created_by_kind': owner.get('kind', ''), 'created_by_name': owner.get('name', '')})} 1"
            )
            cs = ((p.get("status") or {}).get("containerStatuses") or [{}])[0]
            cl = {**base, "container": c}
            out.append(
                f"kube_pod_container_status_restarts_total{_labels(cl)} {int(cs.get('restartCount') or 0)}"
            )
            waiting = (cs.get("state") or {}).get("waiting")
            if waiting:
                out.append(
                    f"kube_pod_container_status_waiting_reason{_labels({**cl, 'reason': waiting.get('reason', '')})} 1"
                )
            term = (cs.get("lastState") or {}).get("terminated")
            if term:
                out.append(
                    f"kube_pod_container_status_last_terminated_reason{_labels({**cl, 'reason': term.get('reason', '')})} 1"
                )
            cpu, mem = self.world.limits_of(p)
            out.append(
                f"kube_pod_container_resource_limits{_labels({**cl, 'resource': 'cpu', 'unit': 'core'})} {cpu}"
            )
            out.append(
                f"kube_pod_container_resource_limits{_labels({**cl, 'resource': 'memory', 'unit': 'byte'})} {mem:.0f}"
            )
        for (_, name), n in sorted(st.objects["nodes"].items()):
            conds = {
                c.get("type"): c.get("status")
                for c in (n.get("status") or {}).get("conditions") or []
            }
            ready = conds.get("Ready") == "True"
            for status in ("true", "false", "unknown"):
                v = int((status == "true") == ready) if status != "unknown" else 0
                out.append(
                    f"kube_node_status_condition{_labels({'node': name, 'condition': 'Ready', 'status': status})} {v}"
                )
            zone = ((n.get("metadata") or {}).get("labels") or {}).get(
                "topology.kubernetes.io/zone", ""
            )
            out.append(
                f"kube_node_labels{_labels({'node': name, 'label_topology_kubernetes_io_zone': zone})} 1"
            )
            for t in (n.get("spec") or {}).get("taints") or []:
                out.append(
                    f"kube_node_spec_taint{_labels({'node': name, 'key': t.get('key', ''), 'value': t.get('value', ''), 'effect': t.get('effect', '')})} 1"
                )
            if (n.get("spec") or {}).get("unschedulable"):
                out.append(f"kube_node_spec_unschedulable{_labels({'node': name})} 1")
        return out

    def _kubelet(self, ns: str) -> list[str]:
        out = []
        for (o_ns, name), p in sorted(self.kube.objects["pods"].items()):
            if o_ns != ns or not _ready(p):
                continue
            svc = self.world.app.service((p["metadata"].get("labels") or {}).get("app"))
            # the catalog's steady working set; half the limit for side workloads it gives none of
            _, limit = self.world.limits_of(p)
            mib = svc.perf.mem_base_mi if svc.perf is not None else limit / 2**21
            lab = _labels(
                {"namespace": ns, "pod": name, "container": p["spec"]["containers"][0]["name"]}
            )
            out.append(f"container_memory_working_set_bytes{lab} {mib * 1024 * 1024:.0f}")
        return out
