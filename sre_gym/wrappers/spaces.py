"""Spaces of the LLM-facing wrappers: one tool call, chat messages, and an assistant turn.

Like ``ToolCalls`` they describe the well-formed values (``contains``) and sample plausible cheap read
calls, while the wrappers accept anything and answer malformed input with error results. Equality is
by type (``JsonSpace``), so that vector envs can check that their copies agree.
"""

from __future__ import annotations

import json
from typing import Any

from sre_gym.envs.spaces import MAX_ACTION_CHARS, JsonSpace, is_call, sample_call

ROLES = ("system", "user", "assistant", "tool")
_READS = ("get_alerts", "query_metrics", "k8s_get", "list_changes", "get_topology")


class ToolCall(JsonSpace):
    """One tool call ``{"tool": name, "args": {...}}`` (or its JSON string).

    ``ToolCallSteps`` also takes a list of calls (run at once, as for parallel tool calls) or
    ``{"calls": [...], "notes": ..., "usage": ...}``; the control call ``end_invocation`` (or an empty
    list) ends the invocation. ``sample()`` draws a cheap read, or ``end_invocation`` one time in five.
    """

    def contains(self, x: Any) -> bool:
        if isinstance(x, str):
            return len(x) <= MAX_ACTION_CHARS
        if isinstance(x, list):
            return all(is_call(c) for c in x)
        if isinstance(x, dict) and "calls" in x:
            return isinstance(x["calls"], list) and all(is_call(c) for c in x["calls"])
        return is_call(x)

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        if mask is not None or probability is not None:
            raise NotImplementedError("ToolCall.sample does not support masks")
        g = self.np_random
        if g.random() < 0.2:
            return {"tool": "end_invocation", "args": {}}
        return sample_call(g, _READS)


class ChatMessages(JsonSpace):
    """A list of chat messages ``{"role": ..., "content": str}`` (tool messages add a
    ``tool_call_id``), ready to append to an OpenAI-style conversation."""

    def contains(self, x: Any) -> bool:
        return isinstance(x, list) and all(
            isinstance(m, dict)
            and m.get("role") in ROLES
            and isinstance(m.get("content"), str)
            and (m["role"] != "tool" or isinstance(m.get("tool_call_id"), str))
            for m in x
        )

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, str]]:
        if mask is not None or probability is not None:
            raise NotImplementedError("ChatMessages.sample does not support masks")
        return [{"role": "user", "content": f"sample {int(self.np_random.integers(0, 1000))}"}]


def _is_tool_call(tc: Any) -> bool:
    if not isinstance(tc, dict):
        return False
    fn = tc.get("function")
    return (
        isinstance(tc.get("id"), str)
        and isinstance(fn, dict)
        and isinstance(fn.get("name"), str)
        and isinstance(fn.get("arguments"), str)
    )


class AssistantTurn(JsonSpace):
    """A model's turn: an assistant message ``{"role": "assistant", "content": ..., "tool_calls":
    [{"id", "type": "function", "function": {"name", "arguments": "<json>"}}]}`` or just its
    ``tool_calls`` list. ``sample()`` draws one or two read calls, or (one time in five) a message
    without tool calls, which ends the invocation."""

    def contains(self, x: Any) -> bool:
        if isinstance(x, list):
            return all(_is_tool_call(tc) for tc in x)
        return (
            isinstance(x, dict)
            and x.get("role") == "assistant"
            and all(_is_tool_call(tc) for tc in (x.get("tool_calls") or []))
        )

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        if mask is not None or probability is not None:
            raise NotImplementedError("AssistantTurn.sample does not support masks")
        g = self.np_random
        if g.random() < 0.2:
            return {"role": "assistant", "content": "done for now", "tool_calls": []}
        calls = []
        for i in range(int(g.integers(1, 3))):
            c = sample_call(g, _READS)
            calls.append(
                {
                    "id": f"call_{int(g.integers(0, 10**8)):08d}_{i}",
                    "type": "function",
                    "function": {"name": c["tool"], "arguments": json.dumps(c["args"])},
                }
            )
        return {"role": "assistant", "content": None, "tool_calls": calls}
