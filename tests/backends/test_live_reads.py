"""The live backend's reads against the fakes of ``sre_gym.testing.fake_cluster``: ``kubectl get``
and ``describe`` views with the simulator's shapes, logs, PromQL and the change history.
"""

from __future__ import annotations

import json
import os

import pytest

if os.environ.get("CI"):  # the live extra is part of `make test`: never skip silently in CI
    import kubernetes  # noqa: F401
    import prometheus_api_client  # noqa: F401
else:
    pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")
    pytest.importorskip("prometheus_api_client", reason="needs the live extra")

from sre_gym.backends.base import OperationError  # noqa: E402
from sre_gym.clock import rfc3339  # noqa: E402
from sre_gym.tools.dispatch import CHANGE_DETAIL  # noqa: E402

from .conftest import NS, T0, run  # noqa: E402


# ---------------------------------------------------------------------------------------- reads
def test_k8s_get_pods_returns_kubectl_rows_through_the_toolbox(fc, backend, toolbox, sim, clock):
    clock.t += 3600
    out = run(toolbox, backend, "k8s_get", kind="pods")
    assert out["ok"], out
    rows = out["result"]
    assert [r["name"] for r in rows] == fc.kube.names("pods")
    assert set(rows[0]) == set(sim.k8s_get("pods", None)[0])
    cart = [r for r in rows if r["deployment"] == "cartservice"]
    assert len(cart) == 2 and all(r["status"] == "Running" and r["ready"] == "1/1" for r in cart)
    pod = fc.kube.get("pods", cart[0]["name"])
    assert cart[0]["node"] == pod["spec"]["nodeName"]
    assert cart[0]["age"] == "2h0m"  # created an hour before the fake started, an hour ago


def test_a_crash_looping_pod_shows_kubectl_status_and_restarts(fc, backend):
    name = fc.kube.pods_of("cartservice")[0]
    pod = fc.kube.get("pods", name)
    pod["status"]["containerStatuses"][0].update(
        ready=False,
        restartCount=7,
        state={"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
        lastState={"terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": rfc3339(T0 - 30)}},
    )  # fmt: skip
    fc.kube.add("pods", pod)
    row = backend.k8s_get("pods", name)
    assert (row["status"], row["restarts"], row["ready"]) == ("CrashLoopBackOff", 7, "0/1")
    d = backend.k8s_describe("pods", name)
    assert d["last_state"] == {
        "terminated": {"reason": "OOMKilled", "exit_code": 137, "finished_at": rfc3339(T0 - 30)}
    }


@pytest.mark.parametrize(
    "kind",
    ["deployments", "replicasets", "services", "nodes", "events", "configmaps", "namespaces"],
)
def test_k8s_get_rows_have_the_simulator_shape(backend, sim, kind):
    live, simulated = backend.k8s_get(kind, None), sim.k8s_get(kind, None)
    assert live and simulated
    assert all(set(r) == set(simulated[0]) for r in live), (sorted(live[0]), sorted(simulated[0]))


def test_k8s_get_values_come_from_the_api_objects(fc, backend):
    dep = backend.k8s_get("deployments", "frontend")
    assert dep["ready"] == "2/2" and dep["revision"] == 1
    assert dep["image"].endswith("/frontend:v0.10.6")
    rs = [r for r in backend.k8s_get("replicasets", None) if r["name"].startswith("frontend-")]
    assert [(r["revision"], r["desired"]) for r in rs] == [(1, 2)]
    svc = backend.k8s_get("services", "emailservice")
    assert svc["ports"] == ["5000/TCP"] and svc["selector"] == {"app": "emailservice"}
    nodes = {n["name"]: n for n in backend.k8s_get("nodes", None)}
    assert nodes["kind-worker3"] == {
        "name": "kind-worker3",
        "status": "Ready",
        "zone": "zone-b",
        "roles": "<none>",
    }
    assert {n["name"] for n in backend.k8s_get("namespaces", None)} >= {NS, "kube-system"}
    with pytest.raises(
        OperationError, match="deployments 'nope' not found in namespace online-boutique"
    ):
        backend.k8s_get("deployments", "nope")


def test_networkpolicies_are_listed_and_described(fc, backend, clock):
    fc.kube.add(
        "networkpolicies",
        {
            "metadata": {"name": "deny-cart-egress"},
            "spec": {"podSelector": {"matchLabels": {"app": "cartservice"}}, "policyTypes": ["Egress"]},
        },
    )  # fmt: skip
    (row,) = backend.k8s_get("networkpolicies", None)
    assert row["name"] == "deny-cart-egress"
    assert row["pod_selector"] == {"app": "cartservice"} and row["policy_types"] == ["Egress"]
    assert row["egress"] == [] and row["created"] == rfc3339(T0)
    d = backend.k8s_describe("networkpolicies", "deny-cart-egress")
    assert d["name"] == "deny-cart-egress" and d["events"] == []
    assert backend.entity_of("networkpolicies", "deny-cart-egress") == "cartservice"


def test_describe_has_the_simulator_shape_and_the_objects_events(fc, backend, sim):
    pod = fc.kube.pods_of("frontend")[0]
    sim_pod = sim.k8s_get("pods", None)[0]["name"]
    d = backend.k8s_describe("pods", pod)
    s = sim.k8s_describe("pods", sim_pod)
    assert set(d) == set(s) and set(d["container"]) == set(s["container"])
    assert (
        d["controlled_by"]
        == f"ReplicaSet/{fc.kube.replicasets_of('frontend')[0]['metadata']['name']}"
    )
    assert d["container"]["readinessProbe"] == {"port": 8080}
    assert [e["reason"] for e in d["events"]] == ["Started"]  # only this pod's events
    dd = backend.k8s_describe("deployments", "frontend")
    sd = sim.k8s_describe("deployments", "frontend")
    assert set(dd) == set(sd) and set(dd["template"]) == set(sd["template"])
    assert set(dd["revision_history"][0]) == set(sd["revision_history"][0])
    assert dd["strategy"] == "RollingUpdate (maxSurge 25%, maxUnavailable 25%)"
    assert [e["reason"] for e in dd["events"]] == ["ScalingReplicaSet"]
    node = fc.kube.get("pods", pod)["spec"]["nodeName"]
    dn = backend.k8s_describe("nodes", node)
    assert set(dn) == set(sim.k8s_describe("nodes", node))
    assert pod in [p["name"] for p in dn["pods"]] and all(p["node"] == node for p in dn["pods"])
    with pytest.raises(OperationError, match="no pod 'ghost' in namespace online-boutique"):
        backend.k8s_describe("pods", "ghost")


def test_secrets_are_refused_by_the_backend_without_asking_the_api(fc, backend, toolbox):
    for call in (lambda: backend.k8s_get("secrets", None), lambda: backend.k8s_describe("secrets", "db-password")):  # fmt: skip
        with pytest.raises(OperationError, match="secrets are not readable"):
            call()
    out = run(toolbox, backend, "k8s_get", kind="secrets")
    assert not out["ok"] and "forbidden" in out["error"]
    assert not [p for _, p in fc.kube.requests if "secrets" in p]


def test_logs_merge_the_service_pods_newest_last_with_filters(fc, backend, toolbox, clock):
    a, b = fc.kube.pods_of("productcatalogservice")
    fc.kube.set_logs(a, [
        (T0 - 900, '{"message":"too old","severity":"error"}'),
        (T0 - 100, '{"message":"parsed catalog","severity":"info"}'),
        (T0 - 40, '{"message":"failed to open catalog","severity":"error"}'),
    ])  # fmt: skip
    fc.kube.set_logs(b, [
        (T0 - 70, '{"message":"slow request","severity":"warning"}'),
        (T0 - 10, '{"message":"failed to open catalog","severity":"error"}'),
    ])  # fmt: skip
    out = run(toolbox, backend, "query_logs", service="productcatalogservice", since_s=300)
    assert out["ok"], out
    assert [json.loads(x)["message"] for x in out["result"]] == [
        "parsed catalog",
        "slow request",
        "failed to open catalog",
        "failed to open catalog",
    ]
    reqs = [q for q in fc.kube.requests if q[1].endswith("/log")]
    assert sorted(p for _, p in reqs) == sorted(
        f"/api/v1/namespaces/{NS}/pods/{p}/log" for p in (a, b)
    )
    errors = backend.logs("productcatalogservice", T0 - 300, T0, level="error", limit=1)
    assert errors == ['{"message":"failed to open catalog","severity":"error"}']
    assert backend.logs("productcatalogservice", T0 - 300, T0 - 50, contains="catalog") == [
        '{"message":"parsed catalog","severity":"info"}'
    ]
    bad = run(toolbox, backend, "query_logs", service="nosuch")
    assert not bad["ok"] and "service 'nosuch' has no logs" in bad["error"]


# ---------------------------------------------------------------------------------------- prometheus
def test_promql_returns_prometheus_data_objects(fc, backend, toolbox, clock):
    vec = {"resultType": "vector", "result": [{"metric": {"job": "cart"}, "value": [T0, "0.5"]}]}
    mat = {
        "resultType": "matrix",
        "result": [{"metric": {}, "values": [[T0 - 60, "1"], [T0, "2"]]}],
    }
    fc.prom.instant["rate(x[1m])"] = vec
    fc.prom.instant["x[5m]"] = mat
    fc.prom.instant["scalar(up)"] = {"resultType": "scalar", "result": [T0, "3"]}
    fc.prom.ranges["up"] = mat
    out = run(toolbox, backend, "query_metrics", query="rate(x[1m])")
    assert out == {"ok": True, "result": vec}
    assert backend.promql_instant("x[5m]", T0) == mat
    assert backend.promql_instant("scalar(up)", T0) == {"resultType": "scalar", "result": [T0, "3"]}
    assert backend.promql_instant("absent_metric", T0) == {"resultType": "vector", "result": []}
    out = run(toolbox, backend, "query_metrics", query="up", range_s=600, step_s=30)
    assert out == {"ok": True, "result": mat}
    q = fc.prom.queries
    assert q[0]["path"] == "/api/v1/query" and float(q[0]["time"]) == T0
    rng = [x for x in q if x["path"] == "/api/v1/query_range"][0]
    assert (int(rng["start"]), int(rng["end"]), float(rng["step"])) == (
        int(T0) - 600,
        int(T0),
        30.0,
    )


# ---------------------------------------------------------------------------------------- changes
def test_changes_are_one_per_revision_with_commit_shas_from_image_tags(fc, backend, toolbox, clock):
    clock.t = T0 + 100
    fc.kube.rollout("shippingservice", image="x/shippingservice:3f9a2b7c1d", cause="deploy 3f9a2b7: cache quotes")  # fmt: skip
    clock.t = T0 + 200
    fc.kube.rollout("shippingservice", env={"DISABLE_PROFILER": "0"}, cause="kubectl set env")
    changes = [c for c in backend.changes() if c["service"] == "shippingservice"]
    assert [(c["revision"], c["kind"], c["t"]) for c in changes] == [
        (1, "image", T0),
        (2, "image", T0 + 100),
        (3, "config", T0 + 200),
    ]
    assert (
        changes[1]["sha"] == "3f9a2b7c1d" and changes[1]["title"] == "deploy 3f9a2b7: cache quotes"
    )
    assert changes[0]["sha"] != changes[2]["sha"] and len(changes[2]["sha"]) == 40
    assert (
        changes[2]["sha"] == [c for c in backend.changes() if c["revision"] == 3][0]["sha"]
    )  # stable
    assert (
        set(changes[0]) == {*CHANGE_DETAIL, "t"}
        and changes[0]["diff"] == ""
        and changes[0]["pipeline"] == {}
    )
    out = run(toolbox, backend, "show_change", sha="3f9a2b7")
    assert out["ok"] and out["result"]["image"] == "x/shippingservice:3f9a2b7c1d"
    listed = run(toolbox, backend, "list_changes", service="shippingservice")
    assert [c["revision"] for c in listed["result"]] == [3, 2, 1]
