"""OpenAITools: the function list, parsing a model's turn, and a conversation valid to send back."""

from __future__ import annotations

import json

import gymnasium as gym
import jsonschema
import pytest

from sre_gym.tools import TOOLS
from sre_gym.tools.policy import ACCESS_PROFILES
from sre_gym.wrappers import ChatObservation, OpenAITools, ToolCallSteps, openai_tools


def tc(i, name, args="{}"):
    if not isinstance(args, str):
        args = json.dumps(args)
    return {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": args}}


def turn(*calls, content=None):
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


def answered(msgs):
    return [m["tool_call_id"] for m in msgs if m["role"] == "tool"]


def test_check_env_passes_over_both_step_kinds(make, strict_check):
    strict_check(make(ChatObservation, OpenAITools))
    strict_check(make(ToolCallSteps, ChatObservation, OpenAITools))
    strict_check(make(OpenAITools))


@pytest.mark.parametrize("profile", list(ACCESS_PROFILES))
def test_tools_follow_the_profile_and_have_valid_schemas(make, profile):
    env = make(OpenAITools, profile=profile)
    names = [t["function"]["name"] for t in env.tools]
    assert names == [n for n in TOOLS if n in ACCESS_PROFILES[profile]] + ["end_invocation"]
    assert env.tools == openai_tools(profile)
    for t in env.tools:
        assert t["type"] == "function" and t["function"]["description"]
        jsonschema.Draft202012Validator.check_schema(t["function"]["parameters"])


def test_a_turn_of_tool_calls_is_answered_in_order_with_the_models_ids(make):
    env = make(ToolCallSteps, ChatObservation, OpenAITools)
    env.reset(seed=0)
    msgs, r, term, trunc, info = env.step(
        turn(
            tc("a", "get_topology"),
            tc("b", "k8s_get", {"kind": "nodes"}),
            tc("c", "report_incident", {"alert_ids": [], "root_cause_services": ["cartservice"]}),
        )
    )
    assert answered(msgs) == ["call_a", "call_b", "call_c"] and info["tool_call_ids"] == answered(
        msgs
    )
    assert [m["role"] for m in msgs] == ["tool"] * 3 and r == 0.0
    assert json.loads(msgs[2]["content"])["id"] == "INC-0001"
    msgs, r, term, trunc, info = env.step(
        {"role": "assistant", "content": "all quiet", "tool_calls": None}
    )
    assert [m["role"] for m in msgs] == ["user", "user"]  # the end note, then the next invocation
    assert "Invocation 2 of 45" in msgs[-1]["content"] and info["tool_call_ids"] == []


def test_malformed_tool_calls_become_error_results_never_exceptions(make):
    env = make(ToolCallSteps, ChatObservation, OpenAITools)
    env.reset(seed=0)
    msgs, *_ = env.step(
        turn(
            tc("bad_json", "get_alerts", "{not json"),
            tc("not_obj", "get_alerts", "[1, 2]"),
            {"id": "no_name", "type": "function", "function": {"arguments": "{}"}},
            tc("unknown", "drop_database"),
            tc(
                "bad_args", "scale", {"deployment": "x", "replicas": "many", "incident_id": "INC-1"}
            ),
            "just a string",
            tc("forged", "restart", {"deployment": "cartservice", "incident_id": "INC-0042"}),
            tc("ok", "get_topology"),
        )
    )
    by_id = {m["tool_call_id"]: m["content"] for m in msgs if m["role"] == "tool"}
    assert "not valid JSON" in by_id["call_bad_json"]
    assert "must be a JSON object" in by_id["call_not_obj"]
    assert "no function name" in by_id["no_name"]
    assert "unknown tool 'drop_database'" in by_id["call_unknown"]
    assert "replicas" in by_id["call_bad_args"]
    assert "not an object" in next(v for k, v in by_id.items() if k.startswith("call_sre_"))
    assert "report one first" in by_id["call_forged"]
    assert json.loads(by_id["call_ok"])["app"] == "online-boutique"
    assert len(by_id) == 8 and env.unwrapped.toolbox.incidents == {}


@pytest.mark.parametrize(
    "action",
    [
        "plain text answer",
        42,
        {"role": "assistant", "tool_calls": "nope"},
        json.dumps(turn(tc("x", "get_topology"))),
        [tc("x", "get_topology")],
        tc("x", "get_topology"),
        {"type": "function_call", "call_id": "x", "name": "get_topology", "arguments": "{}"},
        [
            {"type": "message", "content": "hi"},
            {"type": "function_call", "call_id": "x", "name": "get_topology", "arguments": "{}"},
        ],
        {"role": "assistant", "content": "done"},
        None,
        b"\xff\xfe",
        {"role": "assistant", "tool_calls": [None, 3, []]},
        {"role": "assistant", "tool_calls": [{"id": 5, "function": "get_topology"}]},
        "x" * 1_000_001,
    ],
)
def test_any_turn_shape_gives_a_valid_conversation(make, action):
    env = make(ToolCallSteps, ChatObservation, OpenAITools)
    env.reset(seed=0)
    msgs, r, term, trunc, info = env.step(action)
    assert env.observation_space.contains(msgs)
    assert answered(msgs) == info["tool_call_ids"]
    if info["tool_call_ids"] == ["x"]:
        assert json.loads(msgs[0]["content"])["app"] == "online-boutique"


class SDKMessage:
    """Stands in for an OpenAI SDK ChatCompletionMessage (a pydantic model)."""

    def __init__(self, data):
        self.data = data

    def model_dump(self):
        return self.data


def test_sdk_objects_and_end_invocation_with_notes_over_the_base_env(make):
    env = make(ChatObservation, OpenAITools)
    env.reset(seed=0)
    msgs, r, term, trunc, info = env.step(
        SDKMessage(
            turn(
                tc("q", "get_alerts"),
                tc(
                    "e",
                    "end_invocation",
                    {"notes": "INC plan: watch cart", "usage": {"model_calls": 1}},
                ),
            )
        )
    )
    assert answered(msgs) == ["call_q", "call_e"] and msgs[-1]["role"] == "user"
    assert "Your notes: INC plan: watch cart" in msgs[-1]["content"]
    assert env.unwrapped.evidence.of("usage")[0]["model_calls"] == 1
    msgs, *_ = env.step(turn(tc("e2", "end_invocation", {"notes": 7})))
    assert "invalid arguments for end_invocation" in msgs[0]["content"]


def test_a_turn_of_refused_calls_does_not_end_the_invocation(make):
    env = make(ToolCallSteps, ChatObservation, OpenAITools)
    env.reset(seed=0)
    msgs, r, term, trunc, info = env.step(turn(tc("e", "end_invocation", {"notes": 7})))
    assert answered(msgs) == ["call_e"] and "invalid arguments" in msgs[0]["content"]
    assert env.unwrapped.invocation == 0 and not any("Invocation 2" in m["content"] for m in msgs)


def test_too_many_calls_in_a_base_env_turn_are_answered(make):
    env = make(ChatObservation, OpenAITools)
    env.reset(seed=0)
    msgs, *_ = env.step(turn(*[tc(i, "get_topology") for i in range(70)]))
    ids = answered(msgs)
    assert ids == [f"call_{i}" for i in range(70)]
    assert "not run" in msgs[69]["content"] and "not run" not in msgs[0]["content"]


def test_without_chat_observation_ids_are_in_info(make):
    env = make(OpenAITools)
    obs, info = env.reset(seed=0)
    assert info["tool_call_ids"] == []
    obs, r, term, trunc, info = env.step(turn(tc("a", "get_topology")))
    assert info["tool_call_ids"] == ["call_a"] and isinstance(obs, dict)
    assert json.loads(obs["tool_results"])[0]["tool"] == "get_topology"


def test_make_vec_sync():
    envs = gym.make_vec(
        "SREMarathon-v0", num_envs=2, wrappers=[ToolCallSteps, ChatObservation, OpenAITools]
    )
    obs, info = envs.reset(seed=0)
    obs, r, term, trunc, info = envs.step((turn(tc("a", "get_topology")), turn()))
    assert obs[0][0]["tool_call_id"] == "call_a" and obs[1][-1]["role"] == "user"
    envs.close()


def test_sdk_types_of_both_apis_are_answered_with_the_id_the_model_expects(make):
    from openai.types.chat import ChatCompletionMessage
    from openai.types.responses import ResponseFunctionToolCall

    env = make(ChatObservation, OpenAITools)
    env.reset(seed=0)
    # Responses API: the output must answer call_id, not the item's own id ("fc_...")
    items = [
        ResponseFunctionToolCall(
            type="function_call", id=f"fc_{i}", call_id=f"call_{i}", name=n, arguments="{}"
        )
        for i, n in (("1", "get_alerts"), ("2", "get_topology"))
    ]
    msgs, *_, info = env.step(items)
    assert answered(msgs) == ["call_1", "call_2"] == info["tool_call_ids"]
    # chat completions: the tool call's id
    message = ChatCompletionMessage.model_validate(turn(tc("c", "get_alerts")))
    msgs, *_, info = env.step(message)
    assert answered(msgs) == ["call_c"] == info["tool_call_ids"]
