"""Shared fixtures for the wrapper tests: wrapper stacks over a made env, and a strict check_env."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import sre_gym  # noqa: F401


def _make(*wrappers, **kwargs) -> gym.Env:
    env = gym.make("SREMarathon-v0", disable_env_checker=True, **kwargs)
    for w in wrappers:
        env = w(env)
    return env


def _strict_check(env: gym.Env) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*is different from the unwrapped version.*")
        check_env(env)


@pytest.fixture()
def make():
    """``make(*wrappers, **kwargs)``: ``gym.make`` the env (checker off), wrappers innermost first."""
    return _make


@pytest.fixture()
def strict_check():
    """check_env on a wrapper stack with every warning an error, except the one saying that it is a
    stack (which is the point)."""
    return _strict_check
