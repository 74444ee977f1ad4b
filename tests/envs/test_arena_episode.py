"""The verifier's side: soak alignment, declaration-anchored re-triggers, challenges, receipts."""

from __future__ import annotations

from sre_gym.catalogs.arena import load_task
from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.envs.arena_episode import horizon, next_checkpoint


def _declare_after(task_id, waits, seed=0):
    env = IncidentArenaEnv(task=task_id)
    env.reset(seed=seed)
    for w in waits:
        env.step({"tool": "wait", "args": {"seconds": w}})
    env.step({"tool": "declare_repair_complete"})
    return env


def test_soak_starts_at_the_next_cycle_and_retrigger_fires_after_the_declaration():
    env = _declare_after("arena-013", [17])
    meta = env.evidence.artifacts["meta.json"]
    decl = meta["declare_ts_s"]
    assert meta["soak_start_s"] >= decl and (meta["soak_start_s"] - 30) % 60 == 0
    assert meta["soak_end_s"] - meta["soak_start_s"] == 120
    d = env.evidence.artifacts["sut/state_declaration.json"]["events"]
    e = env.evidence.artifacts["sut/state_soak_end.json"]["events"]
    key = "svc-channel.read_consistency_strict"
    assert d[key] is True and e[key] is True
    env2 = IncidentArenaEnv(task="arena-013")
    env2.reset(seed=0)
    env2.step(
        {
            "tool": "http_admin",
            "args": {
                "service": "svc-channel",
                "method": "PUT",
                "path": "/admin/event",
                "body": {"name": "read_consistency_strict", "active": False},
            },
        }
    )
    env2.step({"tool": "declare_repair_complete"})
    arts = env2.evidence.artifacts
    assert arts["sut/state_declaration.json"]["events"][key] is False
    assert arts["sut/state_soak_end.json"]["events"][key] is True  # re-fired at declaration + 60 s


def test_freeze_receipt_and_challenge_receipt():
    env = _declare_after("arena-008", [])
    arts = env.evidence.artifacts
    assert (
        arts["agent-boundary.json"]["declared"]
        and arts["agent-boundary.json"]["remaining_pids"] == []
    )
    r = arts["challenge/maintenance-functional.json"]
    assert r["actor"] == "verifier" and r["pass"] is False  # offset 35 is still in the peak
    assert r["boundary_s"] % 60 == 35 and r["duration_s"] == 8


def test_window_elapsed_is_graded_with_the_same_receipt_shape():
    task = load_task("arena-009")
    env = IncidentArenaEnv(task="arena-009")
    env.reset(seed=0)
    trunc = False
    while not trunc:
        _, _, _, trunc, info = env.step({"tool": "wait", "args": {"seconds": 600}})
    meta = env.evidence.artifacts["meta.json"]
    assert (
        meta["declare_ts_s"] is None and meta["completion_reason"] == "window_elapsed_soak_complete"
    )
    assert meta["window_end_s"] == env.ready_s + task.budgets.agent_window_s
    assert env.evidence.arrays["lane_n"].shape[1] <= horizon(task, env.ready_s)
    assert info["failure_class"] == "never_declared"


def test_next_checkpoint():
    cfg = {
        "db-maintenance.enabled": True,
        "db-maintenance.period_s": 60,
        "db-maintenance.offset_s": 55,
    }
    assert next_checkpoint(cfg, 100) == 115 and next_checkpoint(cfg, 115) == 115
    assert next_checkpoint({"db-maintenance.enabled": False}, 100) is None


def _play(task_id, calls, seed=0):
    env = IncidentArenaEnv(task=task_id)
    env.reset(seed=seed)
    for c in calls:
        *_, term, trunc, info = env.step(c)
        if term or trunc:
            return env, info
    raise AssertionError


def test_the_restart_challenge_restarts_what_the_repair_configured():
    set_mem = {
        "tool": "redis",
        "args": {
            "service": "redis-queue",
            "op": "config_set",
            "name": "maxmemory",
            "value": "256mb",
        },
    }
    grant = {
        "tool": "db_admin",
        "args": {"op": "set_global", "name": "max_user_connections", "value": 0},
    }
    rest = [{"tool": "wait", "args": {"seconds": 300}}, {"tool": "declare_repair_complete"}]
    env, info = _play("arena-001", [grant, set_mem, *rest])  # runtime only: lost on the restart
    after = env.evidence.artifacts["sut/state_after_challenge.json"]["config"]
    r = env.evidence.artifacts["challenge/restart-receipt.json"]
    assert r["restart"]["target"] == "redis-queue" and after["redis-queue.maxmemory_mb"] == 1
    assert r["pass"] is False and info["failure_class"] == "repair_did_not_last"
    rewrite = {"tool": "redis", "args": {"service": "redis-queue", "op": "config_rewrite"}}
    env, info = _play("arena-001", [grant, set_mem, rewrite, *rest])
    assert info["verdict"]["overall"] is True


def test_the_checkpoint_challenge_runs_from_the_stored_schedule():
    put = {
        "tool": "http_admin",
        "args": {
            "service": "db-maintenance",
            "method": "PUT",
            "path": "/v1/maintenance",
            "body": {"offset_s": 55},
        },
    }
    rest = [{"tool": "wait", "args": {"seconds": 300}}, {"tool": "declare_repair_complete"}]
    env, info = _play("arena-008", [put, *rest])
    r = env.evidence.artifacts["challenge/maintenance-functional.json"]
    assert r["boundary_s"] % 60 == 35 and r["pass"] is False  # the controller reverted
    assert info["failure_class"] == "repair_did_not_last"
