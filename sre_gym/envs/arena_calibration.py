"""SLI band calibration for the arena tasks, with a provenance fingerprint.

Bands come from the healthy substrate (no fault) over calibration seeds, or, where the task says so
(a legitimate repaired state that differs from healthy, such as strict mode re-triggered in the
soak), from the oracle's repaired state. A lane-phase band is golden + max(abs_ms, rel x golden)
(Arena's envelope). Each task's entry in ``catalogs/arena/calibration.yaml`` carries a fingerprint
over the simulator model version, the grader version, the substrate, the load profile, the fault
legs and the band policy; when today's fingerprint differs, the task is provisional until
``sre-gym arena calibrate`` runs again.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

import numpy as np
import yaml

from sre_gym.catalogs.arena import arena_dir, load_substrate, load_task
from sre_gym.catalogs.arena.schema import Task
from sre_gym.scoring.arena.grade import GRADER_VERSION
from sre_gym.scoring.arena.materialize import wquantile
from sre_gym.sim.arena.load import PEAK, TROUGH
from sre_gym.sim.arena.world import MODEL_VERSION, ArenaWorld

CALIBRATION_FILE = "calibration.yaml"
CALIBRATION_SEEDS = tuple(range(100, 108))  # disjoint from the evaluation seeds 0-7
HEALTHY_CYCLES = 6
UNCALIBRATED_MS = 1e9


def fingerprint(task: Task) -> str:
    sub = load_substrate(task.substrate)
    parts = {
        "model": MODEL_VERSION,
        "grader": GRADER_VERSION,
        "substrate": sub.model_dump(mode="json"),
        "load": task.load.model_dump(mode="json"),
        "faults": [f.model_dump(mode="json") for f in task.faults],
        "bands": task.bands.model_dump(mode="json"),
        "oracle": [s.model_dump(mode="json") for s in task.oracle]
        if task.bands.source == "oracle"
        else [],
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


@functools.cache
def _stored() -> dict[str, Any]:
    path = arena_dir() / CALIBRATION_FILE
    if not path.exists():
        return {}
    return yaml.safe_load(path.read_text()) or {}


def calibration_for(task: Task) -> dict[str, Any]:
    """The task's calibration record, ``provisional`` when missing or out of date."""
    rec = _stored().get(task.id)
    fp = fingerprint(task)
    if rec is None:
        sub = load_substrate(task.substrate)
        lanes = {
            k: {"peak_p99_ms": UNCALIBRATED_MS, "trough_p99_ms": UNCALIBRATED_MS} for k in sub.lanes
        }
        bands = {
            "lanes": lanes,
            "error_rate_max": task.bands.error_rate_max,
            "goodput_min": task.bands.goodput_min,
        }
        return {"bands": bands, "fingerprint": None, "current": fp, "provisional": True}
    return {**rec, "current": fp, "provisional": rec.get("fingerprint") != fp}


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
    from sre_gym.envs.arena import IncidentArenaEnv

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
    data = dict(_stored())
    for t in task_ids_:
        data[t] = calibrate(t, seeds)
    path = arena_dir() / CALIBRATION_FILE
    head = "# SLI bands per arena task (sre-gym arena calibrate); do not edit by hand\n"
    path.write_text(head + yaml.safe_dump(data, sort_keys=True))
    _stored.cache_clear()
    return data


__all__ = ["calibrate", "calibration_for", "fingerprint", "np", "write_calibration"]
