"""Shared fixtures: cached full episodes of the baselines (they are the expensive part)."""

from __future__ import annotations

import ctypes
import functools
import gc
import resource

import gymnasium as gym
import pytest

import sre_gym  # noqa: F401
from sre_gym.agents import make_agent


def play_episode(
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


# An ended env holds its whole telemetry (about 45 MB for Online Boutique): a worker keeps the few
# episodes its current test files share, not every episode it has played.
run_episode = functools.lru_cache(maxsize=8)(play_episode)


@pytest.fixture(scope="session")
def episode():
    return run_episode


@functools.cache
def final_info(agent: str, seed: int, app: str = "online-boutique") -> dict:
    """The final ``info`` (scorecard included) of one full episode, without keeping the env: what
    tests of scores need, in a few kB."""
    ep = play_episode(agent, seed, app=app)
    ep["env"].close()
    return ep["info"]


@pytest.fixture(scope="session")
def episode_info():
    return final_info


# Peak resident memory of every test process, printed at the end of the session like the
# durations, so that growth shows (the bound is 2 GB for the whole session). With pytest-xdist
# each worker reports its own peak to the controller when it finishes.
_PEAKS_MB: dict[str, float] = {}


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim`` (None elsewhere)."""
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


@pytest.fixture(scope="module", autouse=True)
def _return_freed_memory():
    """After each test file, collect what its cycles hold and hand the freed heap back to the
    system: the allocator otherwise keeps, fragmented, the high-water mark of every file a
    worker has run (a fuzz test's envs leave ~240 MB of freed heap behind), and the peaks
    printed below would be those of the worker's whole history rather than of its files."""
    yield
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports kB


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = getattr(session.config, "workeroutput", None)
    if out is not None:  # an xdist worker: hand the figure to the controller
        out["peak_rss_mb"] = _peak_rss_mb()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    peak = getattr(node, "workeroutput", {}).get("peak_rss_mb")
    if peak is not None:
        _PEAKS_MB[node.gateway.id] = peak


def pytest_terminal_summary(terminalreporter) -> None:
    peaks = {"controller": _peak_rss_mb(), **dict(sorted(_PEAKS_MB.items()))}
    terminalreporter.write_sep("=", "peak resident memory")
    for who, mb in peaks.items():
        terminalreporter.write_line(f"{who:>12}: {mb:8.1f} MB")
    terminalreporter.write_line(
        f"{'sum':>12}: {sum(peaks.values()):8.1f} MB (an upper bound on the session at any time)"
    )
