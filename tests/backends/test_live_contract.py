"""The Kubernetes contract the live backend relies on, run against the fake API server and, when
``SRE_GYM_KUBECONFIG`` names a kube config, against that real cluster too (skipped otherwise, with
the reason). Every test leaves the cluster as it found it.

On a real cluster: ``SRE_GYM_KUBECONFIG`` (and optionally ``SRE_GYM_CONTEXT``, ``SRE_GYM_APP``,
default online-boutique, and ``SRE_GYM_NAMESPACE``, default the app's) must reach an installed app
(docs/live.md), with an identity allowed the injector's requests (``sre-gym live rbac --injector``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")

from kubernetes import client  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402

from sre_gym.backends.live_faults import LiveFaults  # noqa: E402
from sre_gym.catalogs import RELEASE, load_app, load_catalog  # noqa: E402
from sre_gym.orchestrator.schedule import Schedule, ScheduledFault  # noqa: E402

REVISION = "deployment.kubernetes.io/revision"
CAUSE = "kubernetes.io/change-cause"


class Target:
    def __init__(self, app: str, namespace: str, api: Any, stop: Callable[[], None]) -> None:
        self.app, self.namespace, self.api, self.stop = app, namespace, api, stop
        self.apps, self.core = client.AppsV1Api(api), client.CoreV1Api(api)
        self.service = next(s.name for s in load_app(app).serving if s.replicas >= 1)


@pytest.fixture(params=["fake", "real"])
def target(request) -> Iterator[Target]:
    if request.param == "fake":
        from sre_gym.testing.fake_cluster import FakeKubernetes

        kube = FakeKubernetes("online-boutique", world=True).__enter__()
        cfg = client.Configuration()
        cfg.host = kube.url
        t = Target("online-boutique", kube.namespace, client.ApiClient(cfg), lambda: kube.stop())
    else:
        path = os.environ.get("SRE_GYM_KUBECONFIG")
        if not path:
            pytest.skip("SRE_GYM_KUBECONFIG is not set: no real cluster to run the contract on")
        from sre_gym.backends.live_preflight import api_client_from

        app = os.environ.get("SRE_GYM_APP", "online-boutique")
        ns = os.environ.get("SRE_GYM_NAMESPACE") or load_app(app).namespace
        api = api_client_from(path, os.environ.get("SRE_GYM_CONTEXT"))
        t = Target(app, ns, api, lambda: None)
    try:
        yield t
    finally:
        t.api.close()
        t.stop()


def eventually(fn: Callable[[], Any], timeout_s: float = 60.0) -> Any:
    """``fn()`` once it returns something true (a real controller acts asynchronously)."""
    deadline = time.monotonic() + timeout_s
    while True:
        out = fn()
        if out or time.monotonic() > deadline:
            return out
        time.sleep(0.2)


def rs_of(t: Target, dep: str) -> list[Any]:
    rss = t.apps.list_namespaced_replica_set(t.namespace).items
    mine = [r for r in rss if any(o.name == dep for o in r.metadata.owner_references or [])]
    return sorted(mine, key=lambda r: int(r.metadata.annotations.get(REVISION, "0")))


def test_a_template_change_is_a_new_revision_carrying_its_change_cause(target):
    t, dep = target, target.service
    top = int(rs_of(t, dep)[-1].metadata.annotations[REVISION])
    container = t.apps.read_namespaced_deployment(dep, t.namespace).spec.template.spec.containers[0]
    body = {
        "metadata": {"annotations": {CAUSE: "deploy 0123456: contract test"}},
        "spec": {"template": {"spec": {"containers": [{"name": container.name, "env": [{"name": "SRE_GYM_CONTRACT", "value": "1"}]}]}}},
    }  # fmt: skip
    t.apps.patch_namespaced_deployment(dep, t.namespace, body)
    try:
        new = eventually(
            lambda: [r for r in rs_of(t, dep) if int(r.metadata.annotations[REVISION]) > top]
        )
        assert new and new[-1].metadata.annotations.get(CAUSE) == "deploy 0123456: contract test"
    finally:
        undo = {"spec": {"template": {"spec": {"containers": [{"name": container.name, "env": [{"name": "SRE_GYM_CONTRACT", "$patch": "delete"}]}]}}}}  # fmt: skip
        t.apps.patch_namespaced_deployment(dep, t.namespace, undo)
    env = t.apps.read_namespaced_deployment(dep, t.namespace).spec.template.spec.containers[0].env
    assert not any(e.name == "SRE_GYM_CONTRACT" for e in env or [])


def test_the_scale_subresource_round_trips(target):
    t, dep = target, target.service
    before = t.apps.read_namespaced_deployment_scale(dep, t.namespace).spec.replicas
    t.apps.patch_namespaced_deployment_scale(dep, t.namespace, {"spec": {"replicas": before + 1}})
    try:
        assert t.apps.read_namespaced_deployment(dep, t.namespace).spec.replicas == before + 1
    finally:
        t.apps.patch_namespaced_deployment_scale(dep, t.namespace, {"spec": {"replicas": before}})
    assert eventually(
        lambda: t.apps.read_namespaced_deployment(dep, t.namespace).spec.replicas == before
    )


def test_errors_are_status_bodies(target):
    t = target
    with pytest.raises(ApiException) as e:
        t.apps.read_namespaced_deployment("sre-gym-no-such-deployment", t.namespace)
    assert e.value.status == 404
    body = json.loads(e.value.body)
    assert body["kind"] == "Status" and body["reason"] == "NotFound"


def test_an_injection_and_its_revert_leave_the_cluster_as_found(target):
    t = target
    fid = next(f.id for f in load_catalog(t.app).faults if f.mechanism == "replicas_zero")
    sched = Schedule(RELEASE, t.app, 0, (ScheduledFault(0, fid, 0, 60),), (), 1200, 600, "contract")
    drv = LiveFaults(sched, 0.0, 10, api=t.api, namespace=t.namespace, release=RELEASE)
    dep = drv.faults[fid].target
    before = t.apps.read_namespaced_deployment(dep, t.namespace).spec.replicas
    inj = drv.inject(0, 0.0)
    try:
        assert drv.present(inj)
        assert t.apps.read_namespaced_deployment(dep, t.namespace).spec.replicas == 0
    finally:
        drv.revert(0, 60.0)
    assert not drv.present(inj)
    assert t.apps.read_namespaced_deployment(dep, t.namespace).spec.replicas == before
