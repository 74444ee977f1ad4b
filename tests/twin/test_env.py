"""SREMarathonTwin-v0's surfaces: registration, the vector env's conventions, the N = 1 adapter,
seeds that pair with the full env, invariants of what it returns, and the examples that use it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import sre_gym  # noqa: F401
from sre_gym.wrappers import DiscreteRemedies, NumericObservation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_import_sre_gym_leaves_the_twin_unimported():
    code = "import sys, sre_gym; print(any(m.startswith('sre_gym.twin') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_registration_keeps_the_full_simulator_for_its_own_id():
    twin = gym.spec("SREMarathonTwin-v0")
    assert twin.entry_point == "sre_gym.twin.single:TwinEnv"
    assert twin.vector_entry_point == "sre_gym.twin.vector_env:TwinVectorEnv"
    assert gym.spec("SREMarathon-v0").vector_entry_point is None


def test_check_env_passes_on_the_single_env_adapter():
    env = gym.make("SREMarathonTwin-v0", counterfactual=False)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=4)
    assert info["action_mask"].shape == (env.action_space.n,) and info["action_mask"][0] == 1


def test_spaces_match_the_full_envs_numeric_stack():
    full = DiscreteRemedies(NumericObservation(gym.make("SREMarathon-v0")))
    vec = gym.make_vec("SREMarathonTwin-v0", num_envs=2, counterfactual=False)
    assert vec.single_observation_space == full.observation_space
    assert vec.single_action_space == full.action_space


def test_vector_env_returns_masks_and_bounded_features_at_reset_and_every_step():
    vec = gym.make_vec("SREMarathonTwin-v0", num_envs=4, counterfactual=False)
    obs, info = vec.reset(seed=10)
    n_act = vec.single_action_space.n
    for k in range(3):
        m = info["action_mask"]
        assert m.shape == (4, n_act) and (m[:, 0] == 1).all()
        assert obs.shape == (4, *vec.single_observation_space.shape) and obs.dtype == np.float32
        assert np.isfinite(obs).all() and (obs >= 0).all() and (obs <= 1).all()
        a = np.array([np.flatnonzero(m[i])[-1 - (i + k) % 2] for i in range(4)])
        obs, r, term, trunc, info = vec.step(a)
        assert np.isfinite(r).all() and not term.any() and not trunc.any()
    s = vec.state
    assert (s.ep.overflow == 0).all() and (s.tel.sr_overflow == 0).all()
    assert ((s.agent.score[:, 1] >= -100) & (s.agent.score[:, 1] <= 100)).all()


def test_sub_env_seeds_follow_the_full_envs_sequence():
    full = gym.make("SREMarathon-v0", counterfactual=False)
    full.reset(seed=7)
    full.reset()
    vec = gym.make_vec("SREMarathonTwin-v0", num_envs=1, max_episode_steps=1, counterfactual=False)
    vec.reset(seed=7)
    for _ in range(2):
        _, _, _, _, info = vec.step(np.zeros(1, dtype=np.int64))
    assert int(info["seed"][0]) == full.unwrapped.run_seed


def test_same_step_autoreset_returns_the_last_observation_in_info():
    kw = {"num_envs": 2, "max_episode_steps": 1, "counterfactual": False}
    nxt = gym.make_vec("SREMarathonTwin-v0", **kw)
    same = gym.make_vec("SREMarathonTwin-v0", autoreset_mode=AutoresetMode.SAME_STEP, **kw)
    o1, _ = nxt.reset(seed=20)
    o2, _ = same.reset(seed=20)
    a = np.zeros(2, dtype=np.int64)
    last, r1, _, trunc1, _ = nxt.step(a)
    first, r2, _, trunc2, info = same.step(a)
    assert trunc1.all() and trunc2.all() and np.array_equal(r1, r2)
    assert np.array_equal(info["final_obs"], last) and info["_final_obs"].all()
    new, r3, _, _, _ = nxt.step(a)  # next-step autoreset: the new episode now, reward 0
    assert np.array_equal(new, first) and (r3 == 0).all()


def test_paper_reward_pays_the_marathon_score_increments():
    vec = gym.make_vec("SREMarathonTwin-v0", num_envs=2, reward="paper", counterfactual=False)
    _, info = vec.reset(seed=30)
    total = np.zeros(2)
    for _ in range(3):
        m = info["action_mask"]
        _, r, _, _, info = vec.step(np.array([np.flatnonzero(row)[-1] for row in m]))
        total += r
    assert np.allclose(total, vec.state.agent.score[:, 0])


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_train_numeric_runs_on_the_twin(capsys):
    out = load("train_numeric").main(["--twin", "--steps", "8", "--horizon", "4", "--seed", "1"])
    assert out["episodes"] == 2 and len(out["returns"]) == 2
    assert np.all(np.isfinite(out["W"])) and not np.allclose(out["W"], out["W_init"])
    assert "episode   2" in capsys.readouterr().out


def test_train_sb3_twin_adapter_is_an_sb3_vec_env():
    """Needs the ``rl`` extra (``make test`` skips it): the adapter resets, steps with masks and
    hands SB3 the finished episodes' last observations."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = load("train_sb3").twin_vec_env("online-boutique", 3, horizon=1, seed=5)
    assert is_masking_supported(venv)
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert obs.shape[0] == 3 and masks.shape == (3, venv.action_space.n) and masks[:, 0].all()
    obs2, r, done, infos = venv.step(np.zeros(3, dtype=np.int64))
    assert done.all() and all("terminal_observation" in i for i in infos)
    assert all(i["TimeLimit.truncated"] for i in infos)
    assert all("episode" in i for i in infos)  # VecMonitor's episode records
