"""ToolCallSteps: one tool call per step, its result in the very next observation (ReAct style).

SREMarathon-v0 takes a whole invocation's calls in one step, which suits planners but not agents that
must read each result before choosing the next call. This wrapper runs each call at once inside the
current invocation through the env's invocation API (``call``), so nothing is ever re-run, and hands
time back only when the agent sends ``end_invocation`` (or an empty list), when the 110 s budget is
spent, or after ``max_calls`` steps. Rewards stay score increments: 0 inside an invocation, the
increment when it ends, so an episode's rewards still sum to its final Marathon-Score.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pydantic import ValidationError

from sre_gym.envs.marathon import MAX_CALLS, SREMarathonEnv, parse_action, results_text
from sre_gym.tools.dispatch import Invalid, _errors
from sre_gym.tools.specs import BUDGET_S, END_INVOCATION, TOOLS
from sre_gym.wrappers.spaces import ToolCall

MIN_DURATION_S = min(s.duration_s for s in TOOLS.values())


def marathon_of(env: gym.Env) -> SREMarathonEnv:
    """The SREMarathon env under a wrapper stack (TypeError if there is none)."""
    base = env.unwrapped
    if not isinstance(base, SREMarathonEnv):
        raise TypeError(f"this wrapper needs an SREMarathon env, got {type(base).__name__}")
    return base


class ToolCallSteps(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """One tool call per step, executed at once; ``end_invocation`` advances time.

    Action: one call ``{"tool": ..., "args": {...}}`` (or its JSON string); a list of calls runs them
    in order within the step (parallel tool calls); ``{"calls": [...], "notes": ..., "usage": ...}``
    as for the base env. ``{"tool": "end_invocation", "args": {"notes": ..., "usage": ...}}`` or an
    empty list ends the invocation; ``None``, like any value outside the action space, is an error
    result that counts as a call. Calls after ``end_invocation`` in the same action are
    not run (each gets an error result), so there is always one result per call.

    Observation: the base env's ``Dict`` with ``time`` the current simulated time, ``tool_results``
    the results of this step's calls only (plus an ``end_invocation`` result when the invocation
    ended; the next invocation's alerts are then in ``alerts``), and ``budget_left_s``. ``info`` adds
    ``budget_left_s`` and ``invocation_ended``.
    """

    def __init__(self, env: gym.Env, max_calls: int = MAX_CALLS) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, max_calls=max_calls)
        gym.Wrapper.__init__(self, env)
        self.base = marathon_of(env)
        if not 1 <= int(max_calls) <= 10_000:
            raise ValueError(f"max_calls must be between 1 and 10000, got {max_calls}")
        self.max_calls = int(max_calls)
        self.action_space = ToolCall()
        self.observation_space = spaces.Dict(
            {
                **env.observation_space.spaces,
                "budget_left_s": spaces.Box(0, BUDGET_S, shape=(), dtype=np.int64),
            }
        )
        self._start_obs: dict[str, Any] | None = None
        self._calls = 0
        self.step_results: list[dict[str, Any]] = []  # this step's results, uncut

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._start_obs = obs
        self._calls = 0
        self.step_results = []
        return self._with_budget(obs, BUDGET_S), self._info(info, ended=False)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        base = self.base
        if base.backend is None or self._start_obs is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        calls, notes, usage, err = parse_action(action)
        results: list[dict[str, Any]] = []
        if err is not None:
            results.append({"ok": False, "error": err})
        if usage is not None:
            if not base.invocation_open:
                base.begin_invocation()
            usage_err = base.record_usage(usage)
            if usage_err is not None:
                results.append({"ok": False, "error": usage_err})
        end: dict[str, Any] | None = {"reason": "requested"} if not calls and err is None else None
        for c in calls:
            if end is not None:
                results.append(self._not_run(c))
                continue
            if isinstance(c, dict) and c.get("tool") == END_INVOCATION.name:
                res, args = self._end_call(c)
                if args is None:
                    results.append(res)
                else:
                    end = {"reason": "requested", **args, "result": res}
                continue
            results.append(base.call(c))
            self._calls += 1
            if base.budget_left < MIN_DURATION_S:
                end = {"reason": "budget exhausted"}
            elif self._calls >= self.max_calls:
                end = {"reason": f"{self.max_calls} calls made"}
        if err is not None:
            self._calls += 1
            if end is None and self._calls >= self.max_calls:
                end = {"reason": f"{self.max_calls} calls made"}
        if notes is not None:
            base.set_notes(notes)
        if end is None:
            return self._mid(results)
        return self._end(results, end)

    # ------------------------------------------------------------------ helpers
    def _end_call(self, c: dict) -> tuple[dict, dict | None]:
        extra = set(c) - {"tool", "args"}
        args = c.get("args", {})
        if extra:
            msg = f"unexpected keys in tool call: {', '.join(sorted(str(x)[:32] for x in extra))}"
            return {"tool": END_INVOCATION.name, "ok": False, "error": msg}, None
        if not isinstance(args, dict):
            msg = f'"args" must be an object, got {type(args).__name__}'
            return {"tool": END_INVOCATION.name, "ok": False, "error": msg}, None
        try:
            a = END_INVOCATION.args.model_validate(args).model_dump()
        except ValidationError as e:
            msg = f"invalid arguments for end_invocation: {_errors(e)}"
            return {"tool": END_INVOCATION.name, "ok": False, "error": msg}, None
        return {"tool": END_INVOCATION.name, "ok": True}, a

    @staticmethod
    def _not_run(c: Any) -> dict[str, Any]:
        name = None
        if isinstance(c, dict):
            name = c.get("tool")
        elif isinstance(c, Invalid):
            name = c.tool
        return {
            "tool": name[:64] if isinstance(name, str) else None,
            "ok": False,
            "error": "not run: the invocation ended before this call",
        }

    def _with_budget(self, obs: dict, budget: float) -> dict:
        out = dict(obs)
        out["budget_left_s"] = np.array(int(max(0, min(BUDGET_S, budget))), dtype=np.int64)
        return out

    def _info(self, info: dict, ended: bool) -> dict:
        out = dict(info)
        out["budget_left_s"] = float(self.base.budget_left)
        out["invocation_ended"] = bool(ended)
        return out

    def _mid(self, results: list[dict]) -> tuple[dict, float, bool, bool, dict]:
        base = self.base
        op_cursor = base.clock
        obs = dict(self._start_obs)
        obs["time"] = np.array(int(op_cursor), dtype=np.int64)
        obs["tool_results"] = results_text(results)
        obs["incidents"] = base.incidents_text()
        obs["notes"] = base.notes_text()
        obs = self._with_budget(obs, base.budget_left)
        self.step_results = results
        info = base.info_at(op_cursor)
        return obs, 0.0, False, False, self._info(info, ended=False)

    def _end(self, results: list[dict], end: dict) -> tuple[dict, float, bool, bool, dict]:
        base = self.base
        args = {k: end[k] for k in ("notes", "usage") if end.get(k) is not None}
        ending = base.invocation
        # through the inner wrappers (order enforcing, time limits, checkers) like any base step
        obs, reward, terminated, truncated, info = self.env.step({"calls": [], **args})
        used = info.get("budget_used_s", 0.0)
        marker = end.get("result") or {"tool": END_INVOCATION.name, "ok": True}
        marker = {
            **marker,
            "result": {
                "invocation_ended": int(ending),
                "reason": end["reason"],
                "budget_used_s": float(used),
            },
        }
        self._start_obs = obs
        self._calls = 0
        obs = self._with_budget(obs, BUDGET_S)
        self.step_results = [*results, marker]
        obs["tool_results"] = results_text(self.step_results)
        return obs, float(reward), terminated, truncated, self._info(info, ended=True)
