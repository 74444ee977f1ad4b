"""Prometheus-style series written each tick: spanmetrics, service graph, kube-state-metrics, cAdvisor.

Names and labels follow the real exporters (OpenTelemetry collector spanmetrics and servicegraph
connectors, kube-state-metrics v2, cAdvisor), so rules and queries written here read the same on a live
cluster. Counts get Poisson-like noise from pre-drawn, tick-indexed normals and are rounded
stochastically with pre-drawn uniforms, so counters are integers and unbiased.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sre_gym import fmath
from sre_gym.sim import pods as P
from sre_gym.sim.dynamics import TickOut, mean_factor, ndtr
from sre_gym.telemetry.tsdb import TSDB, Family

if TYPE_CHECKING:
    from sre_gym.sim.cluster import SimCluster

BUCKETS_MS = (5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 5000.0, 10000.0)
_LE = tuple(f"{b:g}" for b in BUCKETS_MS) + ("+Inf",)
LOG_LE = fmath.log(np.array(BUCKETS_MS))  # (the same bits as taking it each tick)
KSM = "kube-state-metrics"
PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
WAIT_REASONS = ("ContainerCreating", "CrashLoopBackOff", "ErrImagePull", "ImagePullBackOff")


def _columns(*cols: np.ndarray) -> np.ndarray:
    """``np.stack(cols, axis=1)`` for 1-D float columns, without its general-purpose overhead
    (it runs several times a tick)."""
    out = np.empty((len(cols[0]), len(cols)))
    for j, c in enumerate(cols):
        out[:, j] = c
    return out


class PodFamily:
    """A family whose series are per pod row (times a few fixed label variants)."""

    def __init__(self, fam: Family, variants: int) -> None:
        self.fam = fam
        self.rows = np.full((64, variants), -1, dtype=np.intp)

    def reserve(self, n_pod_rows: int) -> None:
        """Make room for pod rows below ``n_pod_rows``."""
        if n_pod_rows > self.rows.shape[0]:
            grown = np.full((2 * n_pod_rows, self.rows.shape[1]), -1, dtype=np.intp)
            grown[: self.rows.shape[0]] = self.rows
            self.rows = grown

    def rows_for(self, pod_rows: np.ndarray, variant: int, labels) -> np.ndarray:
        """Family rows of ``pod_rows`` for ``variant``; ``labels(pod_row)`` names new series."""
        out = self.rows[pod_rows, variant]
        new = out < 0
        if not new.any():  # (most ticks: every pod already has its series)
            return out
        for i in new.nonzero()[0].tolist():
            out[i] = self.rows[pod_rows[i], variant] = self.fam.row(labels(int(pod_rows[i])))
        return out

    def put(
        self, tsdb: TSDB, tick: int, pod_rows: np.ndarray, variant: int, labels, values
    ) -> None:
        if len(pod_rows):
            tsdb.write(self.fam, tick, self.rows_for(pod_rows, variant, labels), values)

    def put_all(self, tsdb: TSDB, tick: int, pod_rows: np.ndarray, labels, values) -> None:
        """Write every variant of ``pod_rows`` at once: ``labels[j]`` names new series of
        variant ``j`` (created variant by variant, as ``put`` would), ``values`` is
        ``[len(pod_rows), variants]``."""
        rows = self.rows[pod_rows]
        if (rows < 0).any():
            for j, lab in enumerate(labels):
                rows[:, j] = self.rows_for(pod_rows, j, lab)
        tsdb.write(self.fam, tick, rows.ravel(), values.ravel())


class MetricWriter:
    def __init__(self, cl: SimCluster, tsdb: TSDB) -> None:
        self.cl = cl
        self.tsdb = tsdb
        topo = cl.topo
        ns = topo.app.namespace
        n = topo.n
        self.ns = ns
        span = ("job", "namespace", "service_name", "span_kind", "status_code")
        # counters of whole events (floored counts) are stored as float32, exact up to 2**24
        # (the store widens a family that passes that); the sums of durations stay float64
        c32 = np.float32
        self.calls = tsdb.family("traces_span_metrics_calls_total", span, c32)
        self.calls_ok = self.calls.rows_for(
            ("otel-collector", ns, s, "SPAN_KIND_SERVER", "STATUS_CODE_UNSET") for s in topo.names
        )
        self.calls_err = self.calls.rows_for(
            ("otel-collector", ns, s, "SPAN_KIND_SERVER", "STATUS_CODE_ERROR") for s in topo.names
        )
        hl = ("job", "namespace", "service_name", "span_kind", "le")
        self.bucket = tsdb.family("traces_span_metrics_duration_milliseconds_bucket", hl, c32)
        self.bucket_rows = np.array(
            [
                [self.bucket.row(("otel-collector", ns, s, "SPAN_KIND_SERVER", le)) for le in _LE]
                for s in topo.names
            ]
        )
        hs = ("job", "namespace", "service_name", "span_kind")
        self.hsum = tsdb.family("traces_span_metrics_duration_milliseconds_sum", hs)
        self.hcount = tsdb.family("traces_span_metrics_duration_milliseconds_count", hs, c32)
        self.hsum_rows = self.hsum.rows_for(
            ("otel-collector", ns, s, "SPAN_KIND_SERVER") for s in topo.names
        )
        self.hcount_rows = self.hcount.rows_for(
            ("otel-collector", ns, s, "SPAN_KIND_SERVER") for s in topo.names
        )
        ga, gb = np.nonzero(topo.calls)
        self.edges = (ga, gb)
        g = ("job", "namespace", "client", "server")
        self.graph = tsdb.family("traces_service_graph_request_total", g, c32)
        self.graph_fail = tsdb.family("traces_service_graph_request_failed_total", g, c32)
        pairs = [
            ("otel-collector", ns, topo.names[a], topo.names[b])
            for a, b in zip(ga, gb, strict=True)
        ]
        self.graph_rows = self.graph.rows_for(pairs)
        self.graph_fail_rows = self.graph_fail.rows_for(pairs)
        slo = ("job", "namespace", "service_name")
        self.slo = tsdb.family("slo_latency_p95_milliseconds", slo)
        self.slo_rows = self.slo.rows_for(("slo-exporter", ns, s) for s in topo.names)
        self.slo_vals = np.array([topo.app.service(s).slo_p95_ms for s in topo.names])
        self.integrity = tsdb.family("app_data_integrity_failures_total", slo, c32)
        self.integrity_rows = self.integrity.rows_for(
            ("integrity-checker", ns, s) for s in topo.names
        )
        self.c_integrity = np.zeros(n)
        # cumulative counter state
        self.c_ok = np.zeros(n)
        self.c_err = np.zeros(n)
        self.c_bucket = np.zeros((n, len(_LE)))
        self.c_sum = np.zeros(n)
        self.c_edge = np.zeros(len(ga))
        self.c_edge_fail = np.zeros(len(ga))
        # kube-state-metrics: deployments
        dl = ("job", "namespace", "deployment")
        # replica counts (at most MAX_REPLICAS and a surge) and generations (one per change):
        # small integers, exact in float16 (see the pod families below)
        self.dep_fams = {
            k: tsdb.family(f"kube_deployment_{k}", dl, np.float16)
            for k in (
                "spec_replicas",
                "status_replicas",
                "status_replicas_available",
                "status_replicas_unavailable",
                "status_replicas_updated",
                "metadata_generation",
                "status_observed_generation",
            )
        }
        self.dep_rows = {
            k: f.rows_for((KSM, ns, d.name) for d in cl.world.deployments)
            for k, f in self.dep_fams.items()
        }
        nl = ("job", "node", "condition", "status")
        self.node_cond = tsdb.family("kube_node_status_condition", nl)
        self.node_rows = np.array(
            [
                [
                    self.node_cond.row((KSM, nd.name, "Ready", s))
                    for s in ("true", "false", "unknown")
                ]
                for nd in cl.world.nodes
            ]
        )
        cl_ = ("job", "namespace", "pod", "container")
        # the 0/1 series of kube-state-metrics, one per pod and variant, and the restart counts:
        # stored as float16 (exact for NaN and integers up to 2,048; a container restarts at most
        # every 10 s, so under 600 times in a marathon), about half of an episode's samples in a
        # quarter of the space
        b16 = np.float16
        self.pod_info = PodFamily(
            tsdb.family(
                "kube_pod_info",
                ("job", "namespace", "pod", "node", "created_by_kind", "created_by_name"),
                b16,
            ),
            1,
        )
        self.pod_ready = PodFamily(
            tsdb.family("kube_pod_status_ready", ("job", "namespace", "pod", "condition"), b16), 2
        )
        self.pod_phase = PodFamily(
            tsdb.family("kube_pod_status_phase", ("job", "namespace", "pod", "phase"), b16),
            len(PHASES),
        )
        self.restarts = PodFamily(
            tsdb.family("kube_pod_container_status_restarts_total", cl_, b16), 1
        )
        self.running = PodFamily(tsdb.family("kube_pod_container_status_running", cl_, b16), 1)
        self.c_ready = PodFamily(tsdb.family("kube_pod_container_status_ready", cl_, b16), 1)
        self.waiting = PodFamily(
            tsdb.family("kube_pod_container_status_waiting_reason", (*cl_, "reason"), b16),
            len(WAIT_REASONS),
        )
        self.last_term = PodFamily(
            tsdb.family("kube_pod_container_status_last_terminated_reason", (*cl_, "reason"), b16),
            3,
        )
        lim = ("job", "namespace", "pod", "container", "resource", "unit")
        self.limits = PodFamily(tsdb.family("kube_pod_container_resource_limits", lim), 2)
        cad = ("job", "namespace", "pod", "container")
        self.cpu = PodFamily(tsdb.family("container_cpu_usage_seconds_total", cad), 1)
        self.mem = PodFamily(tsdb.family("container_memory_working_set_bytes", cad), 1)
        self.periods = PodFamily(tsdb.family("container_cpu_cfs_periods_total", cad, c32), 1)
        self.throttled = PodFamily(
            tsdb.family("container_cpu_cfs_throttled_periods_total", cad, c32), 1
        )
        self.pod_families = [v for v in vars(self).values() if isinstance(v, PodFamily)]
        # node labels (kube-state-metrics --metric-labels-allowlist=nodes=[topology.kubernetes.io/zone])
        # and the taint the node lifecycle controller puts on a node that stopped reporting
        self.node_labels = tsdb.family(
            "kube_node_labels", ("job", "node", "label_topology_kubernetes_io_zone")
        )
        self.node_label_rows = self.node_labels.rows_for(
            (KSM, nd.name, nd.zone) for nd in cl.world.nodes
        )
        self.node_taint = tsdb.family("kube_node_spec_taint", ("job", "node", "key", "effect"))
        self.node_taint_rows = self.node_taint.rows_for(
            (KSM, nd.name, "node.kubernetes.io/unreachable", "NoSchedule") for nd in cl.world.nodes
        )
        # kafka-exporter: consumer group lag per topic (Astronomy Shop's orders topic)
        self.lag = tsdb.family(
            "kafka_consumergroup_lag", ("job", "namespace", "consumergroup", "topic")
        )
        self.lag_rows = self.lag.rows_for(
            ("kafka-exporter", ns, group, topic) for topic, group in cl.queues.names
        )
        # HTTP server metrics of the entry point per route (OpenTelemetry semantic conventions as
        # the collector exports them): requests by route and status code; counts are the expected
        # values, accumulated and floored (deterministic, no draws)
        rl = ("job", "namespace", "service_name", "http_request_method", "http_route")
        self.route_req = tsdb.family(
            "http_server_request_duration_seconds_count", (*rl, "http_response_status_code"), c32
        )
        entry = topo.app.entrypoint
        routes = [(p.split(" ", 1) + [""])[:2] for p in topo.route_paths]
        self.route_rows = np.array(
            [
                [self.route_req.row(("otel-collector", ns, entry, m, r, c)) for c in ("200", "500")]
                for m, r in routes
            ],
            dtype=np.intp,
        ).reshape(len(routes), 2)
        self.c_route = np.zeros((len(routes), 2))

    # ------------------------------------------------------------------------------------------
    def write(self, tick: int, out: TickOut, noise: np.ndarray, unif: np.ndarray) -> None:
        """Write every family for ``tick``. ``noise``/``unif`` are this tick's pre-drawn draws."""
        cl, tsdb = self.cl, self.tsdb
        topo = cl.topo
        dt = float(tsdb.tick_s)
        n = topo.n
        # spanmetrics
        mean = out.served * dt
        cnt = np.maximum(mean + np.sqrt(mean) * noise[:n], 0.0)
        cnt = np.floor(cnt + unif[:n])
        # client errors (validation failures, unknown ids) show in the server spans as errors but
        # fail no caller: they are not in the dynamics
        err = 1.0 - (1.0 - out.err) * (1.0 - cl.background_error)
        e_mean = cnt * err
        errs = np.floor(
            np.clip(e_mean + np.sqrt(e_mean * (1 - err)) * noise[n : 2 * n], 0, None)
            + unif[n : 2 * n]
        )
        errs = np.minimum(errs, cnt)
        self.c_ok += cnt - errs
        self.c_err += errs
        tsdb.write(self.calls, tick, self.calls_ok, self.c_ok)
        tsdb.write(self.calls, tick, self.calls_err, self.c_err)
        cdf = self._latency_cdf(out)  # [n, buckets]
        self.c_bucket += np.floor(cnt[:, None] * cdf + unif[2 * n : 3 * n, None])
        self.c_bucket = np.maximum.accumulate(self.c_bucket, axis=1)
        self.c_bucket[:, -1] = np.maximum(self.c_bucket[:, -1], self.c_ok + self.c_err)
        mean_ms = out.lat * mean_factor(topo.sigma)
        self.c_sum += cnt * mean_ms
        tsdb.write(self.bucket, tick, self.bucket_rows.ravel(), self.c_bucket.ravel())
        tsdb.write(self.hsum, tick, self.hsum_rows, self.c_sum)
        tsdb.write(self.hcount, tick, self.hcount_rows, self.c_bucket[:, -1])
        ga, gb = self.edges
        att = out.edge_att[ga, gb] * dt
        m = len(ga)
        u = unif[3 * n : 3 * n + m] if len(unif) >= 3 * n + m else np.full(m, 0.5)
        e_att = np.floor(att + u)
        self.c_edge += e_att
        self.c_edge_fail += np.floor(e_att * out.edge_fail[ga, gb] + u)
        self.c_edge_fail = np.minimum(self.c_edge_fail, self.c_edge)
        tsdb.write(self.graph, tick, self.graph_rows, self.c_edge)
        tsdb.write(self.slo, tick, self.slo_rows, self.slo_vals)
        # a reconciliation job samples responses and counts those with wrong data
        self.c_integrity += np.floor(cnt * out.corrupt + unif[:n])
        tsdb.write(self.integrity, tick, self.integrity_rows, self.c_integrity)
        tsdb.write(self.graph_fail, tick, self.graph_fail_rows, self.c_edge_fail)
        self._routes(tick, out)
        self._k8s(tick, out)

    def _routes(self, tick: int, out: TickOut) -> None:
        """Per-route requests at the entry point (a gateway in front of the router adds its own
        failures to every route)."""
        if not len(self.route_rows):
            return
        topo = self.cl.topo
        g, e = topo.ingress, topo.entry
        fail = np.clip(out.route_err, 0.0, 1.0)
        if out.served[g] <= 0 or out.served[e] <= 0:
            fail = np.ones_like(fail)
        elif g != e:
            g_err = 1.0 - (1.0 - out.err[g]) / max(1.0 - out.err[e], 1e-12)
            fail = 1.0 - (1.0 - fail) * (1.0 - min(max(g_err, 0.0), 1.0))
        n = out.route_rps * float(self.tsdb.tick_s)
        self.c_route[:, 0] += n * (1.0 - fail)
        self.c_route[:, 1] += n * fail
        self.tsdb.write(
            self.route_req, tick, self.route_rows.ravel(), np.floor(self.c_route).ravel()
        )

    def _latency_cdf(self, out: TickOut) -> np.ndarray:
        topo = self.cl.topo
        sig = topo.sigma[:, None]
        with np.errstate(divide="ignore"):
            z = (LOG_LE[None, :] - fmath.log(np.maximum(out.lat, 1e-6))[:, None]) / sig
        cdf = ndtr(z)
        e = topo.entry
        if out.route_lat.size:
            zr = (
                LOG_LE[None, :] - fmath.log(np.maximum(out.route_lat, 1e-6))[:, None]
            ) / topo.sigma[e]
            w = out.route_rps / max(out.route_rps.sum(), 1e-9)
            cdf[e] = (w[:, None] * ndtr(zr)).sum(axis=0)
        return np.concatenate([cdf, np.ones((len(cdf), 1))], axis=1)

    def _k8s(self, tick: int, out: TickOut) -> None:
        cl, tsdb = self.cl, self.tsdb
        p = cl.pods
        ns = self.ns
        st = cl.deployment_status()
        for k, f in self.dep_fams.items():
            tsdb.write(f, tick, self.dep_rows[k], st[k])
        ready_nodes = np.array([nd.ready for nd in cl.world.nodes])
        tsdb.write(self.node_cond, tick, self.node_rows[:, 0], ready_nodes.astype(float))
        tsdb.write(self.node_cond, tick, self.node_rows[:, 1], np.zeros(len(ready_nodes)))
        tsdb.write(self.node_cond, tick, self.node_rows[:, 2], (~ready_nodes).astype(float))
        tsdb.write(self.node_labels, tick, self.node_label_rows, np.ones(len(ready_nodes)))
        down = [
            i
            for i, nd in enumerate(cl.world.nodes)
            if not nd.ready
            and nd.down_since is not None
            and cl.time_of_tick(tick) - nd.down_since >= P.NODE_GRACE_S
        ]
        if down:
            tsdb.write(self.node_taint, tick, self.node_taint_rows[down], np.ones(len(down)))
        if len(self.lag_rows):
            tsdb.write(self.lag, tick, self.lag_rows, np.floor(cl.queues.lag))

        rows = np.nonzero(p.alive[: p.n])[0]
        if not len(rows):
            return
        names = p.names
        deps = cl.world.deployments
        node_names = [nd.name for nd in cl.world.nodes]

        def pod(extra: tuple[str, ...] = ()):
            return lambda r: (KSM, ns, names[r], *extra)

        def cont(extra: tuple[str, ...] = (), job: str = KSM):
            return lambda r: (job, ns, names[r], deps[p.dep[r]].container, *extra)

        def info(r: int) -> tuple[str, ...]:
            node = node_names[p.node[r]] if p.node[r] >= 0 else "<none>"
            return (KSM, ns, names[r], node, "ReplicaSet", names[r].rsplit("-", 1)[0])

        for pf in self.pod_families:
            pf.reserve(p.n)
        state = p.state[rows]
        ready = p.ready[rows].astype(float)
        one = np.ones(len(rows))
        self.pod_info.put(tsdb, tick, rows, 0, info, one)
        self.pod_ready.put_all(
            tsdb,
            tick,
            rows,
            (pod(("true",)), pod(("false",))),
            _columns(ready, 1.0 - ready),
        )
        node_ok = np.append(ready_nodes, False)[p.node[rows]]
        pending = (state == P.PENDING) | (state == P.IMAGE_WAIT)
        phase = np.where(~node_ok & (state != P.PENDING), 4, np.where(pending, 0, 1))
        self.pod_phase.put_all(
            tsdb,
            tick,
            rows,
            [pod((ph,)) for ph in PHASES],
            (phase[:, None] == np.arange(len(PHASES))).astype(float),
        )
        self.restarts.put(tsdb, tick, rows, 0, cont(), p.restarts[rows].astype(float))
        running = state == P.RUNNING
        self.running.put(tsdb, tick, rows, 0, cont(), running.astype(float))
        self.c_ready.put(tsdb, tick, rows, 0, cont(), ready)
        reason = np.full(len(rows), -1)
        reason[state == P.PENDING] = 0
        reason[state == P.BACKOFF] = 1
        iw = state == P.IMAGE_WAIT
        reason[iw] = np.where(p.pulls[rows][iw] % 4 == 1, 2, 3)
        for j, why in enumerate(WAIT_REASONS):
            sub = rows[reason == j]
            self.waiting.put(tsdb, tick, sub, j, cont((why,)), np.ones(len(sub)))
        lt = p.last_term[rows]
        for j in (P.TERM_ERROR, P.TERM_OOM):
            sub = rows[lt == j]
            self.last_term.put(tsdb, tick, sub, j, cont((P.TERM_NAMES[j],)), np.ones(len(sub)))
        beh = p.beh[rows]
        self.limits.put_all(
            tsdb,
            tick,
            rows,
            (cont(("cpu", "core")), cont(("memory", "byte"))),
            _columns(cl.beh_cpu_limit[beh], cl.beh_mem_limit[beh] * 2**20),
        )
        run = rows[running]
        if len(run):
            dt = float(tsdb.tick_s)
            p.cpu_total[run] += out.pod_usage[run] * dt
            p.periods[run] += 10.0 * dt
            p.throttled[run] += np.floor(10.0 * dt * out.pod_throttle[run])
            cad = cont(job="kubelet")
            self.cpu.put(tsdb, tick, run, 0, cad, p.cpu_total[run])
            self.mem.put(tsdb, tick, run, 0, cad, np.floor(p.mem[run] * 2**20))
            self.periods.put(tsdb, tick, run, 0, cad, p.periods[run])
            self.throttled.put(tsdb, tick, run, 0, cad, p.throttled[run])
