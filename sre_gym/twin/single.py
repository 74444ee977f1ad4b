"""``gym.make("SREMarathonTwin-v0")``: one marathon of the twin, as a plain ``gym.Env``.

The N = 1 adapter of ``vector_env.TwinVectorEnv``: the observation and action of
``NumericObservation`` + ``DiscreteRemedies`` (``Box`` and ``Discrete``), ``info["action_mask"]``
of shape [A], termination after the episode's invocations, no truncation. For single-env code
(``check_env``, SB3's ``DummyVecEnv``); batched training should make the vector env directly.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from sre_gym.twin.vector_env import TwinVectorEnv


class TwinEnv(gym.Env):
    """One sub-env of ``TwinVectorEnv`` (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, app: str = "online-boutique", **kwargs: Any) -> None:
        self.vec = TwinVectorEnv(1, app, **kwargs)
        self.app = app
        self.observation_space = self.vec.single_observation_space
        self.action_space = self.vec.single_action_space
        self._done = True
        self.run_seed: int | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        run_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        self.run_seed = run_seed
        obs, info = self.vec.reset(seed=[run_seed])
        self._done = False
        return obs[0], self._info(info)

    def step(self, action):
        if self._done:
            raise gym.error.ResetNeeded("the episode is over; call reset()")
        if not self.action_space.contains(action):
            raise gym.error.InvalidAction(
                f"action must be an int in [0, {self.action_space.n}), got {action!r}"
            )
        obs, reward, term, trunc, info = self.vec.step(np.array([int(action)]))
        self._done = bool(term[0])
        self.vec._prev_done[:] = False  # (one env: the caller resets it, never the vector env)
        return obs[0], float(reward[0]), bool(term[0]), False, self._info(info)

    def _info(self, info: dict) -> dict[str, Any]:
        return {
            "action_mask": info["action_mask"][0].copy(),
            "score": float(info["score"][0]),
            "seed": int(self.run_seed) if self.run_seed is not None else None,
        }

    def action_masks(self) -> np.ndarray:
        """For sb3-contrib's MaskablePPO: the current action mask as booleans."""
        from sre_gym.twin import features

        return features.action_mask(self.vec.params, self.vec.state)[0].astype(bool)
