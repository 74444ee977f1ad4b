"""Micro-benchmark: a 12-rule alert pack evaluated at 4 times on ~1,000 series x 400 ticks.

Prints the median wall time of one ``AlertEngine``-style call (each rule evaluated once for the
4 evaluation times) after warm-up. Run: ``.venv/bin/python benchmarks/promql_speed.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sre_gym.telemetry.promql import Engine
from sre_gym.telemetry.rules import AlertEngine, load_rules
from sre_gym.telemetry.tsdb import TSDB

RULES = [
    'sum by (service) (rate(http_requests_total{code=~"5.."}[5m])) / sum by (service) (rate(http_requests_total[5m])) > 0.05',
    "histogram_quantile(0.99, sum by (service, le) (rate(http_request_duration_seconds_bucket[5m]))) > 0.5",
    'up{job=~"node|kube-state-metrics"} == 0',
    'kube_pod_status_ready{condition="true"} == 0',
    "increase(kube_pod_container_status_restarts_total[10m]) > 2",
    "container_memory_working_set_bytes / container_spec_memory_limit_bytes > 0.9",
    "max_over_time(queue_depth[5m]) > 100",
    "predict_linear(node_filesystem_avail_bytes[30m], 4 * 3600) < 0",
    'absent(up{job="kube-state-metrics"})',
    "kube_deployment_spec_replicas != kube_deployment_status_replicas_available",
    'sum by (service) (increase(http_requests_total{code="500"}[2m])) >= 10',
    "avg by (namespace) (rate(container_cpu_usage_seconds_total[5m])) > 0.8",
]


def build(n_ticks: int = 400, seed: int = 1) -> TSDB:
    rng = np.random.default_rng(seed)
    db = TSDB(capacity=n_ticks)
    services = [f"svc{i}" for i in range(20)]

    def counter(shape, lam):
        return np.cumsum(rng.poisson(lam, shape), axis=-1).astype(float)

    f = db.family("http_requests_total", ("service", "code", "instance"))
    keys = [
        (s, c, i) for s in services for c in ("200", "404", "500", "503") for i in ("a", "b", "c")
    ]
    f.data = np.full((len(keys), n_ticks), np.nan)
    for k in keys:
        f.row(k)
    f.data[:, :] = counter((len(keys), n_ticks), 5)
    les = ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]
    h = db.family("http_request_duration_seconds_bucket", ("service", "le"))
    for s in services:
        for le in les:
            h.row((s, le))
    base = counter((len(services), n_ticks), 20)
    frac = np.linspace(0.1, 1.0, len(les))
    h.data = (
        (base[:, None, :] * frac[None, :, None]).reshape(len(services) * len(les), n_ticks).round()
    )
    pods = [(f"ns{i % 5}", f"pod{i}") for i in range(100)]
    for name, lab, gen in (
        ("kube_pod_status_ready", ("namespace", "pod", "condition"), None),
        ("kube_pod_container_status_restarts_total", ("namespace", "pod"), "counter"),
        ("container_memory_working_set_bytes", ("namespace", "pod"), "mem"),
        ("container_spec_memory_limit_bytes", ("namespace", "pod"), "limit"),
        ("container_cpu_usage_seconds_total", ("namespace", "pod"), "cpu"),
    ):
        fam = db.family(name, lab)
        rows = [p + ("true",) for p in pods] if gen is None else pods
        for r in rows:
            fam.row(r)
        n = len(rows)
        if gen is None:
            fam.data = (rng.random((n, n_ticks)) > 0.02).astype(float)
        elif gen == "counter":
            fam.data = counter((n, n_ticks), 0.01)
        elif gen == "mem":
            fam.data = rng.uniform(1e8, 1e9, (n, n_ticks))
        elif gen == "limit":
            fam.data = np.full((n, n_ticks), 1e9)
        else:
            fam.data = np.cumsum(rng.uniform(0, 15, (n, n_ticks)), axis=1)
        fam.data[:, :] = fam.data
    up = db.family("up", ("job", "instance"))
    for j in ("node", "kube-state-metrics", "api"):
        for i in range(15):
            up.row((j, f"10.0.0.{i}"))
    up.data = (rng.random((45, n_ticks)) > 0.01).astype(float)
    q = db.family("queue_depth", ("queue",))
    for i in range(20):
        q.row((f"q{i}",))
    q.data = rng.integers(0, 120, (20, n_ticks)).astype(float)
    fs = db.family("node_filesystem_avail_bytes", ("instance", "mountpoint"))
    for i in range(30):
        fs.row((f"10.0.0.{i}", "/"))
    fs.data = 1e11 - np.cumsum(rng.uniform(0, 1e7, (30, n_ticks)), axis=1)
    d1 = db.family("kube_deployment_spec_replicas", ("namespace", "deployment"))
    d2 = db.family("kube_deployment_status_replicas_available", ("namespace", "deployment"))
    for i in range(20):
        d1.row((f"ns{i % 5}", f"dep{i}"))
        d2.row((f"ns{i % 5}", f"dep{i}"))
    d1.data = np.full((20, n_ticks), 3.0)
    d2.data = np.where(rng.random((20, n_ticks)) > 0.05, 3.0, 2.0)
    db.commit(n_ticks - 1)
    return db


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()
    db = build()
    n_series = sum(f.n_series for f in db.families.values())
    eng = Engine(db)
    plans = [eng.compile(q) for q in RULES]
    # 4 evaluation times 30 s apart, sliding over the run like an episode would.
    starts = np.arange(600, 5800, 120)
    for s in starts[:5]:
        for p in plans:
            eng.eval(p, s + np.arange(4) * 30)
    samples = []
    for k in range(args.calls):
        times = starts[k % len(starts)] + np.arange(4) * 30
        t0 = time.perf_counter()
        for p in plans:
            eng.eval(p, times)
        samples.append(time.perf_counter() - t0)
    med = statistics.median(samples)
    print(f"series={n_series} ticks={db.n_ticks} rules={len(RULES)} times=4")
    print(f"median per call: {med * 1000:.3f} ms  (p90 {np.percentile(samples, 90) * 1000:.3f} ms)")
    print(f"per rule: {med / len(RULES) * 1e6:.1f} us")
    # The same pack through AlertEngine (evaluation + for: state machine), 4 new times per call.
    rules = load_rules(
        {
            "groups": [
                {
                    "name": "bench",
                    "rules": [
                        {
                            "alert": f"R{i}",
                            "expr": q,
                            "for": "1m",
                            "labels": {"severity": "page"},
                            "annotations": {
                                "summary": "{{ $labels.service }} {{ $value | humanize }}"
                            },
                        }
                        for i, q in enumerate(RULES)
                    ],
                }
            ]
        }
    )
    alert_samples = []
    for _ in range(5):
        ae = AlertEngine(rules, Engine(db), 30)
        ae.evaluate_until(570)  # warm-up
        for t in range(690, 5900, 120):
            t0 = time.perf_counter()
            ae.evaluate_until(t)
            alert_samples.append(time.perf_counter() - t0)
    print(
        f"AlertEngine.evaluate_until (4 new eval times): median {statistics.median(alert_samples) * 1000:.3f} ms"
    )


if __name__ == "__main__":
    main()
