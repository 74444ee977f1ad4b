"""The fake cluster's world: controller, kubelet and traffic (sre_gym/testing/fake_world.py)."""

from __future__ import annotations

import json

import pytest

from sre_gym.testing.fake_cluster import FakeKubernetes

T0 = 1_800_000_000.0


@pytest.fixture
def world():
    t = [T0]
    kube = FakeKubernetes("online-boutique", clock=lambda: t[0], world=True)
    kube.t = t
    return kube


def pods(kube, dep):
    kube.world.sync()
    return [kube.get("pods", p) for p in kube.pods_of(dep)]


def state(p):
    return next(iter(p["status"]["containerStatuses"][0]["state"]))


def test_a_healthy_app_serves_its_load_without_errors(world):
    r = world.world.rates()
    assert r.req[r.entry] > 10 and max(r.err.values()) == 0.0
    assert all(r.req[s] > 0 for s in ("cartservice", "redis-cart", "currencyservice"))


def test_a_bad_image_waits_while_the_old_pod_keeps_serving(world):
    world.rollout("cartservice", image="gcr.io/x/cartservice:nope")
    ps = pods(world, "cartservice")
    assert sorted(state(p) for p in ps) == ["running", "waiting"]
    dep = world.get("deployments", "cartservice")
    assert dep["status"]["availableReplicas"] == 1 and dep["status"]["updatedReplicas"] == 1
    assert world.world.rates().err["cartservice"] == 0.0  # the old pod still answers


def test_a_crashing_command_crash_loops_and_restarts_count_up(world):
    with world.lock:
        c = world.objects["deployments"][(world.namespace, "emailservice")]["spec"]["template"][
            "spec"
        ]["containers"][0]
        c["command"] = ["/bin/sh", "-c", "exit 2"]
        world._reconcile(world.objects["deployments"][(world.namespace, "emailservice")])
    new = [p for p in pods(world, "emailservice") if state(p) == "waiting"]
    assert (
        new
        and new[0]["status"]["containerStatuses"][0]["state"]["waiting"]["reason"]
        == "CrashLoopBackOff"
    )
    world.t[0] += 200
    n = [p for p in pods(world, "emailservice") if state(p) == "waiting"][0]
    assert n["status"]["containerStatuses"][0]["restartCount"] >= 5


def test_scaling_to_zero_breaks_its_callers_edges(world):
    with world.lock:
        world.objects["deployments"][(world.namespace, "paymentservice")]["spec"]["replicas"] = 0
    assert pods(world, "paymentservice") == []
    r = world.world.rates()
    assert r.edges[("checkoutservice", "paymentservice")][1] == 1.0
    assert r.err["checkoutservice"] == 1.0


def test_an_egress_policy_leaving_a_callee_out_blocks_that_edge_only(world):
    world.add("networkpolicies", {"metadata": {"name": "lockdown"}, "spec": {
        "podSelector": {"matchLabels": {"app": "checkoutservice"}}, "policyTypes": ["Egress"],
        "egress": [{"to": [{"podSelector": {"matchLabels": {"app": "cartservice"}}}]}]}})  # fmt: skip
    r = world.world.rates()
    assert r.edges[("checkoutservice", "cartservice")][1] == 0.0
    assert r.edges[("checkoutservice", "paymentservice")][1] == 1.0


def test_a_no_execute_taint_evicts_and_reschedules_elsewhere(world):
    before = {
        p["metadata"]["name"]: p["spec"]["nodeName"]
        for s in ("frontend", "cartservice")
        for p in pods(world, s)
    }
    node = next(iter(before.values()))
    with world.lock:
        world.objects["nodes"][("", node)]["spec"] = {
            "unschedulable": True,
            "taints": [{"key": "k", "effect": "NoExecute"}],
        }
    after = [p for s in ("frontend", "cartservice") for p in pods(world, s)]
    assert after and all(p["spec"]["nodeName"] != node for p in after)


def test_a_flag_off_its_default_changes_its_service():
    kube = FakeKubernetes("astronomy-shop", clock=lambda: T0, world=True)
    with kube.lock:
        cm = kube.objects["configmaps"][(kube.namespace, "flagd-config")]
        doc = json.loads(cm["data"]["demo.flagd.json"])
        doc["flags"]["adFailure"]["defaultVariant"] = "on"
        cm["data"]["demo.flagd.json"] = json.dumps(doc)
    kube.world.sync()
    assert kube.world.rates().err["ad"] > 0.0
