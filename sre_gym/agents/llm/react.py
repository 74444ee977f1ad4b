"""ReAct: a fresh conversation every invocation, in which the model picks the tools.

Each invocation starts a new conversation holding the cumulative alert history, the open incidents
and the agent's notes. The model calls tools, each runs at once inside the invocation (same policy,
same budget), its result goes back as the tool message, and the turn ends when the model answers
without a tool call, after ``max_steps`` model calls, or past ``max_tokens`` tokens. Every
``tool_call_id`` gets an answer: malformed JSON arguments and unknown tools get error results.

Provider trouble ends the invocation early, never the episode; it is in the transcript. Context
overflow: the conversation is cut (tool results first, then the alert history) and sent once more.
"""

from __future__ import annotations

import json
from typing import Any

from sre_gym.agents.base import Agent
from sre_gym.agents.llm.client import ModelClient, Reply
from sre_gym.tools.specs import TOOLS

SYSTEM = (
    "You are the on-call SRE of a microservice application on Kubernetes. Faults keep arriving from "
    "code changes, configuration changes and infrastructure trouble, and not every alert has a "
    "fault behind it. Each turn you see the alert history and your open incidents. Use the tools: "
    "group related alerts into incidents (report_incident, update_incident), find each incident's "
    "root cause, and repair it with the least risky intervention, citing the incident's id. "
    "Interventions on the wrong service cost capacity. Every call spends simulated seconds of a "
    "110 s budget. Answer without a tool call when you are done for this turn."
)
CUT_TOOL_CHARS = 400  # tool results after a context overflow
CUT_ALERT_CHARS = 8000  # alert history after a second overflow


class ReactAgent(Agent):
    """The ReAct method over any chat-completions endpoint (``make_agent("react", env, ...)``)."""

    name = "react"

    def __init__(
        self,
        env: Any,
        client: ModelClient,
        *,
        max_steps: int = 10,
        max_tokens: int = 150_000,
        result_chars: int = 6000,
    ) -> None:
        from sre_gym.wrappers.tool_call_steps import marathon_of

        self.base = marathon_of(env)
        self.client = client
        self.max_steps = int(max_steps)
        self.max_tokens = int(max_tokens)
        self.result_chars = int(result_chars)
        self.tools = [TOOLS[n].openai() for n in TOOLS if n in self._profile_tools()]

    def _profile_tools(self) -> frozenset[str]:
        from sre_gym.tools.policy import ACCESS_PROFILES

        return ACCESS_PROFILES[self.base.profile]

    def reset(self) -> None:
        self.client.transcript.clear()

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        client = self.client
        mark = client.mark()
        self._loop(SYSTEM, self._situation(obs))
        self.base.record_model(client.transcript_since(mark))
        return {"calls": [], "usage": client.usage_since(mark)}

    def _loop(self, system: str, situation: str) -> None:
        """The bounded loop: ``max_steps`` model calls, ``max_tokens`` tokens, the tool budget."""
        client = self.client
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": situation},
        ]
        tokens = 0
        for _ in range(self.max_steps):
            reply = client.chat(messages, self.tools)
            if reply.kind == "context_overflow":
                reply = client.chat(_cut(messages), self.tools)
            tokens += reply.input_tokens + reply.output_tokens
            if reply.error is not None:
                break
            messages.append(reply.message())
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                messages.append(self._run(call))
            if tokens >= self.max_tokens or self.base.budget_left <= 0:
                break

    def _run(self, call: dict[str, Any]) -> dict[str, Any]:
        """Run one of the model's tool calls; the tool message answering it."""
        try:
            args = json.loads(call["arguments"] or "{}")
        except json.JSONDecodeError as e:
            result: dict[str, Any] = {"ok": False, "error": f"arguments are not valid JSON: {e}"}
        else:
            if not isinstance(args, dict):
                result = {"ok": False, "error": "arguments must be a JSON object"}
            else:
                result = self.base.call({"tool": call["name"], "args": args})
        text = json.dumps(result, sort_keys=True, default=str)
        if len(text) > self.result_chars:
            text = text[: self.result_chars] + " [cut]"
        return {"role": "tool", "tool_call_id": call["id"], "content": text}

    @staticmethod
    def _situation(obs: dict[str, Any]) -> str:
        return (
            f"Invocation {int(obs['invocation'])}, simulated time {int(obs['time'])}.\n"
            f"Alert history (JSON): {obs['alerts']}\n"
            f"Open incidents (JSON): {obs['incidents']}\n"
            f"Your notes: {obs['notes'] or '(none)'}"
        )


def _cut(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The truncation policy after a context overflow: tool results shortened to a few hundred
    characters and the alert history to its most recent part."""
    out = []
    for m in messages:
        c = m.get("content")
        if m["role"] == "tool" and isinstance(c, str) and len(c) > CUT_TOOL_CHARS:
            m = {**m, "content": c[:CUT_TOOL_CHARS] + " [cut after a context overflow]"}
        elif m["role"] == "user" and isinstance(c, str) and len(c) > CUT_ALERT_CHARS:
            m = {**m, "content": "[older alerts cut] " + c[-CUT_ALERT_CHARS:]}
        out.append(m)
    return out


__all__ = ["ReactAgent", "Reply"]
