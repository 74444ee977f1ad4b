"""observed: the cluster facts the numeric wrappers read, as the agent's own tools show them."""

from __future__ import annotations

from sre_gym.sim.netpol import egress_allowlist
from sre_gym.sim.topology import compile_topology
from sre_gym.wrappers.observed import (
    call_workload,
    egress_policies,
    env_drift,
    flags_changed,
    pod_owner,
    stranded_pods,
)


def _backend(make, app="online-boutique", faults=(), until=0):
    env = make(app=app, noise="off", schedule="short")
    env.reset(seed=0, options={"faults": list(faults)} if faults else None)
    for _ in range(until):
        env.step([])
    return env.unwrapped.backend


def test_stranded_pods_are_those_on_notready_nodes(make):
    b = _backend(make)
    assert stranded_pods(b) == {}
    node = next(p["node"] for p in b.k8s_get("pods", None) if p["deployment"] == "cartservice")
    b.cluster.set_node_ready(node, False, b.now)
    got = stranded_pods(b)
    want = {}
    for p in b.k8s_get("pods", None):
        if p["node"] == node and p["status"] != "Terminating":
            want.setdefault(p["deployment"], []).append((p["name"], node))
    assert got == want and "cartservice" in got


def test_egress_policies_ignore_ingress_rules_and_list_the_oldest_first(make):
    fid = "ob-egress-deny-checkoutservice-paymentservice"
    b = _backend(make, faults=[{"fault": fid, "start": 120, "end": 1500}])
    services = compile_topology("online-boutique").names
    # the app's own policies only admit ingress
    assert b.k8s_get("networkpolicies", None) and egress_policies(b, services) == {}
    b.advance_to(b.episode_start + 240)
    (inj,) = b.ground_truth()["injections"]
    assert egress_policies(b, services) == {"checkoutservice": [inj.detail["policy"]]}
    app = b.cluster.topo.app
    later = egress_allowlist(app, "a-later-lockdown", "checkoutservice", "emailservice", b.now)
    b.cluster.add_networkpolicy(later)
    assert egress_policies(b, services)["checkoutservice"] == [
        inj.detail["policy"],
        "a-later-lockdown",
    ]


def test_flags_changed_names_each_services_flags_off_their_default(make):
    assert flags_changed(_backend(make), compile_topology("online-boutique").app) == {}
    fid = "as-flag-adfailure-on"
    b = _backend(make, "astronomy-shop", [{"fault": fid, "start": 120, "end": 1500}])
    app = compile_topology("astronomy-shop").app
    assert flags_changed(b, app) == {}
    b.advance_to(b.episode_start + 240)
    assert flags_changed(b, app) == {"ad": {"adFailure": "off"}}
    # a flag the load generator owns is not a service's
    owned = next(f for f in app.flags if f.benchmark_owned)
    other = next(v for v in owned.variants if v != owned.default)
    b.patch_config("flagd", f"flags.{owned.name}", other, b.now)
    assert flags_changed(b, app) == {"ad": {"adFailure": "off"}}


class _Policies:
    """A backend that only lists NetworkPolicies (as ``k8s_get`` shows them)."""

    def __init__(self, policies):
        self.policies = policies

    def k8s_get(self, kind, name):
        assert kind == "networkpolicies" and name is None
        return self.policies


def test_env_drift_is_a_hand_edit_that_git_does_not_have(make):
    fid = "ob-addr-drift-frontend-cartservice"
    b = _backend(make, faults=[{"fault": fid, "start": 120, "end": 1500}], until=2)
    services = compile_topology("online-boutique").names
    assert {s: d for s in services if (d := env_drift(b, s))} == {
        "frontend": {"CART_SERVICE_ADDR": "cartservice:7070"}  # the manifest's value
    }
    # a setting put back as git has it is no drift; a variable git lacks is none either
    b.patch_config("frontend", "env.CART_SERVICE_ADDR", "cartservice:7070", b.now)
    b.patch_config("frontend", "env.EXTRA_FLAG", "1", b.now)
    assert env_drift(b, "frontend") == {}
    b.patch_config("frontend", "resources.limits.cpu", "900m", b.now)  # env vars only
    assert env_drift(b, "frontend") == {}


def test_env_drift_is_empty_without_source_repositories(make):
    class NoSource:
        def __init__(self, b):
            self.b = b

        def k8s_describe(self, kind, name):
            return self.b.k8s_describe(kind, name)

    b = _backend(make)
    b.patch_config("frontend", "env.CART_SERVICE_ADDR", "elsewhere:1", b.now)
    assert env_drift(b, "frontend") == {"CART_SERVICE_ADDR": "cartservice:7070"}
    assert env_drift(NoSource(b), "frontend") == {}


def test_egress_policies_know_the_charts_name_labels():
    def pol(name, selector, types=("Egress",), created="2026-01-01T00:00:00Z"):
        return {
            "name": name,
            "pod_selector": selector,
            "policy_types": list(types),
            "created": created,
        }

    b = _Policies(
        [
            pol("otel", {"opentelemetry.io/name": "cart"}),
            pol("k8s", {"app.kubernetes.io/name": "ad"}, created="2026-01-01T00:01:00Z"),
            pol("late", {"app": "ad"}, created="2026-01-01T00:02:00Z"),
            pol("ingress-only", {"app": "cart"}, types=("Ingress",)),
            pol("not-a-service", {"app": "flagd"}),
            pol("no-selector", {}),
        ]
    )
    assert egress_policies(b, ("ad", "cart")) == {"cart": ["otel"], "ad": ["k8s", "late"]}


def test_pod_owner():
    assert pod_owner("cartservice-84q54xrt9h-xxqg4") == "cartservice"
    assert pod_owner("redis-cart-5b9f7c7d4d-abcde") == "redis-cart"
    assert pod_owner("odd") == "odd"


def test_call_workload_names_what_each_intervention_acts_on(make):
    ob = compile_topology("online-boutique").app
    b = _backend(make)

    def c(tool, **args):
        return call_workload({"tool": tool, "args": args}, b, ob)

    assert c("rollback", deployment="cartservice") == "cartservice"
    assert c("patch_config", deployment="adservice", key="env.X", value="1") == "adservice"
    assert c("submit_patch", service="frontend", revert="abc1234") == "frontend"
    pod = next(p["name"] for p in b.k8s_get("pods", None) if p["deployment"] == "redis-cart")
    assert c("delete_resource", kind="pods", name=pod) == "redis-cart"
    policy = next(p for p in b.k8s_get("networkpolicies", None))
    assert (
        c("delete_resource", kind="networkpolicies", name=policy["name"])
        == (policy["pod_selector"]["app"])
    )
    assert c("delete_resource", kind="networkpolicies", name="no-such-policy") is None
    assert c("k8s_get", kind="pods") is None  # reads act on nothing
    assert call_workload({"tool": "restart", "args": "garbage"}, b, ob) is None
    # a flag patch acts on the service that reads the flag, not on flagd
    shop = compile_topology("astronomy-shop").app
    flag = {"tool": "patch_config", "args": {"deployment": "flagd", "key": "flags.adFailure"}}
    assert call_workload(flag, b, shop) == "ad"
