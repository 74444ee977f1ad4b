"""``SREMarathonTwin-v0``'s vector env: ``gym.make_vec("SREMarathonTwin-v0", num_envs=N)``.

Each sub-env is one marathon with ``NumericObservation``'s observation (a ``Box`` of float32 in
[0, 1]) and ``DiscreteRemedies``'s action (``Discrete``); ``info["action_mask"]`` ([N, A] int8)
marks the actions that can do something, at reset and at every step. The reward is the increment
of net_score (``reward="net"``) or of the paper's Marathon-Score (``reward="paper"``).

Gymnasium 1.x conventions: next-step autoreset (a sub-env that terminated returns, on the next
``step``, its new episode's first observation with reward 0 and ``terminated`` False, whatever its
action), and seeds per sub-env: ``reset(seed=s)`` gives sub-env i the seed ``s + i`` (a list gives
each its own), and each later episode of a sub-env takes the seed its full-simulator counterpart
would draw (``SREMarathonEnv.reset``: the first ``np_random.integers(0, 2**31 - 1)`` of a generator
seeded with the previous seed), so sub-env i pairs by seed with ``gym.make("SREMarathon-v0")``
reset with the same seed, episode after episode, whatever ``num_envs`` is.

Differs from the full simulator: see docs/twin.md.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode

from sre_gym.catalogs import RELEASE
from sre_gym.orchestrator.open_world import noise_profile_from
from sre_gym.orchestrator.profiles import schedule_profile_from
from sre_gym.scoring.config import ScoringConfig
from sre_gym.twin import alloc, engine, features
from sre_gym.twin.layout import layout
from sre_gym.twin.rules import compile_pack
from sre_gym.twin.state import TwinParams, TwinState

TWIN_VERSION = "twin-1"
REWARDS = ("net", "paper")  # as SREMarathon-v0's reward argument


def make_params(
    app: str = "online-boutique",
    *,
    reward: str = "net",
    auto_report: bool = False,
    schedule: Any = None,
    noise: Any = None,
    scoring: ScoringConfig | None = None,
    counterfactual: bool = False,
    slots: int | None = None,
) -> TwinParams:
    """The twin's parameters from the full env's arguments (``gym.make`` keywords)."""
    if reward not in REWARDS:
        raise ValueError(f"unknown reward {reward!r}; use one of {', '.join(map(repr, REWARDS))}")
    if counterfactual:
        raise NotImplementedError(
            "the twin pays net_score without the degradation cost (counterfactual=False, as "
            "the training examples run the full simulator); docs/twin.md"
        )
    prof = schedule_profile_from(schedule)
    return TwinParams(
        layout=layout(app, slots),
        scoring=scoring or ScoringConfig(),
        reward=reward,
        auto_report=bool(auto_report),
        schedule=prof,
        noise=noise_profile_from(noise),
        release=RELEASE,
        counterfactual=False,
    )


class TwinVectorEnv(gym.vector.VectorEnv):
    """N marathons of the twin, stepped together (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, app: str = "online-boutique", **kwargs: Any) -> None:
        self.num_envs = int(num_envs)
        self.params = make_params(app, **kwargs)
        self.app = app
        cp = compile_pack(self.params.layout)
        self.sizes = alloc.sizes(self.params, len(cp.col_rule))
        n_obs = features.n_obs(self.params)
        lay = self.params.layout
        self.n_actions = 1 + 8 * lay.n + lay.K
        self.single_observation_space = spaces.Box(0.0, 1.0, shape=(n_obs,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.n_actions)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.state: TwinState | None = None
        self._prev_done = np.zeros(self.num_envs, dtype=bool)
        self._gens: list[np.random.Generator | None] = [None] * self.num_envs
        self.episode_seeds = np.zeros(self.num_envs, dtype=np.int64)

    # ------------------------------------------------------------------ seeds
    def _first_seeds(self, seed: int | list[int] | None) -> np.ndarray:
        if seed is None:
            return self.np_random.integers(0, 2**31 - 1, size=self.num_envs)
        if isinstance(seed, int | np.integer):
            return np.arange(self.num_envs, dtype=np.int64) + int(seed)
        seeds = np.asarray(list(seed), dtype=np.int64)
        if len(seeds) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} seeds, got {len(seeds)}")
        return seeds

    def _next_seed(self, i: int) -> int:
        """Sub-env i's next episode seed, as its full-simulator counterpart draws it."""
        g = self._gens[i]
        if g is None:
            g = self._gens[i] = seeding.np_random(int(self.episode_seeds[i]))[0]
        return int(g.integers(0, 2**31 - 1))

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        super().reset(seed=seed if isinstance(seed, int | type(None)) else None)
        seeds = self._first_seeds(seed)
        self.episode_seeds = seeds.copy()
        self._gens = [None] * self.num_envs
        self.state = engine.reset(self.params, self.sizes, seeds)
        self._prev_done[:] = False
        return self._obs_info(np.arange(self.num_envs))

    def step(self, actions):
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        again = np.nonzero(self._prev_done)[0]
        s, reward, done = engine.step(self.params, self.state, actions)
        if len(again):
            seeds = np.array([self._next_seed(int(i)) for i in again], dtype=np.int64)
            self.episode_seeds[again] = seeds
            for i in again:
                self._gens[int(i)] = None
            clock = int(s.ep.clock[0]) - engine.WARM_TICKS - 1
            fresh = engine.reset(self.params, self.sizes, seeds, clock=clock)
            s.put(again, fresh)
            reward[again] = 0.0
            done[again] = False
        obs, info = self._obs_info(np.arange(self.num_envs))
        self._prev_done = done.copy()
        trunc = np.zeros(self.num_envs, dtype=bool)
        return obs, reward.astype(np.float64), done, trunc, info

    def _obs_info(self, rows) -> tuple[np.ndarray, dict]:
        s = self.state
        obs = features.observe(self.params, s)
        mask = features.action_mask(self.params, s)
        j = 1 if self.params.reward == "net" else 0
        info = {
            "action_mask": mask,
            "_action_mask": np.ones(self.num_envs, dtype=bool),
            "score": s.agent.score[:, j].copy(),
            "_score": np.ones(self.num_envs, dtype=bool),
            "seed": self.episode_seeds.copy(),
            "_seed": np.ones(self.num_envs, dtype=bool),
        }
        return obs, info

    def scores(self) -> np.ndarray:
        """[N, 2]: (marathon_score, net_score) of each sub-env's episode so far."""
        return self.state.agent.score.copy()
