"""Calibrating the arena tasks' SLI bands: run the healthy substrate (or the oracle's repair, where
the task says so) over calibration seeds and write ``catalogs/arena/calibration.yaml`` with each
task's provenance fingerprint (``sre-gym arena calibrate``). The env reads the result through
``sre_gym.envs.arena_calibration``; this module runs episodes, so it lives with the rollouts.
"""

from __future__ import annotations

from typing import Any

import yaml

from sre_gym.catalogs.arena import arena_dir, load_task
from sre_gym.catalogs.arena.schema import Task
from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.envs.arena_calibration import CALIBRATION_FILE, fingerprint, stored
from sre_gym.scoring.arena.materialize import wquantile
from sre_gym.sim.arena.load import PEAK, TROUGH
from sre_gym.sim.arena.world import ArenaWorld

CALIBRATION_SEEDS = tuple(range(100, 108))  # disjoint from the evaluation seeds 0-7
HEALTHY_CYCLES = 6


def _envelope(golden: float, task: Task) -> float:
    return round(golden + max(task.bands.abs_ms, task.bands.rel * golden), 1)


def _lane_p99s(lanes, ok, p99, phase, t0, t1) -> dict[str, dict[str, float]]:
    out = {}
    ph = phase[t0:t1]
    for i, lane in enumerate(lanes):
        row = {}
        for name, code in (("peak", PEAK), ("trough", TROUGH)):
            m = ph == code
            row[name] = wquantile(p99[i, t0:t1][m], ok[i, t0:t1][m], 0.99)
        out[lane] = row
    return out


def healthy_golden(task: Task, seeds=CALIBRATION_SEEDS) -> dict[str, dict[str, float]]:
    """Per lane and phase, the worst p99 of the healthy substrate over ``seeds``."""
    gold: dict[str, dict[str, float]] = {}
    load = task.load
    t1 = load.warmup_s + HEALTHY_CYCLES * load.period_s
    for s in seeds:
        w = ArenaWorld(task, s, t1 + 1, faults=False)
        w.advance_to(t1)
        got = _lane_p99s(w.lanes, w.rec["ok"], w.rec["p99"], w.phase, load.warmup_s, t1)
        for lane, row in got.items():
            g = gold.setdefault(lane, {"peak": 0.0, "trough": 0.0})
            for k in g:
                g[k] = max(g[k], row[k])
    return gold


def oracle_golden(task: Task, seeds=CALIBRATION_SEEDS) -> dict[str, dict[str, float]]:
    """Per lane and phase, the worst soak p99 of the oracle's repaired state over ``seeds``."""
    gold: dict[str, dict[str, float]] = {}
    for s in seeds:
        env = IncidentArenaEnv(task=task.id)
        env.reset(seed=s)
        for step in task.oracle:
            _, _, term, trunc, _ = env.step({"tool": step.tool, "args": step.args})
            if term or trunc:
                break
        ev = env.evidence
        meta = ev.artifacts["meta.json"]
        a = ev.arrays
        got = _lane_p99s(
            meta["lanes"],
            a["lane_ok"],
            a["lane_p99"],
            a["phase"],
            meta["soak_start_s"],
            meta["soak_end_s"],
        )
        for lane, row in got.items():
            g = gold.setdefault(lane, {"peak": 0.0, "trough": 0.0})
            for k in g:
                g[k] = max(g[k], row[k])
    return gold


def calibrate(task_id: str, seeds=CALIBRATION_SEEDS) -> dict[str, Any]:
    task = load_task(task_id)
    gold = healthy_golden(task, seeds)
    if task.bands.source == "oracle":
        gold = oracle_golden(task, seeds)
    lanes = {
        lane: {
            "golden_peak_p99_ms": round(row["peak"], 1),
            "golden_trough_p99_ms": round(row["trough"], 1),
            "peak_p99_ms": _envelope(row["peak"], task),
            "trough_p99_ms": _envelope(row["trough"], task),
        }
        for lane, row in sorted(gold.items())
    }
    return {
        "fingerprint": fingerprint(task),
        "source": task.bands.source,
        "seeds": list(seeds),
        "bands": {
            "lanes": lanes,
            "error_rate_max": task.bands.error_rate_max,
            "goodput_min": task.bands.goodput_min,
        },
    }


def write_calibration(task_ids_: list[str], seeds=CALIBRATION_SEEDS) -> dict[str, Any]:
    """Calibrate the tasks and merge them into calibration.yaml (other entries are kept)."""
    data = dict(stored())
    for t in task_ids_:
        data[t] = calibrate(t, seeds)
    path = arena_dir() / CALIBRATION_FILE
    head = "# SLI bands per arena task (sre-gym arena calibrate); do not edit by hand\n"
    path.write_text(head + yaml.safe_dump(data, sort_keys=True))
    stored.cache_clear()
    return data
