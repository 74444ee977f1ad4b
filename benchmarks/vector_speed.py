"""Env steps per second of the numeric stack (``NumericObservation`` + ``DiscreteRemedies``).

One step is one 120 s invocation. It times a random masked policy, with ``counterfactual=False`` as
the training examples use, on:

- the single env with the wrappers;
- Gymnasium's vector envs over it (``gym.make_vec``, ``sync`` at N = 1, 4 and 16, ``async`` at N =
  the machine's cores), which step N seeds of the same app;

and prints steps per second for each: the median of ``--rounds`` runs in which every env plays
``--steps`` steps (two whole episodes by default, so that every setting pays for the same mix of
early and late invocations), resets included.

A native batched env, one numpy state with a leading episode axis, is not built: the numeric
observation is read through the PromQL engine, the Kubernetes views and the alert rules of each
episode's own simulated cluster, so per-episode work cannot be shared across seeds without a
simulator rebuilt around a batch axis (``benchmarks/RESULTS.md``, stop 33, bounds what an episode
axis could share: about 30 % of a step is array math).

Run: python benchmarks/vector_speed.py [--app APP] [--steps N] [--rounds K]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401
from sre_gym.wrappers import DiscreteRemedies, NumericObservation

WRAPPERS = [NumericObservation, DiscreteRemedies]
# as the training examples run the env: whole episodes would otherwise add the scorecard's no-action
# run at their end, which runs of one or two envs reach and runs of many envs do not
ENV_KWARGS = {"counterfactual": False}


def _masked(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def single(app: str, steps: int, seed: int) -> float:
    """Steps per second of one wrapped env."""
    env = DiscreteRemedies(NumericObservation(gym.make("SREMarathon-v0", app=app, **ENV_KWARGS)))
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    t = time.perf_counter()
    for _ in range(steps):
        _, _, term, trunc, info = env.step(_masked(rng, info["action_mask"]))
        if term or trunc:
            seed += 1
            _, info = env.reset(seed=seed)
    return steps / (time.perf_counter() - t)


def vector(app: str, n: int, mode: str, steps: int, seed: int) -> float:
    """Env steps per second (summed over the N envs) of ``gym.make_vec``, each env playing
    ``steps`` steps."""
    kw = {"vector_kwargs": {"shared_memory": False}} if mode == "async" else {}
    envs = gym.make_vec(
        "SREMarathon-v0",
        num_envs=n,
        vectorization_mode=mode,
        app=app,
        wrappers=WRAPPERS,
        **ENV_KWARGS,
        **kw,
    )
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    done = 0
    t = time.perf_counter()
    while done < steps * n:
        acts = np.array([_masked(rng, m) for m in info["action_mask"]])
        _, _, _, _, info = envs.step(acts)
        done += n
    rate = done / (time.perf_counter() - t)
    envs.close()
    return rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--app", default="online-boutique")
    ap.add_argument(
        "--steps", type=int, default=90, help="env steps per env and run (two episodes)"
    )
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    cores = os.cpu_count() or 1
    runs = [("single env", lambda r: single(a.app, a.steps, r))]
    for n in (1, 4, 16):
        runs.append((f"make_vec sync N={n}", lambda r, n=n: vector(a.app, n, "sync", a.steps, r)))
    runs.append((f"make_vec async N={cores}", lambda r: vector(a.app, cores, "async", a.steps, r)))
    print(f"app={a.app} steps_per_env={a.steps} rounds={a.rounds} (one step = one invocation)")
    for name, fn in runs:
        rates = [fn(r) for r in range(a.rounds)]
        print(f"{name:24s} {statistics.median(rates):8.1f} env steps/s")
    print(f"{'native batched env':24s} {'not built':>8s} (see the docstring)")


if __name__ == "__main__":
    main()
