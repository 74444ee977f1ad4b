"""The static series index: every series the twin writes, its ring and row, and its labels.

``sim/metrics.py:MetricWriter`` creates series as pods appear (names from hashes); the twin fixes
them per app in three rings of samples: service, edge, route, deployment, node and queue series in
the *long* ring (deep enough for ``offset 10m`` on a ``[2m]`` range); pod series that rules read
over a range in the *pod* ring (5 minutes deep); pod series read only at an instant in the *inst*
ring (one invocation deep). A pod's series live in a *series row* of its deployment (``SR`` per
deployment, labelled ``pod="<deployment>-row<r>-x"``: the owner reads back as the deployment),
which a new pod takes only once the last pod's samples have left every rule window. Labels are the
exporters', so the same rule pack selects the same series. Only the families and label variants
that a rule of the pack or a numeric feature reads are written.

Differs from the full simulator: a series row stands for each pod it holds in turn (never two at
once within a rule window, unless a deployment replaces more than ``SR`` pods within 5 minutes:
then the least recently used row is taken, counted in ``Telemetry.sr_overflow``); families and
variants nothing reads (``kube_pod_info``, phases, CPU seconds and limits, duration sums) are not
written.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sre_gym.sim.metrics import _LE, KSM, WAIT_REASONS
from sre_gym.twin.layout import Layout

LabelSet = tuple[tuple[str, str], ...]
LONG, POD, INST = 0, 1, 2
# ring depths in ticks: the oldest sample a rule reads, counted back from the newest tick of an
# invocation, whose four evaluations are 6, 4, 2 and 0 ticks before it (``rules._windows`` checks)
WL = 56  # long ring: 6 + a 10-minute offset (40) + a 2-minute range (8 back) + the newest
WP = 28  # pod ring: 6 + a 5-minute range (20 back) + the newest
WI = 8  # inst ring: 6 + the newest, rounded up
DEPTH = (WL, WP, WI)
DEP_FAMS = (
    "spec_replicas",
    "status_replicas",
    "status_replicas_available",
    "status_replicas_unavailable",
    "status_replicas_updated",
    "metadata_generation",
    "status_observed_generation",
)


@dataclass(frozen=True)
class Family:
    name: str
    ring: np.ndarray  # ring of each series: LONG, POD or INST
    rows: np.ndarray  # its row in that ring
    labels: tuple[LabelSet, ...]  # each series' labels with __name__, sorted pairs


@dataclass(frozen=True, eq=False)
class SeriesIndex:
    families: dict[str, Family]
    n_rows: tuple[int, int, int]  # rows per ring
    # write handles (ring rows), by what MetricWriter writes
    calls_ok: np.ndarray  # [n]
    calls_err: np.ndarray  # [n]
    bucket: np.ndarray  # [n, 12]
    hcount: np.ndarray  # [n]
    graph: np.ndarray  # [M]
    graph_fail: np.ndarray  # [M]
    slo: np.ndarray  # [n]
    integrity: np.ndarray  # [n]
    route: np.ndarray  # [R, 2]
    dep: np.ndarray  # [7, D] (DEP_FAMS order)
    node_cond: np.ndarray  # [K, 3] true, false, unknown
    node_labels: np.ndarray  # [K]
    node_taint: np.ndarray  # [K]
    lag: np.ndarray  # [Q]
    # per series row [D * SR] (pod ring)
    p_restarts: np.ndarray
    p_crashloop: np.ndarray  # waiting reason CrashLoopBackOff
    p_periods: np.ndarray
    p_throttled: np.ndarray
    p_mem: np.ndarray
    # per series row (inst ring)
    i_ready: np.ndarray  # [D * SR, 2] true, false
    i_waiting: np.ndarray  # [D * SR, 3] the other waiting reasons
    i_oom: np.ndarray  # last terminated reason OOMKilled
    i_limit_mem: np.ndarray  # memory limit, bytes
    row_srow: tuple[np.ndarray, np.ndarray, np.ndarray]  # per ring: each row's series row (-1)

    @functools.cached_property
    def pod_of_srow(self) -> np.ndarray:
        """[D * SR, 5] the pod ring's rows of each series row."""
        fams = (self.p_restarts, self.p_crashloop, self.p_periods, self.p_throttled, self.p_mem)
        return np.stack(fams, axis=1)

    @functools.cached_property
    def inst_of_srow(self) -> np.ndarray:
        """[D * SR, 7] the instant ring's rows of each series row."""
        one = (self.i_oom[:, None], self.i_limit_mem[:, None])
        return np.concatenate([self.i_ready, self.i_waiting, *one], axis=1)


def row_pod(dep: str, r: int) -> str:
    """The ``pod`` label of series row ``r`` of a deployment (its owner reads back as ``dep``;
    rows sort in their order)."""
    return f"{dep}-row{r:03d}-x"


class _Builder:
    def __init__(self) -> None:
        self.fams: dict[str, list[tuple[LabelSet, int, int]]] = {}
        self.n = [0, 0, 0]

    def add(self, name: str, ring: int, labels: dict[str, str]) -> int:
        ls = tuple(sorted({"__name__": name, **{k: v for k, v in labels.items() if v}}.items()))
        r = self.n[ring]
        self.n[ring] += 1
        self.fams.setdefault(name, []).append((ls, int(ring), r))
        return r

    def done(self) -> dict[str, Family]:
        out = {}
        for name, rows in self.fams.items():
            rows = sorted(rows)  # selections read series in label order
            out[name] = Family(
                name,
                np.array([g for _, g, _ in rows], dtype=np.int64),
                np.array([r for _, _, r in rows], dtype=np.int64),
                tuple(ls for ls, _, _ in rows),
            )
        return out


@functools.cache
def series_index(lay: Layout) -> SeriesIndex:
    """The series of ``lay``'s app (cached per layout)."""
    topo = lay.topo
    a = topo.app
    ns = a.namespace
    b = _Builder()
    oc = "otel-collector"
    span = {"job": oc, "namespace": ns, "span_kind": "SPAN_KIND_SERVER"}

    def svc_rows(name, extra):
        return np.array(
            [b.add(name, LONG, {**span, "service_name": s, **extra}) for s in topo.names]
        )

    calls = "traces_span_metrics_calls_total"
    calls_ok = svc_rows(calls, {"status_code": "STATUS_CODE_UNSET"})
    calls_err = svc_rows(calls, {"status_code": "STATUS_CODE_ERROR"})
    bname = "traces_span_metrics_duration_milliseconds_bucket"
    bucket = np.array(
        [
            [b.add(bname, LONG, {**span, "service_name": s, "le": le}) for le in _LE]
            for s in topo.names
        ]
    )
    hcount = svc_rows("traces_span_metrics_duration_milliseconds_count", {})
    pairs = [(topo.names[i], topo.names[j]) for i, j in zip(lay.ga, lay.gb, strict=True)]
    g = {"job": oc, "namespace": ns}
    graph = np.array(
        [
            b.add("traces_service_graph_request_total", LONG, {**g, "client": c, "server": s})
            for c, s in pairs
        ]
    )
    graph_fail = np.array(
        [
            b.add(
                "traces_service_graph_request_failed_total", LONG, {**g, "client": c, "server": s}
            )
            for c, s in pairs
        ]
    )
    slo = np.array(
        [
            b.add(
                "slo_latency_p95_milliseconds",
                LONG,
                {"job": "slo-exporter", "namespace": ns, "service_name": s},
            )
            for s in topo.names
        ]
    )
    integrity = np.array(
        [
            b.add(
                "app_data_integrity_failures_total",
                LONG,
                {"job": "integrity-checker", "namespace": ns, "service_name": s},
            )
            for s in topo.names
        ]
    )
    entry = a.entrypoint
    routes = [(p.split(" ", 1) + [""])[:2] for p in topo.route_paths]
    route = np.array(
        [
            [
                b.add(
                    "http_server_request_duration_seconds_count",
                    LONG,
                    {
                        "job": oc,
                        "namespace": ns,
                        "service_name": entry,
                        "http_request_method": m,
                        "http_route": r,
                        "http_response_status_code": code,
                    },
                )
                for code in ("200", "500")
            ]
            for m, r in routes
        ],
        dtype=np.int64,
    ).reshape(len(routes), 2)
    dep = np.array(
        [
            [
                b.add(f"kube_deployment_{k}", LONG, {"job": KSM, "namespace": ns, "deployment": d})
                for d in lay.dep_names
            ]
            for k in DEP_FAMS
        ]
    )
    node_cond = np.array(
        [
            [
                b.add(
                    "kube_node_status_condition",
                    LONG,
                    {"job": KSM, "node": nd, "condition": "Ready", "status": st},
                )
                for st in ("true", "false", "unknown")
            ]
            for nd in lay.nodes
        ]
    )
    zone_of = {nd.name: nd.zone for nd in a.nodes}
    node_labels = np.array(
        [
            b.add(
                "kube_node_labels",
                LONG,
                {"job": KSM, "node": nd, "label_topology_kubernetes_io_zone": zone_of[nd]},
            )
            for nd in lay.nodes
        ]
    )
    node_taint = np.array(
        [
            b.add(
                "kube_node_spec_taint",
                LONG,
                {
                    "job": KSM,
                    "node": nd,
                    "key": "node.kubernetes.io/unreachable",
                    "effect": "NoSchedule",
                },
            )
            for nd in lay.nodes
        ]
    )
    lag = np.array(
        [
            b.add(
                "kafka_consumergroup_lag",
                LONG,
                {"job": "kafka-exporter", "namespace": ns, "consumergroup": grp, "topic": topic},
            )
            for topic, grp in lay.queue_names
        ],
        dtype=np.int64,
    )
    # pod series, series row by series row
    cols: dict[str, list] = {k: [] for k in ("re", "cl", "pe", "th", "me", "rd", "wa", "oo", "li")}
    other = [w for w in WAIT_REASONS if w != "CrashLoopBackOff"]
    for d in range(lay.D):
        for r in range(lay.SR):
            pod = row_pod(lay.dep_names[d], r)
            cont = lay.dep_container[d]
            base = {"job": KSM, "namespace": ns, "pod": pod}
            cb = {**base, "container": cont}
            kub = {"job": "kubelet", "namespace": ns, "pod": pod, "container": cont}
            wr = "kube_pod_container_status_waiting_reason"
            cols["re"].append(b.add("kube_pod_container_status_restarts_total", POD, cb))
            cols["cl"].append(b.add(wr, POD, {**cb, "reason": "CrashLoopBackOff"}))
            cols["pe"].append(b.add("container_cpu_cfs_periods_total", POD, kub))
            cols["th"].append(b.add("container_cpu_cfs_throttled_periods_total", POD, kub))
            cols["me"].append(b.add("container_memory_working_set_bytes", POD, kub))
            cols["rd"].append(
                [
                    b.add("kube_pod_status_ready", INST, {**base, "condition": x})
                    for x in ("true", "false")
                ]
            )
            cols["wa"].append([b.add(wr, INST, {**cb, "reason": w}) for w in other])
            cols["oo"].append(
                b.add(
                    "kube_pod_container_status_last_terminated_reason",
                    INST,
                    {**cb, "reason": "OOMKilled"},
                )
            )
            cols["li"].append(
                b.add(
                    "kube_pod_container_resource_limits",
                    INST,
                    {**cb, "resource": "memory", "unit": "byte"},
                )
            )
    arr = {k: np.array(v, dtype=np.int64) for k, v in cols.items()}
    row_srow = tuple(np.full(n, -1, dtype=np.int64) for n in b.n)
    srow = np.arange(lay.D * lay.SR)
    for k in ("re", "cl", "pe", "th", "me"):
        row_srow[POD][arr[k]] = srow
    for k in ("rd", "wa"):
        for j in range(arr[k].shape[1]):
            row_srow[INST][arr[k][:, j]] = srow
    for k in ("oo", "li"):
        row_srow[INST][arr[k]] = srow
    return SeriesIndex(
        families=b.done(),
        n_rows=(b.n[0], b.n[1], b.n[2]),
        calls_ok=calls_ok,
        calls_err=calls_err,
        bucket=bucket,
        hcount=hcount,
        graph=graph,
        graph_fail=graph_fail,
        slo=slo,
        integrity=integrity,
        route=route,
        dep=dep,
        node_cond=node_cond,
        node_labels=node_labels,
        node_taint=node_taint,
        lag=lag,
        p_restarts=arr["re"],
        p_crashloop=arr["cl"],
        p_periods=arr["pe"],
        p_throttled=arr["th"],
        p_mem=arr["me"],
        i_ready=arr["rd"],
        i_waiting=arr["wa"],
        i_oom=arr["oo"],
        i_limit_mem=arr["li"],
        row_srow=row_srow,
    )
