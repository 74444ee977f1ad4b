"""The SkyRL-gym text env: a whole episode of each env through skyrl_gym.make, against the
in-process env's result; replies that hold no call are error results and the episode goes on."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

skyrl_gym = pytest.importorskip("skyrl_gym")

from sre_gym.serve.skyrl_env import SREGymTextEnv, read_call  # noqa: E402


def _call(name: str, args: dict) -> str:
    return f"I will act.\n<tool_call>{json.dumps({'name': name, 'arguments': args})}</tool_call>"


def test_replies_are_read_into_calls_or_problems():
    assert read_call(_call("wait", {"seconds": 5})) == ("wait", {"seconds": 5}, None)
    assert read_call('{"tool": "wait", "args": {"seconds": 1}}')[:2] == ("wait", {"seconds": 1})
    assert read_call('{"name": "wait", "arguments": "{\\"seconds\\": 2}"}')[1] == {"seconds": 2}
    for bad in ("just prose", "[1, 2]", None, "[" * 5000):
        name, _, problem = read_call(bad)
        assert problem is not None


def test_an_arena_episode_gives_the_in_process_reward():
    from sre_gym.agents.arena import make_agent

    env = gym.make("IncidentArena-v0", task="arena-008", disable_env_checker=True)
    obs, _ = env.reset(seed=5)
    agent, calls, done = make_agent("oracle", "arena-008", 5), [], False
    while not done:
        calls.append(agent.act(obs))
        obs, want, term, trunc, _ = env.step(calls[-1])
        done = term or trunc
    sk = skyrl_gym.make("sre_gym-arena", env_config=None, extras={"seed": 5})
    assert isinstance(sk, SREGymTextEnv)
    prompt, meta = sk.init([{"role": "system", "content": "You are an SRE."}])
    first = json.loads(prompt[-1]["content"])
    assert meta["env"] == "IncidentArena-v0" and first["observation"]["instruction"]
    out = sk.step("no call here")  # an error result, one step, and the episode goes on
    assert (
        not out["done"] and json.loads(out["observations"][0]["content"])["result"]["ok"] is False
    )
    for c in calls:
        out = sk.step(_call(c["tool"], c.get("args", {})))
    assert out["done"] and out["reward"] == want == 1.0
    assert sk.get_metrics() == {"turns": len(calls) + 1, "return": 1.0, "errors": 1}
    sk.close()


def test_a_marathon_episode_sums_to_its_score():
    sk = skyrl_gym.make("sre_gym-marathon", extras={"seed": 1, "schedule": "single"})
    prompt, _ = sk.init([])
    assert {t["name"] for t in json.loads(prompt[0]["content"])["tools"]} >= {"end_invocation"}
    total, out = 0.0, {"done": False}
    deep = '{"a":' * 1500 + "1" + "}" * 1500
    out = sk.step('{"name": "get_alerts", "arguments": ' + deep + "}")  # too deep: an error
    assert "nested" in json.loads(out["observations"][0]["content"])["result"]["error"]
    while not out["done"]:
        out = sk.step(_call("end_invocation", {}))
        total += out["reward"]
    card = sk.session.info["scorecard"]
    assert total == pytest.approx(card["net_score"], abs=1e-9)
    sk.close()
