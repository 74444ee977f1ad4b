"""Deployment controller and scheduler (sre_gym/sim/controller.py), through a SimCluster."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sre_gym.sim import pods as P
from sre_gym.sim.controller import _ALPHABET, k8s_suffix, pick_node, rollout_state


def rows_of(cl, dep: str) -> list[int]:
    d = cl.world.deployment(dep)
    return [int(r) for r in cl.pods.live() if cl.pods.dep[r] == d.index]


def ready_count(cl, dep: str) -> int:
    return sum(bool(cl.pods.ready[r]) for r in rows_of(cl, dep))


def test_k8s_suffix():
    s = k8s_suffix(10, "a", 1)
    assert len(s) == 10 and set(s) <= set(_ALPHABET)
    assert s == k8s_suffix(10, "a", 1)
    assert s != k8s_suffix(10, "a", 2)
    assert k8s_suffix(5, "a", 1) == s[:5]
    assert not set("aeiou013") & set(_ALPHABET)  # Kubernetes' safe alphabet: no vowels, no 0/1/3


def test_initial_placement_is_round_robin_in_catalog_order(cl):
    nodes = [int(cl.pods.node[rows_of(cl, d.name)[0]]) for d in cl.world.deployments]
    assert nodes == [i % len(cl.world.nodes) for i in range(len(cl.world.deployments))]


def test_node_choice_is_deterministic_across_runs_and_seeds(warm):
    a, b = warm(seed=1), warm(seed=2)
    for c in (a, b):
        c.scale("cartservice", 5, c.now + 1)
        c.advance_to(c.now + 60)
    na = sorted(int(a.pods.node[r]) for r in rows_of(a, "cartservice"))
    nb = sorted(int(b.pods.node[r]) for r in rows_of(b, "cartservice"))
    assert na == nb
    # four nodes, five pods: every node gets one before any gets a second
    assert np.bincount(na, minlength=4).tolist() in (
        [2, 1, 1, 1],
        [1, 2, 1, 1],
        [1, 1, 2, 1],
        [1, 1, 1, 2],
    )


def test_pick_node_spreads_over_zones_then_nodes_then_fills_the_emptiest(cl):
    """The default scheduler's topology spread, made deterministic (see ``pick_node``)."""
    nodes = cl.world.nodes
    for name in ("paymentservice", "frontend", "redis-cart"):
        dep = cl.world.deployment(name)
        live = cl.pods.live()
        mine = {int(cl.pods.node[r]) for r in live if cl.pods.dep[r] == dep.index}
        counts = np.bincount(cl.pods.node[live], minlength=len(nodes))
        zone_mine = {z: sum(nodes[i].zone == z for i in mine) for z in {nd.zone for nd in nodes}}
        expected = min(
            range(len(nodes)), key=lambda i: (zone_mine[nodes[i].zone], i in mine, counts[i], i)
        )
        assert pick_node(cl, dep) == expected, name
        assert nodes[expected].zone != nodes[next(iter(mine))].zone  # one pod: the other zone
    for nd in nodes:
        nd.ready = False
    assert pick_node(cl, cl.world.deployment("frontend")) == -1


def test_single_replica_rollout_keeps_the_old_pod_serving(cl):
    i = cl.topo.index["adservice"]  # slowest to start (20 s)
    old = rows_of(cl, "adservice")
    cl.restart("adservice", cl.now + 5)
    new_ready_at = None
    for _ in range(8):
        cl.advance_to(cl.now + 15)
        tick = cl.tick - 1
        assert ready_count(cl, "adservice") >= 1
        assert cl.rec_served[tick, i] > 0
        rows = rows_of(cl, "adservice")
        assert len(rows) <= 2  # maxSurge 1
        new = [r for r in rows if cl.pods.rev[r] == 2]
        if new and cl.pods.ready[new[0]] and new_ready_at is None:
            new_ready_at = cl.now
        if new_ready_at is None:
            assert cl.pods.ready[old[0]] and old[0] in rows
    assert new_ready_at is not None
    assert rows_of(cl, "adservice") == [r for r in rows_of(cl, "adservice") if cl.pods.rev[r] == 2]
    assert not cl.world.deployment("adservice").dirty
    # the old pod was terminated only once the new one was ready, then vanished
    assert not cl.pods.alive[old[0]]


def test_bad_image_leaves_the_rollout_stuck_with_the_old_pod_serving(cl, changes):
    i = cl.topo.index["shippingservice"]
    old = rows_of(cl, "shippingservice")
    cl.deploy_change(changes["shipping-image-bump"], "b" * 40, cl.now + 1)
    cl.advance_to(cl.now + 600)
    rows = rows_of(cl, "shippingservice")
    assert old[0] in rows and cl.pods.ready[old[0]]
    new = [r for r in rows if r != old[0]]
    assert len(new) == 1 and cl.pods.state[new[0]] == P.IMAGE_WAIT
    assert (cl.rec_served[cl.tick - 40 : cl.tick, i] > 0).all()
    assert cl.world.deployment("shippingservice").dirty  # rollout not complete
    st = cl.deployment_status()
    d = cl.world.deployment("shippingservice").index
    assert (
        st["status_replicas"][d],
        st["status_replicas_available"][d],
        st["status_replicas_updated"][d],
    ) == (2, 1, 1)
    new_rows, old_rows = rollout_state(cl, cl.world.deployment("shippingservice"))
    assert new_rows == new and old_rows == old


def test_rolling_update_of_four_replicas_respects_surge_and_unavailability(cl):
    cl.scale("checkoutservice", 4, cl.now + 1)
    cl.advance_to(cl.now + 60)
    assert ready_count(cl, "checkoutservice") == 4
    d = cl.world.deployment("checkoutservice")
    # make new pods slow to start so the rollout spans many ticks
    cl.dep_boot[d.index] = 50.0
    cl.patch("checkoutservice", "env.LOG_LEVEL", "debug", cl.now + 1)
    seen_total = []
    for _ in range(30):
        cl.advance_to(cl.now + 15)
        rows = rows_of(cl, "checkoutservice")
        seen_total.append(len(rows))
        assert len(rows) <= 5  # desired 4 + maxSurge ceil(25 %) = 1
        assert ready_count(cl, "checkoutservice") >= 3  # maxUnavailable floor(25 %) = 1
    assert max(seen_total) == 5
    assert all(cl.pods.rev[r] == d.current.number for r in rows_of(cl, "checkoutservice"))
    assert ready_count(cl, "checkoutservice") == 4


def test_scale_up_spreads_and_scale_down_removes_unready_and_newest_first(cl):
    # a deployment no autoscaler manages (an HPA would undo counts set by hand)
    cl.scale("emailservice", 3, cl.now + 1)
    rows = rows_of(cl, "emailservice")
    assert len(rows) == 3
    assert len({int(cl.pods.node[r]) for r in rows}) == 3
    cl.advance_to(cl.now + 120)  # a pod on a node without the image pulls it first
    assert ready_count(cl, "emailservice") == 3
    oldest = min(rows, key=lambda r: cl.pods.created[r])
    # scale to 4, then immediately to 2: the just-created (unready) pod goes first, then the newest
    cl.scale("emailservice", 4, cl.now + 1)
    fresh = [r for r in rows_of(cl, "emailservice") if r not in rows]
    assert len(fresh) == 1 and not cl.pods.ready[fresh[0]]
    cl.scale("emailservice", 2, cl.now + 2)
    left = rows_of(cl, "emailservice")
    assert fresh[0] not in left and oldest in left and len(left) == 2
    newest_ready = max(rows, key=lambda r: cl.pods.created[r])
    assert newest_ready not in left
    cl.advance_to(cl.now + 30)
    assert ready_count(cl, "emailservice") == 2 and not cl.world.deployment("emailservice").dirty


def test_scale_to_zero_and_back(cl):
    i = cl.topo.index["emailservice"]
    cl.scale("emailservice", 0, cl.now + 1)
    assert rows_of(cl, "emailservice") == []
    cl.advance_to(cl.now + 30)
    assert cl.rec_served[cl.tick - 1, i] == 0
    assert not cl.world.deployment("emailservice").dirty
    cl.scale("emailservice", 1, cl.now + 1)
    cl.advance_to(cl.now + 30)
    assert ready_count(cl, "emailservice") == 1 and cl.rec_served[cl.tick - 1, i] > 0


def test_unready_old_pods_are_replaced_without_waiting(cl, changes):
    """A crash-looping current pod is removed as soon as a rollout starts (unhealthy first)."""
    cl.deploy_change(changes["shipping-free-promo"], "c" * 40, cl.now + 1)  # crashes after 40 s
    cl.advance_to(cl.now + 120)
    crashing = rows_of(cl, "shippingservice")
    assert (
        len(crashing) == 1 and cl.pods.restarts[crashing[0]] >= 1 and not cl.pods.ready[crashing[0]]
    )
    cl.rollback("shippingservice", cl.now + 1)
    assert cl.pods.state[crashing[0]] == P.TERMINATING


def test_reconcile_marks_done_only_when_every_pod_is_current_and_ready(cl):
    d = cl.world.deployment("frontend")
    tpl = replace(d.current.template, restarted_at="x")
    cl.restore_template("frontend", tpl, cl.now + 1, "restart")
    assert d.dirty
    cl.advance_to(cl.now + 60)
    assert not d.dirty
    assert [int(cl.pods.rev[r]) for r in rows_of(cl, "frontend")] == [d.current.number]
