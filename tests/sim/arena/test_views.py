"""Operator views show symptoms, never the fault's name."""

from __future__ import annotations

from sre_gym.catalogs.arena import load_task
from sre_gym.sim.arena.world import ArenaWorld


def test_logs_show_pool_timeouts_and_views_hide_the_mechanism():
    task = load_task("arena-013")
    w = ArenaWorld(task, 0, 300)
    w.advance_to(200)
    lines = w.log_lines("svc-channel", 60)
    assert any("QueuePool limit of size 3 overflow 2" in x for x in lines)
    text = str(lines) + str(w.pool_stats("svc-channel")) + str(w.db_view("settings"))
    assert all(f.mechanism not in text for f in task.faults)


def test_checkpoint_views():
    w = ArenaWorld(load_task("arena-008"), 0, 300)
    w.advance_to(200)
    assert w.db_view("checkpoints")["checkpoints_req"] == 3
    assert any("CHECKPOINT" in x for x in w.log_lines("db-maintenance", 120))


def test_each_failure_logs_its_own_cause_among_background_noise():
    w = ArenaWorld(load_task("arena-005"), 0, 400)
    w.advance_to(120)
    lines = w.log_lines("frappe-web", 60, level="error")
    assert any("--read-only option" in x for x in lines)
    assert not any("max_user_connections" in x for x in lines)  # no cap in this task
    every = w.log_stream("frappe-web", 0, 120)
    assert len(every) > 300 and any(" WARN " in x or "websocket" in x for x in every)
    hits = w.log_lines("frappe-web", 60, contains="read-only")
    assert hits and all("read-only" in x for x in hits)  # the filter digs past the noise
    w.advance_to(400)  # the workers quit at each start (a 300 s back-off): one start at least
    work = w.log_stream("worker-long", 0, 400)
    assert any("no permissions to run the 'blpop' command" in x for x in work)
    assert any("found an unhandled exception, quitting" in x for x in work)
    assert any("Back-off restarting failed container" in x for x in work)


def test_locks_and_sequences_views():
    w = ArenaWorld(load_task("arena-018"), 0, 300)
    w.advance_to(60)
    locks = w.db_view("locks")
    assert locks[0]["state"] == "idle in transaction" and locks[0]["relation"] == "channel_seq"
    seqs = w.db_view("sequences")
    assert seqs["duplicates"] == 0 and set(seqs["channels"]) == {f"C{i:02d}" for i in range(1, 9)}
