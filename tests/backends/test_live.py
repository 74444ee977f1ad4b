"""The live backend against a fake Kubernetes API server and a fake Prometheus (no cluster needed).

The real ``kubernetes`` client and ``prometheus_api_client`` talk HTTP to the standard-library fakes
of ``sre_gym.testing.fake_cluster``; the guarded ``Toolbox`` drives the backend end to end.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading

import pytest

if os.environ.get("CI"):  # the live extra is part of `make test`: never skip silently in CI
    import kubernetes  # noqa: F401
    import prometheus_api_client  # noqa: F401
else:
    pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")
    pytest.importorskip("prometheus_api_client", reason="needs the live extra")

from kubernetes import client as k8s  # noqa: E402
from kubernetes import config as k8s_config  # noqa: E402

from sre_gym.backends.base import Backend, OperationError  # noqa: E402
from sre_gym.backends.live import LiveBackend, log_level, pod_status  # noqa: E402
from sre_gym.backends.sim import SimBackend  # noqa: E402
from sre_gym.bundle.evidence import Evidence  # noqa: E402
from sre_gym.clock import (
    rfc3339,  # noqa: E402
)
from sre_gym.testing.fake_cluster import EPOCH, FakeCluster, json_patch, merge_patch  # noqa: E402
from sre_gym.tools.dispatch import CHANGE_DETAIL, Toolbox  # noqa: E402

APP = "online-boutique"
NS = "online-boutique"
T0 = EPOCH + 7200.0


class Clock:
    """A settable clock; ``sleep`` records each duration and moves the clock by it (or by ``step``)."""

    def __init__(self, t: float) -> None:
        self.t = t
        self.sleeps: list[float] = []
        self.step: float | None = None

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.sleeps.append(s)
        self.t += s if self.step is None else self.step


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def fc(clock):
    cluster = FakeCluster(APP, clock=clock, replicas=2)
    cluster.start()
    yield cluster
    cluster.stop()
    assert not cluster.kube.running and not cluster.prom.running


@pytest.fixture
def api(fc):
    cfg = k8s.Configuration()
    cfg.host = fc.kube.url
    a = k8s.ApiClient(cfg)
    yield a
    a.close()


@pytest.fixture
def backend(fc, api, clock):
    b = LiveBackend(
        APP, api_client=api, prometheus_url=fc.prom.url, clock=clock, sleep=clock.sleep, seed=3
    )
    yield b
    b.close()


@pytest.fixture
def toolbox(backend):
    return Toolbox(backend, Evidence(manifest={}))


@pytest.fixture(scope="module")
def sim():
    b = SimBackend(APP, 0)
    b.advance_to(b.t0 + 120)
    return b


def run(tb: Toolbox, backend: LiveBackend, tool: str, **args) -> dict:
    out, _ = tb.execute({"tool": tool, "args": args}, backend.now, 1, 110.0)
    return out


def firing(name: str, activate: float, **labels: str) -> dict:
    return {
        "labels": {"alertname": name, "severity": "warning", **labels},
        "annotations": {
            "summary": f"{name} on {labels}",
            "description": "d",
            "runbook": f"check {name}",
        },
        "state": "firing",
        "activeAt": rfc3339(activate),
        "value": "1e+00",
    }


def open_incident(fc, backend, toolbox, clock, deployment: str = "cartservice") -> str:
    """An alert about ``deployment`` and an incident citing it (interventions must cite one)."""
    fc.prom.set_alerts([firing("KubePodCrashLooping", clock.t - 60, deployment=deployment)])
    backend.advance_to(clock.t)
    aid = backend.alerts(clock.t)[-1]["id"]
    rep = run(
        toolbox, backend, "report_incident", alert_ids=[aid], root_cause_services=[deployment],
        summary="crash looping",
    )  # fmt: skip
    assert rep["ok"], rep
    return rep["result"]["id"]


def mutations(fc) -> list[dict]:
    return [m for m in fc.kube.mutations if m["method"] != "GET"]


# ---------------------------------------------------------------------------------------- packaging
def test_import_sre_gym_does_not_import_kubernetes():
    code = (
        "import sre_gym, sre_gym.backends, sre_gym.testing, sys; "
        "heavy = [m for m in ('kubernetes', 'prometheus_api_client', 'sre_gym.backends.live') "
        "if m in sys.modules]; assert not heavy, heavy"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_a_missing_extra_names_it():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'kubernetes':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "try:\n"
        "    import sre_gym.backends.live\n"
        "except ImportError as e:\n"
        "    print(e)\n"
        "else:\n"
        "    raise SystemExit('imported without kubernetes')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "pip install 'sre_gym[live]'" in r.stdout and "kubernetes" in r.stdout


# ---------------------------------------------------------------------------------------- protocol
def test_protocol_attributes_follow_the_injected_clock(backend, clock):
    for name in Backend.__annotations__:
        assert hasattr(backend, name), name
    for name in (m for m in vars(Backend) if not m.startswith("_")):
        assert callable(getattr(backend, name)), name
    assert (backend.app, backend.seed, backend.release) == (APP, 3, "sre-marathon-r2")
    assert backend.namespace == NS and backend.tick_s == 15
    assert backend.t0 == backend.episode_start == T0
    assert backend.episode_end == T0 + 5400
    clock.t += 42
    assert backend.now == T0 + 42
    assert backend.evidence_arrays() == {}


def test_namespace_override_is_used_for_every_request(fc, api, clock):
    b = LiveBackend(APP, namespace="shop", api_client=api, prometheus_url=fc.prom.url, clock=clock)
    assert b.k8s_get("pods", None) == []  # nothing in "shop"
    assert b.topology()["namespace"] == "shop"
    assert ("GET", "/api/v1/namespaces/shop/pods") in fc.kube.requests
    b.close()


def test_without_an_api_client_kube_config_then_in_cluster_config_is_loaded(fc, clock, monkeypatch):
    calls = []

    def kube(client_configuration=None, **kw):
        calls.append("kube")
        raise k8s_config.ConfigException("Invalid kube-config file. No configuration found.")

    def incluster(client_configuration=None, **kw):
        calls.append("incluster")
        client_configuration.host = fc.kube.url

    monkeypatch.setattr(k8s_config, "load_kube_config", kube)
    monkeypatch.setattr(k8s_config, "load_incluster_config", incluster)
    b = LiveBackend(APP, prometheus_url=fc.prom.url, clock=clock)
    assert calls == ["kube", "incluster"]
    assert len(b.k8s_get("deployments", None)) == len(fc.kube.names("deployments"))
    b.close()

    def no_incluster(client_configuration=None, **kw):
        raise k8s_config.ConfigException("Service host/port is not set.")

    monkeypatch.setattr(k8s_config, "load_incluster_config", no_incluster)
    with pytest.raises(RuntimeError, match="no Kubernetes configuration.*KUBECONFIG"):
        LiveBackend(APP, prometheus_url=fc.prom.url, clock=clock)


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


def test_log_levels_are_inferred_from_common_formats():
    assert log_level('{"level":50,"msg":"x"}') == "error"
    assert log_level('{"level":40,"msg":"x"}') == "warning"
    assert log_level('{"severity":"info","message":"error budget ok"}') == "info"
    assert log_level("2026-01-01 00:00:00,000 - emailservice - ERROR - boom") == "error"
    assert log_level("fail: cartservice.cartstore.RedisCartStore[0] x") == "error"
    assert log_level('ts=1 level=warn msg="slow"') == "warning"
    assert log_level("2026-01-01T00:00:00Z WARN [main] x") == "warning"
    assert log_level("GET /cart 200") == "info"


def test_pod_status_helper():
    assert (
        pod_status({"metadata": {"deletionTimestamp": "x"}, "status": {"phase": "Running"}})
        == "Terminating"
    )
    assert pod_status({"status": {"phase": "Pending", "containerStatuses": [
        {"state": {"waiting": {"reason": "ImagePullBackOff"}}}]}}) == "ImagePullBackOff"  # fmt: skip


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


def test_a_bad_query_returns_prometheus_error_text_as_a_tool_error(fc, backend, toolbox):
    out = run(toolbox, backend, "query_metrics", query="sum(bad{job=")
    assert out["ok"] is False
    assert "parse error: unexpected end of input inside braces" in out["error"]
    assert out["error"].startswith("bad_data: ")
    with pytest.raises(OperationError, match="parse error"):
        backend.promql_range("bad{", T0 - 60, T0, 15)


def test_an_unreachable_prometheus_is_an_operation_error(fc, backend):
    fc.prom.stop()
    with pytest.raises(OperationError, match="prometheus at http://127.0.0.1:"):
        backend.promql_instant("up", T0)
    backend.poll_alerts()  # a failed poll changes nothing and says why
    assert backend.poll_error and backend.alerts(T0) == []


# ---------------------------------------------------------------------------------------- alerts
def test_alerts_get_ids_in_order_of_first_sight_and_resolve_when_gone(fc, backend, toolbox, clock):
    b_cart = firing("HighErrorRate", T0 - 120, service_name="cartservice")
    a_front = firing("HighErrorRate", T0 - 60, service_name="frontend")
    pending = dict(firing("HighLatency", T0, service_name="adservice"), state="pending")
    fc.prom.set_alerts([a_front, pending, b_cart])
    assert backend.alerts(T0) == []  # nothing polled yet
    backend.advance_to(T0)
    alerts = backend.alerts(T0)
    assert [(a["id"], a["labels"]["service_name"]) for a in alerts] == [
        ("ALR-0001", "cartservice"),  # the same poll: ties are ordered by labels
        ("ALR-0002", "frontend"),
    ]
    first = alerts[0]
    assert first == {
        "id": "ALR-0001",
        "name": "HighErrorRate",
        "severity": "warning",
        "state": "firing",
        "labels": b_cart["labels"],
        "starts_at": rfc3339(T0 - 120),
        "ends_at": None,
        "summary": b_cart["annotations"]["summary"],
        "description": "d",
    }
    assert backend.alert_entities("ALR-0002") == ["frontend"]
    assert backend.runbook("ALR-0001") == "check HighErrorRate"

    fc.prom.set_alerts([a_front])
    backend.advance_to(T0 + 30)
    fc.prom.set_alerts([a_front, b_cart])  # it fires again: a new alert
    backend.advance_to(T0 + 60)
    view = {a["id"]: a for a in backend.alerts(T0 + 60)}
    assert view["ALR-0001"]["state"] == "resolved"
    assert view["ALR-0001"]["ends_at"] == rfc3339(T0 + 30)
    assert view["ALR-0002"]["state"] == "firing"
    assert view["ALR-0003"]["labels"] == b_cart["labels"] and view["ALR-0003"]["state"] == "firing"
    assert backend.alerts(T0 + 10)[0]["state"] == "firing"  # as of an earlier time
    out = run(toolbox, backend, "get_alerts", state="resolved")
    assert [a["id"] for a in out["result"]] == ["ALR-0001"]
    assert out["result"][0]["runbook"] == "check HighErrorRate"

    ev = backend.drain_evidence()
    assert [(e["type"], e["id"], e["t"]) for e in ev] == [
        ("alert", "ALR-0001", T0),
        ("alert", "ALR-0002", T0),
        ("alert_resolved", "ALR-0001", T0 + 30),
        ("alert", "ALR-0003", T0 + 60),
    ]
    assert ev[0]["entities"] == ["cartservice"] and ev[0]["name"] == "HighErrorRate"
    assert backend.drain_evidence() == []


def test_advance_to_sleeps_through_the_injected_sleep_then_polls(fc, backend, clock):
    backend.advance_to(T0 + 120)
    assert clock.sleeps == [120.0] and clock.t == T0 + 120
    clock.step = 50.0  # a sleep that wakes early: advance_to keeps waiting
    backend.advance_to(T0 + 240)
    assert clock.sleeps == [120.0, 120.0, 70.0, 20.0] and clock.t == T0 + 270
    polls = [q for q in fc.prom.queries if q["path"] == "/api/v1/alerts"]
    assert len(polls) == 2 and backend.last_poll == T0 + 270
    backend.advance_to(T0)  # already past: no sleeping, still a poll
    assert len(clock.sleeps) == 4
    assert len([q for q in fc.prom.queries if q["path"] == "/api/v1/alerts"]) == 3
    clock.step = 0.0
    with pytest.raises(RuntimeError, match="clock did not move"):
        backend.advance_to(clock.t + 10)


# ---------------------------------------------------------------------------------------- interventions
def test_scale_through_the_toolbox_changes_replicas_and_records_an_intervention(fc, backend, toolbox, clock):  # fmt: skip
    refused = run(
        toolbox, backend, "scale", deployment="cartservice", replicas=3, incident_id="INC-0001"
    )
    assert not refused["ok"] and "report one first" in refused["error"]
    assert mutations(fc) == []
    iid = open_incident(fc, backend, toolbox, clock)
    out = run(toolbox, backend, "scale", deployment="cartservice", replicas=3, incident_id=iid)
    assert out == {"ok": True, "result": "deployment.apps/cartservice scaled to 3"}
    assert fc.kube.get("deployments", "cartservice")["spec"]["replicas"] == 3
    (m,) = mutations(fc)
    assert (
        m["method"] == "PATCH"
        and m["path"] == f"/apis/apps/v1/namespaces/{NS}/deployments/cartservice/scale"
    )
    assert m["body"] == {"spec": {"replicas": 3}}
    (x,) = toolbox.ev.of("intervention")
    assert (x["tool"], x["target"], x["incident_id"], x["in_scope"]) == (
        "scale",
        "cartservice",
        iid,
        True,
    )


def test_rollback_puts_the_previous_replicaset_template_back(fc, backend, toolbox, clock):
    before = fc.kube.get("deployments", "currencyservice")["spec"]["template"]
    fc.kube.rollout("currencyservice", image="registry.example/currencyservice:0badc0de", env={"EXTRA": "1"}, cause="deploy 0badc0de")  # fmt: skip
    assert backend.k8s_get("deployments", "currencyservice")["revision"] == 2
    iid = open_incident(fc, backend, toolbox, clock, "currencyservice")
    out = run(toolbox, backend, "rollback", deployment="currencyservice", incident_id=iid)
    assert out["ok"], out
    assert out["result"].startswith("deployment.apps/currencyservice rolled back to revision 1")
    (m,) = mutations(fc)
    assert m["content_type"] == "application/json-patch+json"
    assert m["body"][0]["op"] == "replace" and m["body"][0]["path"] == "/spec/template"
    assert "pod-template-hash" not in m["body"][0]["value"]["metadata"]["labels"]
    dep = fc.kube.get("deployments", "currencyservice")
    assert dep["spec"]["template"] == before  # the extra env var is gone too: replaced, not merged
    assert dep["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert "kubernetes.io/change-cause" not in dep["metadata"]["annotations"]  # revision 1 had none
    assert [h["revision"] for h in backend.k8s_describe("deployments", "currencyservice")["revision_history"]] == [2, 3]  # fmt: skip


def test_rollback_to_a_named_revision_and_refusals_change_nothing(fc, backend, toolbox, clock):
    iid = open_incident(fc, backend, toolbox, clock, "adservice")
    one = run(toolbox, backend, "rollback", deployment="adservice", incident_id=iid)
    assert not one["ok"] and "no previous revision" in one["error"]
    fc.kube.rollout("adservice", image="x/adservice:v2", cause="v2")
    fc.kube.rollout("adservice", image="x/adservice:v3", cause="v3")
    missing = run(
        toolbox, backend, "rollback", deployment="adservice", to_revision=9, incident_id=iid
    )
    assert not missing["ok"] and "no revision 9 (have: 1, 2, 3)" in missing["error"]
    current = run(
        toolbox, backend, "rollback", deployment="adservice", to_revision=3, incident_id=iid
    )
    assert not current["ok"] and "already the current revision" in current["error"]
    assert mutations(fc) == [] and toolbox.ev.of("intervention") == []
    out = run(toolbox, backend, "rollback", deployment="adservice", to_revision=2, incident_id=iid)
    assert out["ok"] and "revision 2 (image x/adservice:v2)" in out["result"]
    dep = fc.kube.get("deployments", "adservice")
    assert dep["spec"]["template"]["spec"]["containers"][0]["image"] == "x/adservice:v2"
    assert dep["metadata"]["annotations"]["kubernetes.io/change-cause"] == "v2"


def test_restart_stamps_the_episode_time_not_the_wall_clock(fc, backend, clock):
    clock.t = T0 + 5000  # the backend's clock is elsewhere: the stamp must be of t
    msg = backend.restart("emailservice", T0 + 1234)
    assert msg == "deployment.apps/emailservice restarted"
    tpl = fc.kube.get("deployments", "emailservice")["spec"]["template"]
    assert tpl["metadata"]["annotations"]["kubectl.kubernetes.io/restartedAt"] == rfc3339(T0 + 1234)
    assert tpl["metadata"]["labels"] == {"app": "emailservice"}  # merged, not replaced
    (m,) = mutations(fc)
    assert m["content_type"] == "application/strategic-merge-patch+json"
    assert backend.k8s_get("deployments", "emailservice")["revision"] == 2


def test_patch_config_sets_one_setting_of_the_first_container(fc, backend):
    def container():
        return fc.kube.get("deployments", "checkoutservice")["spec"]["template"]["spec"][
            "containers"
        ][0]

    env_before = {e["name"]: e["value"] for e in container()["env"]}
    msg = backend.patch_config("checkoutservice", "env.EXTRA_LATENCY", "2s", T0)
    assert msg.startswith("deployment.apps/checkoutservice patched (env.EXTRA_LATENCY=2s)")
    env = {e["name"]: e["value"] for e in container()["env"]}
    assert env == env_before | {"EXTRA_LATENCY": "2s"}
    backend.patch_config("checkoutservice", "env.PORT", "5051", T0)
    assert {e["name"]: e["value"] for e in container()["env"]}["PORT"] == "5051"
    backend.patch_config("checkoutservice", "resources.limits.memory", "256Mi", T0)
    assert container()["resources"]["limits"] == {"cpu": "200m", "memory": "256Mi"}
    assert container()["resources"]["requests"]["memory"] == "64Mi"
    backend.patch_config("checkoutservice", "readinessProbe.port", "5055", T0)
    assert container()["readinessProbe"]["grpc"] == {"port": 5055}
    assert fc.kube.get("deployments", "checkoutservice")["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "5"  # fmt: skip
    n = len(mutations(fc))
    assert "not changed" in backend.patch_config("checkoutservice", "env.PORT", "5051", T0)
    for key, value, err in [
        ("resources.limits.cpu", "lots", "bad CPU quantity"),
        ("resources.limits.memory", "12", "bad memory quantity"),
        ("readinessProbe.port", "70000", "must be a port number"),
        ("env.BAD-NAME", "1", "invalid environment variable name"),
        ("image", "x", "unsupported key 'image'"),
    ]:
        with pytest.raises(OperationError, match=err):
            backend.patch_config("checkoutservice", key, value, T0)
    assert len(mutations(fc)) == n


def test_patch_config_replaces_an_env_reference_with_a_value(fc, backend):
    dep = fc.kube.get("deployments", "cartservice")
    dep["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "REDIS_ADDR", "valueFrom": {"configMapKeyRef": {"name": "redis", "key": "addr"}}}
    ]
    fc.kube.add("deployments", dep)
    backend.patch_config("cartservice", "env.REDIS_ADDR", "redis-cart:6379", T0)
    c = fc.kube.get("deployments", "cartservice")["spec"]["template"]["spec"]["containers"][0]
    assert c["env"] == [{"name": "REDIS_ADDR", "value": "redis-cart:6379"}]


def test_an_unknown_deployment_is_a_clear_error_and_changes_nothing(fc, backend, toolbox, clock):
    iid = open_incident(fc, backend, toolbox, clock)
    before = {n: fc.kube.get("deployments", n) for n in fc.kube.names("deployments")}
    for tool, args in [
        ("scale", {"replicas": 2}),
        ("restart", {}),
        ("rollback", {}),
        ("patch_config", {"key": "env.X", "value": "1"}),
    ]:
        out = run(toolbox, backend, tool, deployment="ghost", incident_id=iid, **args)
        assert out == {
            "ok": False,
            "error": "no deployment 'ghost' in namespace online-boutique",
        }, tool
    assert {n: fc.kube.get("deployments", n) for n in fc.kube.names("deployments")} == before
    assert toolbox.ev.of("intervention") == []


def test_other_api_refusals_carry_status_and_reason(fc, backend):
    fc.kube.refuse(
        "PATCH", "/deployments/frontend", 409, "Conflict", "the object has been modified"
    )
    with pytest.raises(OperationError) as e:
        backend.restart("frontend", T0)
    assert str(e.value) == (
        "kubernetes API refused the request on deployment 'frontend': 409 Conflict: "
        "the object has been modified"
    )
    assert "kubectl.kubernetes.io/restartedAt" not in json.dumps(
        fc.kube.get("deployments", "frontend")
    )
    fc.kube.refuse(
        "DELETE", "/pods/", 403, "Forbidden", 'pods is forbidden: User "agent" cannot delete'
    )
    with pytest.raises(OperationError, match="403 Forbidden: pods is forbidden"):
        backend.delete("pods", fc.kube.pods_of("frontend")[0], T0)
    assert len(fc.kube.pods_of("frontend")) == 2


def test_delete_pods_and_networkpolicies_only(fc, backend, toolbox, clock):
    fc.kube.add(
        "networkpolicies",
        {"metadata": {"name": "deny-all"}, "spec": {"podSelector": {"matchLabels": {"app": "cartservice"}}}},
    )  # fmt: skip
    iid = open_incident(fc, backend, toolbox, clock)
    pod = fc.kube.pods_of("cartservice")[0]
    node = fc.kube.get("pods", pod)["spec"]["nodeName"]
    assert backend.entity_of("pods", pod) == "cartservice" and backend.node_of_pod(pod) == node
    assert backend.entity_of("deployments", "cartservice") == "cartservice"
    assert (
        backend.entity_of("deployments", "ghost") is None and backend.node_of_pod("ghost") is None
    )
    out = run(toolbox, backend, "delete_resource", kind="pods", name=pod, incident_id=iid)
    assert out == {"ok": True, "result": f'pod "{pod}" deleted'}
    assert fc.kube.get("pods", pod) is None
    out = run(
        toolbox,
        backend,
        "delete_resource",
        kind="networkpolicies",
        name="deny-all",
        incident_id=iid,
    )
    assert out["ok"] and fc.kube.get("networkpolicies", "deny-all") is None
    xs = toolbox.ev.of("intervention")
    assert [(x["target"], x["node"]) for x in xs] == [("cartservice", node), ("cartservice", None)]
    no = run(
        toolbox, backend, "delete_resource", kind="deployments", name="cartservice", incident_id=iid
    )
    assert not no["ok"] and "deleting deployments is not supported" in no["error"]
    gone = run(toolbox, backend, "delete_resource", kind="pods", name=pod, incident_id=iid)
    assert gone == {"ok": False, "error": f"no pod '{pod}' in namespace online-boutique"}
    assert fc.kube.get("deployments", "cartservice") is not None


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


# ---------------------------------------------------------------------------------------- the fakes
def test_the_fake_servers_shut_down_and_free_their_ports(clock):
    before = {t.ident for t in threading.enumerate()}
    cluster = FakeCluster(APP, clock=clock).start()
    ports = [int(s.url.rsplit(":", 1)[1]) for s in (cluster.kube, cluster.prom)]
    assert all(s.url.startswith("http://127.0.0.1:") for s in (cluster.kube, cluster.prom))
    cluster.stop()
    for port in ports:
        with socket.socket() as s, pytest.raises(OSError):
            s.settimeout(2)
            s.connect(("127.0.0.1", port))
    assert {t.ident for t in threading.enumerate() if t.is_alive()} <= before


def test_the_fake_patch_helpers_follow_the_rfcs():
    doc = {
        "a": {"b": 1, "c": [1, 2]},
        "containers": [{"name": "s", "env": [{"name": "A", "value": "1"}]}],
    }
    merge_patch(doc, {"a": {"b": None, "c": [3]}, "containers": [{"name": "s", "env": [{"name": "B", "value": "2"}]}]}, strategic=True)  # fmt: skip
    assert doc == {
        "a": {"c": [3]},
        "containers": [
            {"name": "s", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}
        ],
    }
    json_patch(doc, [{"op": "replace", "path": "/a/c", "value": []}, {"op": "add", "path": "/x~1y", "value": 1}])  # fmt: skip
    assert doc["a"] == {"c": []} and doc["x/y"] == 1


def test_tools_outside_this_slice_answer_with_a_clear_error(backend, toolbox):
    for tool, args in [
        ("get_traces", {"service": "frontend"}),
        ("read_source", {"service": "frontend"}),
    ]:
        out = run(toolbox, backend, tool, **args)
        assert out["ok"] is False and "not available on this backend (LiveBackend" in out["error"]
    topo = run(toolbox, backend, "get_topology")["result"]
    assert topo["entrypoint"] == "frontend" and {n["zone"] for n in topo["nodes"]} == {
        "zone-a",
        "zone-b",
    }
