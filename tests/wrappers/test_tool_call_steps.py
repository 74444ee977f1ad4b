"""ToolCallSteps: one call per step, results at once, time moves only when the invocation ends."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

from sre_gym.agents import make_agent
from sre_gym.envs.marathon import MAX_CALLS, N_INVOCATIONS
from sre_gym.wrappers import ToolCallSteps

END = {"tool": "end_invocation", "args": {}}


def results(obs):
    return json.loads(obs["tool_results"])


def test_check_env_passes(make, strict_check):
    strict_check(make(ToolCallSteps))


def test_same_calls_one_at_a_time_give_the_same_run_as_whole_invocations(episode, make):
    """Runbook's calls sent one per step: identical rewards per invocation and scorecard."""
    ref = episode("runbook", 0)
    env = make(ToolCallSteps)
    agent = make_agent("runbook")
    obs, info = env.reset(seed=0)
    per_invocation, steps = [], 0
    while True:
        for c in agent(obs, info):
            obs, r, term, trunc, info = env.step(c)
            assert r == 0.0 and not term and not info["invocation_ended"]
            assert results(obs)[0]["tool"] == c["tool"]
            steps += 1
        obs, r, term, trunc, info = env.step(END)
        per_invocation.append(r)
        assert info["invocation_ended"] and obs["budget_left_s"] == 110
        if term:
            break
    assert per_invocation == ref["rewards"]
    assert info["scorecard"] == ref["info"]["scorecard"]
    assert abs(sum(per_invocation) - info["scorecard"]["net_score"]) < 1e-9
    assert steps == info["scorecard"]["cost"]["tool_calls"]


def test_results_come_at_once_and_the_clock_moves_with_each_call(make):
    env = make(ToolCallSteps)
    obs, info = env.reset(seed=1)
    t0 = int(obs["time"])
    assert obs["budget_left_s"] == 110 and info["budget_left_s"] == 110.0
    obs, r, *_ = env.step(
        {"tool": "report_incident", "args": {"alert_ids": [], "root_cause_services": ["frontend"]}}
    )
    (res,) = results(obs)
    assert res["ok"] and res["result"]["id"] == "INC-0001"
    assert json.loads(obs["incidents"])[0]["id"] == "INC-0001"  # visible before time moves on
    assert int(obs["time"]) == t0 + 3 and obs["budget_left_s"] == 107 and obs["invocation"] == 0
    obs, *_ = env.step(
        {"tool": "restart", "args": {"deployment": "frontend", "incident_id": "INC-0001"}}
    )
    assert results(obs)[0]["ok"] and obs["budget_left_s"] == 97
    obs, r, term, trunc, info = env.step(END)
    assert obs["invocation"] == 1 and int(obs["time"]) == t0 + 120
    marker = results(obs)[-1]
    assert marker["tool"] == "end_invocation" and marker["result"]["budget_used_s"] == 13.0


def test_a_list_runs_in_order_and_calls_after_the_end_do_not_run(make):
    env = make(ToolCallSteps)
    env.reset(seed=1)
    obs, r, term, trunc, info = env.step(
        [{"tool": "get_topology"}, END, {"tool": "get_alerts", "args": {}}]
    )
    res = results(obs)
    assert [x["tool"] for x in res] == ["get_topology", "get_alerts", "end_invocation"]
    assert res[0]["ok"] and not res[1]["ok"] and "not run" in res[1]["error"]
    assert info["invocation_ended"] and obs["invocation"] == 1


def test_notes_and_usage_through_end_invocation(make):
    env = make(ToolCallSteps)
    env.reset(seed=1)
    obs, *_ = env.step({"tool": "end_invocation", "args": {"notes": "watch cart"}})
    assert obs["notes"] == "watch cart"
    obs, *_ = env.step({"tool": "get_topology"})
    assert obs["notes"] == "watch cart"
    obs, r, term, trunc, info = env.step({"tool": "end_invocation", "args": {"notes": 3}})
    assert not info["invocation_ended"] and "notes" in results(obs)[0]["error"]
    env.step({"calls": [], "notes": "second", "usage": {"model_calls": 2, "input_tokens": 10}})
    ev = env.unwrapped.evidence.of("usage")
    assert [(e["model_calls"], e["input_tokens"]) for e in ev] == [(2, 10)]
    assert env.unwrapped.notes == "second"


def test_an_empty_action_ends_the_invocation_and_none_is_an_error(make):
    env = make(ToolCallSteps)
    env.reset(seed=1)
    for k, a in enumerate([[], "[]"], start=1):
        obs, r, term, trunc, info = env.step(a)
        assert obs["invocation"] == k and info["invocation_ended"]
    obs, r, term, trunc, info = env.step(None)  # outside the action space: an error result
    assert obs["invocation"] == 2 and not info["invocation_ended"]
    assert "got None" in results(obs)[0]["error"]


def test_budget_exhaustion_ends_the_invocation(make):
    env = make(ToolCallSteps)
    env.reset(seed=1)
    logs = {"tool": "query_logs", "args": {"service": "frontend", "limit": 1}}
    for _ in range(36):
        obs, r, term, trunc, info = env.step(logs)
    assert obs["budget_left_s"] == 2 and not info["invocation_ended"]
    obs, *_ = env.step(logs)
    assert "budget" in results(obs)[0]["error"] and obs["invocation"] == 0
    env.step({"tool": "get_topology"})
    obs, r, term, trunc, info = env.step({"tool": "get_topology"})
    assert info["invocation_ended"] and obs["invocation"] == 1
    assert results(obs)[-1]["result"]["reason"] == "budget exhausted"


def test_call_limit_ends_an_invocation_of_refused_calls(make):
    env = make(ToolCallSteps)
    env.reset(seed=1)
    for _ in range(MAX_CALLS - 1):
        obs, r, term, trunc, info = env.step("{broken json")
        assert not info["invocation_ended"] and "not valid JSON" in results(obs)[0]["error"]
    obs, r, term, trunc, info = env.step({"tool": "nope"})
    assert info["invocation_ended"] and "64 calls" in results(obs)[-1]["result"]["reason"]


def test_whole_episode_rewards_sum_to_the_score_and_reset_is_needed_after(make):
    env = make(ToolCallSteps, max_episode_steps=None)
    env.reset(seed=2)
    total, term = 0.0, False
    while not term:
        _, r, term, trunc, info = env.step([])
        total += r
    assert info["invocation"] == N_INVOCATIONS
    assert abs(total - info["scorecard"]["marathon_score"]) < 1e-9
    with pytest.raises(gym.error.ResetNeeded):
        env.step({"tool": "get_topology"})
    with pytest.raises(gym.error.ResetNeeded):
        ToolCallSteps(gym.make("SREMarathon-v0")).step({"tool": "get_topology"})


def test_make_vec_sync_with_the_wrapper():
    envs = gym.make_vec("SREMarathon-v0", num_envs=2, wrappers=[ToolCallSteps])
    obs, info = envs.reset(seed=[0, 1])
    assert list(obs["budget_left_s"]) == [110, 110]
    obs, r, term, trunc, info = envs.step(({"tool": "get_topology"}, []))
    assert list(obs["budget_left_s"]) == [109, 110] and list(obs["invocation"]) == [0, 1]
    assert np.all(r == 0.0)
    envs.close()


def test_spec_records_the_wrapper(make):
    env = make(lambda e: ToolCallSteps(e, max_calls=8))
    (ws,) = env.spec.additional_wrappers
    assert ws.entry_point.endswith("tool_call_steps:ToolCallSteps") and ws.kwargs == {
        "max_calls": 8
    }
    again = env.spec.make()
    assert isinstance(again, ToolCallSteps) and again.max_calls == 8
    with pytest.raises(ValueError):
        ToolCallSteps(gym.make("SREMarathon-v0"), max_calls=0)
    with pytest.raises(TypeError):
        ToolCallSteps(gym.make("CartPole-v1"))


def test_make_time_limit_counts_invocations_not_tool_calls():
    # the README's step-counting rule: gym.make's TimeLimit sits under the wrapper
    env = ToolCallSteps(gym.make("SREMarathon-v0", max_episode_steps=2, schedule="short"))
    env.reset(seed=0)
    steps = 0
    while True:
        env.step({"tool": "get_alerts", "args": {}})
        *_, terminated, truncated, _ = env.step({"tool": "end_invocation", "args": {}})
        steps += 2
        if terminated or truncated:
            break
    assert (steps, terminated, truncated) == (4, False, True)
    assert env.unwrapped.invocation == 2
