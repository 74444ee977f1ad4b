"""The loopback exporter a real Prometheus scrapes (sre_gym/testing/fake_exporter.py)."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from sre_gym.testing.fake_cluster import FakeKubernetes
from sre_gym.testing.fake_exporter import JOBS, FakeExporter


def scrape(ex, job):
    with urllib.request.urlopen(f"{ex.url}/metrics/{job}") as r:
        return r.read().decode()


def value(text, prefix):
    return float(
        next(line for line in text.splitlines() if line.startswith(prefix)).rsplit(" ", 1)[1]
    )


def test_counters_advance_at_the_episode_rate_per_prometheus_second():
    wall = [100.0]
    with (
        FakeKubernetes("online-boutique", world=True) as kube,
        FakeExporter(kube, wall=lambda: wall[0]) as ex,
    ):
        rps = kube.world.rates().req["frontend"]
        key = 'traces_span_metrics_calls_total{namespace="online-boutique",service_name="frontend",span_kind="SPAN_KIND_SERVER",status_code="STATUS_CODE_UNSET"}'
        assert value(scrape(ex, "otel-collector"), key) == 0.0
        wall[0] += 2.5  # 2.5 Prometheus seconds, whatever episode time they stand for
        assert value(scrape(ex, "otel-collector"), key) == pytest.approx(2.5 * rps, rel=1e-4)


def test_every_job_is_served_and_others_are_not_found():
    with FakeKubernetes("online-boutique", world=True) as kube, FakeExporter(kube) as ex:
        texts = {job: scrape(ex, job) for job in JOBS}
        assert (
            'kube_deployment_spec_replicas{namespace="online-boutique",deployment="frontend"} 1'
            in texts["kube-state-metrics"]
        )
        assert "kube_node_labels{" in texts["kube-state-metrics"]
        assert "slo_latency_p95_milliseconds{" in texts["slo-exporter"]
        assert "container_memory_working_set_bytes{" in texts["kubelet"]
        with pytest.raises(urllib.error.HTTPError):
            scrape(ex, "nope")
    with FakeKubernetes("online-boutique") as kube, pytest.raises(ValueError, match="world=True"):
        FakeExporter(kube)
