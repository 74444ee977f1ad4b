"""The live backend's interventions against the fake Kubernetes API of ``sre_gym.testing.fake_cluster``:
what is sent, what the object becomes, and that refusals send nothing.
"""

from __future__ import annotations

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

from .conftest import NS, T0, mutations, open_incident, run  # noqa: E402


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
