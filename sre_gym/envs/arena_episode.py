"""The verifier's side of an arena episode: freeze, soak, challenge, evidence.

Called by the env once the agent declares (or its budget runs out). It drives the world through the
soak and the contract's challenge and assembles the Arena-shaped evidence that ``grade`` reads.
The challenge's target comes from the contract only, never from the agent or its report.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from sre_gym.bundle.evidence import Evidence
from sre_gym.catalogs.arena import RECEIPTS, RESTARTS, load_substrate
from sre_gym.catalogs.arena.schema import Task
from sre_gym.scoring.arena.grade import (
    BURST_WRITES,
    burst_unique,
    checkpoint_challenge,
    next_checkpoint,
    probe,
)
from sre_gym.sim.arena.load import cycle_start_at_or_after
from sre_gym.sim.arena.world import MODEL_VERSION, RELEASE, ArenaWorld

# a safe statement timeout is none at all or at least this long (Saleor's heavy checkouts run ~0.3 s)
SAFE_STATEMENT_TIMEOUT_MS = 2000.0


def ready_time(task: Task) -> int:
    """When the agent's session starts: the task's own time, or once the warm-up is over and every
    runtime leg has had 10 s to manifest (the episode-ready gate)."""
    gate = max([task.load.warmup_s] + [int(f.arm_at_s) + 10 for f in task.faults])
    return max(gate, int(task.ready_at_s or 0))


def horizon(task: Task, ready_s: int) -> int:
    """Seconds the world must cover: the agent window, alignment, soak, challenge (a rolling
    restart, the wait after it and the probe) and a margin."""
    p = task.load.period_s
    ch = task.challenge
    return (
        ready_s
        + task.budgets.agent_window_s
        + p * (task.load.soak_cycles + 2)
        + 240
        + (ch.post_ready_wait_s + ch.probe_s)
    )


def finish(
    world: ArenaWorld,
    task: Task,
    bands: dict[str, Any],
    calibration: dict[str, Any],
    declared: bool,
    ready_s: int,
    snapshots: dict[str, Any],
    events: list[dict[str, Any]],
    report: dict[str, Any] | None,
    seed: int,
) -> Evidence:
    anchor = int(world.now)
    snapshots["declaration"] = world.snapshot()
    boundary = {
        "success": True,
        "remaining_pids": [],
        "declared": declared,
        "submission_to_freeze_mutation": False if declared else None,
        "freeze_ack_s": anchor,
        "reason": "declared" if declared else "window_elapsed",
    }
    world.declare(anchor)
    load = task.load
    start = cycle_start_at_or_after(load, anchor) if load.align_soak_to_cycle else anchor
    start = max(start, anchor)
    end = start + load.soak_cycles * load.period_s
    world.advance_to(end)
    snapshots["soak_end"] = world.snapshot()
    ch = task.challenge
    receipt: dict[str, Any] = {
        "schema_version": 1,
        "actor": "verifier",
        "type": ch.type,
        "agent_frozen": copy.deepcopy(boundary),
    }
    if ch.type == "database_checkpoint":
        # the controller is restarted first, so the run comes from its stored schedule (Arena's
        # challenge reads the protected schedule): a schedule set only at runtime is gone
        world.restart("db-maintenance")
        nxt = next_checkpoint(world.config, end)
        dur = int(world.config.get("db-maintenance.duration_s", 0))
        b = nxt if nxt is not None else end
        world.advance_to(b + max(dur, 1) + 1)
        snapshots["after_challenge"] = world.snapshot()
        res = checkpoint_challenge(
            _ev_arrays(world), world.config, load_substrate(task.substrate).config, end
        )
        receipt.update(
            {
                "window": [b, b + max(dur, 1)],
                "boundary_s": res["boundary_s"],
                "duration_s": dur,
                "pass": res["pass"],
            }
        )
    else:
        t0 = end
        before = None
        if ch.type in RESTARTS:
            ready = int(world.restart(ch.target)["ready_s"])
            t0 = max(ready, end) + ch.post_ready_wait_s
            receipt["restart"] = {"target": ch.target, "at_s": end, "ready_s": ready}
            # the same span of the soak's end: what the restart found
            before = (max(start, end - ch.probe_s), end)
            receipt["before"] = list(before)
        else:  # service_event_recurrence: the trigger fires again
            world.set_event(ch.target, True)
        t1 = t0 + ch.probe_s
        world.advance_to(t1)
        snapshots["after_challenge"] = world.snapshot()
        res = probe(_ev_arrays(world), world.lanes, t0, t1, bands, before)
        ok = res["pass"]
        if ch.type == "concurrent_sequence":
            # barrier-synchronised writes to one channel: unique numbers only from an atomic
            # sequencer, as the restarted service runs it
            unique = burst_unique(snapshots["after_challenge"])
            receipt["burst"] = {"writes": BURST_WRITES, "channel": "C01", "unique": unique}
            ok = ok and unique
        receipt.update({"window": [t0, t1], "target": ch.target, "probe": res, "pass": ok})
    t_end = int(world.now)
    decl = anchor if declared else None
    sub = load_substrate(task.substrate)
    meta = {
        "task": task.id,
        "seed": int(seed),
        "lanes": list(world.lanes),
        "ready_s": ready_s,
        "declare_ts_s": decl,
        "window_end_s": anchor,
        "soak_start_s": start,
        "soak_end_s": end,
        "end_s": t_end,
        "completion_reason": "declared_soak_complete"
        if declared
        else "window_elapsed_soak_complete",
        "safe_statement_timeout_ms": SAFE_STATEMENT_TIMEOUT_MS,
        "search_fresh_s": sub.messages.search_fresh_s if sub.messages else None,
    }
    artifacts = {
        "task.json": task.model_dump(mode="json", by_alias=True),
        "meta.json": meta,
        "calibration.json": calibration,
        # the agent's changes are diffed against the state it was handed (fault overlay included)
        "config-before.json": snapshots["ready"]["config"],
        "config-healthy.json": {**sub.config, **sub.harmless},
        "harmless.json": sorted(sub.harmless),
        "sut/state_ready.json": snapshots["ready"],
        "sut/state_declaration.json": snapshots["declaration"],
        "sut/state_soak_end.json": snapshots["soak_end"],
        "sut/state_after_challenge.json": snapshots["after_challenge"],
        "agent-boundary.json": boundary,
        RECEIPTS[ch.type]: receipt,
    }
    if report is not None:
        artifacts["report.json"] = report  # advisory: no check may read it
    manifest = {
        "format": "sre_gym.bundle/1",
        "suite": "arena",
        "release": RELEASE,
        "app": task.id,
        "substrate": task.substrate,
        "seed": int(seed),
        "sim": MODEL_VERSION,
    }
    ev = Evidence(manifest=manifest, events=list(events), arrays={}, artifacts=artifacts)
    ev.arrays = {k: v[..., :t_end].copy() for k, v in _ev_arrays(world).arrays.items()}
    return ev


class _Arrays:
    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays


def _ev_arrays(world: ArenaWorld) -> _Arrays:
    t = int(world.now)
    return _Arrays(
        {
            "lane_n": world.n[:, :t].astype(np.int64),
            "lane_ok": world.rec["ok"][:, :t],
            "lane_err": world.rec["err"][:, :t],
            "lane_p50": world.rec["p50"][:, :t].astype(np.float32).astype(np.float64),
            "lane_p99": world.rec["p99"][:, :t].astype(np.float32).astype(np.float64),
            "lane_admitted": world.rec["admitted"][:, :t],
            "phase": world.phase[:t].copy(),
            "checkpoint": world.rec_ckpt[:t].copy(),
        }
    )
