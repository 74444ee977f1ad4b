"""The fake Kubernetes API's HTTP side, called through ``handle`` (the server only adds the socket)."""

from __future__ import annotations

import json

import pytest

from sre_gym.clock import rfc3339
from sre_gym.testing.fake_cluster import EPOCH, FakeKubernetes

APP = "online-boutique"
NS = "online-boutique"
T0 = EPOCH + 7200.0
DEPS = f"/apis/apps/v1/namespaces/{NS}/deployments"
PODS = f"/api/v1/namespaces/{NS}/pods"


@pytest.fixture
def kube() -> FakeKubernetes:
    return FakeKubernetes(APP, clock=lambda: T0, replicas=2)


def call(kube, method, path, params=None, ctype="", body=None):
    raw = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    status, out_type, payload = kube.handle(method, path, params or {}, ctype, raw)
    return status, (json.loads(payload) if out_type == "application/json" else payload.decode())


def test_lists_filter_by_label_and_field_selectors(kube):
    status, out = call(kube, "GET", PODS, {"labelSelector": "app=frontend"})
    assert status == 200 and out["kind"] == "PodList" and out["apiVersion"] == "v1"
    assert [p["metadata"]["name"] for p in out["items"]] == kube.pods_of("frontend")
    _, others = call(kube, "GET", PODS, {"labelSelector": "app!=frontend"})
    assert len(others["items"]) == len(kube.names("pods")) - 2
    node = kube.get("pods", kube.pods_of("frontend")[0])["spec"]["nodeName"]
    _, on_node = call(kube, "GET", PODS, {"fieldSelector": f"spec.nodeName=={node}"})
    assert on_node["items"] and all(p["spec"]["nodeName"] == node for p in on_node["items"])
    _, nodes = call(kube, "GET", "/api/v1/nodes")
    assert [n["metadata"]["name"] for n in nodes["items"]] == kube.names("nodes")
    assert kube.requests[0] == ("GET", PODS) and kube.mutations == []


def test_unknown_objects_and_paths_are_kubernetes_not_found_answers(kube):
    status, out = call(kube, "GET", f"{DEPS}/ghost")
    assert status == 404 and out["kind"] == "Status" and out["reason"] == "NotFound"
    assert out["message"] == 'deployments.apps "ghost" not found'
    _, out = call(kube, "GET", f"/apis/networking.k8s.io/v1/namespaces/{NS}/networkpolicies/x")
    assert out["message"] == 'networkpolicies.networking.k8s.io "x" not found'
    _, out = call(kube, "GET", f"{PODS}/ghost")
    assert out["message"] == 'pods "ghost" not found'
    for path in (f"/api/v1/namespaces/{NS}/nodes", f"/api/v1/namespaces/{NS}/deployments", "/x"):
        assert call(kube, "GET", path)[0] == 404, path
    status, out = call(kube, "PUT", PODS, ctype="application/json", body={})
    assert status == 405 and out["reason"] == "MethodNotAllowed"
    status, out = call(kube, "POST", PODS, ctype="application/json", body={})
    assert status == 422 and "metadata.name" in out["message"]
    assert call(kube, "PATCH", f"{DEPS}/frontend", ctype="application/json", body=b"{")[0] == 400


def test_patches_by_content_type_and_invalid_ones_change_nothing(kube):
    before = kube.get("deployments", "frontend")
    status, out = call(kube, "PATCH", f"{DEPS}/frontend", ctype="application/yaml", body={"a": 1})
    assert status == 415 and out["reason"] == "UnsupportedMediaType"
    status, out = call(
        kube,
        "PATCH",
        f"{DEPS}/frontend",
        ctype="application/json-patch+json",
        body=[{"op": "test", "path": "/spec/replicas", "value": 9}],
    )
    assert status == 422 and "is not equal to tested value 9" in out["message"]
    assert kube.get("deployments", "frontend") == before
    assert [m["content_type"] for m in kube.mutations] == [
        "application/yaml",
        "application/json-patch+json",
    ]
    status, out = call(
        kube,
        "PATCH",
        f"{DEPS}/frontend",
        ctype="application/merge-patch+json",
        body={"metadata": {"labels": {"tier": "web"}}},
    )
    assert status == 200 and out["metadata"]["labels"] == {"app": "frontend", "tier": "web"}
    assert int(out["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])
    assert out["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    status, out = call(
        kube,
        "PATCH",
        f"{DEPS}/frontend",
        ctype="application/strategic-merge-patch+json",
        body={
            "spec": {"template": {"spec": {"containers": [{"name": "server", "image": "x/f:2"}]}}}
        },
    )
    assert (
        status == 200 and out["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    )
    assert len(kube.replicasets_of("frontend")) == 2  # the controller made a new ReplicaSet


def test_the_scale_subresource_reads_and_sets_replicas(kube):
    status, out = call(kube, "GET", f"{DEPS}/cartservice/scale")
    assert status == 200 and out["kind"] == "Scale" and out["spec"] == {"replicas": 2}
    assert out["status"]["selector"] == "app=cartservice"
    patch = {"ctype": "application/merge-patch+json"}
    status, out = call(
        kube, "PATCH", f"{DEPS}/cartservice/scale", body={"spec": {"replicas": 5}}, **patch
    )
    assert status == 200 and out["spec"] == {"replicas": 5}
    assert kube.get("deployments", "cartservice")["spec"]["replicas"] == 5
    assert kube.replicasets_of("cartservice")[0]["spec"]["replicas"] == 5
    status, out = call(
        kube, "PATCH", f"{DEPS}/cartservice/scale", body={"spec": {"replicas": -1}}, **patch
    )
    assert status == 422 and "non-negative integer" in out["message"]
    assert (
        call(kube, "PATCH", f"{PODS}/{kube.pods_of('cartservice')[0]}/scale", body={}, **patch)[0]
        == 404
    )


def test_a_refusal_answers_the_next_matching_request_once(kube):
    kube.refuse("patch", "/deployments/frontend", 409, "Conflict", "modified")
    args = ("PATCH", f"{DEPS}/frontend/scale")
    kw = {"ctype": "application/merge-patch+json", "body": {"spec": {"replicas": 3}}}
    assert call(kube, "GET", f"{DEPS}/frontend")[0] == 200  # another method: not refused
    status, out = call(kube, *args, **kw)
    assert (status, out["reason"], out["message"]) == (409, "Conflict", "modified")
    assert kube.get("deployments", "frontend")["spec"]["replicas"] == 2
    assert call(kube, *args, **kw)[0] == 200
    assert [m["body"] for m in kube.mutations] == [kw["body"], kw["body"]]  # refused ones too


def test_pod_logs_and_deletes(kube):
    pod = kube.pods_of("emailservice")[0]
    kube.set_logs(pod, [(T0 - 100, "old"), (T0 - 10, "a"), (T0 - 5, "b")])
    _, text = call(kube, "GET", f"{PODS}/{pod}/log", {"sinceSeconds": "60"})
    assert text == "a\nb\n"
    _, text = call(kube, "GET", f"{PODS}/{pod}/log", {"tailLines": "1", "timestamps": "true"})
    assert text == f"{rfc3339(T0 - 5, nanos=True)} b\n"
    status, out = call(kube, "DELETE", f"{PODS}/{pod}")
    assert status == 200 and out["metadata"]["name"] == pod and kube.get("pods", pod) is None
    status, out = call(kube, "DELETE", f"{DEPS}/emailservice")
    assert status == 200 and out["kind"] == "Status" and out["status"] == "Success"
    assert call(kube, "DELETE", f"{DEPS}/emailservice")[0] == 404


REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"


def review(kube, **attrs):
    body = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": attrs},
    }
    return call(kube, "POST", REVIEWS, ctype="application/json", body=body)


def test_access_reviews_are_answered_by_the_policy(kube):
    status, out = review(kube, verb="list", resource="pods", namespace=NS)
    assert status == 201 and out["kind"] == "SelfSubjectAccessReview"
    assert out["status"]["allowed"] is True
    assert out["spec"] == {
        "resourceAttributes": {"verb": "list", "resource": "pods", "namespace": NS}
    }
    assert (
        review(kube, verb="get", resource="secrets", namespace=NS)[1]["status"]["allowed"] is False
    )
    assert review(kube, verb="delete", resource="namespaces", name=NS)[1]["status"] == {
        "allowed": False,
        "reason": "denied by the fake cluster's policy",
    }
    asked = []
    kube.policy = lambda verb, resource: asked.append((verb, resource)) or resource == "pods/log"
    assert review(kube, verb="get", resource="pods", subresource="log")[1]["status"]["allowed"]
    assert not review(kube, verb="get", resource="pods")[1]["status"]["allowed"]
    assert asked == [("get", "pods/log"), ("get", "pods")]
    assert [r["verb"] for r in kube.access_reviews] == ["list", "get", "delete", "get", "get"]
    assert [m["path"] for m in kube.mutations] == [REVIEWS] * 5  # POSTs are recorded
    assert kube.objects["secrets"]  # nothing changed


def test_bad_access_reviews_and_methods_are_refused(kube):
    assert call(kube, "GET", REVIEWS)[0] == 405
    status, out = call(kube, "POST", REVIEWS, ctype="application/json", body={"kind": "Pod"})
    assert status == 400 and out["reason"] == "BadRequest"
    status, out = call(kube, "POST", REVIEWS, ctype="application/json", body={"spec": {}})
    assert status == 422 and "exactly one of" in out["message"]
    body = {"spec": {"nonResourceAttributes": {"verb": "get", "path": "/version"}}}
    status, out = call(kube, "POST", REVIEWS, ctype="application/json", body=body)
    assert status == 201 and out["status"]["allowed"] is True
    kube.refuse("POST", "selfsubjectaccessreviews", 403, "Forbidden", "no")
    assert review(kube, verb="get", resource="pods")[0] == 403


def test_version_answers_what_the_client_needs(kube):
    for path in ("/version", "/version/"):
        status, out = call(kube, "GET", path)
        assert status == 200 and out["gitVersion"] == "v1.31.0-fake" and out["major"] == "1"
    kube.version["gitVersion"] = "v1.30.2"
    assert call(kube, "GET", "/version")[1]["gitVersion"] == "v1.30.2"
    assert call(kube, "POST", "/version", ctype="application/json", body={})[0] == 404


def test_a_static_rbac_table_authorizes_requests_by_bearer_token():
    pytest.importorskip("kubernetes", reason="needs the live extra")
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    from sre_gym.backends.live_rbac import injector_manifest, manifest
    from sre_gym.testing.fake_cluster import FakeCluster

    with FakeCluster("online-boutique") as fc:
        agent_rules = [
            r for d in manifest(NS) if d["kind"] in ("Role", "ClusterRole") for r in d["rules"]
        ]
        inj_rules = [
            r
            for d in injector_manifest(NS)
            if d["kind"] in ("Role", "ClusterRole")
            for r in d["rules"]
        ]
        fc.kube.add_identity(
            "agent-token", "system:serviceaccount:online-boutique:sre-gym-agent", agent_rules
        )
        fc.kube.add_identity(
            "injector-token", "system:serviceaccount:online-boutique:sre-gym-injector", inj_rules
        )
        agent = client.CoreV1Api(fc.api_client("agent-token"))
        injector = client.CoreV1Api(fc.api_client("injector-token"))
        assert agent.list_namespaced_pod(NS).items  # allowed
        with pytest.raises(ApiException) as e:
            agent.read_namespaced_secret("db-password", NS)
        assert e.value.status == 403
        body = json.loads(e.value.body)
        assert body["reason"] == "Forbidden" and 'cannot get resource "secrets"' in body["message"]
        with pytest.raises(ApiException) as e:
            agent.patch_node("kind-worker", {"spec": {"unschedulable": True}})
        assert (
            e.value.status == 403 and "at the cluster scope" in json.loads(e.value.body)["message"]
        )
        injector.patch_node("kind-worker", {"spec": {"unschedulable": True}})
        assert fc.kube.get("nodes", "kind-worker")["spec"]["unschedulable"] is True
        with pytest.raises(ApiException) as e:
            injector.delete_namespace(NS)
        assert e.value.status == 403
        # a request without a known token is not checked (the existing tests' clients)
        assert client.CoreV1Api(fc.api_client()).read_namespaced_secret("db-password", NS)
