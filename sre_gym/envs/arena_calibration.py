"""SLI band calibration for the arena tasks, with a provenance fingerprint.

Bands come from the healthy substrate (no fault) over calibration seeds, or, where the task says so
(a legitimate repaired state that differs from healthy, such as strict mode re-triggered in the
soak), from the oracle's repaired state. A lane-phase band is golden + max(abs_ms, rel x golden)
(Arena's envelope). Each task's entry in ``catalogs/arena/calibration.yaml`` carries a fingerprint
over the simulator model version, the grader version, the substrate, the load profile, the fault
legs and the band policy; when today's fingerprint differs, the task is provisional until
``sre-gym arena calibrate`` runs again. This module reads calibrations; they are made by
``sre_gym.rollouts.arena_calibrate``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

import yaml

from sre_gym.catalogs.arena import arena_dir, load_substrate
from sre_gym.catalogs.arena.schema import Task
from sre_gym.scoring.arena.grade import GRADER_VERSION
from sre_gym.sim.arena.world import MODEL_VERSION

CALIBRATION_FILE = "calibration.yaml"
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
def stored() -> dict[str, Any]:
    path = arena_dir() / CALIBRATION_FILE
    if not path.exists():
        return {}
    return yaml.safe_load(path.read_text()) or {}


def calibration_for(task: Task) -> dict[str, Any]:
    """The task's calibration record, ``provisional`` when missing or out of date."""
    rec = stored().get(task.id)
    fp = fingerprint(task)
    sub = load_substrate(task.substrate)
    if rec is None or set(sub.lanes) - set(rec["bands"]["lanes"]):
        # not calibrated yet (or a lane added since): provisional, with bands nothing fails
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


__all__ = ["CALIBRATION_FILE", "calibration_for", "fingerprint", "stored"]
