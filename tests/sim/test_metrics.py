"""Prometheus-style series written per tick (sre_gym/sim/metrics.py)."""

from __future__ import annotations

import numpy as np
import pytest

from sre_gym.catalogs.schema import Change
from sre_gym.sim import pods as P
from sre_gym.sim.metrics import BUCKETS_MS, KSM, WAIT_REASONS

NS = "online-boutique"
CADVISOR_COUNTERS = {
    "container_cpu_usage_seconds_total",
    "container_cpu_cfs_periods_total",
    "container_cpu_cfs_throttled_periods_total",
}


@pytest.fixture(scope="module")
def scen(warm, changes):
    """A cluster through crash loops, OOM kills, an image pull failure, rollouts and a node failure,
    with a snapshot of every pod after each tick."""
    cl = warm(horizon_s=3000)
    snaps: dict[int, dict[str, tuple]] = {}

    def hook(tick, out):
        p = cl.pods
        snaps[tick] = {
            p.names[r]: (
                int(p.state[r]),
                int(p.pulls[r]),
                int(p.restarts[r]),
                int(p.last_term[r]),
                bool(p.ready[r]),
            )
            for r in np.nonzero(p.alive[: p.n])[0]
        }

    cl.tick_hooks.append(hook)
    t = cl.now
    cl.deploy_change(changes["shipping-free-promo"], "1" * 40, t + 20)  # crash loop
    cl.deploy_change(changes["ad-memory-rightsize"], "2" * 40, t + 20)  # OOM kills
    bogus = Change(
        id="email-bogus",
        service="emailservice",
        kind="image",
        title="bump",
        files=[],
        diff="",
        image_tag="v9.9.9",
    )
    cl.deploy_change(bogus, "3" * 40, t + 20)  # image pull failure
    cl.advance_to(t + 600)
    cl.rollback("shippingservice", cl.now + 1)
    cl.restart("checkoutservice", cl.now + 2)
    cl.set_node_ready("kind-worker3", False, cl.now + 3)
    cl.advance_to(cl.now + 900)
    cl.set_node_ready("kind-worker3", True, cl.now + 1)
    cl.advance_to(cl.now + 300)
    return cl, snaps


def fam(cl, name):
    return cl.tsdb.families[name]


def series(cl, name):
    f = fam(cl, name)
    return [(dict(f.rows[i]), f.data[i, : cl.tick]) for i in range(f.n_series)]


def test_scenario_exercised_every_state(scen):
    cl, snaps = scen
    states = {s[0] for snap in snaps.values() for s in snap.values()}
    assert states == {P.PENDING, P.RUNNING, P.BACKOFF, P.IMAGE_WAIT, P.TERMINATING}
    terms = {s[3] for snap in snaps.values() for s in snap.values()}
    assert {P.TERM_ERROR, P.TERM_OOM} <= terms


def test_series_names_and_labels_follow_the_exporters(scen):
    cl, _ = scen
    expect = {
        "traces_span_metrics_calls_total": (
            "job",
            "namespace",
            "service_name",
            "span_kind",
            "status_code",
        ),
        "traces_span_metrics_duration_milliseconds_bucket": (
            "job",
            "namespace",
            "service_name",
            "span_kind",
            "le",
        ),
        "traces_span_metrics_duration_milliseconds_sum": (
            "job",
            "namespace",
            "service_name",
            "span_kind",
        ),
        "traces_span_metrics_duration_milliseconds_count": (
            "job",
            "namespace",
            "service_name",
            "span_kind",
        ),
        "traces_service_graph_request_total": ("job", "namespace", "client", "server"),
        "traces_service_graph_request_failed_total": ("job", "namespace", "client", "server"),
        "kube_deployment_spec_replicas": ("job", "namespace", "deployment"),
        "kube_deployment_status_replicas_available": ("job", "namespace", "deployment"),
        "kube_deployment_status_replicas_unavailable": ("job", "namespace", "deployment"),
        "kube_deployment_status_replicas_updated": ("job", "namespace", "deployment"),
        "kube_deployment_metadata_generation": ("job", "namespace", "deployment"),
        "kube_deployment_status_observed_generation": ("job", "namespace", "deployment"),
        "kube_node_status_condition": ("job", "node", "condition", "status"),
        "kube_pod_info": ("job", "namespace", "pod", "node", "created_by_kind", "created_by_name"),
        "kube_pod_status_ready": ("job", "namespace", "pod", "condition"),
        "kube_pod_status_phase": ("job", "namespace", "pod", "phase"),
        "kube_pod_container_status_restarts_total": ("job", "namespace", "pod", "container"),
        "kube_pod_container_status_running": ("job", "namespace", "pod", "container"),
        "kube_pod_container_status_ready": ("job", "namespace", "pod", "container"),
        "kube_pod_container_status_waiting_reason": (
            "job",
            "namespace",
            "pod",
            "container",
            "reason",
        ),
        "kube_pod_container_status_last_terminated_reason": (
            "job",
            "namespace",
            "pod",
            "container",
            "reason",
        ),
        "kube_pod_container_resource_limits": (
            "job",
            "namespace",
            "pod",
            "container",
            "resource",
            "unit",
        ),
        "container_cpu_usage_seconds_total": ("job", "namespace", "pod", "container"),
        "container_memory_working_set_bytes": ("job", "namespace", "pod", "container"),
        "container_cpu_cfs_periods_total": ("job", "namespace", "pod", "container"),
        "container_cpu_cfs_throttled_periods_total": ("job", "namespace", "pod", "container"),
    }
    for name, labels in expect.items():
        assert fam(cl, name).label_names == labels, name
    jobs = {
        "traces_span_metrics_calls_total": "otel-collector",
        "traces_service_graph_request_total": "otel-collector",
        "kube_pod_info": KSM,
        "kube_deployment_spec_replicas": KSM,
        "container_cpu_usage_seconds_total": "kubelet",
    }
    for name, job in jobs.items():
        assert {lab["job"] for lab, _ in series(cl, name)} == {job}, name
    calls = series(cl, "traces_span_metrics_calls_total")
    assert {lab["span_kind"] for lab, _ in calls} == {"SPAN_KIND_SERVER"}
    assert {lab["status_code"] for lab, _ in calls} == {"STATUS_CODE_UNSET", "STATUS_CODE_ERROR"}
    assert {lab["service_name"] for lab, _ in calls} == set(cl.topo.names)
    les = {lab["le"] for lab, _ in series(cl, "traces_span_metrics_duration_milliseconds_bucket")}
    assert les == {f"{b:g}" for b in BUCKETS_MS} | {"+Inf"}
    pairs = {
        (lab["client"], lab["server"])
        for lab, _ in series(cl, "traces_service_graph_request_total")
    }
    assert pairs == {(e.caller, e.callee) for e in cl.topo.app.edges}
    assert {
        lab["container"]
        for lab, _ in series(cl, "kube_pod_container_status_restarts_total")
        if lab["pod"].startswith("redis-cart-")
    } == {"redis"}
    units = {
        (lab["resource"], lab["unit"])
        for lab, _ in series(cl, "kube_pod_container_resource_limits")
    }
    assert units == {("cpu", "core"), ("memory", "byte")}
    info = series(cl, "kube_pod_info")
    for lab, _ in info:
        assert lab["created_by_kind"] == "ReplicaSet"
        assert lab["pod"].startswith(lab["created_by_name"] + "-")
        assert lab["namespace"] == NS


def test_counters_never_decrease_except_cadvisor_on_container_restart(scen):
    cl, _ = scen
    restarts = {lab["pod"]: v for lab, v in series(cl, "kube_pod_container_status_restarts_total")}
    counters = [n for n in cl.tsdb.families if n.endswith(("_total", "_bucket", "_sum", "_count"))]
    assert {
        "traces_span_metrics_calls_total",
        "traces_span_metrics_duration_milliseconds_bucket",
        "traces_span_metrics_duration_milliseconds_sum",
        "traces_span_metrics_duration_milliseconds_count",
        "traces_service_graph_request_total",
        "traces_service_graph_request_failed_total",
        "kube_pod_container_status_restarts_total",
    } | CADVISOR_COUNTERS <= set(counters)
    cadvisor_resets = 0
    for name in counters:
        for lab, v in series(cl, name):
            ticks = np.nonzero(~np.isnan(v))[0]
            drops = ticks[1:][np.diff(v[ticks]) < 0]
            prevs = ticks[:-1][np.diff(v[ticks]) < 0]
            if name not in CADVISOR_COUNTERS:
                assert len(drops) == 0, (name, lab)
                continue
            for k_prev, k in zip(prevs, drops, strict=True):
                rs = restarts[lab["pod"]]
                assert rs[k] > rs[k_prev], (name, lab, k)  # the container restarted in between
                cadvisor_resets += 1
    assert cadvisor_resets > 0


def test_waiting_reason_present_only_while_waiting(scen):
    cl, snaps = scen
    f = fam(cl, "kube_pod_container_status_waiting_reason")
    by_pod: dict[str, list[tuple[str, np.ndarray]]] = {}
    for lab, v in series(cl, "kube_pod_container_status_waiting_reason"):
        by_pod.setdefault(lab["pod"], []).append((lab["reason"], v))
    assert {r for lab in f.rows for k, r in lab if k == "reason"} == set(WAIT_REASONS)
    checked = 0
    for tick, snap in snaps.items():
        present_pods = {
            pod for pod, ss in by_pod.items() if any(not np.isnan(v[tick]) for _, v in ss)
        }
        assert present_pods <= set(snap), tick  # deleted pods have no series (stale)
        for pod, (state, pulls, *_rest) in snap.items():
            got = {reason for reason, v in by_pod.get(pod, []) if not np.isnan(v[tick])}
            if state == P.PENDING:
                want = {"ContainerCreating"}
            elif state == P.BACKOFF:
                want = {"CrashLoopBackOff"}
            elif state == P.IMAGE_WAIT:
                want = {"ErrImagePull" if pulls % 4 == 1 else "ImagePullBackOff"}
            else:
                want = set()
            assert got == want, (tick, pod, state)
            for reason, v in by_pod.get(pod, []):
                if not np.isnan(v[tick]):
                    assert v[tick] == 1.0 and reason in want
            checked += bool(want)
    assert checked > 50


def test_pod_series_go_stale_when_the_pod_is_gone(scen):
    cl, snaps = scen
    last = cl.tick - 1
    alive_now = set(snaps[last])
    for name in (
        "kube_pod_info",
        "kube_pod_container_status_restarts_total",
        "kube_pod_status_ready",
    ):
        for lab, v in series(cl, name):
            ticks = [k for k, s in snaps.items() if lab["pod"] in s]
            assert (not np.isnan(v[last])) == (lab["pod"] in alive_now), (name, lab)
            if ticks:
                assert not np.isnan(v[max(ticks)]), (name, lab)
                gone_after = [k for k in snaps if k > max(ticks)]
                assert all(np.isnan(v[k]) for k in gone_after), (name, lab)


def test_pod_state_series_match_the_pods(scen):
    cl, snaps = scen
    restarts = {lab["pod"]: v for lab, v in series(cl, "kube_pod_container_status_restarts_total")}
    ready = {(lab["pod"], lab["condition"]): v for lab, v in series(cl, "kube_pod_status_ready")}
    running = {lab["pod"]: v for lab, v in series(cl, "kube_pod_container_status_running")}
    last_term = {
        (lab["pod"], lab["reason"]): v
        for lab, v in series(cl, "kube_pod_container_status_last_terminated_reason")
    }
    oom_seen = 0
    for tick, snap in snaps.items():
        for pod, (state, _pulls, nrestarts, term, is_ready) in snap.items():
            assert restarts[pod][tick] == nrestarts
            assert ready[(pod, "true")][tick] == float(is_ready)
            assert ready[(pod, "false")][tick] == 1.0 - float(is_ready)
            assert running[pod][tick] == float(state == P.RUNNING)
            if term == P.TERM_OOM:
                assert last_term[(pod, "OOMKilled")][tick] == 1.0
                oom_seen += 1
            elif term == P.TERM_ERROR:
                assert last_term[(pod, "Error")][tick] == 1.0
            else:
                assert not any(
                    not np.isnan(v[tick]) for (p_, _), v in last_term.items() if p_ == pod
                )
    assert oom_seen > 0


def test_one_phase_per_pod(scen):
    cl, snaps = scen
    phases: dict[str, dict[str, np.ndarray]] = {}
    for lab, v in series(cl, "kube_pod_status_phase"):
        phases.setdefault(lab["pod"], {})[lab["phase"]] = v
    for tick, snap in snaps.items():
        for pod, (state, *_r) in snap.items():
            vals = {ph: v[tick] for ph, v in phases[pod].items()}
            assert sum(vals.values()) == 1.0, (tick, pod)
            if state in (P.PENDING, P.IMAGE_WAIT):
                assert vals["Pending"] == 1.0
            elif state == P.RUNNING:
                assert vals["Running"] == 1.0 or vals["Unknown"] == 1.0


def test_histogram_is_cumulative_and_counts_every_call(scen):
    cl, _ = scen
    le_order = [f"{b:g}" for b in BUCKETS_MS] + ["+Inf"]
    buckets: dict[str, dict[str, np.ndarray]] = {}
    for lab, v in series(cl, "traces_span_metrics_duration_milliseconds_bucket"):
        buckets.setdefault(lab["service_name"], {})[lab["le"]] = v
    count = {
        lab["service_name"]: v
        for lab, v in series(cl, "traces_span_metrics_duration_milliseconds_count")
    }
    total: dict[str, np.ndarray] = {}
    for lab, v in series(cl, "traces_span_metrics_calls_total"):
        total[lab["service_name"]] = total.get(lab["service_name"], 0) + v
    for svc, bs in buckets.items():
        mat = np.array([bs[le] for le in le_order])
        assert np.all(np.diff(mat, axis=0) >= 0), svc
        np.testing.assert_array_equal(mat[-1], count[svc])
        np.testing.assert_array_equal(count[svc], total[svc])
        assert np.all(mat == np.floor(mat))  # integer counts


def test_failed_edges_never_exceed_requests(scen):
    cl, _ = scen
    tot = {
        (lab["client"], lab["server"]): v
        for lab, v in series(cl, "traces_service_graph_request_total")
    }
    for lab, v in series(cl, "traces_service_graph_request_failed_total"):
        assert np.all(v <= tot[(lab["client"], lab["server"])])
    # the crash-looping shipping service and the image-pulling email service produced failures
    shipping = [
        v
        for lab, v in series(cl, "traces_span_metrics_calls_total")
        if lab["service_name"] == "shippingservice" and lab["status_code"] == "STATUS_CODE_ERROR"
    ]
    assert shipping[0][-1] > 0


def test_node_condition_and_deployment_gauges(scen):
    cl, _ = scen
    cond = {(lab["node"], lab["status"]): v for lab, v in series(cl, "kube_node_status_condition")}
    w3 = cond[("kind-worker3", "true")]
    unk = cond[("kind-worker3", "unknown")]
    assert set(np.unique(w3).tolist()) == {0.0, 1.0}
    np.testing.assert_array_equal(w3 + unk, np.ones_like(w3))
    assert np.all(cond[("kind-worker3", "false")] == 0)
    assert np.all(cond[("kind-worker", "true")] == 1)
    gen = {lab["deployment"]: v for lab, v in series(cl, "kube_deployment_metadata_generation")}
    assert gen["shippingservice"][-1] == 3  # change + rollback
    assert gen["frontend"][-1] == 1
    assert np.all(np.diff(gen["checkoutservice"]) >= 0)


def test_limits_and_working_set_units(scen):
    cl, _ = scen
    lim = {
        (lab["pod"], lab["resource"]): v
        for lab, v in series(cl, "kube_pod_container_resource_limits")
    }
    fe_pod = next(p for p, r in lim if p.startswith("frontend-") and r == "memory")
    assert np.nanmax(lim[(fe_pod, "memory")]) == 128 * 2**20
    assert np.nanmax(lim[(fe_pod, "cpu")]) == 0.2
    ad_limits = {
        np.nanmax(v) for (p, r), v in lim.items() if p.startswith("adservice-") and r == "memory"
    }
    assert 150 * 2**20 in ad_limits  # the right-sized limit of the OOM-killed revision
    ws = {lab["pod"]: v for lab, v in series(cl, "container_memory_working_set_bytes")}
    assert 0 < np.nanmax(ws[fe_pod]) < 128 * 2**20
