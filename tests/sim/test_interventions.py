"""The interventions on a cluster: rollback, restart, scale, patch, pod deletion, NetworkPolicies,
runtime conditions, third parties and node readiness, and what they refuse
(sre_gym/sim/interventions.py)."""

from __future__ import annotations

import re

import pytest

from sre_gym.sim import k8s_view
from sre_gym.sim import pods as P
from sre_gym.sim.interventions import SimError
from sre_gym.sim.netpol import egress_allowlist


def rows_of(cl, dep: str) -> list[int]:
    d = cl.world.deployment(dep)
    return [int(r) for r in cl.pods.live() if cl.pods.dep[r] == d.index]


def revs(cl, dep: str) -> list[int]:
    return [r.number for r in cl.world.deployment(dep).revisions]


# ---------------------------------------------------------------------------------- rollback


def test_rollback_renumbers_the_target_revision(cl):
    t = cl.now + 1
    cl.patch("frontend", "env.ENABLE_PROFILER", "1", t)
    cl.patch("frontend", "env.ENABLE_PROFILER", "2", t + 1)
    assert revs(cl, "frontend") == [1, 2, 3]
    d = cl.world.deployment("frontend")
    rev2 = d.revision(2)
    gen = d.generation
    new = cl.rollback("frontend", t + 2, to_revision=2)
    assert new.number == 4 and revs(cl, "frontend") == [1, 3, 4]
    assert new.template == rev2.template and new.change_cause == rev2.change_cause
    assert d.generation == gen + 1 and d.dirty and d.rollout_started == t + 2
    assert d.current is new
    ev = next(e for e in reversed(cl.world.events) if e.reason == "DeploymentRollback")
    assert ev.message == "Rolled back deployment 'frontend' to revision 2"
    assert any(cl.pods.rev[r] == 4 for r in rows_of(cl, "frontend"))
    # undo goes to the previous revision (3), which is renumbered again
    back = cl.rollback("frontend", t + 3)
    assert back.number == 5 and revs(cl, "frontend") == [1, 4, 5]
    assert back.template.env_dict()["ENABLE_PROFILER"] == "2"
    cl.advance_to(cl.now + 60)
    assert [int(cl.pods.rev[r]) for r in rows_of(cl, "frontend")] == [5]


def test_rollback_keeps_the_commit_of_the_target(cl, changes):
    rec = cl.deploy_change(changes["payment-expiry-check"], "ab" * 20, cl.now + 1)
    assert rec.revision == 2
    cl.restart("paymentservice", cl.now + 2)
    r = cl.rollback("paymentservice", cl.now + 3, to_revision=2)
    assert r.commit == "ab" * 20
    r = cl.rollback("paymentservice", cl.now + 4, to_revision=1)
    assert r.commit is None and r.template.image.endswith(":v0.10.6")
    assert revs(cl, "paymentservice") == [3, 4, 5]


def test_returning_to_an_earlier_template_renumbers_that_revision(cl):
    """Kubernetes keeps one ReplicaSet per pod template: when the template goes back to an earlier
    one (by patch or by a revert commit), that ReplicaSet is reused and its revision number moves
    to the head of the history, exactly as for a rollback; the old number disappears."""
    cl.patch("frontend", "env.ENABLE_PROFILER", "1", cl.now + 1)
    cl.patch("frontend", "env.ENABLE_PROFILER", "0", cl.now + 2)  # the shipped template again
    d = cl.world.deployment("frontend")
    assert d.current.number == 3 and d.current.template.env_dict()["ENABLE_PROFILER"] == "0"
    templates = [r.template for r in d.revisions]
    same = [r.number for r in d.revisions if templates.count(r.template) > 1]
    assert same == [], f"revisions {same} hold the same pod template"
    assert revs(cl, "frontend") == [2, 3]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("frontend", None), "deployment 'frontend' has no previous revision to roll back to"),
        (("frontend", 7), "deployment 'frontend' has no revision 7 (have: 1)"),
        (("frontend", 1), "revision 1 is already the current revision of 'frontend'"),
        (("front-end", None), "deployment 'front-end' not found (known: frontend, cartservice,"),
    ],
)
def test_invalid_rollbacks(cl, args, message, state_of):
    before = state_of(cl)
    with pytest.raises(SimError, match=re.escape(message)):
        cl.rollback(args[0], cl.now + 1, to_revision=args[1])
    assert state_of(cl) == before


# ---------------------------------------------------------------------------------- restart/scale/patch


def test_restart_rolls_new_pods_with_the_same_spec(cl, changes):
    cl.deploy_change(changes["currency-cpu-rightsize"], "cd" * 20, cl.now + 1)
    cl.advance_to(cl.now + 60)
    d = cl.world.deployment("currencyservice")
    before = d.current
    old_rows = rows_of(cl, "currencyservice")
    r = cl.restart("currencyservice", cl.now + 1)
    assert r.number == before.number + 1
    assert r.template.restarted_at == "2026-01-01T00:11:01Z"
    assert (
        r.template.cpu_limit == before.template.cpu_limit and r.template.env == before.template.env
    )
    assert r.change_cause == before.change_cause and r.commit == before.commit
    # restarting twice within the same second is the same template: no new revision
    assert cl.restart("currencyservice", cl.now + 1.5) is r
    cl.advance_to(cl.now + 60)
    assert not set(rows_of(cl, "currencyservice")) & set(old_rows)
    assert cl.pods.ready[rows_of(cl, "currencyservice")].all()


def test_restart_clears_runtime_conditions(cl):
    names = cl.set_pod_condition("cartservice", "hog", 0.3, cl.now + 1)
    assert len(names) == 1 and cl.pods.hog[cl.pods.index_of(names[0])] == 0.3
    cl.restart("cartservice", cl.now + 2)
    cl.advance_to(cl.now + 60)
    assert all(cl.pods.hog[r] == 0 for r in rows_of(cl, "cartservice"))
    assert cl.pods.index_of(names[0]) is None


def test_scale(cl):
    d = cl.world.deployment("recommendationservice")
    gen = d.generation
    cl.scale("recommendationservice", 2, cl.now + 1)
    assert d.replicas == 2 and d.generation == gen + 1 and revs(cl, "recommendationservice") == [1]
    assert len(rows_of(cl, "recommendationservice")) == 2
    assert cl.world.events[-1].reason in ("Scheduled", "SuccessfulCreate", "ScalingReplicaSet")
    assert any(e.message == "Scaled deployment recommendationservice to 2" for e in cl.world.events)


@pytest.mark.parametrize("bad", [-1, 21, 100])
def test_scale_out_of_range(cl, bad, state_of):
    before = state_of(cl)
    with pytest.raises(SimError, match=re.escape(f"replicas must be between 0 and 20, got {bad}")):
        cl.scale("frontend", bad, cl.now + 1)
    assert state_of(cl) == before


@pytest.mark.parametrize(
    ("key", "value", "check"),
    [
        ("resources.limits.cpu", "500m", lambda t: t.cpu_limit == "500m"),
        ("resources.limits.memory", "1Gi", lambda t: t.mem_limit == "1Gi"),
        ("readinessProbe.port", "8081", lambda t: t.readiness_port == 8081),
        ("env.EXTRA_LATENCY", "2s", lambda t: t.env_dict()["EXTRA_LATENCY"] == "2s"),
        ("env.PORT", "3551", lambda t: t.env_dict()["PORT"] == "3551"),
    ],
)
def test_patch_keys(cl, key, value, check):
    d = cl.world.deployment("productcatalogservice")
    r = cl.patch("productcatalogservice", key, value, cl.now + 1)
    assert r.number == 2 and check(r.template) and d.current is r
    assert r.change_cause == f"kubectl patch deployment productcatalogservice ({key}={value})"
    # the same patch again changes nothing
    gen = d.generation
    assert cl.patch("productcatalogservice", key, value, cl.now + 2) is r
    assert d.generation == gen and revs(cl, "productcatalogservice") == [1, 2]


def test_patch_effects_reach_the_dynamics(cl):
    i = cl.topo.index["productcatalogservice"]
    base = cl.rec_lat[cl.tick - 1, i]
    cl.patch("productcatalogservice", "env.EXTRA_LATENCY", "400ms", cl.now + 1)
    cl.advance_to(cl.now + 45)
    assert cl.rec_lat[cl.tick - 1, i] > base + 350
    cl.patch("productcatalogservice", "readinessProbe.port", "9999", cl.now + 1)
    cl.advance_to(cl.now + 120)
    # new pod never gets ready, the previous one keeps serving
    rows = rows_of(cl, "productcatalogservice")
    assert len(rows) == 2 and sum(bool(cl.pods.ready[r]) for r in rows) == 1
    assert cl.rec_served[cl.tick - 1, i] > 0


def test_unset_env_returns_to_the_shipped_template(cl):
    """Unsetting the variable a patch added brings back the shipped template: its ReplicaSet is
    reused, so revision 1 moves to the head (with its cause), as for any earlier template."""
    shipped = cl.world.deployment("frontend").current.template
    cl.patch("frontend", "env.EXTRA_LATENCY", "200ms", cl.now + 1)
    r = cl.unset_env("frontend", "EXTRA_LATENCY", cl.now + 2)
    assert r.template == shipped and "EXTRA_LATENCY" not in r.template.env_dict()
    assert revs(cl, "frontend") == [2, 3] and r.change_cause == "initial deploy"
    # a variable the template does not set: nothing changes
    assert cl.unset_env("frontend", "EXTRA_LATENCY", cl.now + 3) is r


def test_patching_a_flag_rewrites_the_configmap_without_a_rollout(shop, state_of):
    """flagd reads its ConfigMap live: a ``flags.`` patch changes the variant and the dynamics,
    not flagd's pod template."""
    flagd = shop.world.deployment("flagd")
    before = flagd.current
    i = shop.topo.index["cart"]
    assert shop.flag_variants()["cartFailure"] == "off"
    assert shop.patch("flagd", "flags.cartFailure", "50%", shop.now + 1) is before
    assert [r.number for r in flagd.revisions] == [1] and not flagd.dirty
    variants = shop.flag_variants()
    assert variants["cartFailure"] == "50%" and variants["adFailure"] == "off"
    ev = shop.world.events[-1]
    assert (ev.reason, ev.kind, ev.name) == ("Updated", "ConfigMap", "flagd-config")
    assert ev.message == "configmap flagd-config updated (cartFailure=50%)"
    shop.advance_to(shop.now + 60)
    assert shop.rec_own_err[shop.tick - 1, i] > 0.1
    shop.patch("flagd", "flags.cartFailure", "off", shop.now + 1)
    shop.advance_to(shop.now + 30)
    assert shop.rec_own_err[shop.tick - 1, i] == 0
    state = state_of(shop)
    for key, value, message in [
        ("flags.noSuchFlag", "on", "unknown flag 'noSuchFlag' (flags: adFailure, "),
        (
            "flags.cartFailure",
            "60%",
            "flag 'cartFailure' has no variant '60%' (variants: off, 10%,",
        ),
    ]:
        with pytest.raises(SimError, match=re.escape(message)):
            shop.patch("flagd", key, value, shop.now + 1)
        assert state_of(shop) == state, message


def test_a_flaky_third_party_fails_calls_after_their_deadline(cl):
    """Calls to a failing outside API time out: the service's errors and its latency rise together
    (the share that fails times the deadline), and both return when the spell ends."""
    i = cl.topo.index["paymentservice"]
    cl.advance_to(cl.now + 60)
    err0, lat0 = cl.rec_own_err[cl.tick - 1, i], cl.rec_lat[cl.tick - 1, i]
    cl.third_party("paymentservice", 0.2, "card processor api.x", cl.now + 1, 2000)
    cl.advance_to(cl.now + 60)
    assert cl.rec_own_err[cl.tick - 1, i] > err0 + 0.15
    assert cl.rec_lat[cl.tick - 1, i] > lat0 + 300
    cl.third_party("paymentservice", -0.2, "", cl.now + 1, 2000)
    cl.advance_to(cl.now + 60)
    assert cl.outside_lat[i] == 0.0 and cl.outside_err[i] == 0.0
    assert cl.rec_lat[cl.tick - 1, i] < lat0 + 50


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("resources.limits.cpu", "lots", "bad CPU quantity 'lots' (expected e.g. '200m' or '0.5')"),
        ("resources.limits.memory", "128M", "bad memory quantity '128M' (expected e.g. '128Mi')"),
        ("readinessProbe.port", "http", "readinessProbe.port must be a port number, got 'http'"),
        ("readinessProbe.port", "0", "readinessProbe.port must be a port number, got '0'"),
        ("readinessProbe.port", "65536", "readinessProbe.port must be a port number, got '65536'"),
        ("env.", "x", "invalid environment variable name ''"),
        ("env.BAD-NAME", "x", "invalid environment variable name 'BAD-NAME'"),
        (
            "image",
            "x:1",
            "unsupported key 'image': use env.<NAME>, resources.limits.cpu, resources.limits.memory or readinessProbe.port",
        ),
        ("spec.replicas", "3", "unsupported key 'spec.replicas'"),
    ],
)
def test_invalid_patches(cl, key, value, message, state_of):
    before = state_of(cl)
    with pytest.raises(SimError, match=re.escape(message)):
        cl.patch("frontend", key, value, cl.now + 1)
    assert state_of(cl) == before


def test_operations_on_unknown_objects(cl, state_of):
    before = state_of(cl)
    for fn, message in [
        (lambda: cl.restart("web", cl.now + 1), "deployment 'web' not found (known: frontend,"),
        (lambda: cl.scale("web", 1, cl.now + 1), "deployment 'web' not found"),
        (lambda: cl.patch("web", "env.A", "1", cl.now + 1), "deployment 'web' not found"),
        (lambda: cl.delete_pod("frontend-xxxxx", cl.now + 1), "pod 'frontend-xxxxx' not found"),
        (
            lambda: cl.delete_networkpolicy("deny-all", cl.now + 1),
            "networkpolicy 'deny-all' not found",
        ),
        (
            lambda: cl.set_node_ready("kind-worker9", False, cl.now + 1),
            "node 'kind-worker9' not found",
        ),
        (lambda: cl.set_pod_condition("web", "hog", 1.0, cl.now + 1), "deployment 'web' not found"),
    ]:
        with pytest.raises(SimError, match=re.escape(message)):
            fn()
        assert state_of(cl) == before, message


def test_sim_error_is_a_value_error():
    assert issubclass(SimError, ValueError)


# ---------------------------------------------------------------------------------- pods, policies, nodes


def test_delete_pod_replaces_it_and_a_terminating_pod_cannot_be_deleted_again(cl):
    row = rows_of(cl, "checkoutservice")[0]
    name = cl.pods.names[row]
    t = cl.now + 1
    cl.delete_pod(name, t)
    assert cl.pods.state[row] == P.TERMINATING
    new = rows_of(cl, "checkoutservice")
    assert len(new) == 1 and cl.pods.names[new[0]] != name
    assert cl.pods.names[new[0]].rsplit("-", 1)[0] == name.rsplit("-", 1)[0]  # same ReplicaSet
    with pytest.raises(SimError, match=re.escape(f"pod '{name}' not found")):
        cl.delete_pod(name, t + 1)
    cl.advance_to(cl.now + 15)
    assert not cl.pods.alive[row] and cl.pods.index_of(name) is None
    assert any(e.reason == "Killing" and e.name == name for e in cl.world.events)


def test_networkpolicy_denies_the_edge_until_deleted(cl):
    i, j = cl.topo.index["checkoutservice"], cl.topo.index["paymentservice"]
    own = list(cl.world.netpols)  # the namespace's default deny and allow rules
    assert {p.name for p in own} >= {"default-deny-ingress", "allow-paymentservice"}
    pol = egress_allowlist(cl.topo.app, "deny-pay", "checkoutservice", "paymentservice", cl.now)
    cl.add_networkpolicy(pol)
    cl.advance_to(cl.now + 30)
    fail, kind, _ = cl.edge_records(cl.tick - 1)
    assert kind[i, j] == 2 and fail[i, j] == 1.0
    # the other callees of checkout stay reachable: the allow-list names them
    k = cl.topo.index["shippingservice"]
    assert fail[i, k] < 1e-6
    view = k8s_view.get(cl, "networkpolicies", "deny-pay")
    assert view["policy_types"] == ["Egress"] and view["pod_selector"] == {"app": "checkoutservice"}
    allowed = {x["podSelector"]["matchLabels"]["app"] for x in view["egress"][0]["to"]}
    assert "paymentservice" not in allowed and "shippingservice" in allowed
    cl.delete_networkpolicy("deny-pay", cl.now + 1)
    cl.advance_to(cl.now + 15)
    assert cl.edge_records(cl.tick - 1)[0][i, j] < 1e-6
    assert cl.world.netpols == own


def test_deleting_an_allow_policy_cuts_the_service_off(cl):
    """With default deny in place, the namespace's allow rules are load-bearing."""
    i, j = cl.topo.index["checkoutservice"], cl.topo.index["paymentservice"]
    cl.delete_networkpolicy("allow-paymentservice", cl.now + 1)
    cl.advance_to(cl.now + 30)
    assert cl.edge_records(cl.tick - 1)[0][i, j] == 1.0


def test_node_failure_evicts_and_reschedules(cl):
    node = 2  # kind-worker3
    victims = [int(r) for r in cl.pods.live() if cl.pods.node[r] == node]
    deps = cl.set_node_ready("kind-worker3", False, cl.now)
    assert deps == sorted(cl.world.deployments[cl.pods.dep[r]].name for r in victims)
    t_down = cl.now
    cl.advance_to(t_down + 330)
    assert all(cl.pods.alive[r] and cl.pods.state[r] != P.TERMINATING for r in victims)
    assert not any(cl.pods.ready[r] for r in victims)
    cl.advance_to(t_down + 345)
    assert all(cl.pods.state[r] == P.TERMINATING or not cl.pods.alive[r] for r in victims)
    cl.advance_to(t_down + 400)
    for d in deps:
        rows = rows_of(cl, d)
        assert len(rows) == 1 and cl.pods.node[rows[0]] != node and cl.pods.ready[rows[0]]
    assert all(not cl.pods.alive[r] for r in victims)
    assert cl.set_node_ready("kind-worker3", True, cl.now) == []
    assert cl.world.nodes[node].ready and cl.world.nodes[node].down_since is None


def test_attached_conditions_reach_new_pods_until_detached(cl):
    """A condition attached by selector follows the deployment's new pods (unlike
    ``set_pod_condition``, which a restart clears); detaching clears it everywhere."""
    names = cl.attach_condition("cartservice", "hog", 0.4, cl.now + 1)
    assert [cl.pods.hog[cl.pods.index_of(n)] for n in names] == [0.4]
    cl.restart("cartservice", cl.now + 2)
    cl.advance_to(cl.now + 60)
    rows = rows_of(cl, "cartservice")
    assert rows and all(cl.pods.names[r] not in names and cl.pods.hog[r] == 0.4 for r in rows)
    cl.detach_condition("cartservice", "hog")
    assert all(cl.pods.hog[r] == 0 for r in rows)
    cl.restart("cartservice", cl.now + 1)
    cl.advance_to(cl.now + 60)
    assert all(cl.pods.hog[r] == 0 for r in rows_of(cl, "cartservice"))


def test_runtime_conditions_belong_to_pods(cl):
    names = cl.set_pod_condition("currencyservice", "delay", 500.0, cl.now + 1)
    cl.clear_pod_condition([*names, "ghost-pod"], "delay")
    assert all(cl.pods.delay[r] == 0 for r in rows_of(cl, "currencyservice"))
