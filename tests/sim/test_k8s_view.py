"""kubectl-like views of a SimCluster (sre_gym/sim/k8s_view.py)."""

from __future__ import annotations

import re

import pytest

from sre_gym.catalogs.schema import Change
from sre_gym.clock import EPOCH
from sre_gym.sim import k8s_view as K
from sre_gym.sim.netpol import egress_allowlist

NS = "online-boutique"


@pytest.fixture(scope="module")
def busy(warm, changes):
    """A cluster with a crash loop, an OOM kill, a stuck image pull, a policy and a dead node."""
    cl = warm()
    t = cl.now
    cl.deploy_change(changes["shipping-free-promo"], "1" * 40, t + 1)
    cl.deploy_change(changes["ad-memory-rightsize"], "2" * 40, t + 1)
    bogus = Change(
        id="b",
        service="emailservice",
        kind="image",
        title="bump",
        files=[],
        diff="",
        image_tag="v9",
    )
    cl.deploy_change(bogus, "3" * 40, t + 400)
    cl.add_networkpolicy(
        egress_allowlist(
            cl.topo.app, "checkout-egress-allowlist", "checkoutservice", "paymentservice", t + 1
        )
    )
    cl.advance_to(t + 600)
    cl.set_node_ready("kind-worker4", False, cl.now)
    cl.advance_to(cl.now + 60)
    return cl


def by_name(items):
    return {it["name"]: it for it in items}


def test_get_pods(busy):
    pods = K.get(busy, "pods")
    assert len(pods) == len({p["name"] for p in pods})
    for p in pods:
        assert set(p) == {"name", "ready", "status", "restarts", "age", "node", "deployment"}
        assert re.fullmatch(r"[a-z-]+-[b-z2-9]{10}-[b-z2-9]{5}", p["name"]), p["name"]
        assert p["name"].startswith(p["deployment"] + "-")
        assert p["ready"] in ("0/1", "1/1")
    statuses = {p["status"] for p in pods}
    assert {"Running", "CrashLoopBackOff", "Unknown"} <= statuses
    assert statuses & {"ImagePullBackOff", "ErrImagePull"}
    one = pods[0]
    assert K.get(busy, "pods", one["name"]) == one


def test_get_deployments_and_replicasets(busy):
    deps = by_name(K.get(busy, "deployments"))
    assert set(deps) == {d.name for d in busy.world.deployments}
    email = deps["emailservice"]
    assert email["revision"] == 2 and email["image"].endswith("emailservice:v9")
    assert email["ready"] == "1/1" and email["up_to_date"] == 1 and email["available"] == 1
    assert deps["frontend"]["ready"] == "1/1" and deps["frontend"]["age"] == "21m"
    rs = [r for r in K.get(busy, "replicasets") if r["name"].startswith("emailservice-")]
    assert [r["revision"] for r in rs] == [1, 2]
    assert [r["desired"] for r in rs] == [0, 1]
    assert [(r["current"], r["ready"]) for r in rs] == [(1, 1), (1, 0)]  # stuck rollout


def test_each_deployments_counts_are_the_cluster_status_of_it(busy):
    """A deployment's summary counts its own pods; the counts are those of the status every
    deployment gets at once (the kube-state-metrics view), here with a stuck rollout, crash
    loops and a dead node among them."""
    st = busy.deployment_status()
    deps = by_name(K.get(busy, "deployments"))
    for d in busy.world.deployments:
        got = deps[d.name]
        assert got["available"] == st["status_replicas_available"][d.index]
        assert got["up_to_date"] == st["status_replicas_updated"][d.index]
        assert got["ready"] == f"{got['available']}/{d.replicas}"
        assert K.describe(busy, "deployments", d.name)["available"] == got["available"]
    assert any(g["up_to_date"] < g["available"] for g in deps.values()) or any(
        g["available"] < int(g["ready"].split("/")[1]) for g in deps.values()
    )


def test_get_services_nodes_namespaces_configmaps(busy):
    svcs = by_name(K.get(busy, "services"))
    assert "loadgenerator" not in svcs and len(svcs) == 11
    assert svcs["emailservice"]["ports"] == ["5000/TCP"]
    assert svcs["frontend"]["ports"] == ["8080/TCP"]
    assert len({s["cluster_ip"] for s in svcs.values()}) == 11
    nodes = by_name(K.get(busy, "nodes"))
    assert (
        nodes["kind-worker4"]["status"] == "NotReady" and nodes["kind-worker"]["status"] == "Ready"
    )
    assert nodes["kind-worker3"]["zone"] == "zone-b"
    assert {n["name"] for n in K.get(busy, "namespaces")} >= {NS, "monitoring", "kube-system"}
    assert by_name(K.get(busy, "configmaps"))["kube-root-ca.crt"]["data"]


def test_get_networkpolicies_and_events(busy):
    pol = K.get(busy, "networkpolicies", "checkout-egress-allowlist")
    assert pol["pod_selector"] == {"app": "checkoutservice"}
    assert pol["policy_types"] == ["Egress"]
    # the standard spec: an allow-list of callees that leaves paymentservice out, and DNS
    to = [x["podSelector"]["matchLabels"]["app"] for x in pol["egress"][0]["to"]]
    assert "paymentservice" not in to and "shippingservice" in to
    assert pol["egress"][1]["ports"] == [{"port": 53, "protocol": "UDP"}]
    assert "egress_denied_to" not in pol
    own = K.get(busy, "networkpolicies", "allow-paymentservice")
    assert own["policy_types"] == ["Ingress"] and own["ingress"][0]["from"] == [
        {"podSelector": {"matchLabels": {"app": "checkoutservice"}}}
    ]
    evs = K.get(busy, "events")
    assert 0 < len(evs) <= 200
    assert [e["last_seen"] for e in evs] == sorted(e["last_seen"] for e in evs)
    reasons = {e["reason"] for e in evs}
    assert {"BackOff", "OOMKilling", "Failed", "NodeNotReady"} <= reasons
    backoff = [
        e for e in evs if e["reason"] == "BackOff" and e["object"].startswith("pod/shippingservice")
    ]
    assert backoff and backoff[0]["count"] > 1


@pytest.mark.parametrize(
    ("kind", "name", "message"),
    [
        ("pods", "frontend-nope", f"pods 'frontend-nope' not found in namespace {NS}"),
        ("deployments", "web", f"deployments 'web' not found in namespace {NS}"),
        ("nodes", "kind-worker9", f"nodes 'kind-worker9' not found in namespace {NS}"),
        ("widgets", None, "unknown kind 'widgets'"),
        ("secrets", None, "secrets are not readable"),
    ],
)
def test_get_not_found(busy, kind, name, message):
    with pytest.raises(K.NotFound) as e:
        K.get(busy, kind, name)
    assert e.value.args[0] == message
    assert isinstance(e.value, KeyError)


def test_describe_crashing_pod(busy):
    row = next(
        r
        for r in busy.pods.live()
        if busy.pods.names[r].startswith("shippingservice-") and busy.pods.restarts[r] > 1
    )
    name = busy.pods.names[row]
    d = K.describe(busy, "pods", name)
    assert d["status"] == d["state"] == "CrashLoopBackOff"
    assert d["last_state"]["terminated"]["reason"] == "Error"
    assert d["last_state"]["terminated"]["exit_code"] == 2
    assert d["controlled_by"] == "ReplicaSet/" + name.rsplit("-", 1)[0]
    assert d["container"]["name"] == "server"
    assert d["container"]["image"].endswith(":" + "1" * 12)
    assert any(e["reason"] == "BackOff" for e in d["events"])
    assert all(e["object"] == f"pod/{name}" for e in d["events"])


def test_describe_oom_killed_pod(busy):
    row = next(
        r
        for r in busy.pods.live()
        if busy.pods.names[r].startswith("adservice-") and busy.pods.last_term[r] == 2
    )
    d = K.describe(busy, "pods", busy.pods.names[row])
    assert d["last_state"]["terminated"]["reason"] == "OOMKilled"
    assert d["last_state"]["terminated"]["exit_code"] == 137
    assert d["container"]["resources"]["limits"]["memory"] == "150Mi"


def test_describe_deployment_history(busy):
    d = K.describe(busy, "deployments", "shippingservice")
    hist = d["revision_history"]
    assert [h["revision"] for h in hist] == [1, 2]
    assert (
        hist[0]["change_cause"] == "initial deploy" and hist[0]["created"] == "2026-01-01T00:00:00Z"
    )
    assert hist[1]["change_cause"] == "deploy 1111111: quote: free shipping for promo regions"
    assert d["strategy"].startswith("RollingUpdate")
    assert d["template"]["image"].endswith(":" + "1" * 12)
    assert d["replicas"] == 1


def test_describe_node(busy):
    d = K.describe(busy, "nodes", "kind-worker4")
    assert d["conditions"][0]["status"] == "Unknown"
    assert d["conditions"][0]["reason"] == "NodeStatusUnknown"
    assert d["pods"] and all(p["node"] == "kind-worker4" for p in d["pods"])
    statuses = {p["status"] for p in d["pods"]}
    assert "Unknown" in statuses and "Running" not in statuses  # nothing runs on a silent node
    assert any(e["reason"] == "NodeNotReady" for e in d["events"])


def test_describe_replicaset_shows_its_events(busy):
    rs = next(r for r in K.get(busy, "replicasets") if r["name"].startswith("frontend-"))
    recorded = [e for e in busy.world.events if e.name == rs["name"]]
    assert recorded and recorded[0].reason == "SuccessfulCreate"
    d = K.describe(busy, "replicasets", rs["name"])
    assert [e["reason"] for e in d["events"]] == [e.reason for e in recorded]


def test_describe_not_found(busy):
    for kind, name, msg in [
        ("pods", "x", f"pod 'x' not found in namespace {NS}"),
        ("deployments", "x", f"deployment 'x' not found in namespace {NS}"),
        ("nodes", "x", "node 'x' not found"),
        ("services", "x", f"services 'x' not found in namespace {NS}"),
    ]:
        with pytest.raises(K.NotFound) as e:
            K.describe(busy, kind, name)
        assert e.value.args[0] == msg


def test_status_strings(warm):
    cl = warm()
    row = cl.pods.live()[0]
    assert K._status(cl, row) == "Running"
    cl.pods.state[row] = 0
    assert K._status(cl, row) == "ContainerCreating"
    cl.pods.node[row] = -1
    assert K._status(cl, row) == "Pending"


@pytest.mark.parametrize(
    ("s", "text"),
    [
        (0, "0s"),
        (119, "119s"),
        (120, "2m"),
        (7199, "119m"),
        (7200, "2h0m"),
        (9000, "2h30m"),
        (-5, "0s"),
    ],
)
def test_age(s, text):
    assert K.age(EPOCH + s, EPOCH) == text


def test_reading_changes_nothing(busy):
    import copy

    before = copy.deepcopy(busy.world)
    names = list(busy.pods.names)
    for kind in (
        "pods",
        "deployments",
        "replicasets",
        "services",
        "nodes",
        "events",
        "configmaps",
        "networkpolicies",
        "namespaces",
    ):
        K.get(busy, kind)
    for r in busy.pods.live():
        K.describe(busy, "pods", busy.pods.names[r])
    for d in busy.world.deployments:
        K.describe(busy, "deployments", d.name)
    assert busy.world == before and busy.pods.names == names
