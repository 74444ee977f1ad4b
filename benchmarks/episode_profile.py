"""Where an episode's time goes: wall time inside the main stages, and in full GC collections.

Wraps each stage's function with a timer (re-entrant calls count once), runs a warm-up episode,
then ``--episodes`` episodes, and prints seconds per episode and the share of each stage. With
``--policy random-masked`` the episodes are played by a seeded random policy on the numeric stack
(``NumericObservation`` + ``DiscreteRemedies``), as an RL learner plays them, and the stages that
only acting episodes have are timed too. Stages may nest (the no-action counterfactual's dynamics
count under both), so the shares need not add up to 100 %.

``--no-counterfactual`` runs the env as the training examples do, without the scorecard's no-action
run.

The last line is the time outside alert-rule evaluation, dynamics and metric writes (which never
call one another): what an episode would still cost if those three cost nothing.

Run: python benchmarks/episode_profile.py [--app APP] [--episodes N] [--policy noop|random-masked]
     [--no-counterfactual]
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

STAGES = (
    ("alert-rule evaluation", "sre_gym.telemetry.rules", "AlertEngine.evaluate_until"),
    ("traffic dynamics", "sre_gym.sim.dynamics", "step"),
    ("metric writes", "sre_gym.sim.metrics", "MetricWriter.write"),
    ("fault and deploy schedule", "sre_gym.envs.marathon", "schedule"),
    ("deploys", "sre_gym.sim.deploys", "Deploys.deploy_change"),
    ("fault probes", "sre_gym.sim.faults.injector", "Injector._on_tick"),
    ("pod lifecycle", "sre_gym.sim.pods", "lifecycle"),
    ("observation text", "sre_gym.envs.marathon", "SREMarathonEnv._obs"),
)
# the three largest stages (see the floor printed at the end)
LARGEST_STAGES = ("alert-rule evaluation", "traffic dynamics", "metric writes")
# stages of episodes in which the agent acts (``--policy random-masked``)
ACTING_STAGES = (
    ("scoring (reward every step)", "sre_gym.envs.marathon", "marathon_score"),
    ("scorecard (episode end)", "sre_gym.envs.marathon", "score"),
    ("no-action counterfactual", "sre_gym.envs.marathon", "noaction_entry"),
    ("persistence challenges", "sre_gym.sim.faults.persistence", "PersistenceChecker._challenge"),
    ("  of which world forks", "sre_gym.sim.cluster", "SimCluster.fork"),
    ("tool calls", "sre_gym.tools.dispatch", "Toolbox.execute"),
    ("numeric features", "sre_gym.wrappers.numeric", "NumericObservation.features"),
    ("action mask", "sre_gym.wrappers.remedies", "DiscreteRemedies.action_mask"),
    ("reset", "sre_gym.envs.marathon", "SREMarathonEnv.reset"),
)


def _wrap(owner: Any, attr: str, name: str, cost: Counter) -> None:
    fn: Callable = getattr(owner, attr)
    depth = [0]

    @functools.wraps(fn)  # keeps the name: the persistence fork finds its tick hook by name
    def timed(*a: Any, **k: Any) -> Any:
        if depth[0]:
            return fn(*a, **k)
        depth[0] += 1
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            cost[name] += time.perf_counter() - t
            depth[0] -= 1

    setattr(owner, attr, timed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--app", default="online-boutique")
    ap.add_argument("--episodes", type=int, default=2)
    ap.add_argument("--policy", choices=("noop", "random-masked"), default="noop")
    ap.add_argument(
        "--no-counterfactual",
        action="store_true",
        help="counterfactual=False, as the training examples run the env",
    )
    a = ap.parse_args()
    import gymnasium as gym
    import numpy as np

    import sre_gym  # noqa: F401

    cost: Counter = Counter()
    stages = STAGES + (ACTING_STAGES if a.policy == "random-masked" else ())
    for name, mod, qual in stages:
        owner: Any = importlib.import_module(mod)
        *path, attr = qual.split(".")
        for p in path:
            owner = getattr(owner, p)
        _wrap(owner, attr, name, cost)
    env = gym.make("SREMarathon-v0", app=a.app, counterfactual=not a.no_counterfactual)
    if a.policy == "random-masked":
        from sre_gym.wrappers import DiscreteRemedies, NumericObservation

        env = DiscreteRemedies(NumericObservation(env))

    def episode(seed: int) -> None:
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            if a.policy == "noop":
                action: Any = []
            else:
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, term, trunc, info = env.step(action)
            done = term or trunc

    episode(999)  # warm caches
    cost.clear()
    full_gc = {"s": 0.0, "start": 0.0}

    def on_gc(phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            full_gc["start"] = time.perf_counter()
        else:
            full_gc["s"] += time.perf_counter() - full_gc["start"]

    gc.callbacks.append(on_gc)
    t0 = time.perf_counter()
    for s in range(a.episodes):
        episode(s)
    total = time.perf_counter() - t0
    gc.callbacks.remove(on_gc)
    n = a.episodes
    print(
        f"app={a.app} policy={a.policy} counterfactual={not a.no_counterfactual} episodes={n} "
        f"episode_s={total / n:.3f}"
    )
    for name, _, _ in stages:
        print(f"{name:28s} {cost[name] / n:6.3f} s/episode {100 * cost[name] / total:5.1f} %")
    print(f"{'full GC collections':28s} {full_gc['s'] / n:6.3f} s/episode")
    # the three never call one another, so what is left is a floor on the episode's time however
    # fast they become
    largest_s = sum(cost[name] for name in LARGEST_STAGES)
    print(f"{'outside the largest three':28s} {(total - largest_s) / n:6.3f} s/episode")


if __name__ == "__main__":
    main()
