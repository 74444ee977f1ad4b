"""The fake cluster as a whole: both servers start and stop together, and the real client reads it."""

from __future__ import annotations

import socket
import threading

import pytest

from sre_gym.testing import fake_cluster, fake_kube_store, fake_patches, fake_prometheus
from sre_gym.testing.fake_cluster import EPOCH, FakeCluster

APP = "online-boutique"
T0 = EPOCH + 7200.0


def test_the_fake_servers_shut_down_and_free_their_ports():
    before = {t.ident for t in threading.enumerate()}
    cluster = FakeCluster(APP, clock=lambda: T0).start()
    ports = [int(s.url.rsplit(":", 1)[1]) for s in (cluster.kube, cluster.prom)]
    assert all(s.url.startswith("http://127.0.0.1:") for s in (cluster.kube, cluster.prom))
    cluster.stop()
    for port in ports:
        with socket.socket() as s, pytest.raises(OSError):
            s.settimeout(2)
            s.connect(("127.0.0.1", port))
    assert {t.ident for t in threading.enumerate() if t.is_alive()} <= before


def test_api_client_points_the_real_kubernetes_client_at_the_fake():
    k8s = pytest.importorskip("kubernetes.client", reason="needs the live extra")
    with FakeCluster(APP, replicas=1) as fc:
        api = fc.api_client()
        try:
            pods = k8s.CoreV1Api(api).list_namespaced_pod(fc.kube.namespace, _request_timeout=10)
        finally:
            api.close()
    assert sorted(p.metadata.name for p in pods.items) == fc.kube.names("pods")
    assert not fc.kube.running and not fc.prom.running


def test_the_parts_keep_their_names_in_the_fake_cluster_module():
    assert fake_cluster.FakePrometheus is fake_prometheus.FakePrometheus
    assert (fake_cluster.merge_patch, fake_cluster.json_patch, fake_cluster.PatchError) == (
        fake_patches.merge_patch,
        fake_patches.json_patch,
        fake_patches.PatchError,
    )
    assert fake_cluster.RESOURCES is fake_kube_store.RESOURCES
    assert issubclass(fake_cluster.FakeKubernetes, fake_kube_store.KubeStore)
    assert fake_cluster.FakeKubernetes.__module__ == "sre_gym.testing.fake_cluster"
