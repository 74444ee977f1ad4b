from __future__ import annotations

import json

import gymnasium as gym
import pytest

pytest.importorskip("openai")

import sre_gym  # noqa: E402,F401
from sre_gym.agents import make_agent  # noqa: E402
from sre_gym.bundle import read_bundle, verify  # noqa: E402
from sre_gym.cli import main as cli_main  # noqa: E402
from sre_gym.testing.scripted_model import (  # noqa: E402
    COMPLETION_TOKENS,
    Fault,
    ScriptedChatServer,
    SreScript,
    tool_call,
)


def play(respond, tmp_path=None, **agent_kw):
    with ScriptedChatServer(respond) as srv:
        env = gym.make(
            "SREMarathon-v0",
            schedule="short",
            bundle_dir=str(tmp_path) if tmp_path is not None else None,
        )
        agent = make_agent(
            "react", env=env, model="scripted", base_url=srv.base_url, backoff_s=0.0, **agent_kw
        )
        obs, info = env.reset(seed=0)
        while True:
            obs, _, terminated, truncated, info = env.step(agent(obs, info))
            if terminated or truncated:
                return info, srv.requests


def test_a_whole_episode_with_its_cost_from_the_providers_usage(tmp_path):
    info, requests = play(SreScript(), tmp_path)
    card = info["scorecard"]
    assert card["incidents"] >= 1  # the script reported what the alerts named
    prompt = sum(len(json.dumps(r["messages"])) // 4 for r in requests)
    assert card["cost"]["model_calls"] == len(requests)
    assert card["cost"]["input_tokens"] == prompt
    assert card["cost"]["output_tokens"] == COMPLETION_TOKENS * len(requests)
    verify(info["bundle"])
    models = [e for e in read_bundle(info["bundle"]).events if e["type"] == "model"]
    assert len(models) == len(requests) and all(e["error"] is None for e in models)


def test_the_same_script_gives_the_same_run():
    a, ra = play(SreScript())
    b, rb = play(SreScript())
    assert a["scorecard"] == b["scorecard"]
    assert [r["messages"] for r in ra] == [r["messages"] for r in rb]


def test_every_tool_call_gets_an_answer_even_malformed_or_unknown():
    turns = {"n": 0}

    def respond(req):
        last = req["messages"][-1]
        if last["role"] != "user":
            return {"content": "done"}
        turns["n"] += 1
        k = turns["n"] * 10
        return {
            "content": None,
            "tool_calls": [
                tool_call(k, "get_topology", {}),
                tool_call(k + 1, "get_alerts", "{not json"),
                tool_call(k + 2, "no_such_tool", {}),
                tool_call(k + 3, "get_alerts", "[1, 2]"),
            ],
        }

    _, requests = play(respond)
    answered = 0
    for req in requests:
        msgs = req["messages"]
        for i, m in enumerate(msgs):
            for tc in m.get("tool_calls", []):
                replies = [x for x in msgs[i + 1 :] if x.get("tool_call_id") == tc["id"]]
                assert len(replies) == 1, tc
                answered += 1
                body = json.loads(replies[0]["content"].removesuffix(" [cut]"))
                if tc["function"]["name"] == "get_topology":
                    assert body["ok"]
                else:
                    assert body["ok"] is False and body["error"]
    assert answered >= 4 * turns["n"]


def test_provider_trouble_ends_invocations_early_but_never_the_episode(tmp_path):
    script = SreScript()
    seen = {"n": 0}

    def respond(req):
        seen["n"] += 1
        n = seen["n"]
        if n % 7 == 0:
            return Fault(500, "upstream down")
        if n % 11 == 0:
            return Fault(200, body="garbage")
        if n % 13 == 0:
            return Fault(400, "maximum context length exceeded")
        if n % 17 == 0:
            return Fault(
                200, body=json.dumps({"id": "x", "object": "chat.completion", "choices": []})
            )
        return script(req)

    info, _ = play(respond, tmp_path, max_retries=1)
    assert info["scorecard"]["n_faults"] > 0  # scored to the end
    verify(info["bundle"])
    kinds = {
        e["kind"] for e in read_bundle(info["bundle"]).events if e["type"] == "model" and e["error"]
    }
    assert {"server_error", "malformed", "context_overflow", "empty"} <= kinds


def test_a_context_overflow_is_retried_once_on_a_cut_conversation():
    calls = []

    def respond(req):
        calls.append(req)
        if len(calls) == 1:
            return Fault(400, "This model's maximum context length is 4096 tokens")
        return {"content": "done"}

    with ScriptedChatServer(respond) as srv:
        env = gym.make("SREMarathon-v0", schedule="short")
        agent = make_agent("react", env=env, model="m", base_url=srv.base_url, backoff_s=0.0)
        obs, info = env.reset(seed=0)
        agent(obs, info)
    assert len(calls) == 2  # the overflow, then the cut conversation


def test_run_command_with_an_llm_agent_prints_its_cost(capsys):
    with ScriptedChatServer(SreScript()) as srv:
        argv = ["run", "--agent", "react", "--model", "scripted", "--base-url", srv.base_url]
        assert cli_main([*argv, "--schedule", "short", "--json"]) == 0
        n = len(srv.requests)
    card = json.loads(capsys.readouterr().out)["scorecard"]
    assert card["cost"]["model_calls"] == n > 0


def test_llm_agents_need_a_model_and_baselines_take_no_options():
    env = gym.make("SREMarathon-v0", schedule="short")
    with pytest.raises(ValueError, match="needs model="):
        make_agent("react", env=env, model="")
    with pytest.raises(TypeError, match="takes no options"):
        make_agent("runbook", model="x")
