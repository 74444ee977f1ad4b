"""Wall time of full no-op Online Boutique episodes (reset + 45 invocations).

Prints the median seconds per episode and the speed-up over real time (5400 simulated seconds per
episode). Run: python benchmarks/episode_speed.py [--episodes N] [--app APP]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym

import sre_gym  # noqa: F401


def episode(env: gym.Env, seed: int) -> float:
    t = time.perf_counter()
    env.reset(seed=seed)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step([])
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=7)
    ap.add_argument("--app", default="online-boutique")
    a = ap.parse_args()
    env = gym.make("SREMarathon-v0", app=a.app)
    episode(env, 999)  # warm caches (catalog, rule pack, compiled queries)
    times = [episode(env, s) for s in range(a.episodes)]
    med = statistics.median(times)
    print(
        f"app={a.app} episodes={a.episodes} median_s={med:.3f} min_s={min(times):.3f} max_s={max(times):.3f}"
    )
    print(f"speedup_over_real_time={5400 / med:.0f}x")


if __name__ == "__main__":
    main()
