"""The in-process alert engine and PromQL engine agree with ``promtool test rules`` (2.42).

The scenario TSDB (counters with resets, histograms, gauges that go stale and come back, series
appearing mid-run) is exported as a promtool unit-test file whose expectations are the in-process
results: the firing alerts (labels + rendered annotations) at every evaluation time and the values
of a set of PromQL expressions. promtool must accept all of them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from sre_gym.telemetry import promtool_export as pe
from sre_gym.telemetry.promql import Engine
from sre_gym.telemetry.rules import AlertEngine, load_rules

from .conftest import N_TICKS, TICK_S, build_scenario

RULES = Path(__file__).with_name("alert_rules.yml")

# Expressions whose result does not depend on the order in which promtool's in-memory storage
# returns series (it creates them in Go map order, so e.g. multi-series float sums may differ in
# the last bit between runs) and that avoid Go-vs-libm differences (exp/ln/log).
EXPR_QUERIES = [
    "up",
    "up == 0",
    'up{job="db", instance!~"d1"}',
    'kube_pod_status_ready{namespace="prod"} < 1',
    "kube_pod_status_ready offset 5m",
    "rate(http_requests_total[1m])",
    'increase(http_requests_total{service="b"}[5m])',
    'irate(http_requests_total{code="200"}[1m])',
    "delta(queue_depth[2m])",
    "idelta(queue_depth[1m])",
    "resets(http_requests_total[10m])",
    "changes(kube_pod_status_ready[10m])",
    "deriv(node_memory_usage_bytes[5m])",
    "predict_linear(node_memory_usage_bytes[5m], 600)",
    "sum by (service) (http_requests_total)",
    "max by (instance) (node_memory_usage_bytes)",
    "min(queue_depth)",
    "count by (namespace) (kube_pod_status_ready)",
    "group by (job) (up)",
    "topk(1, node_memory_usage_bytes)",
    "quantile(0.5, node_memory_usage_bytes)",
    'count_values("ready", kube_pod_status_ready)',
    "histogram_quantile(0.9, rate(http_request_duration_seconds_bucket[5m])) > 0",
    'histogram_quantile(0.5, sum by (service, le) (increase(http_request_duration_seconds_bucket{service=~"a|b"}[2m])))',
    "max_over_time(queue_depth[2m])",
    "min_over_time(queue_depth[2m])",
    "avg_over_time(cpu_usage_ratio[5m])",
    "sum_over_time(cpu_usage_ratio[5m])",
    "count_over_time(kube_pod_status_ready[5m])",
    "last_over_time(kube_pod_status_ready[2m])",
    "present_over_time(deploy_replicas[5m])",
    "stddev_over_time(queue_depth[3m])",
    "quantile_over_time(0.9, cpu_usage_ratio[5m])",
    'absent(kube_pod_status_ready{pod="p4"})',
    "absent_over_time(deploy_replicas[2m])",
    "rate(http_requests_total[1m]) > bool 0.5",
    'rate(http_requests_total{code="500"}[1m]) / ignoring(code) rate(http_requests_total{code="200"}[1m])',
    'up * on(job) group_left(namespace) label_replace(kube_pod_status_ready{pod="p1"}, "job", "api", "namespace", "prod")',
    'up and on(job) up{instance="d2"} == 0',
    'up unless up{job="api"}',
    "deploy_replicas or on() vector(0)",
    'label_join(up, "id", "/", "job", "instance")',
    "clamp(queue_depth, 5, 20)",
    "round(cpu_usage_ratio * 7, 0.5)",
    "abs(delta(queue_depth[2m]))",
    "timestamp(deploy_replicas)",
    "scalar(sum(up)) * 2",
    "time() - 300",
    "hour() + minute()",
    "max_over_time(rate(http_requests_total[1m])[5m:30s])",
    "-node_memory_usage_bytes % 1000",
]
EXPR_TIMES = [300, 660, 900, 1230, 1500, 1770]  # multiples of the 30 s evaluation interval
LAST = (N_TICKS - 1) * TICK_S


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=120)


def _build_test_file(tmp_path: Path) -> tuple[Path, AlertEngine, dict]:
    db = build_scenario(t0=0)
    eng = Engine(db, subquery_step_s=30)
    alerts = AlertEngine(load_rules(RULES), eng, 30, keep_snapshots=True)
    alerts.evaluate_until(LAST)
    eval_times = list(range(0, LAST + 1, 30))
    exprs = [pe.expr_test(eng, q, t) for q in EXPR_QUERIES for t in EXPR_TIMES]
    doc = pe.rule_test_file(
        db, [RULES.name], alert_engine=alerts, alert_times=eval_times, expr_tests=exprs
    )
    (tmp_path / RULES.name).write_text(RULES.read_text())
    path = tmp_path / "unit_test.yml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path, alerts, doc


def test_promtool_check_rules(prometheus_bins, tmp_path):
    r = _run([str(prometheus_bins["promtool"]), "check", "rules", str(RULES)], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS: 10 rules found" in r.stdout


def test_alerts_and_expressions_match_promtool(prometheus_bins, tmp_path):
    path, alerts, doc = _build_test_file(tmp_path)
    fired = {a["name"] for a in alerts.alerts_fired_until(LAST)}
    # The scenario must exercise every rule, including each `for:` duration.
    assert fired == {r.name for r in alerts.rules}, fired
    assert not alerts.errors
    n_alert_checks = len(doc["tests"][0]["alert_rule_test"])
    n_firing = sum(len(a["exp_alerts"]) for a in doc["tests"][0]["alert_rule_test"])
    n_exprs = len(doc["tests"][0]["promql_expr_test"])
    r = _run([str(prometheus_bins["promtool"]), "test", "rules", str(path)], tmp_path)
    print(
        f"promtool: {n_alert_checks} alert checks ({n_firing} firing alerts), {n_exprs} expressions"
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[-5000:]
    assert "SUCCESS" in r.stdout
    assert n_firing > 100 and n_exprs == len(EXPR_QUERIES) * len(EXPR_TIMES)


def test_promtool_rejects_a_wrong_expectation(prometheus_bins, tmp_path):
    """Guards the harness: a single altered expectation must make promtool fail."""
    path, _, doc = _build_test_file(tmp_path)
    tests = doc["tests"][0]
    firing = next(t for t in tests["alert_rule_test"] if t["exp_alerts"])
    firing["exp_alerts"] = []
    tests["promql_expr_test"][0]["exp_samples"][0]["value"] += 1
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    r = _run([str(prometheus_bins["promtool"]), "test", "rules", str(path)], tmp_path)
    assert r.returncode != 0
    assert "FAILED" in r.stdout + r.stderr
