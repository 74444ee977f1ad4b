"""Env steps per second of the numeric stack (``NumericObservation`` + ``DiscreteRemedies``).

One step is one 120 s invocation. It times a random masked policy, with ``counterfactual=False`` as
the training examples use, on:

- the single env with the wrappers;
- Gymnasium's vector envs over it (``gym.make_vec``, ``sync`` at N = 1, 4 and 16, ``async`` at N =
  the machine's cores), which step N seeds of the same app;

and prints steps per second for each: the median of ``--rounds`` runs in which every env plays
``--steps`` steps (two whole episodes by default, so that every setting pays for the same mix of
early and late invocations), resets included.

``--twin`` times ``SREMarathonTwin-v0`` instead, the batched engine of the same world
(``docs/twin.md``): for each app and N = 1, 16, 64 and 256, one whole episode per sub-env with fresh
seeds, reset and warm-up included, random masked actions, ``OMP_NUM_THREADS=1``; each setting runs
in a fresh process of its own (one at a time), which reports its env steps per second (N x 45
invocations over the wall time from ``reset`` to the last step) and its peak RSS. The numpy floor
(``benchmarks/floor.py``, a copy of the project's reference: the per-tick work any embedded
simulator must do, batched over N episodes) runs the same way in the same invocation, as env steps
per second (45 invocations per episode). ``--no-counterfactual`` leaves out the no-action runs the
twin steps alongside for net_score's degradation cost (the full env's ``counterfactual=False``);
``--no-persistence`` lets every repair's persistence challenge hold instead of running its fork.

Run: python benchmarks/vector_speed.py [--app APP] [--steps N] [--rounds K]
     python benchmarks/vector_speed.py --twin [--apps A,B] [--sizes 1,16,64,256] [--rounds K]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
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


INVOCATIONS = 45  # a marathon's invocations (90 minutes of 120 s): the floor's episode too
APPS = ("online-boutique", "train-ticket", "astronomy-shop")


def twin_one(app: str, n: int, seed: int, counterfactual: bool, persistence: bool = True) -> dict:
    """One whole episode of each of ``n`` sub-envs (fresh seeds), reset included."""
    make = {"num_envs": n, "app": app, "counterfactual": counterfactual, "persistence": persistence}
    gym.make_vec("SREMarathonTwin-v0", **{**make, "num_envs": 1})  # compile the rule pack once
    rng = np.random.default_rng(seed)
    envs = gym.make_vec("SREMarathonTwin-v0", **make)
    t = time.perf_counter()
    _, info = envs.reset(seed=seed)
    steps = 0
    done = np.zeros(n, dtype=bool)
    while not done.all():
        m = info["action_mask"]
        acts = (rng.random(m.shape) * m).argmax(axis=1)  # uniform over the allowed actions
        _, _, term, trunc, info = envs.step(acts)
        done |= term | trunc
        steps += n
    wall = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"rate": steps / wall, "wall_s": wall, "rss_mb": rss, "steps": steps}


def floor_one(n: int) -> dict:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from floor import floor_batched

    per_episode = floor_batched(n, repeat=3)
    return {"rate": INVOCATIONS / per_episode}


def child(args: list[str]) -> dict:
    """Run one setting in a fresh process (its own RSS peak), with one thread for numpy."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def twin_table(
    apps: list[str], sizes: list[int], rounds: int, counterfactual: bool, persistence: bool
) -> None:
    cf = ([] if counterfactual else ["--no-counterfactual"]) + (
        [] if persistence else ["--no-persistence"]
    )
    print(
        f"SREMarathonTwin-v0: one whole episode per sub-env, fresh seeds, reset included, "
        f"counterfactual={counterfactual}, persistence={persistence}, OMP_NUM_THREADS=1, median of {rounds} "
        f"(load average at start {os.getloadavg()[0]:.2f})"
    )
    floor = {}
    for n in sizes:
        floor[n] = statistics.median(child(["--floor-one", str(n)])["rate"] for _ in range(rounds))
    print("floor (batched numpy): " + ", ".join(f"N={n} {floor[n]:,.0f}" for n in sizes))
    print(f"{'app':16s} {'N':>4s} {'steps/s':>9s} {'% floor':>8s} {'RSS MB':>7s}")
    for app in apps:
        for n in sizes:
            runs = [
                child(["--twin-one", app, str(n), str(10_000 + 1000 * r), *cf])
                for r in range(rounds)
            ]
            rate = statistics.median(r["rate"] for r in runs)
            rss = max(r["rss_mb"] for r in runs)
            print(f"{app:16s} {n:4d} {rate:9.1f} {100 * rate / floor[n]:7.1f}% {rss:7.0f}")
    print(f"(load average at end {os.getloadavg()[0]:.2f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--app", default="online-boutique")
    ap.add_argument(
        "--steps", type=int, default=90, help="env steps per env and run (two episodes)"
    )
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--twin", action="store_true", help="time SREMarathonTwin-v0 (docstring)")
    ap.add_argument("--apps", default=",".join(APPS), help="with --twin: apps, comma-separated")
    ap.add_argument("--sizes", default="1,16,64,256", help="with --twin: N values")
    ap.add_argument(
        "--no-counterfactual", action="store_true", help="with --twin: no no-action runs"
    )
    ap.add_argument(
        "--no-persistence", action="store_true", help="with --twin: challenges hold, no forks"
    )
    ap.add_argument("--twin-one", nargs=3, metavar=("APP", "N", "SEED"), help=argparse.SUPPRESS)
    ap.add_argument("--floor-one", type=int, metavar="N", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.twin_one:
        app, n, seed = a.twin_one
        print(
            json.dumps(
                twin_one(app, int(n), int(seed), not a.no_counterfactual, not a.no_persistence)
            )
        )
        return
    if a.floor_one:
        print(json.dumps(floor_one(a.floor_one)))
        return
    if a.twin:
        sizes = [int(x) for x in a.sizes.split(",")]
        twin_table(
            a.apps.split(","), sizes, a.rounds, not a.no_counterfactual, not a.no_persistence
        )
        return
    cores = os.cpu_count() or 1
    runs = [("single env", lambda r: single(a.app, a.steps, r))]
    for n in (1, 4, 16):
        runs.append((f"make_vec sync N={n}", lambda r, n=n: vector(a.app, n, "sync", a.steps, r)))
    runs.append((f"make_vec async N={cores}", lambda r: vector(a.app, cores, "async", a.steps, r)))
    print(f"app={a.app} steps_per_env={a.steps} rounds={a.rounds} (one step = one invocation)")
    for name, fn in runs:
        rates = [fn(r) for r in range(a.rounds)]
        print(f"{name:24s} {statistics.median(rates):8.1f} env steps/s")
    print(f"{'batched twin':24s} {'--twin':>8s} (see the docstring)")


if __name__ == "__main__":
    main()
