"""Resident memory of one env over many episodes in one process (every cache must be bounded).

Runs ``--episodes`` episodes of one app on consecutive seeds in one process and prints the
resident set size (RSS, from /proc/self/statm) after the first episode and every ``--every``
episodes, then the growth per episode over the second half (a bounded process levels off).
``--policy noop`` plays empty actions; ``--policy random-masked`` plays a seeded random policy on
the numeric stack (``NumericObservation`` + ``DiscreteRemedies``) with ``counterfactual=False``, as
the training examples run it: interventions, incidents, persistence forks, source patches and the
wrappers' own memos.

Run: python benchmarks/memory.py [--app APP] [--episodes 100] [--every 10]
     [--policy noop|random-masked]
"""

from __future__ import annotations

import argparse
import os
import time


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--app", default="online-boutique")
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--policy", choices=("noop", "random-masked"), default="noop")
    a = ap.parse_args()
    import gymnasium as gym
    import numpy as np

    import sre_gym  # noqa: F401

    print(f"after import: {rss_mb():.0f} MB")
    acting = a.policy == "random-masked"
    env = gym.make("SREMarathon-v0", app=a.app, **({"counterfactual": False} if acting else {}))
    if acting:
        from sre_gym.wrappers import DiscreteRemedies, NumericObservation

        env = DiscreteRemedies(NumericObservation(env))
    marks: list[tuple[int, float]] = []
    t0 = time.perf_counter()
    for ep in range(1, a.episodes + 1):
        rng = np.random.default_rng(ep)
        _, info = env.reset(seed=ep)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"]))) if acting else []
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        if ep == 1 or ep % a.every == 0:
            marks.append((ep, rss_mb()))
            print(f"episode {ep:4d}: {marks[-1][1]:7.1f} MB  ({time.perf_counter() - t0:.0f} s)")
    half = [m for m in marks if m[0] >= a.episodes // 2]
    if len(half) >= 2:
        (e0, m0), (e1, m1) = half[0], half[-1]
        print(
            f"growth over episodes {e0}-{e1}: {(m1 - m0) / max(e1 - e0, 1) * 1000:.0f} kB/episode"
        )
    print(
        f"peak: {max(m for _, m in marks):.1f} MB after {a.episodes} {a.policy} episodes of {a.app}"
    )


if __name__ == "__main__":
    main()
