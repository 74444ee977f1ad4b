"""``SREMarathonTwin-v0``'s vector env: ``gym.make_vec("SREMarathonTwin-v0", num_envs=N)``.

Each sub-env is one marathon with ``NumericObservation``'s observation (a ``Box`` of float32 in
[0, 1]) and ``DiscreteRemedies``'s action (``Discrete``); ``info["action_mask"]`` ([N, A] int8)
marks the actions that can do something, at reset and at every step. The reward is the increment
of net_score (``reward="net"``) or of the paper's Marathon-Score (``reward="paper"``).

``counterfactual`` (True, as for the full env) steps each episode's no-action run alongside it
(``engine.reset_base``: the world alone, no telemetry or alerts), so that net_score charges the
degradation beyond it; False leaves that cost out (about a third faster). ``persistence`` (True,
as the full env) runs each repair's persistence challenge in a fork of its episode
(``challenges.py``); False lets every challenge hold.
``max_episode_steps`` truncates an episode after that many invocations (the full env's
``TimeLimit``).

Gymnasium 1.x conventions: next-step autoreset (a sub-env that ended returns, on the next
``step``, its new episode's first observation with reward 0 and ``terminated`` False, whatever its
action; ``autoreset_mode=AutoresetMode.SAME_STEP`` instead returns the new episode's observation
at once, the last one in ``info["final_obs"]``, as SB3's vector envs expect), and seeds per
sub-env: ``reset(seed=s)`` gives sub-env i the seed ``s + i`` (a list gives
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
from sre_gym.twin import alloc, challenges, engine, features
from sre_gym.twin.layout import layout
from sre_gym.twin.rules import compile_pack
from sre_gym.twin.state import TwinParams, TwinState

# 2: persistence challenges in forks; well-conditioned attempts. 3: the pipeline ported (reverts
# of reverts, merge rule, re-armed defects); policies named per episode; config faults' reverts
TWIN_VERSION = "twin-3"
REWARDS = ("net", "paper")  # as SREMarathon-v0's reward argument


def make_params(
    app: str = "online-boutique",
    *,
    reward: str = "net",
    auto_report: bool = False,
    schedule: Any = None,
    noise: Any = None,
    scoring: ScoringConfig | None = None,
    counterfactual: bool = True,
    persistence: bool = True,
    slots: int | None = None,
) -> TwinParams:
    """The twin's parameters from the full env's arguments (``gym.make`` keywords)."""
    if reward not in REWARDS:
        raise ValueError(f"unknown reward {reward!r}; use one of {', '.join(map(repr, REWARDS))}")
    prof = schedule_profile_from(schedule)
    return TwinParams(
        layout=layout(app, slots),
        scoring=scoring or ScoringConfig(),
        reward=reward,
        auto_report=bool(auto_report),
        schedule=prof,
        noise=noise_profile_from(noise),
        release=RELEASE,
        counterfactual=bool(counterfactual),
        persistence=bool(persistence),
    )


class TwinVectorEnv(gym.vector.VectorEnv):
    """N marathons of the twin, stepped together (see the module docstring)."""

    metadata = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
        "autoreset_modes": (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP),
    }

    def __init__(
        self,
        num_envs: int = 1,
        app: str = "online-boutique",
        max_episode_steps: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **kwargs: Any,
    ) -> None:
        self.num_envs = int(num_envs)
        self.params = make_params(app, **kwargs)
        self.horizon = int(max_episode_steps) if max_episode_steps else None
        mode = AutoresetMode(autoreset_mode)
        if mode not in self.metadata["autoreset_modes"]:
            raise ValueError(f"unsupported autoreset mode {mode}")
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.same_step = mode == AutoresetMode.SAME_STEP
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
        self.base: TwinState | None = None  # the no-action runs (counterfactual)
        # challenges whose forks have not run yet (None: run every fork in its own step)
        self.held: list[challenges.Pending] | None = []
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
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
        drawn = engine.plans(self.params, seeds)
        self.state = engine.reset(self.params, self.sizes, seeds, drawn=drawn)
        if self.params.counterfactual:
            self.base = engine.reset_base(self.params, self.sizes, seeds, drawn=drawn)
        self._steps[:] = 0
        self._prev_done[:] = False
        self.held = None if self.held is None else []
        return self._obs_info()

    def step(self, actions):
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        again = np.nonzero(self._prev_done)[0]
        s, reward, term = engine.step(self.params, self.state, actions, self.base, self.held)
        self._steps += 1
        trunc = np.zeros(self.num_envs, dtype=bool)
        if self.horizon is not None:
            trunc = ~term & (self._steps >= self.horizon)
        if len(again):  # next-step autoreset: these rows ended at the last step
            self._renew(again)
            reward[again] = 0.0
            term[again] = False
            trunc[again] = False
        done = term | trunc
        if self.same_step and done.any():
            ended = np.nonzero(done)[0]
            last_obs, last_info = self._obs_info()
            self._renew(ended)
            obs, info = self._obs_info()
            info["final_obs"] = last_obs
            info["_final_obs"] = done.copy()
            info["final_info"] = last_info
            info["_final_info"] = done.copy()
        else:
            obs, info = self._obs_info()
            self._prev_done = done.copy()
        return obs, reward.astype(np.float64), term, trunc, info

    def _renew(self, rows: np.ndarray) -> None:
        """Start each of ``rows``' next episode (the seed its full-env counterpart draws)."""
        s = self.state
        seeds = np.array([self._next_seed(int(i)) for i in rows], dtype=np.int64)
        self.episode_seeds[rows] = seeds
        for i in rows:
            self._gens[int(i)] = None
        clock = int(s.ep.clock[0]) - engine.WARM_TICKS - 1
        drawn = engine.plans(self.params, seeds)
        s.put(rows, engine.reset(self.params, self.sizes, seeds, clock, drawn))
        if self.base is not None:
            self.base.put(rows, engine.reset_base(self.params, self.sizes, seeds, clock, drawn))
        self._steps[rows] = 0
        if self.held is not None:
            self.held = [
                challenges.subset(pd, ~np.isin(pd.row, rows))
                for pd in self.held
                if not np.isin(pd.row, rows).all()
            ]

    def _obs_info(self) -> tuple[np.ndarray, dict]:
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
