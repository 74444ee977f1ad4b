"""A full Online Boutique episode seals into a bundle of at most 2 MB, for the oracle and for a
chatty agent that fills every invocation with read calls (the worst case for the event log)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

import sre_gym  # noqa: F401  (registers the env)
from sre_gym.bundle import read_bundle, verify, write_bundle
from sre_gym.testing.chatty import ChattyReader

LIMIT = 2 * 1024 * 1024


def size(path: Path) -> dict[str, int]:
    return {
        p.relative_to(path).as_posix(): p.stat().st_size for p in path.rglob("*") if p.is_file()
    }


def check(path: Path, who: str) -> int:
    verify(path)
    files = size(path)
    total = sum(files.values())
    print(f"{who}: bundle {total / 1024:.0f} KiB {files}")
    assert total <= LIMIT, f"{who}: bundle is {total} bytes > {LIMIT}: {files}"
    return total


def test_oracle_bundle_is_small(episode, tmp_path):
    ep = episode("oracle", 0)  # shared with the baseline tests
    path = write_bundle(ep["env"].evidence, tmp_path)
    check(path, "oracle")
    assert read_bundle(path).manifest["app"] == "online-boutique"


@pytest.mark.slow
def test_chatty_agent_bundle_is_small(tmp_path):
    env = gym.make("SREMarathon-v0", bundle_dir=str(tmp_path))
    agent = ChattyReader()
    obs, info = env.reset(seed=0)
    while True:
        obs, _, terminated, truncated, info = env.step(agent(obs, info))
        if terminated or truncated:
            break
    card = info["scorecard"]
    # it really was chatty: most invocations hit the per-invocation call limit
    assert card["cost"]["tool_calls"] >= 40 * 45, card["cost"]
    total = check(Path(info["bundle"]), f"chatty ({card['cost']['tool_calls']} calls)")
    assert total > 100_000  # the event log really holds every call
