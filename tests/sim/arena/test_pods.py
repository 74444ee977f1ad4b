"""Deployments: pods roll one at a time, turn ready at a probe, read start-time settings from the
stored configuration, and start with cold caches."""

from __future__ import annotations

import numpy as np

from sre_gym.catalogs.arena import load_substrate, load_task
from sre_gym.rng import Streams
from sre_gym.sim.arena.pods import Deployments, ready_after
from sre_gym.sim.arena.world import ArenaWorld


def test_ready_at_the_first_probe_after_boot():
    assert ready_after(5.0, 20, 10) == 20
    assert ready_after(21.0, 20, 10) == 30
    assert ready_after(30.0, 20, 10) == 30


def test_a_rolling_restart_replaces_pods_one_by_one_with_the_stored_values():
    sub = load_substrate("slack-spine")
    stored = dict(sub.config, **{"svc-channel.db_pool_size": 3})
    d = Deployments(sub, Streams("r", "t", 0), stored)
    assert d.generations("svc-channel") == [(1.0, d.deps["svc-channel"].versions[0])]
    stored["svc-channel.db_pool_size"] = 20
    ready = d.roll("svc-channel", 100, stored)
    assert len(ready) == 2 and 100 < ready[0] < ready[1]  # one after the other
    d.advance(ready[0])
    gens = d.generations("svc-channel")
    assert [g[0] for g in gens] == [0.5, 0.5]
    assert {g[1]["svc-channel.db_pool_size"] for g in gens} == {3, 20}
    assert d.rolling("svc-channel")
    d.advance(ready[1])
    assert d.generations("svc-channel")[0][1]["svc-channel.db_pool_size"] == 20
    assert not d.rolling("svc-channel")
    cold = d.cold_share("svc-channel", np.array([ready[1], ready[1] + 300]), 30.0)
    assert cold[0] > 0.5 and cold[1] < 0.01  # fresh pods miss, then warm up


def test_boot_times_repeat_for_the_same_seed_and_rollout():
    sub = load_substrate("slack-spine")
    a = Deployments(sub, Streams("r", "t", 0), dict(sub.config)).roll("svc-auth", 0, sub.config)
    b = Deployments(sub, Streams("r", "t", 0), dict(sub.config)).roll("svc-auth", 0, sub.config)
    assert a == b


def test_a_pool_change_reaches_traffic_only_as_the_pods_roll():
    w = ArenaWorld(load_task("arena-014"), 0, 400)
    w.advance_to(60)
    w.set_config("svc-channel.db_pool_size", 20)
    w.set_config("svc-channel.db_max_overflow", 10)
    assert w.pods.rolling("svc-channel")
    send = w.lanes.index("send")
    w.advance_to(300)
    started = sorted(w.pods.deps["svc-channel"].started)
    assert started[1] > 100  # the second new pod is ready only late in the next peak
    # that peak (90-110) still meets an old pod and its 3/2 pool under the strict hold
    assert w.rec["err"][send, 90:110].sum() > 0
    assert not w.pods.rolling("svc-channel") and w.rec["err"][send, 270:290].sum() == 0
