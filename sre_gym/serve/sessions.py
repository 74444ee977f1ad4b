"""One episode driven one tool call at a time, for the servers (MCP, OpenEnv) and the SkyRL adapter.

A session owns one env (``SREMarathon-v0`` through ``ToolCallSteps``, or ``IncidentArena-v0``) and
turns whatever a model sends into one call: a call the env cannot read is the env's error result,
recorded and counted like any malformed call; nothing raises. Each step's view is what a text
surface sends: in the ``delta`` context only what is new since the last step (new and changed
alerts, the call's result, the open incidents), fitted to ``observation_chars`` with truncation
marked; ``cumulative`` sends the whole alert history every step (the paper's setting; pass
``observation_chars=None`` for no cap). Evaluation mode shows what an evaluated agent may see.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from sre_gym.envs.marathon import MAX_CALLS, agent_info
from sre_gym.envs.observation_text import (
    OBSERVATION_CHARS,
    AlertDelta,
    check_context,
    compact_alert,
    fit,
)
from sre_gym.tools.cli import tool_table
from sre_gym.tools.dispatch import Invalid
from sre_gym.tools.policy import DEFAULT_PROFILE
from sre_gym.tools.specs import END_INVOCATION
from sre_gym.wrappers.tool_call_steps import ToolCallSteps

MARATHON = "SREMarathon-v0"
ARENA = "IncidentArena-v0"
ENVS = (MARATHON, ARENA)
# what an evaluated agent never sees of an arena step's info: the verdict spells out the hidden
# grading contract, the seed rebuilds the world
ARENA_HIDDEN = ("verdict", "failure_class", "bundle", "seed")


class ResetError(ValueError):
    """A reset that asked for something the env does not have (a protocol error, not a crash)."""


@dataclass
class Step:
    """One step as a text surface shows it."""

    result: dict[str, Any] | None  # the call's result ({"tool", "ok", "result" | "error"})
    reward: float | None
    done: bool
    view: dict[str, Any]  # the observation's fields, fitted to the cap
    info: dict[str, Any] = field(default_factory=dict)  # what the agent may see of the env's info
    refused: bool = False  # answered outside an episode (before reset, after the end): nothing ran

    @property
    def is_error(self) -> bool:
        return self.result is not None and not self.result.get("ok", False)


def _plain(x: Any) -> Any:
    return json.loads(json.dumps(x, default=str))


def marathon_tools(profile: str = DEFAULT_PROFILE) -> list[dict[str, Any]]:
    """Name, description and input schema of a profile's tools (``sre-gym tools --json``), then
    ``end_invocation``: the list both servers give."""
    rows = [
        {"name": r["name"], "description": r["description"], "input_schema": r["schema"]}
        for r in tool_table(profile)
    ]
    rows.append(
        {
            "name": END_INVOCATION.name,
            "description": END_INVOCATION.description,
            "input_schema": END_INVOCATION.json_schema(),
        }
    )
    return rows


class _Session:
    """What both envs' sessions share: a lock, the context, the cap, and a malformed-call path."""

    env_id = ""

    def __init__(self, context: str, observation_chars: int | None) -> None:
        self.context = check_context(context)
        if observation_chars is not None and int(observation_chars) < 1024:
            raise ValueError(f"observation_chars must be at least 1024, got {observation_chars}")
        self.observation_chars = None if observation_chars is None else int(observation_chars)
        self.lock = threading.Lock()
        self.closed = False
        self.started = False
        self.done = False
        self.steps = 0

    def call(self, name: Any, arguments: Any) -> Step:
        """Run one call; nothing raises for bad input (see the module doc)."""
        with self.lock:
            if not self.started or self.closed:
                return self._refused(name, "call reset() before calling a tool")
            if self.done:
                return self._refused(name, "the episode is over; call reset()")
            if not isinstance(name, str) or not name:
                shown = type(name).__name__
                return self.malformed(
                    None, f"a tool call needs a tool name (a string), got {shown}"
                )
            if arguments is None:
                arguments = {}
            if not isinstance(arguments, dict):
                return self.malformed(
                    name, f"arguments must be an object, got {type(arguments).__name__}"
                )
            self.steps += 1
            return self._call(name, arguments)

    def malformed(self, name: str | None, error: str) -> Step:
        """A call that could not be read: the env's error result (recorded, one step)."""
        if not self.started or self.done:
            return self._refused(name, error)
        self.steps += 1
        return self._invalid(name, error)

    def _refused(self, name: Any, error: str) -> Step:
        """An answer outside any episode (before reset, after the end): nothing is recorded."""
        tool = name[:64] if isinstance(name, str) and name else None
        view = self._view() if self.started and not self.closed else {}
        return Step({"tool": tool, "ok": False, "error": error}, 0.0, self.done, view, refused=True)

    def _fitted(self, view: dict[str, Any], order: tuple[str, ...], info: dict) -> dict:
        fixed = len(json.dumps(info, default=str)) + 200  # reward, done, names, the envelope
        view, notes = fit(view, self.observation_chars, order, fixed)
        if notes:
            view["truncated"] = notes
        return view

    # implemented by each env's session
    def _call(self, name: str, arguments: dict[str, Any]) -> Step:
        raise NotImplementedError

    def _invalid(self, name: str | None, error: str) -> Step:
        raise NotImplementedError

    def _view(self, result: dict | None = None) -> dict[str, Any]:
        raise NotImplementedError


class MarathonSession(_Session):
    """One SREMarathon-v0 episode at a time, one tool call per step (thread-safe)."""

    env_id = MARATHON

    def __init__(
        self,
        app: str = "online-boutique",
        *,
        profile: str | None = None,
        schedule: str | dict | None = None,
        evaluation_key: str | None = None,
        bundle_dir: str | None = None,
        reward: str = "net",
        max_calls: int = MAX_CALLS,
        context: str = "delta",
        observation_chars: int | None = OBSERVATION_CHARS,
    ) -> None:
        super().__init__(context, observation_chars)
        kw: dict[str, Any] = {"app": app, "bundle_dir": bundle_dir, "reward": reward}
        if profile is not None:
            kw["profile"] = profile
        if schedule is not None:
            kw["schedule"] = schedule
        if evaluation_key is not None:  # with None the env still reads SRE_GYM_EVALUATION_KEY
            kw["evaluation_key"] = evaluation_key
        self.env = ToolCallSteps(gym.make(MARATHON, **kw), max_calls=max_calls)
        self.base = self.env.base
        self.info: dict[str, Any] = {}
        self._delta = AlertDelta()
        self._obs: dict[str, Any] = {}

    # ------------------------------------------------------------------ surface
    def tools(self) -> list[dict[str, Any]]:
        """Name, description and input schema of the profile's tools, then end_invocation."""
        return marathon_tools(self.base.profile)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Step:
        """Start an episode (sealing an unfinished one first). ``options``: ``{"faults": [...]}``."""
        if options is not None and not isinstance(options, dict):
            raise ResetError(f"options must be an object, got {type(options).__name__}")
        unknown = set(options or {}) - {"faults"}
        if unknown:
            raise ResetError(f"unknown reset options: {', '.join(sorted(map(str, unknown)))}")
        with self.lock:
            self._seal(idle=False)
            try:
                obs, info = self.env.reset(seed=seed, options=options)
            except ValueError as e:  # an unknown fault, a fault the app does not have
                raise ResetError(str(e)) from e
            self._obs, self.info = obs, info
            self.started, self.done, self.steps = True, False, 0
            self._delta = AlertDelta()
            return Step(None, None, False, self._view(), self.shown_info())

    def status(self) -> dict[str, Any]:
        """Where the episode stands, without spending simulated time."""
        with self.lock:
            return {
                "invocation": int(self.base.invocation) if self.started else 0,
                "time": int(self._obs["time"]) if self.started else 0,
                "budget_left_s": float(self.base.budget_left),
                "episode_over": self.done,
            }

    def close(self, seal_idle: bool = True) -> str | None:
        """End the episode if it is still running (no more calls), seal it, let the env go; the
        bundle path. ``seal_idle=False``: not an episode nobody acted in (OpenEnv's stateless
        endpoints make those)."""
        with self.lock:
            if not self.closed:
                self._seal(idle=seal_idle)
                self.env.close()
                self.closed = True
            return self.info.get("bundle")

    def shown_info(self) -> dict[str, Any]:
        # in evaluation mode the agent gets what an evaluated agent may see, and nothing more
        return agent_info(self.info) if self.base.evaluation else dict(self.info)

    # ------------------------------------------------------------------ internals
    def _seal(self, idle: bool) -> None:
        """Play an unfinished episode out with no calls (the agent stopped acting), so that the
        bundle holds a whole, scorable run; one nobody acted in only when ``idle``. Nothing to do
        without a bundle directory."""
        if self.base.bundle_dir is None or not self.started or (self.steps == 0 and not idle):
            return
        while not self.done:
            _, _, terminated, truncated, self.info = self.env.step([])
            self.done = bool(terminated or truncated)

    def _call(self, name: str, arguments: dict[str, Any]) -> Step:
        return self._run({"tool": name, "args": arguments}, name)

    def _invalid(self, name: str | None, error: str) -> Step:
        return self._run([Invalid(error, tool=name)], name)

    def _run(self, action: Any, name: str | None) -> Step:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._obs, self.info = obs, info
        self.done = bool(terminated or truncated)
        results = self.env.step_results
        first = results[0] if results else {"ok": False, "error": "no result"}
        if name == END_INVOCATION.name and info.get("invocation_ended"):
            first = results[-1]  # the marker: which invocation ended, why, the budget used
        result = _plain(first)
        if info.get("invocation_ended") and name != END_INVOCATION.name:
            result["invocation_ended"] = _plain(results[-1].get("result"))
        return Step(result, float(reward), self.done, self._view(result), self.shown_info())

    def _view(self, result: dict | None = None) -> dict[str, Any]:
        o, b = self._obs, self.base
        entries = b.alerts_view(copy=False)
        if self.context == "delta":  # what changed, each alert without what it repeats
            alerts = [compact_alert(a) for a in self._delta.changes(entries)]
        else:  # the paper's setting: the history as the env shows it
            alerts = list(entries)
        view: dict[str, Any] = {
            "time": int(o["time"]),
            "invocation": int(o["invocation"]),
            "n_invocations": int(b.n_invocations),
            "budget_left_s": int(o["budget_left_s"]),
            "invocation_ended": bool(self.info.get("invocation_ended", False)),
            "alerts": alerts,
            "alerts_in_history": len(entries),
            "firing": sum(1 for a in entries if a["state"] == "firing"),
            "incidents": json.loads(o["incidents"]),
            "notes": b.notes_text(),
        }
        if result is not None:
            view["result"] = result
        return self._fitted(view, ("alerts", "notes", "incidents", "result"), self.shown_info())


class ArenaSession(_Session):
    """One IncidentArena-v0 task episode at a time, one tool call per step (thread-safe). The
    verdict is the final reward; ``reset(options={"task": id})`` switches task."""

    env_id = ARENA

    def __init__(
        self,
        task: str = "arena-008",
        *,
        reward_mode: str = "binary",
        bundle_dir: str | None = None,
        evaluation_key: str | None = None,
        context: str = "delta",
        observation_chars: int | None = OBSERVATION_CHARS,
    ) -> None:
        super().__init__(context, observation_chars)
        self.reward_mode = reward_mode
        self.bundle_dir = bundle_dir
        self.evaluation_key = evaluation_key
        self.env = self._make(task)
        self.info: dict[str, Any] = {}
        self._obs: dict[str, Any] = {}
        self._sent_instruction = False

    @property
    def base(self) -> Any:
        return self.env.unwrapped

    @property
    def evaluation(self) -> bool:
        return self.evaluation_key is not None

    def _make(self, task: str) -> gym.Env:
        from sre_gym.catalogs.arena import task_ids

        if task not in task_ids():
            raise ResetError(f"unknown arena task {task!r}; tasks: {', '.join(task_ids())}")
        return gym.make(
            ARENA,
            task=task,
            reward_mode=self.reward_mode,
            bundle_dir=self.bundle_dir,
            disable_env_checker=True,
        )

    def tools(self) -> list[dict[str, Any]]:
        from sre_gym.tools import arena as arena_tools

        return [
            {
                "name": f["function"]["name"],
                "description": f["function"]["description"],
                "input_schema": f["function"]["parameters"],
            }
            for f in arena_tools.schemas()
        ]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Step:
        """Start an episode of the session's task (``options={"task": id}`` switches task). In
        evaluation mode the world's seed is drawn from the key and the seed, so that it cannot be
        rebuilt from the seed alone."""
        if options is not None and not isinstance(options, dict):
            raise ResetError(f"options must be an object, got {type(options).__name__}")
        unknown = set(options or {}) - {"task"}
        if unknown:
            raise ResetError(f"unknown reset options: {', '.join(sorted(map(str, unknown)))}")
        task = (options or {}).get("task")
        with self.lock:
            if task is not None and task != self.base.task.id:
                if not isinstance(task, str):
                    raise ResetError(f"task must be a string, got {type(task).__name__}")
                env = self._make(task)
                self.env.close()
                self.env = env
            world_seed = 0 if seed is None else int(seed)
            if self.evaluation:
                h = hashlib.sha256(f"{self.evaluation_key}\0{world_seed}".encode()).digest()
                world_seed = int.from_bytes(h[:4], "big") >> 1
            self._obs, info = self.env.reset(seed=world_seed)
            self.info = {"task": info["task"], "seed": world_seed}
            self.started, self.done, self.steps = True, False, 0
            self._sent_instruction = False
            return Step(None, None, False, self._view(), self.shown_info())

    def status(self) -> dict[str, Any]:
        with self.lock:
            o = self._obs
            return {
                "task": self.base.task.id,
                "clock_s": int(o["clock_s"]) if o else 0,
                "budget_left_s": int(o["budget_left_s"]) if o else 0,
                "calls_left": int(o["calls_left"]) if o else 0,
                "episode_over": self.done,
            }

    def close(self, seal_idle: bool = True) -> str | None:
        """Let the env go (an arena episode's bundle is written when it ends)."""
        with self.lock:
            if not self.closed:
                self.env.close()
                self.closed = True
            return self.info.get("bundle")

    def shown_info(self) -> dict[str, Any]:
        if not self.evaluation:
            return _plain(self.info)
        return {k: v for k, v in _plain(self.info).items() if k not in ARENA_HIDDEN}

    def _call(self, name: str, arguments: dict[str, Any]) -> Step:
        return self._run({"tool": name, "args": arguments}, name)

    def _invalid(self, name: str | None, error: str) -> Step:
        # the env's own answer to a call it cannot read (counted against the call budget), with
        # the reason the surface found
        step = self._run(None, name)
        assert step.result is not None
        step.result["error"] = error
        step.view = self._view(step.result)
        return step

    def _run(self, action: Any, name: str | None) -> Step:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._obs = obs
        self.done = bool(terminated or truncated)
        self.info = {**{k: self.info[k] for k in ("task", "seed") if k in self.info}, **info}
        last = _plain(self.base.last)
        ok = "error" not in last
        result = {"tool": name[:64] if isinstance(name, str) else None, "ok": ok}
        result.update({"result": last} if ok else {"error": last["error"]})
        return Step(result, float(reward), self.done, self._view(result), self.shown_info())

    def _view(self, result: dict | None = None) -> dict[str, Any]:
        o = self._obs
        view: dict[str, Any] = {
            "task": self.base.task.id,
            "clock_s": int(o["clock_s"]),
            "budget_left_s": int(o["budget_left_s"]),
            "calls_left": int(o["calls_left"]),
        }
        if self.context == "cumulative" or not self._sent_instruction:
            view["instruction"] = o["instruction"]
            self._sent_instruction = True
        if result is not None:
            view["result"] = result
        return self._fitted(view, ("result",), self.shown_info())


def make_session(env: str = MARATHON, **options: Any) -> MarathonSession | ArenaSession:
    """A session of ``env`` (``SREMarathon-v0`` or ``IncidentArena-v0``) with its options."""
    if env == MARATHON:
        return MarathonSession(**options)
    if env == ARENA:
        return ArenaSession(**options)
    raise ValueError(f"unknown env {env!r}; serve one of {', '.join(ENVS)}")
