"""Where a step of the twin's time goes: one whole episode of N sub-envs, split by stage.

Times ``SREMarathonTwin-v0`` as ``vector_speed.py --twin`` does (one process, random masked
actions, fresh seeds, ``counterfactual`` and ``persistence`` on), with each stage of
``engine.step`` timed around its call: the episodes' own ticks, the no-action runs' ticks, the
persistence forks' ticks, the alert evaluations, the scores, the agent's calls, the remedies'
plan, the observation and the mask. Prints each stage's seconds and share of the steps' time (the
reset is reported apart), and the env steps per second of the whole.

Run: OMP_NUM_THREADS=1 python benchmarks/twin_profile.py [--app APP] [--n N] [--seed S]
"""

from __future__ import annotations

import argparse
import functools
import time
from typing import Any

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401  (registers SREMarathonTwin-v0)


def _timed(spent: dict[str, float], mod: Any, name: str, key=None) -> None:
    """Wrap ``mod.name`` to add its wall time to ``spent`` (under ``key(args, kwargs)``)."""
    f = getattr(mod, name)

    @functools.wraps(f)
    def g(*a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            kk = key(a, k) if key else name
            spent[kk] = spent.get(kk, 0.0) + time.perf_counter() - t

    setattr(mod, name, g)


def _tick_kind(a: tuple, k: dict) -> str:
    if k.get("fork") is not None:
        return "ticks: persistence forks"
    return "ticks: the episodes" if k.get("record", True) else "ticks: no-action runs"


def profile(app: str, n: int, seed: int) -> tuple[float, float, dict[str, float]]:
    from sre_gym.twin import alerts, calls, engine, features, remedies, score

    spent: dict[str, float] = {}
    _timed(spent, engine, "tick", _tick_kind)
    for mod, name in (
        (alerts, "evaluate"),
        (score, "scores"),
        (score, "degradation_cost"),
        (calls, "run"),
        (remedies, "plan"),
        (features, "observe"),
        (features, "action_mask"),
    ):
        _timed(spent, mod, name)
    gym.make_vec("SREMarathonTwin-v0", num_envs=1, app=app)  # compile the rule pack once
    envs = gym.make_vec("SREMarathonTwin-v0", num_envs=n, app=app)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    _, info = envs.reset(seed=seed)
    reset_s = time.perf_counter() - t0
    spent.clear()
    t1 = time.perf_counter()
    done = np.zeros(n, dtype=bool)
    while not done.all():
        m = info["action_mask"]
        _, _, term, trunc, info = envs.step((rng.random(m.shape) * m).argmax(axis=1))
        done |= term | trunc
    return reset_s, time.perf_counter() - t1, spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--app", default="online-boutique")
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--seed", type=int, default=10_000)
    a = ap.parse_args()
    reset_s, steps_s, spent = profile(a.app, a.n, a.seed)
    rate = a.n * 45 / (reset_s + steps_s)
    print(
        f"{a.app}, N = {a.n}: reset {reset_s:.2f} s, steps {steps_s:.2f} s, {rate:.1f} env steps/s"
    )
    for k, v in sorted(spent.items(), key=lambda x: -x[1]):
        print(f"  {k:28s} {v:7.2f} s  {100 * v / steps_s:5.1f} %")
    rest = steps_s - sum(spent.values())
    print(f"  {'the rest':28s} {rest:7.2f} s  {100 * rest / steps_s:5.1f} %")


if __name__ == "__main__":
    main()
