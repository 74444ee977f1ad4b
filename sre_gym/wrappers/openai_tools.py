"""OpenAITools: drive the env with an OpenAI-style model's tool calls.

``tools`` is the function-calling list to pass to the model (built from the tools' pydantic schemas,
restricted to the env's access profile, plus ``end_invocation``). The action is what the model
returned: an assistant message dict (``{"role": "assistant", "content": ..., "tool_calls": [...]}``),
an SDK message object (anything with ``model_dump()``), its ``tool_calls`` list, one tool call, or
Responses-API ``function_call`` items; a JSON string of any of these works too. Each tool call becomes
an env call in order. A malformed tool call (not an object, no name, arguments that are not a JSON
object) becomes an error result for that call, never an exception. A turn without tool calls, a plain
text reply, or an ``end_invocation`` call ends the invocation.

Over ``ChatObservation`` the returned tool messages carry the model's ``tool_call_id``s, one per
tool call (so the conversation is valid to send back), followed by the next user message when time
moved on; ``info["tool_call_ids"]`` lists the ids in either case. Over ``ToolCallSteps`` a turn's
calls run at once and only a turn without calls (or ``end_invocation``) advances time, which is the
usual chat agent loop; over the base env every turn is one invocation.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
from pydantic import ValidationError

from sre_gym.tools.dispatch import Invalid, _errors
from sre_gym.tools.policy import ACCESS_PROFILES
from sre_gym.tools.specs import END_INVOCATION, TOOLS
from sre_gym.wrappers.spaces import AssistantTurn
from sre_gym.wrappers.tool_call_steps import ToolCallSteps, marathon_of

MAX_TOOL_CALLS = 256  # per turn; more are answered with an error without running
MAX_TURN_CHARS = 1_000_000


def openai_tools(profile: str = "full") -> list[dict[str, Any]]:
    """OpenAI function-calling definitions of the tools a profile has, then ``end_invocation``."""
    out = [s.openai() for n, s in TOOLS.items() if n in ACCESS_PROFILES[profile]]
    return [*out, END_INVOCATION.openai()]


def _under(env: gym.Env, cls: type) -> bool:
    e = env
    while isinstance(e, gym.Wrapper):
        if isinstance(e, cls):
            return True
        e = e.env
    return False


class OpenAITools(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Actions are an OpenAI-style model turn; ``tools`` is the function list to offer the model."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        self.base = marathon_of(env)
        self.steps_mode = _under(env, ToolCallSteps)
        self.tools = openai_tools(self.base.profile)
        self.action_space = AssistantTurn()
        self.observation_space = env.observation_space
        self._n_ids = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict]:
        self._n_ids = 0
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, dict(info, tool_call_ids=[])

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        turn = self.parse(action)
        ids: list[str] = [i for i, _ in turn["calls"]]
        calls: list[Any] = [c for _, c in turn["calls"]]
        extra: list[tuple[str, str]] = list(turn["errors"])  # answered here, never run
        inner: dict[str, Any] = {}
        if turn["usage"] is not None:
            inner["usage"] = turn["usage"]
        end = turn["end"]
        if end is not None and end[0] is not None and not self.steps_mode:
            extra.insert(0, (end[0], "ok: the invocation ends with this turn"))
        if end is not None and self.steps_mode:
            if end[0] is not None:
                ids.append(end[0])
            calls.append({"tool": END_INVOCATION.name, "args": end[1]})
        elif end is not None:
            inner.update({k: v for k, v in end[1].items() if k in ("notes", "usage")})
        calls += [Invalid(f"the turn could not be read: {msg}") for msg in turn["turn"]]
        if self.steps_mode and not calls:  # every call was refused here: do not end the invocation
            calls.append(Invalid("nothing ran in this turn: every tool call was refused"))
        inner["calls"] = calls
        obs, reward, terminated, truncated, info = self.env.step(inner)
        info = dict(info)
        if isinstance(obs, list):
            obs = self._label(obs, ids, extra)
        info["tool_call_ids"] = ids + [i for i, _ in extra]
        return obs, reward, terminated, truncated, info

    # ------------------------------------------------------------------ parsing
    def parse(self, action: Any) -> dict[str, Any]:
        """A model turn as ``{"calls": [(id, call)], "errors": [(id, msg)], "end": (id, args) | None,
        "usage": dict | None}``; ``end`` is set for ``end_invocation`` or a turn without calls."""
        out: dict[str, Any] = {"calls": [], "errors": [], "end": None, "usage": None, "turn": []}
        raw = self._tool_calls(action, out)
        if raw is None:
            return out
        raw = [
            tc
            for tc in raw
            if not (isinstance(tc, dict) and tc.get("type") in ("message", "reasoning"))
        ]
        for n, tc in enumerate(raw):
            tc_id, call = self._one(tc, n)
            if n >= MAX_TOOL_CALLS:
                out["errors"].append(
                    (tc_id, f"not run: at most {MAX_TOOL_CALLS} tool calls per turn")
                )
            elif isinstance(call, dict) and call.get("tool") == END_INVOCATION.name:
                args = call["args"]
                try:
                    args = END_INVOCATION.args.model_validate(args).model_dump(exclude_none=True)
                except ValidationError as e:
                    out["errors"].append(
                        (tc_id, f"error: invalid arguments for end_invocation: {_errors(e)}")
                    )
                    continue
                if out["end"] is None:
                    out["end"] = (tc_id, args)
                else:
                    out["errors"].append((tc_id, "ok: the invocation already ends with this turn"))
            else:
                out["calls"].append((tc_id, call))
        if not out["calls"] and out["end"] is None and not out["errors"]:
            out["end"] = (None, {})  # no tool calls: the turn is over
        return out

    def _new_id(self) -> str:
        self._n_ids += 1
        return f"call_sre_{self._n_ids:06d}"

    def _tool_calls(self, action: Any, out: dict[str, Any]) -> list[Any] | None:
        """The raw tool-call list of a turn (None when the turn cannot be read at all)."""
        if hasattr(action, "model_dump") and callable(action.model_dump):
            try:
                action = action.model_dump()
            except Exception as e:  # an SDK object that cannot dump itself is unreadable input
                out["turn"].append(f"unreadable turn: {type(e).__name__}")
                return None
        if isinstance(action, bytes | bytearray):
            action = action.decode("utf-8", "replace")
        if isinstance(action, str):
            if len(action) > MAX_TURN_CHARS:
                out["turn"].append(
                    f"the turn is {len(action)} characters long; the limit is {MAX_TURN_CHARS}"
                )
                return None
            try:
                action = json.loads(action)
            except (json.JSONDecodeError, RecursionError):
                return []  # a plain text reply: no tool calls
            if isinstance(action, str | int | float | bool) or action is None:
                return []
        if isinstance(action, dict):
            if "usage" in action and isinstance(action["usage"], dict):
                out["usage"] = action["usage"]
            if "tool_calls" in action or "role" in action or "content" in action:
                tcs = action.get("tool_calls")
                if tcs is None:
                    return []
                if not isinstance(tcs, list | tuple):
                    out["turn"].append(f'"tool_calls" must be a list, got {type(tcs).__name__}')
                    return None
                return list(tcs)
            return [action]
        if isinstance(action, list | tuple):
            return list(action)
        out["turn"].append(
            f"a turn is an assistant message or a list of tool calls, got {type(action).__name__}"
        )
        return None

    def _one(self, tc: Any, n: int) -> tuple[str, Any]:
        """(id, env call) of one tool call; unreadable ones become ``Invalid``."""
        if hasattr(tc, "model_dump") and callable(tc.model_dump):
            try:
                tc = tc.model_dump()
            except Exception:  # noqa: BLE001 - unreadable input becomes an error result
                tc = None
        if not isinstance(tc, dict):
            return self._new_id(), Invalid(
                f"tool call {n} is not an object (got {type(tc).__name__})"
            )
        # a Responses-API function_call item has an item id ("fc_...") and the call_id its output must
        # answer; a chat-completions tool call has only its id
        call_id = tc.get("call_id")
        tc_id = call_id if isinstance(call_id, str) and call_id else tc.get("id")
        tc_id = tc_id[:128] if isinstance(tc_id, str) and tc_id else self._new_id()
        fn = tc.get("function") if "function" in tc else tc
        if not isinstance(fn, dict):
            return tc_id, Invalid(f'"function" of tool call {tc_id} must be an object')
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            return tc_id, Invalid(f"tool call {tc_id} has no function name")
        args = fn.get("arguments", "{}")
        if args is None or args == "":
            args = "{}"
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except (json.JSONDecodeError, RecursionError) as e:
                return tc_id, Invalid(
                    f"arguments of {name[:64]} are not valid JSON: {str(e)[:200]}", tool=name
                )
        if not isinstance(args, dict):
            return tc_id, Invalid(
                f"arguments of {name[:64]} must be a JSON object, got {type(args).__name__}",
                tool=name,
            )
        return tc_id, {"tool": name, "args": args}

    # ------------------------------------------------------------------ messages
    @staticmethod
    def _label(obs: list[dict], ids: list[str], extra: list[tuple[str, str]]) -> list[dict]:
        """Give tool messages the model's ids, answer calls that never ran, one message per id;
        results that answer no call of the model (an automatic end of the invocation, an unreadable
        turn) become a user note, so the conversation stays valid to send back."""
        tools = [m for m in obs if m.get("role") == "tool"]
        rest = [m for m in obs if m.get("role") != "tool"]
        labeled = [{**m, "tool_call_id": i} for m, i in zip(tools, ids, strict=False)]
        labeled += [
            {"role": "tool", "tool_call_id": i, "content": "error: not run (too many calls)"}
            for i in ids[len(tools) :]
        ]
        labeled += [{"role": "tool", "tool_call_id": i, "content": msg} for i, msg in extra]
        notes = [m["content"] for m in tools[len(ids) :]]
        if notes:
            rest = [{"role": "user", "content": "Note: " + "\n".join(notes)}, *rest]
        return labeled + rest
