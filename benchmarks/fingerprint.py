"""A fingerprint of whole episodes, to check that a change to the simulator's speed changes nothing.

For each (app, seed, agent) it plays one episode and hashes every observation, reward, ``info``
(scorecard included) and the no-action counterfactual's entry traffic, and prints one SHA-256 per
episode plus a digest of all of them. Run it before and after a change: equal digests mean the
change kept every byte an agent or the scorer sees. ``--cpu`` also prints the process CPU seconds.

Run: python benchmarks/fingerprint.py [--apps A,B] [--seeds 0,1] [--agents noop,runbook,keep,oracle]
     [--schedule marathon|short]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401
from sre_gym.agents import make_agent

DEFAULT = [
    ("online-boutique", 0, "noop"),
    ("online-boutique", 1, "runbook"),
    ("online-boutique", 2, "oracle"),
    ("train-ticket", 0, "keep"),
    ("astronomy-shop", 3, "keep"),
    ("astronomy-shop", 1, "oracle"),
]


def _update(h: "hashlib._Hash", x: object) -> None:
    if isinstance(x, np.ndarray):
        h.update(str(x.dtype).encode() + str(x.shape).encode())
        h.update(np.ascontiguousarray(x).tobytes())
    else:
        h.update(json.dumps(x, sort_keys=True, default=repr).encode())


def episode_digest(app: str, seed: int, agent: str, schedule: str) -> str:
    """SHA-256 over one whole episode (observations, rewards, infos, counterfactual)."""
    env = gym.make("SREMarathon-v0", app=app, schedule=schedule)
    policy = make_agent(agent, env=env, seed=seed)
    h = hashlib.sha256()
    obs, info = env.reset(seed=seed)
    _update(h, {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in obs.items()})
    _update(h, info)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(policy(obs, info))
        _update(h, {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in obs.items()})
        _update(h, [float(reward), info])
    for name in sorted(env.unwrapped.evidence.arrays):
        _update(h, name)
        _update(h, np.asarray(env.unwrapped.evidence.arrays[name]))
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--apps", default=None, help="comma-separated apps (default: a fixed mix)")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--agents", default="noop,runbook,keep,oracle")
    ap.add_argument("--schedule", default="marathon")
    ap.add_argument("--cpu", action="store_true", help="print process CPU seconds per episode")
    a = ap.parse_args()
    if a.apps is None:
        runs = DEFAULT
    else:
        runs = [
            (app, int(s), ag)
            for app in a.apps.split(",")
            for s in a.seeds.split(",")
            for ag in a.agents.split(",")
        ]
    total = hashlib.sha256()
    for app, seed, agent in runs:
        t = time.process_time()
        d = episode_digest(app, seed, agent, a.schedule)
        cpu = time.process_time() - t
        total.update(d.encode())
        extra = f" cpu_s={cpu:.2f}" if a.cpu else ""
        print(f"{app} seed={seed} agent={agent} {d[:16]}{extra}", flush=True)
    print(f"digest {total.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
