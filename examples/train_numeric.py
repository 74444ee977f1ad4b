"""Train a tiny policy on the numeric stack with plain numpy (REINFORCE, linear softmax policy).

The stack is what classic RL libraries consume: ``NumericObservation`` (a flat float32 ``Box`` of
observable signals) and ``DiscreteRemedies`` (no-op, remedy x service or a node's evacuation, with
an automatic incident). The same stack works with RLlib or SB3 (``gym.make_vec(...,
wrappers=[NumericObservation, DiscreteRemedies])``); this example only needs numpy. Episodes are cut
to ``--horizon`` invocations to give more updates per simulated minute, and ``info["action_mask"]``
keeps the policy off actions that cannot do anything now.

    python examples/train_numeric.py --steps 300
    python examples/train_numeric.py --steps 300 --twin   # on SREMarathonTwin-v0 (docs/twin.md)

``--twin`` makes the same loop run on the twin's N = 1 env, which gives the same observation,
mask and reward from a batched array engine of the same world (for many episodes at once, make its
vector env: ``gym.make_vec("SREMarathonTwin-v0", num_envs=64)``).
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401  (registers SREMarathon-v0)
from sre_gym.wrappers import DiscreteRemedies, NumericObservation


class LinearSoftmax:
    """pi(a | s) = softmax(W s + b) over the allowed actions."""

    def __init__(self, n_obs: int, n_act: int, rng: np.random.Generator) -> None:
        self.W = rng.normal(0.0, 0.01, (n_act, n_obs))
        self.b = np.zeros(n_act)
        self.b[0] = 2.0  # start cautious: mostly no-op, as an untrained operator should

    def probs(self, s: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = self.W @ s + self.b
        z = np.where(mask > 0, z, -np.inf)
        p = np.exp(z - z.max())
        return p / p.sum()

    def grad_log(self, s: np.ndarray, mask: np.ndarray, a: int) -> tuple[np.ndarray, np.ndarray]:
        p = self.probs(s, mask)
        g = -p
        g[a] += 1.0
        return np.outer(g, s), g


def train(
    steps: int = 300,
    horizon: int = 15,
    seed: int = 0,
    lr: float = 0.05,
    app: str = "online-boutique",
    twin: bool = False,
) -> dict[str, Any]:
    """Run ``steps`` env steps of REINFORCE with a running-mean baseline; returns the history."""
    # faults from the training part of the held-out split; no no-action run (counterfactual=False:
    # a quick demonstration, so net_score's rewards leave out the cost of harm to users)
    kwargs = {
        "app": app,
        "max_episode_steps": horizon,
        "counterfactual": False,
        "schedule": {"profile": "marathon", "split": "train"},
    }
    if twin:  # the numeric surface is the twin's own observation and action
        env = gym.make("SREMarathonTwin-v0", **kwargs)
    else:
        env = DiscreteRemedies(NumericObservation(gym.make("SREMarathon-v0", **kwargs)))
    rng = np.random.default_rng(seed)
    pi = LinearSoftmax(env.observation_space.shape[0], int(env.action_space.n), rng)
    w_init = pi.W.copy()
    baseline, returns, episode = 0.0, [], 0
    obs, info = env.reset(seed=seed)
    traj: list[tuple[np.ndarray, np.ndarray, int, float]] = []
    for _ in range(steps):
        mask = info["action_mask"]
        a = int(rng.choice(len(mask), p=pi.probs(obs, mask)))
        nxt, r, terminated, truncated, info = env.step(a)
        traj.append((obs, mask, a, float(r)))
        obs = nxt
        if terminated or truncated:
            rewards = np.array([t[3] for t in traj])
            g = np.cumsum(rewards[::-1])[::-1]  # reward-to-go (undiscounted)
            total = float(g[0])
            for (s, m, act, _), gt in zip(traj, g, strict=True):
                dW, db = pi.grad_log(s, m, act)
                pi.W += lr * (gt - baseline) * dW
                pi.b += lr * (gt - baseline) * db
            baseline = total if not returns else 0.8 * baseline + 0.2 * total
            returns.append(total)
            episode += 1
            print(f"episode {episode:3d}  return {total:7.2f}  baseline {baseline:7.2f}")
            traj = []
            obs, info = env.reset(seed=seed + episode)
    env.close()
    return {"returns": returns, "W": pi.W, "W_init": w_init, "b": pi.b, "episodes": episode}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=300, help="env steps (invocations) in all")
    p.add_argument("--horizon", type=int, default=15, help="invocations per training episode")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--twin", action="store_true", help="train on SREMarathonTwin-v0")
    a = p.parse_args(argv)
    out = train(steps=a.steps, horizon=a.horizon, seed=a.seed, lr=a.lr, twin=a.twin)
    if out["returns"]:
        print(f"{out['episodes']} episodes, mean return {np.mean(out['returns']):.2f}")
    return out


if __name__ == "__main__":
    main()
