"""Spaces of the LLM-facing wrappers: membership, deterministic sampling, equality, JSON."""

from __future__ import annotations

import pytest

from sre_gym.tools import TOOLS
from sre_gym.wrappers.spaces import AssistantTurn, ChatMessages, ToolCall


@pytest.mark.parametrize("cls", [ToolCall, ChatMessages, AssistantTurn])
def test_samples_are_members_deterministic_and_round_trip(cls):
    a, b = cls(seed=7), cls(seed=7)
    xs = [a.sample() for _ in range(50)]
    assert xs == [b.sample() for _ in range(50)]
    assert all(a.contains(x) for x in xs)
    assert a.from_jsonable(a.to_jsonable(xs)) == xs
    assert a == cls() and a != object() and not a.is_np_flattenable
    with pytest.raises(NotImplementedError):
        a.sample(mask=1)


def test_tool_call_membership():
    s = ToolCall()
    assert s.contains({"tool": "get_alerts", "args": {}})
    assert s.contains([{"tool": "get_alerts"}, {"tool": "k8s_get", "args": {"kind": "pods"}}])
    assert s.contains({"calls": [], "notes": "x"}) and s.contains('{"tool": "x"}')
    assert not s.contains({"tool": 3}) and not s.contains(5) and not s.contains({"calls": "x"})
    tools = {ToolCall(seed=i).sample()["tool"] for i in range(40)}
    assert "end_invocation" in tools and tools - {"end_invocation"} <= set(TOOLS)


def test_chat_messages_membership():
    s = ChatMessages()
    assert s.contains([{"role": "system", "content": "x"}, {"role": "user", "content": ""}])
    assert s.contains([{"role": "tool", "content": "r", "tool_call_id": "call_1"}])
    assert not s.contains([{"role": "tool", "content": "r"}])
    assert not s.contains([{"role": "robot", "content": "x"}]) and not s.contains("text")


def test_assistant_turn_membership():
    s = AssistantTurn()
    tc = {"id": "c1", "type": "function", "function": {"name": "get_alerts", "arguments": "{}"}}
    assert s.contains({"role": "assistant", "content": None, "tool_calls": [tc]})
    assert s.contains({"role": "assistant", "content": "done"}) and s.contains([tc])
    assert not s.contains({"role": "user", "content": "x"})
    assert not s.contains([{**tc, "function": {"name": "x", "arguments": {}}}])
