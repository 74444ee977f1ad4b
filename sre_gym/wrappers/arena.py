"""Agent surfaces for IncidentArena-v0: parallel tool calls, chat messages, OpenAI tool calls.

The arena env already takes one tool call per step (the ReAct loop that ``ToolCallSteps`` builds on
top of the marathon), so the wrappers here only add what agents need around it:
- ``ArenaToolCallSteps``: a step may carry several calls (parallel tool calls), run in order; calls
  after the end of the episode are answered with an error and never run;
- ``ArenaChat``: observations become chat messages (the brief first, then one tool message per call);
- ``ArenaOpenAITools``: actions are an OpenAI-style assistant turn; ``tools`` is the function list.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym

from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.tools import arena as arena_tools
from sre_gym.wrappers.spaces import AssistantTurn, ChatMessages

MAX_CALLS_PER_STEP = 64


def arena_of(env: gym.Env) -> IncidentArenaEnv:
    base = env.unwrapped
    if not isinstance(base, IncidentArenaEnv):
        raise TypeError(f"this wrapper needs an IncidentArena env, got {type(base).__name__}")
    return base


def _calls(action: Any) -> list[Any]:
    if isinstance(action, str):
        try:
            action = json.loads(action)
        except (json.JSONDecodeError, RecursionError):
            return [action]  # the env answers it with an error result
    if isinstance(action, dict) and "calls" in action:
        action = action["calls"]
    return list(action) if isinstance(action, list) else [action]


def _run(env: gym.Env, calls: list[Any]):
    """Run calls in order on ``env``; (last obs, reward sum, terminated, truncated, info, results)."""
    results: list[str] = []
    total, term, trunc, info, obs = 0.0, False, False, {}, None
    for c in calls[:MAX_CALLS_PER_STEP]:
        if term or trunc:
            results.append(json.dumps({"error": "not run: the episode has ended"}))
            continue
        obs, r, term, trunc, info = env.step(c)
        total += float(r)
        results.append(arena_of(env).observation_result())
    for _ in calls[MAX_CALLS_PER_STEP:]:
        results.append(json.dumps({"error": f"not run: at most {MAX_CALLS_PER_STEP} calls a step"}))
    return obs, total, term, trunc, info, results


class ArenaToolCallSteps(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A step takes one call, a list of calls or ``{"calls": [...]}``; ``info["results"]`` holds
    every call's result (the observation's ``result`` is the last one)."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        arena_of(env)

    def step(self, action: Any):
        calls = _calls(action) or [None]
        obs, r, term, trunc, info, results = _run(self.env, calls)
        return obs, r, term, trunc, dict(info, results=results)


def system_prompt(env: IncidentArenaEnv) -> str:
    b = env.task.budgets
    names = ", ".join(arena_tools.TOOLS)
    return (
        f"{env.task.instruction}\n\nTools: {names}. Each call takes simulated time; the traffic "
        f"keeps flowing. Budget: {b.agent_window_s} s and {b.max_tool_calls} tool calls. "
        f"Services: {', '.join(env.world.sub.services) if env.world else ''}. "
        f"Report vocabulary: {', '.join(env.task.vocabulary)}."
    )


class ArenaChat(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observations as chat messages: the brief on reset, a tool message per call after."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        self.base = arena_of(env)
        self.observation_space = ChatMessages()
        self._n = 0
        self._fresh = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._n = 0
        self._fresh = True
        return super().reset(seed=seed, options=options)

    def observation(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        if self._fresh:
            self._fresh = False
            return [{"role": "user", "content": system_prompt(self.base)}]
        self._n += 1
        return [
            {
                "role": "tool",
                "tool_call_id": f"call_arena_{self._n:06d}",
                "content": observation["result"],
            }
        ]


class ArenaOpenAITools(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Actions are an assistant turn (message dict or its ``tool_calls``); each tool call runs as one
    env call, in order. Over ``ArenaChat`` the observation is one tool message per call, labelled
    with the model's ``tool_call_id``. A turn without tool calls is answered with an error user
    message and nothing runs."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        self.base = arena_of(env)
        self.tools = arena_tools.schemas()
        self.action_space = AssistantTurn()
        self.observation_space = env.observation_space

    def step(self, action: Any):
        if isinstance(action, str):
            try:
                action = json.loads(action)
            except (json.JSONDecodeError, RecursionError):
                action = {}
        tcs = action.get("tool_calls") if isinstance(action, dict) else action
        if not isinstance(tcs, list) or not tcs:
            msg = (
                "no tool call in this turn: call a tool (declare_repair_complete ends the session)"
            )
            obs = [{"role": "user", "content": msg}]
            if not isinstance(self.observation_space, ChatMessages):
                obs = self.base._obs()
            return obs, 0.0, False, False, {"error": msg, "tool_call_ids": []}
        ids, calls = [], []
        for n, tc in enumerate(tcs):
            fn = tc.get("function", {}) if isinstance(tc, dict) else {}
            ids.append(str(tc.get("id", f"call_{n}")) if isinstance(tc, dict) else f"call_{n}")
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except (json.JSONDecodeError, TypeError):
                args = None  # the env answers with an error result
            calls.append({"tool": fn.get("name"), "args": args})
        msgs: list[dict[str, Any]] = []
        total, term, trunc, info, obs = 0.0, False, False, {}, None
        for i, c in zip(ids, calls, strict=True):
            if term or trunc:
                msgs.append({"role": "tool", "tool_call_id": i, "content": '{"error": "not run"}'})
                continue
            obs, r, term, trunc, info = self.env.step(c)
            total += float(r)
            if isinstance(obs, list):
                msgs += [dict(m, tool_call_id=i) if m["role"] == "tool" else m for m in obs]
        out = msgs if isinstance(self.observation_space, ChatMessages) else obs
        return out, total, term, trunc, dict(info, tool_call_ids=ids)
