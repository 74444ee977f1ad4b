"""Median CPU seconds of one no-op IncidentArena-v0 episode (declare at once) per task, on one core.

Run: .venv/bin/python benchmarks/arena_speed.py [repeats]. Target: under 0.5 s per episode."""

from __future__ import annotations

import statistics
import sys
import time

from sre_gym.catalogs.arena import task_ids
from sre_gym.envs.arena import IncidentArenaEnv


def episode(task: str, seed: int) -> float:
    t0 = time.process_time()
    env = IncidentArenaEnv(task=task)
    env.reset(seed=seed)
    env.step({"tool": "declare_repair_complete", "args": {}})
    return time.process_time() - t0


def main(repeats: int = 8) -> None:
    for task in task_ids():
        times = [episode(task, s) for s in range(repeats)]
        print(
            f"{task}: median {statistics.median(times):.4f} s (max {max(times):.4f} s, {repeats} seeds)"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8)
