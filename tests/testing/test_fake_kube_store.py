"""The fake Kubernetes API's state: seeding from a catalog app, the test-facing API, the controller."""

from __future__ import annotations

import pytest

from sre_gym.catalogs import load_app
from sre_gym.clock import rfc3339
from sre_gym.testing.fake_cluster import EPOCH, FakeKubernetes
from sre_gym.testing.fake_kube_store import HASH_LABEL, REVISION

APP = "online-boutique"
T0 = EPOCH + 7200.0


@pytest.fixture
def kube() -> FakeKubernetes:
    return FakeKubernetes(APP, clock=lambda: T0, replicas=2)  # never started: no HTTP here


def test_seeding_creates_the_catalog_app_with_one_revision_per_deployment(kube):
    app = load_app(APP)
    assert kube.names("deployments") == sorted(s.name for s in app.services)
    assert kube.names("nodes") == sorted(n.name for n in app.nodes)
    assert {"kube-system", app.namespace} <= set(kube.names("namespaces"))
    assert kube.names("secrets") == ["db-password"]
    for svc in app.services:
        (rs,) = kube.replicasets_of(svc.name)
        assert rs["metadata"]["annotations"][REVISION] == "1" and rs["spec"]["replicas"] == 2
        pods = kube.pods_of(svc.name)
        assert len(pods) == 2
        for name in pods:
            pod = kube.get("pods", name)
            assert pod["metadata"]["ownerReferences"][0]["name"] == rs["metadata"]["name"]
            assert pod["metadata"]["labels"][HASH_LABEL] == rs["metadata"]["labels"][HASH_LABEL]
            assert pod["metadata"]["creationTimestamp"] == rfc3339(T0 - 3600)
    events = [kube.get("events", n) for n in kube.names("events")]
    assert sorted(e["reason"] for e in events) == ["ScalingReplicaSet", "Started"]


def test_add_fills_metadata_and_get_returns_copies(kube):
    obj = kube.add("configmaps", {"metadata": {"name": "flags"}, "data": {"a": "1"}})
    meta = obj["metadata"]
    assert (meta["namespace"], meta["creationTimestamp"]) == (kube.namespace, rfc3339(T0))
    assert (obj["apiVersion"], obj["kind"]) == ("v1", "ConfigMap") and len(meta["uid"]) == 32
    again = kube.add("configmaps", {"metadata": {"name": "flags"}, "data": {"a": "2"}})
    assert int(again["metadata"]["resourceVersion"]) == int(meta["resourceVersion"]) + 1
    got = kube.get("configmaps", "flags")
    got["data"]["a"] = "changed"
    assert kube.get("configmaps", "flags")["data"] == {"a": "2"}
    node = kube.names("nodes")[0]
    assert kube.get("nodes", node, namespace="elsewhere")["metadata"]["name"] == node
    kube.remove("configmaps", "flags")
    assert kube.get("configmaps", "flags") is None and kube.get("pods", "ghost") is None


def test_a_rollout_gets_a_new_replicaset_and_an_old_template_gets_its_replicaset_back(kube):
    (first,) = kube.replicasets_of("adservice")
    pods = kube.pods_of("adservice")
    image = kube.get("deployments", "adservice")["spec"]["template"]["spec"]["containers"][0][
        "image"
    ]
    dep = kube.rollout("adservice", image="x/adservice:v2", env={"EXTRA": "1"}, cause="v2")
    assert dep["metadata"]["annotations"][REVISION] == "2" and dep["metadata"]["generation"] == 2
    old, new = kube.replicasets_of("adservice")
    assert old["metadata"]["name"] == first["metadata"]["name"] and old["spec"]["replicas"] == 0
    assert (
        new["spec"]["replicas"] == 2
        and new["metadata"]["annotations"]["kubernetes.io/change-cause"] == "v2"
    )
    c = new["spec"]["template"]["spec"]["containers"][0]
    assert c["image"] == "x/adservice:v2" and {"name": "EXTRA", "value": "1"} in c["env"]
    # the original template again (same image, EXTRA removed): the first ReplicaSet, revision 3
    with kube.lock:
        d = kube.objects["deployments"][(kube.namespace, "adservice")]
        env = d["spec"]["template"]["spec"]["containers"][0]["env"]
        env[:] = [e for e in env if e["name"] != "EXTRA"]
    back = kube.rollout("adservice", image=image)
    assert back["metadata"]["annotations"][REVISION] == "3"
    assert [
        (r["metadata"]["name"], r["metadata"]["annotations"][REVISION])
        for r in kube.replicasets_of("adservice")
    ] == [
        (new["metadata"]["name"], "2"),
        (first["metadata"]["name"], "3"),
    ]
    assert kube.pods_of("adservice") == pods  # pods are not replaced
    assert kube.mutations == []  # the test-facing API records no requests


def test_logs_are_kept_in_time_order(kube):
    pod = kube.pods_of("frontend")[0]
    kube.set_logs(pod, [(T0, "late"), (T0 - 5, "early")])
    assert kube.logs[pod] == [(T0 - 5, "early"), (T0, "late")]


def test_the_default_policy_denies_secrets_and_namespace_changes(kube):
    from sre_gym.testing.fake_kube_store import default_policy

    assert kube.policy is default_policy and kube.access_reviews == []
    for verb in ("get", "list", "watch", "create", "delete"):
        assert not default_policy(verb, "secrets")
    for verb in ("create", "update", "patch", "delete"):
        assert not default_policy(verb, "namespaces")
    assert default_policy("list", "namespaces") and default_policy("get", "namespaces")
    assert default_policy("get", "pods/log") and default_policy("patch", "deployments/scale")
    assert default_policy("delete", "pods") and default_policy("get", "/version")
