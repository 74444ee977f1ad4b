"""What the scorecard's no-action run costs a whole acting episode: ``counterfactual=False`` against
the default, in one process, alternating episode by episode on the same seeds.

The policy is a seeded random one over ``DiscreteRemedies`` on ``NumericObservation`` (it
intervenes, so the default simulates the no-action run at the episode's end). Prints the median CPU
seconds of each and their ratio. Rewards and scores are the same either way
(``tests/envs/test_noaction.py``); only the degradation ratio goes.

Run: python benchmarks/counterfactual_cost.py [--app APP] [--episodes N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401  (registers SREMarathon-v0)
from sre_gym.envs.noaction import _NOACTION_CACHE
from sre_gym.wrappers import DiscreteRemedies, NumericObservation


def episode(env: gym.Env, seed: int) -> float:
    rng = np.random.default_rng(seed)
    t = time.process_time()
    _, info = env.reset(seed=seed)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, term, trunc, info = env.step(action)
        done = term or trunc
    return time.process_time() - t


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--app", default="online-boutique")
    p.add_argument("--episodes", type=int, default=4)
    a = p.parse_args()
    envs = {
        cf: DiscreteRemedies(
            NumericObservation(gym.make("SREMarathon-v0", app=a.app, counterfactual=cf))
        )
        for cf in (True, False)
    }
    for env in envs.values():
        episode(env, 999)  # warm caches (catalog, rule pack, compiled queries)
    secs: dict[bool, list[float]] = {True: [], False: []}
    for s in range(a.episodes):
        for cf, env in envs.items():
            _NOACTION_CACHE.clear()  # as on a seed the process has not seen
            secs[cf].append(episode(env, 5000 + s))
    on, off = (statistics.median(secs[cf]) for cf in (True, False))
    print(f"app={a.app} episodes={a.episodes} policy=random-masked clock=process_time")
    print(f"counterfactual=True  median_s={on:.3f}")
    print(f"counterfactual=False median_s={off:.3f}")
    print(f"speedup={on / off:.2f}x")


if __name__ == "__main__":
    main()
