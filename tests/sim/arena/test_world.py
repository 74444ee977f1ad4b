"""ArenaWorld: faults arm, reads never perturb, restarts and sessions behave as documented."""

from __future__ import annotations

import numpy as np

from sre_gym.catalogs.arena import load_task
from sre_gym.sim.arena.world import ArenaWorld


def test_reads_never_change_the_run():
    task = load_task("arena-013")
    a = ArenaWorld(task, 4, 400)
    b = ArenaWorld(task, 4, 400)
    a.advance_to(400)
    for t in range(10, 400, 10):
        b.advance_to(t)
        b.lane_stats(t - 60, t), b.db_view("settings"), b.log_lines("svc-channel", 60)
        b.pool_stats("svc-channel"), b.snapshot()
    b.advance_to(400)
    for k in a.rec:
        assert np.array_equal(a.rec[k], b.rec[k])


def test_runtime_event_arms_on_time_and_collapses_the_small_pool():
    w = ArenaWorld(load_task("arena-013"), 0, 300)
    w.advance_to(35)
    assert not w.events["svc-channel.read_consistency_strict"]
    w.advance_to(200)
    assert w.events["svc-channel.read_consistency_strict"]
    send = w.lanes.index("send")
    assert w.rec["err"][send, 90:110].sum() > 0.5 * w.n[send, 90:110].sum()


def test_a_database_restart_reverts_runtime_settings_only():
    w = ArenaWorld(load_task("arena-001"), 0, 200)
    w.advance_to(40)
    assert w.config["mariadb.max_user_connections"] == 8
    w.set_config("mariadb.max_connections", 300, persist=False)
    w.restart("mariadb")
    assert w.config["mariadb.max_user_connections"] == 0  # the runtime fault is gone too
    assert w.config["mariadb.max_connections"] == 151


def test_sessions_snapshot_the_timeout_at_connect():
    w = ArenaWorld(load_task("arena-006"), 0, 200)
    w.advance_to(40)
    key = "postgres.statement_timeout@role=saleor_app,db=saleor"
    assert set(w.sessions.timeouts_ms(w.config)) == {150.0}
    w.add_scoped(key, None)
    assert set(w.sessions.timeouts_ms(w.config)) == {150.0}  # pooled sessions keep it
    assert w.terminate_sessions(role="saleor_app") == 8
    assert set(w.sessions.timeouts_ms(w.config)) == {0.0}


def test_an_evicting_queue_loses_jobs_and_noeviction_refuses_them():
    w = ArenaWorld(load_task("arena-001"), 0, 400)
    w.advance_to(60)
    enq = w.lanes.index("enqueue")
    assert w.rec["err"][enq, 40:60].sum() == w.n[enq, 40:60].sum()  # 1 MB: every enqueue refused
    w.set_config("redis-queue.maxmemory-policy", "allkeys-lru", persist=False)
    w.set_config("redis-queue.acl.default.denied", ["blpop", "brpop", "blmove"])
    w.advance_to(200)
    assert w.state["ledger"]["lost"] > 0


def test_a_switch_that_is_no_leg_costs_what_it_costs_in_the_service():
    w = ArenaWorld(load_task("arena-011"), 0, 300)
    w.advance_to(100)
    unread = w.lanes.index("unread")
    before = w.rec["p50"][unread, 60:100].mean()
    w.set_event("svc-workspace.store_consistency_strict", True)  # not a leg of 011
    w.advance_to(140)
    assert w.rec["p50"][unread, 100:140].mean() > before + 400  # 2 ops x 250 ms more
