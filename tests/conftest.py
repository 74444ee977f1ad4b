"""Shared fixtures: cached full episodes of the baselines (they are the expensive part)."""

from __future__ import annotations

import functools

import gymnasium as gym
import pytest

import sre_gym  # noqa: F401
from sre_gym.agents import make_agent


@functools.cache
def run_episode(
    agent: str, seed: int, bundle_dir: str | None = None, app: str = "online-boutique"
) -> dict:
    """One full episode; returns rewards, observations, final info and the unwrapped env."""
    env = gym.make("SREMarathon-v0", app=app, bundle_dir=bundle_dir)
    ag = make_agent(agent, env=env, seed=seed)
    obs, info = env.reset(seed=seed)
    rewards, observations = [], [obs]
    while True:
        obs, r, terminated, truncated, info = env.step(ag(obs, info))
        rewards.append(r)
        observations.append(obs)
        if terminated or truncated:
            break
    return {"rewards": rewards, "obs": observations, "info": info, "env": env.unwrapped}


@pytest.fixture(scope="session")
def episode():
    return run_episode
