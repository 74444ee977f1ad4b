"""Train MaskablePPO (sb3-contrib) on the numeric stack, then score it on held-out seeds.

The stack is ``NumericObservation`` (a flat float32 ``Box``) and ``DiscreteRemedies`` (no-op, remedy
x service or a node's evacuation, with an automatic incident); ``info["action_mask"]`` says which
actions can do anything now, and MaskablePPO samples only those. The reward is net_score's
increments (the default; ``--reward paper`` trains on the paper's Marathon-Score instead).
Training draws its faults from the ``train`` part of the held-out fault split; evaluation plays
whole episodes on other seeds with faults from the ``heldout`` part (``--eval-split``), so a
policy's return is its net_score on faults it never trained on. Training episodes are cut to
``--horizon`` invocations (more updates per simulated hour). It is compared with a random masked
policy and with no-op on the same seeds (``benchmarks/discrete_ceiling.py --split heldout`` gives
the ceiling and the numeric rule there).

``--policy per-service`` (the default) reads the observation as it is laid out, one row of
``SERVICE_FEATURES`` per service, and scores each service's remedies with one network shared by all
services (its input: the row, plus the nodes, the globals, and the mean and maximum of every feature
over the services); the no-op and the value come from that pooled context, and each node's
evacuation from it and the node's readiness. What it learns about "this service alerts and its
callees do not" carries over to every service. ``--policy mlp`` is sb3's ``MlpPolicy``: one dense
network over the whole vector, which learns that again for each service's position
(``benchmarks/RESULTS.md`` compares the two).

Needs the ``rl`` extra (stable-baselines3, sb3-contrib and torch; the CPU build of torch is enough):

    pip install -e '.[rl]'
    python examples/train_sb3.py --timesteps 40000 --envs 1 --eval-seeds 1000-1004 [--auto-report]
        [--policy mlp] [--save model.zip]
    python examples/train_sb3.py --load model.zip --eval-seeds 2000-2019   # evaluate it again

The envs keep the no-action counterfactual (``counterfactual=True``, the default): net_score charges
harm to users beyond the no-action run, and without it that cost is not charged, so a policy would
not learn to avoid harm. It costs about a fifth of every acting episode.

``--twin`` trains on ``SREMarathonTwin-v0`` instead (``docs/twin.md``): ``--envs`` episodes stepped
together in one process by the batched engine, through ``TwinVecEnv`` (an SB3 ``VecEnv`` over the
twin's vector env), with the same observation, actions, reward, horizon and fault split; the
evaluation still plays the full simulator, so the figures say how the policy transfers:

    python examples/train_sb3.py --twin --envs 64 --timesteps 1000000 --eval-seeds 2000-2019
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401  (registers SREMarathon-v0)
from sre_gym.wrappers import DiscreteRemedies, NumericObservation
from sre_gym.wrappers.numeric import SERVICE_FEATURES
from sre_gym.wrappers.remedies import REMEDIES

HIDDEN = 64  # width of the per-service policy's layers


class MaskFromInfo(gym.Wrapper):
    """Keeps the last ``info["action_mask"]`` and answers ``action_masks()`` with it, which is how
    sb3-contrib's maskable algorithms ask an env for its mask."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self._mask = np.ones(int(env.action_space.n), dtype=bool)

    def reset(self, **kwargs: Any) -> tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        self._mask = np.asarray(info["action_mask"], dtype=bool)
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        obs, r, term, trunc, info = self.env.step(int(action))
        self._mask = np.asarray(info["action_mask"], dtype=bool)
        return obs, r, term, trunc, info

    def action_masks(self) -> np.ndarray:
        return self._mask


def make_env(
    app: str,
    horizon: int | None,
    auto_report: bool = False,
    split: str = "train",
    reward: str = "net",
) -> gym.Env:
    """The numeric stack; ``horizon`` cuts episodes to that many invocations (None: whole);
    ``auto_report`` files every firing service each invocation, so actions only decide repairs;
    ``split`` is the part of the held-out fault split the schedules draw from."""
    kwargs = {"max_episode_steps": horizon} if horizon else {}
    schedule = {"profile": "marathon", "split": split}
    base = NumericObservation(
        gym.make("SREMarathon-v0", app=app, schedule=schedule, reward=reward, **kwargs)
    )
    return MaskFromInfo(DiscreteRemedies(base, auto_report=auto_report))


def twin_vec_env(
    app: str,
    n_envs: int,
    horizon: int | None,
    seed: int,
    auto_report: bool = False,
    reward: str = "net",
):
    """The twin's vector env as an SB3 ``VecEnv`` (sb3 is imported here, not at import)."""
    from gymnasium.vector import AutoresetMode
    from stable_baselines3.common.vec_env import VecEnv, VecMonitor

    class TwinVecEnv(VecEnv):
        """SB3's ``VecEnv`` over ``TwinVectorEnv``: same-step autoreset (SB3's convention: a
        finished sub-env returns its next episode's first observation, the last one in
        ``infos[i]["terminal_observation"]``), and ``env_method("action_masks")`` for
        MaskablePPO."""

        def __init__(self) -> None:
            self.venv = gym.make_vec(
                "SREMarathonTwin-v0",
                num_envs=n_envs,
                app=app,
                schedule={"profile": "marathon", "split": "train"},
                reward=reward,
                auto_report=auto_report,
                max_episode_steps=horizon,
                autoreset_mode=AutoresetMode.SAME_STEP,
            )
            super().__init__(
                n_envs, self.venv.single_observation_space, self.venv.single_action_space
            )
            self._mask = np.ones((n_envs, int(self.action_space.n)), dtype=bool)
            self._actions = np.zeros(n_envs, dtype=np.int64)
            self._next_seed: int | None = seed

        def reset(self) -> np.ndarray:
            obs, info = self.venv.reset(seed=self._next_seed)
            self._next_seed = None  # later resets continue each sub-env's seed sequence
            self._mask = info["action_mask"].astype(bool)
            return obs

        def seed(self, seed: int | None = None) -> list[int | None]:
            self._next_seed = seed
            return [None if seed is None else seed + i for i in range(n_envs)]

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions, dtype=np.int64)

        def step_wait(self):
            obs, reward, term, trunc, info = self.venv.step(self._actions)
            self._mask = info["action_mask"].astype(bool)
            done = term | trunc
            infos: list[dict] = [{} for _ in range(n_envs)]
            for i in np.nonzero(done)[0]:
                infos[i]["terminal_observation"] = info["final_obs"][i]
                infos[i]["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
            return obs, reward.astype(np.float32), done, infos

        def action_masks(self) -> np.ndarray:
            return self._mask

        def env_method(self, method_name: str, *args: Any, indices=None, **kwargs: Any):
            if method_name != "action_masks":
                raise AttributeError(f"TwinVecEnv has no per-env method {method_name}")
            return list(self._mask[self._get_indices(indices)])

        def get_attr(self, attr_name: str, indices=None) -> list[Any]:
            if attr_name == "action_masks":
                return [self.action_masks] * len(list(self._get_indices(indices)))
            if attr_name == "render_mode":
                return [None] * len(list(self._get_indices(indices)))
            raise AttributeError(f"TwinVecEnv has no per-env attribute {attr_name}")

        def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
            raise AttributeError(f"TwinVecEnv cannot set {attr_name}")

        def env_is_wrapped(self, wrapper_class: type, indices=None) -> list[bool]:
            return [False] * len(list(self._get_indices(indices)))

        def close(self) -> None:
            self.venv.close()

    return VecMonitor(TwinVecEnv())


def play(env: gym.Env, seed: int, choose) -> float:
    """Return of one whole episode (its net_score, or with ``--reward paper`` its Marathon-Score)
    under ``choose(obs, mask) -> action``."""
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        obs, r, term, trunc, info = env.step(choose(obs, np.asarray(info["action_mask"], bool)))
        total += float(r)
        done = term or trunc
    return total


def per_service_policy(n_services: int, n_nodes: int, hidden: int = HIDDEN):
    """A MaskablePPO policy class whose remedy logits come from one network shared by all
    services, and whose node logits (``evacuate``) from one small layer shared by all nodes (see
    the module docstring); torch and sb3-contrib are imported here, not at import."""
    import torch as th
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn

    ns, nf, nr, nn_ = n_services, len(SERVICE_FEATURES), len(REMEDIES), n_nodes

    class Rows(nn.Module):
        """Latent for the actor: each service's embedding, the pooled context's, then each node's
        readiness (as observed); for the critic: the pooled context's."""

        def __init__(self, obs_dim: int) -> None:
            super().__init__()
            n_ctx = obs_dim - ns * nf + 2 * nf
            self.row = nn.Sequential(
                nn.Linear(nf + n_ctx, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
            )
            self.pi_ctx = nn.Sequential(nn.Linear(n_ctx + hidden, hidden), nn.Tanh())
            self.vf_ctx = nn.Sequential(nn.Linear(n_ctx + hidden, hidden), nn.Tanh())
            self.latent_dim_pi = ns * hidden + hidden + nn_
            self.latent_dim_vf = hidden

        def _embed(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
            rows = obs[:, : ns * nf].reshape(-1, ns, nf)
            ctx = th.cat([obs[:, ns * nf :], rows.mean(1), rows.amax(1)], dim=1)
            h = self.row(th.cat([rows, ctx[:, None, :].expand(-1, ns, -1)], dim=2))
            return h, th.cat([ctx, h.mean(1)], dim=1)

        def _actor(self, obs: th.Tensor, h: th.Tensor, pooled: th.Tensor) -> th.Tensor:
            nodes = obs[:, ns * nf : ns * nf + nn_]
            return th.cat([h.flatten(1), self.pi_ctx(pooled), nodes], dim=1)

        def forward_actor(self, obs: th.Tensor) -> th.Tensor:
            return self._actor(obs, *self._embed(obs))

        def forward_critic(self, obs: th.Tensor) -> th.Tensor:
            return self.vf_ctx(self._embed(obs)[1])

        def forward(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
            h, pooled = self._embed(obs)  # once for both heads (every rollout step)
            return self._actor(obs, h, pooled), self.vf_ctx(pooled)

    class Logits(nn.Module):
        """No-op logit from the context; remedy logits per service, then one logit per node from
        the context and the node's readiness, in ``DiscreteRemedies``' order (action
        ``1 + r * n_services + s``, then ``1 + n_remedies * n_services + j``)."""

        def __init__(self) -> None:
            super().__init__()
            self.remedy = nn.Linear(hidden, nr)
            self.noop = nn.Linear(hidden, 1)
            self.node = nn.Linear(hidden + 1, 1)
            for lin in (self.remedy, self.noop, self.node):  # near-uniform at first, as sb3 does
                nn.init.orthogonal_(lin.weight, gain=0.01)
                nn.init.zeros_(lin.bias)

        def forward(self, latent: th.Tensor) -> th.Tensor:
            per = self.remedy(latent[:, : ns * hidden].reshape(-1, ns, hidden))
            ctx = latent[:, ns * hidden : ns * hidden + hidden]
            ready = latent[:, ns * hidden + hidden :, None]
            node = self.node(th.cat([ctx[:, None, :].expand(-1, nn_, -1), ready], dim=2))
            return th.cat([self.noop(ctx), per.transpose(1, 2).flatten(1), node.flatten(1)], 1)

    class PerServicePolicy(MaskableActorCriticPolicy):
        def _build_mlp_extractor(self) -> None:
            self.mlp_extractor = Rows(self.features_dim)

        def _build(self, lr_schedule) -> None:
            super()._build(lr_schedule)
            self.action_net = Logits()
            self.optimizer = self.optimizer_class(
                self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
            )

    return PerServicePolicy


def seeds_of(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def _train(a: argparse.Namespace, algo: Any) -> tuple[Any, int, float]:
    """Train ``algo`` (MaskablePPO) as the arguments say: (model, env steps, wall seconds)."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    if a.twin:
        venv = twin_vec_env(a.app, a.envs, a.horizon, a.seed, a.auto_report, a.reward)
    else:
        venv = make_vec_env(
            make_env,
            n_envs=a.envs,
            seed=a.seed,
            env_kwargs={
                "app": a.app,
                "horizon": a.horizon,
                "auto_report": a.auto_report,
                "reward": a.reward,
            },
            vec_env_cls=SubprocVecEnv if a.envs > 1 else None,
        )
    policy: Any = "MlpPolicy"
    if a.policy == "per-service":
        probe = make_env(a.app, None).env  # the DiscreteRemedies layer: its services and nodes
        policy = per_service_policy(len(probe.services), len(probe.nodes))
        probe.close()
    model = algo(
        policy, venv, n_steps=max(64, 512 // a.envs), batch_size=64, seed=a.seed, verbose=0
    )
    t0 = time.perf_counter()
    model.learn(total_timesteps=a.timesteps)
    wall = time.perf_counter() - t0
    venv.close()
    steps = int(model.num_timesteps)  # whole rollouts: at least --timesteps
    print(f"trained {steps} env steps in {wall:.0f} s: {steps / wall:.1f} env steps/s")
    return model, steps, wall


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from sb3_contrib import MaskablePPO

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--app", default="online-boutique")
    p.add_argument("--timesteps", type=int, default=20_000, help="env steps (invocations) in all")
    p.add_argument("--envs", type=int, default=2, help="training envs, one process each")
    p.add_argument("--horizon", type=int, default=15, help="invocations per training episode")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-seeds", default="1000-1004", help="held-out seeds, e.g. 1000-1004")
    p.add_argument(
        "--eval-split",
        choices=("heldout", "train", "all"),
        default="heldout",
        help="the fault split part evaluation draws from (training always draws from train)",
    )
    p.add_argument(
        "--reward",
        choices=("net", "paper"),
        default="net",
        help="the score whose increments are the reward (and the evaluation's return)",
    )
    p.add_argument(
        "--auto-report",
        action="store_true",
        help="DiscreteRemedies(auto_report=True): incidents for every firing service, every step",
    )
    p.add_argument(
        "--policy",
        choices=("mlp", "per-service"),
        default="per-service",
        help="one network shared by all services (module docstring), or sb3's MlpPolicy",
    )
    p.add_argument(
        "--twin",
        action="store_true",
        help="train on SREMarathonTwin-v0 (--envs episodes in one process); evaluate on the full env",
    )
    p.add_argument("--save", metavar="PATH", help="save the trained model there (a .zip)")
    p.add_argument(
        "--load", metavar="PATH", help="evaluate a model saved with --save instead of training"
    )
    a = p.parse_args(argv)

    if a.load:
        model = MaskablePPO.load(a.load, device="cpu")
        steps, wall = int(model.num_timesteps), 0.0
        print(f"loaded {a.load}: trained for {steps} env steps")
    else:
        model, steps, wall = _train(a, MaskablePPO)
        if a.save:
            model.save(a.save)
            print(f"saved {a.save}")

    rng = np.random.default_rng(a.seed)
    policies = {
        "maskable-ppo (deterministic)": lambda o, m: int(
            model.predict(o, action_masks=m, deterministic=True)[0]
        ),
        "maskable-ppo (stochastic)": lambda o, m: int(
            model.predict(o, action_masks=m, deterministic=False)[0]
        ),
        "random masked": lambda o, m: int(rng.choice(np.flatnonzero(m))),
        "no-op": lambda o, m: 0,
    }
    env = make_env(a.app, None, a.auto_report, a.eval_split, a.reward)
    scores: dict[str, list[float]] = {}
    for name, choose in policies.items():
        scores[name] = [play(env, s, choose) for s in seeds_of(a.eval_seeds)]
        xs = scores[name]
        print(f"{name:30s} mean {statistics.mean(xs):6.2f}  per seed {[round(x, 2) for x in xs]}")
    env.close()
    rate = steps / wall if wall else None  # None: a loaded model
    return {"steps": steps, "wall_s": wall, "steps_per_s": rate, "scores": scores}


if __name__ == "__main__":
    main()
