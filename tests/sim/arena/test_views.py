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
