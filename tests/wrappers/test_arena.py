"""Arena wrappers: parallel calls, chat messages and OpenAI tool calls drive a whole episode."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import sre_gym  # noqa: F401
from sre_gym.agents.arena import oracle_calls
from sre_gym.catalogs.arena import load_task
from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.wrappers.arena import ArenaChat, ArenaOpenAITools, ArenaToolCallSteps, arena_of


def test_parallel_calls_run_in_order_and_stop_at_the_end():
    env = ArenaToolCallSteps(IncidentArenaEnv(task="arena-008"))
    env.reset(seed=0)
    calls = oracle_calls(load_task("arena-008"))
    obs, r, term, trunc, info = env.step([*calls, {"tool": "metrics", "args": {}}])
    assert term and r == 1.0
    assert len(info["results"]) == len(calls) + 1
    assert "not run" in info["results"][-1]


def test_chat_then_openai_tools_play_the_oracle():
    env = ArenaOpenAITools(ArenaChat(IncidentArenaEnv(task="arena-013")))
    obs, info = env.reset(seed=2)
    assert obs[0]["role"] == "user" and "declare_repair_complete" in obs[0]["content"]
    assert {t["function"]["name"] for t in env.tools} >= {"http_admin", "declare_repair_complete"}
    tcs = [
        {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": c["tool"], "arguments": json.dumps(c["args"])},
        }
        for i, c in enumerate(oracle_calls(load_task("arena-013")))
    ]
    obs, r, term, trunc, info = env.step({"role": "assistant", "content": None, "tool_calls": tcs})
    assert term and r == 1.0
    assert [m["tool_call_id"] for m in obs] == [t["id"] for t in tcs]


def test_a_turn_without_tool_calls_runs_nothing():
    env = ArenaOpenAITools(ArenaChat(IncidentArenaEnv(task="arena-008")))
    env.reset(seed=0)
    t0 = arena_of(env).world.now
    obs, r, term, trunc, info = env.step({"role": "assistant", "content": "thinking"})
    assert not term and "error" in info and arena_of(env).world.now == t0


def test_bad_arguments_become_error_results():
    env = ArenaOpenAITools(ArenaChat(IncidentArenaEnv(task="arena-008")))
    env.reset(seed=0)
    tc = {"id": "x", "type": "function", "function": {"name": "wait", "arguments": "{nope"}}
    obs, *_ = env.step([tc])
    assert "error" in json.loads(obs[0]["content"])


def test_wrappers_need_an_arena_env():
    from sre_gym.envs.marathon import SREMarathonEnv

    with pytest.raises(TypeError):
        ArenaChat(SREMarathonEnv())


def test_chat_wrapper_passes_check_env(strict_check):
    base = gym.make("IncidentArena-v0", task="arena-009", disable_env_checker=True)
    strict_check(ArenaOpenAITools(ArenaChat(base)))
