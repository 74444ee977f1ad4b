"""An OpenEnv environment over one marathon, so that LLM-RL trainers can train on SREMarathon-v0.

OpenEnv (``openenv-core``, extra ``openenv``) is the environment interface that LLM-RL trainers
drive: an ``Environment`` with ``reset``, ``step`` and ``state``, served by a FastAPI app over a
WebSocket, and an ``EnvClient`` that a trainer's rollout function steps. ``SREMarathonEnvironment``
is that environment. It runs one SREMarathon-v0 episode through the ``ToolCallSteps`` wrapper, one
tool call per OpenEnv step, the way ``sre-gym mcp`` runs one for coding agents.

Actions are OpenEnv's MCP-style tool actions. ``ListToolsAction()`` lists the tools of the access
profile with the names and JSON Schemas that ``sre-gym tools --json`` prints, plus the clock tool
``end_invocation`` (the same list the MCP server gives). ``CallToolAction(tool_name, arguments)``
runs one tool at once inside the current invocation, and ``end_invocation`` lets the 120 simulated
seconds pass. Each step returns an ``SREObservation`` (a ``CallToolObservation``):

* ``result`` is the env's whole result object for the call, as the MCP server returns it.
* ``tool_results`` holds this step's results as the env shows them (each cut to 16,000 characters).
  ``alerts``, ``incidents`` and ``notes`` are the alert history, the open incidents and the notes,
  also as the env shows them.
* ``time``, ``invocation`` and ``budget_left_s`` say where the episode stands.
* ``reward`` is the env's reward for the step: the increment of net_score (``reward="paper"``: of
  the paper's Marathon-Score). It is 0 inside an invocation and the increment when the invocation
  ends, so an episode's rewards sum to its final score. ``done`` is set once the last invocation
  has ended.

Sealed evaluation is the env's job, and the adapter adds nothing to it. With ``evaluation_key`` the
env holds rewards back until the last step and keeps the seed and the score out of ``info``.
``metadata["info"]`` is then ``agent_info(info)``, with every hidden field removed, and the key is
never shown. OpenEnv's server does not send ``metadata`` over the wire in any mode.

A malformed tool call is handled the way the env handles one: its error comes back in ``result`` and
nothing changes but the evidence the env keeps. Some actions cannot run at all: an action that is
not a tool action, a call with no tool name, or a step before ``reset`` or after the episode is
over. These come back with ``error`` set and change nothing.

Serving: ``build_app(...)`` is OpenEnv's FastAPI app, and ``serve`` or ``sre-gym openenv`` runs it on
127.0.0.1. Each WebSocket session gets its own episode. A trainer's rollout over it::

    from openenv.core.env_server.mcp_types import CallToolAction
    from sre_gym.serve.openenv_env import SREMarathonClient

    rewards = []
    with SREMarathonClient(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(seed=7)
        tools = env.list_tools()  # [Tool(name, description, input_schema), ...]
        while not result.done:
            name, args = policy(result.observation)  # e.g. a model's tool call
            result = env.step(CallToolAction(tool_name=name, arguments=args))
            rewards.append(result.reward)

``openenv`` is imported here and nowhere else in the package (``sre-gym openenv`` only checks that
it is installed), so ``import sre_gym`` never loads it. Importing OpenEnv's server package takes a
few seconds, because it brings in FastAPI, FastMCP and Gradio.
"""

from __future__ import annotations

import functools
import json
import uuid
from typing import Any

import gymnasium as gym
from fastapi import FastAPI
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment, Transform
from openenv.core.env_server.mcp_types import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
    ToolError,
    ToolErrorType,
)
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from openenv.core.mcp_client import MCPToolClient
from pydantic import Field

from sre_gym.envs.marathon import MAX_CALLS, agent_info, results_text
from sre_gym.serve.mcp_server import ENV_ID, INSTRUCTIONS
from sre_gym.tools.cli import tool_table
from sre_gym.tools.policy import DEFAULT_PROFILE
from sre_gym.tools.specs import END_INVOCATION
from sre_gym.wrappers.tool_call_steps import ToolCallSteps

LOOPBACK = "127.0.0.1"


class SREObservation(CallToolObservation):
    """One step of a marathon: the call's result and the episode as the env shows it."""

    # empty for the observation of reset (no call was made)
    tool_name: str = Field(default="", description="the tool this step called")
    tool_results: str = Field(default="[]", description="this step's results (JSON)")
    time: int = Field(default=0, description="simulated unix seconds (the next call's time)")
    invocation: int = Field(default=0, description="the current invocation (0-based)")
    n_invocations: int = Field(default=0, description="invocations in the episode")
    budget_left_s: int = Field(default=0, description="seconds left of this invocation's budget")
    invocation_ended: bool = Field(default=False, description="this step handed time back")
    alerts: str = Field(default="[]", description="the cumulative alert history (JSON)")
    incidents: str = Field(default="[]", description="the open incidents the agent reported (JSON)")
    notes: str = Field(default="", description="the agent's persistent notes")


class SREState(State):
    """``episode_id``, ``step_count`` (tool calls that reached the env), and where the episode is."""

    invocation: int = 0
    n_invocations: int = 0
    done: bool = False


def tool_list(profile: str = DEFAULT_PROFILE) -> list[Tool]:
    """The tools of a profile as OpenEnv ``Tool``s (``sre-gym tools --json``), then
    ``end_invocation``: the list the MCP server serves, in the same order."""
    tools = [
        Tool(name=r["name"], description=r["description"], input_schema=r["schema"])
        for r in tool_table(profile)
    ]
    tools.append(
        Tool(
            name=END_INVOCATION.name,
            description=END_INVOCATION.description,
            input_schema=END_INVOCATION.json_schema(),
        )
    )
    return tools


class SREMarathonEnvironment(Environment[Action, Observation, SREState]):
    """One SREMarathon-v0 episode per ``reset``, one tool call per ``step`` (see the module doc).

    ``app``, ``schedule``, ``profile``, ``evaluation_key``, ``bundle_dir`` and ``max_calls`` are
    those of the env and of ``ToolCallSteps``. With ``bundle_dir`` set, an episode that is left
    unfinished after at least one call (by ``reset`` or ``close``) is played out with no calls and
    sealed, as ``sre-gym mcp`` does, so that the bundle holds a whole, scorable run.
    """

    # Every instance owns its own env, backend and evidence. The module-level caches it shares
    # with other instances are memos, safe across the server's session threads.
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(
        self,
        app: str = "online-boutique",
        *,
        schedule: str | dict | None = None,
        profile: str = DEFAULT_PROFILE,
        evaluation_key: str | None = None,
        bundle_dir: str | None = None,
        max_calls: int = MAX_CALLS,
        transform: Transform | None = None,
        reward: str = "net",
    ) -> None:
        super().__init__(transform=transform)
        kw: dict[str, Any] = {
            "app": app,
            "profile": profile,
            "bundle_dir": bundle_dir,
            "reward": reward,
        }
        if schedule is not None:
            kw["schedule"] = schedule
        # the key goes to the env only. With None the env still reads SRE_GYM_EVALUATION_KEY.
        if evaluation_key is not None:
            kw["evaluation_key"] = evaluation_key
        self.env = ToolCallSteps(gym.make(ENV_ID, **kw), max_calls=max_calls)
        self.base = self.env.base
        self.tools = tool_list(self.base.profile)
        self._obs: dict[str, Any] | None = None
        self._info: dict[str, Any] = {}
        self._done = False
        self._state = SREState(n_invocations=self.base.n_invocations)

    # ------------------------------------------------------------------ OpenEnv API
    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> SREObservation:
        """Start an episode. ``seed`` is the env's seed (random if None). ``episode_id`` names the
        episode in ``state`` (a fresh UUID by default). ``options`` go to the env's reset, e.g.
        ``{"faults": [...]}``."""
        if kwargs:
            # OpenEnv's server passes every reset field it gets, and a misspelt one must not pass
            # unnoticed
            raise ValueError(f"unknown reset parameters: {', '.join(sorted(kwargs))}")
        self._reset_rubric()
        self._seal()
        obs, info = self.env.reset(seed=seed, options=options)
        self._obs, self._info, self._done = obs, info, False
        self._state = SREState(
            episode_id=episode_id or str(uuid.uuid4()),
            step_count=0,
            invocation=int(obs["invocation"]),
            n_invocations=self.base.n_invocations,
        )
        return self._apply_transform(self._observe(reward=None))

    def step(
        self, action: Action, timeout_s: float | None = None, **kwargs: Any
    ) -> ListToolsObservation | SREObservation:
        """Run one action. ``ListToolsAction`` lists the tools; it needs no reset and costs no
        time. ``CallToolAction`` runs one tool call. ``timeout_s`` is not used, because a call
        runs on the simulated clock and returns at once."""
        if isinstance(action, ListToolsAction):
            return self._apply_transform(
                ListToolsObservation(tools=list(self.tools), reward=0.0, done=self._done)
            )
        if not isinstance(action, CallToolAction):
            return self._refuse(
                "",
                ToolErrorType.INVALID_ARGS,
                f"unsupported action {type(action).__name__}: send ListToolsAction or CallToolAction",
            )
        name = action.tool_name
        if self._obs is None:
            return self._refuse(name, ToolErrorType.EXECUTION_ERROR, "call reset() before step()")
        if self._done:
            return self._refuse(
                name, ToolErrorType.EXECUTION_ERROR, "the episode is over; call reset()"
            )
        if not name:
            return self._refuse(name, ToolErrorType.INVALID_ARGS, "a tool call needs a tool name")
        # from here on the env decides: unknown tools, bad arguments and refusals are its results
        obs, reward, terminated, truncated, info = self.env.step(
            {"tool": name, "args": action.arguments}
        )
        self._obs, self._info = obs, info
        self._done = bool(terminated or truncated)
        results = self.env.step_results
        first = results[0] if results else {"ok": False, "error": "no result"}
        if name == END_INVOCATION.name and info.get("invocation_ended"):
            first = results[-1]  # the marker: which invocation ended, why, the budget used
        self._state.step_count += 1
        self._state.invocation = int(obs["invocation"])
        self._state.done = self._done
        # whole, as the MCP server returns it (tool_results has it cut as the env shows results),
        # and plain JSON so that it goes over the wire as it is
        result = json.loads(json.dumps(first, default=str))
        return self._apply_transform(
            self._observe(reward=float(reward), tool_name=name, result=result)
        )

    @property
    def state(self) -> SREState:
        """The episode id, the tool calls made, the current invocation and whether it is over."""
        return self._state.model_copy()

    def get_metadata(self) -> EnvironmentMetadata:
        from sre_gym import __version__

        return EnvironmentMetadata(
            name=ENV_ID,
            description=INSTRUCTIONS,
            version=__version__,
        )

    def close(self) -> None:
        """Seal an unfinished episode when a bundle directory is set, then close the env."""
        self._seal()
        self.env.close()
        self._obs = None

    # ------------------------------------------------------------------ helpers
    def _seal(self) -> None:
        """Play an unfinished episode out with no calls (the agent stopped acting), so that the
        bundle is written. There is nothing to do without a bundle directory."""
        # an episode nobody acted in is not worth a bundle (OpenEnv's stateless /reset makes them)
        if self.base.bundle_dir is None or self._obs is None or self._state.step_count == 0:
            return
        while not self._done:
            _, _, terminated, truncated, self._info = self.env.step([])
            self._done = bool(terminated or truncated)

    def _info_shown(self) -> dict[str, Any]:
        # in evaluation mode the trainer gets what an evaluated agent may see, and nothing more
        return agent_info(self._info) if self.base.evaluation else dict(self._info)

    def _observe(
        self,
        *,
        reward: float | None,
        tool_name: str = "",
        result: Any = None,
    ) -> SREObservation:
        obs = self._obs
        assert obs is not None
        return SREObservation(
            tool_name=tool_name,
            result=result,
            tool_results=obs["tool_results"],
            time=int(obs["time"]),
            invocation=int(obs["invocation"]),
            n_invocations=self.base.n_invocations,
            budget_left_s=int(obs["budget_left_s"]),
            invocation_ended=bool(self._info.get("invocation_ended", False)),
            alerts=obs["alerts"],
            incidents=obs["incidents"],
            notes=obs["notes"],
            reward=reward,
            done=self._done,
            metadata={"info": self._info_shown()},
        )

    def _refuse(self, tool_name: str, kind: ToolErrorType, message: str) -> SREObservation:
        """An action the adapter cannot run: the episode as it stood, reward 0, ``error`` set."""
        res = {"tool": tool_name[:64] or None, "ok": False, "error": message}
        fields: dict[str, Any] = {}
        if self._obs is not None:
            o = self._obs
            fields = {
                "time": int(o["time"]),
                "invocation": int(o["invocation"]),
                "budget_left_s": int(o["budget_left_s"]),
                "alerts": o["alerts"],
                "incidents": o["incidents"],
                "notes": o["notes"],
            }
        return self._apply_transform(
            SREObservation(
                tool_name=tool_name,
                result=res,
                error=ToolError(error_type=kind, message=message),
                tool_results=results_text([res]),
                n_invocations=self.base.n_invocations,
                reward=0.0,
                done=self._done,
                **fields,
            )
        )


class SREMarathonClient(MCPToolClient):
    """OpenEnv's tool client (``list_tools``, ``call_tool``, ``step``) with typed results:
    resets and tool calls come back as ``SREObservation``, the state as ``SREState``."""

    def _parse_result(self, payload: dict[str, Any]) -> StepResult:
        obs = payload.get("observation", {})
        if "alerts" not in obs:  # a tool list: OpenEnv's own parsing
            return super()._parse_result(payload)
        reward, done = payload.get("reward"), bool(payload.get("done", False))
        o = SREObservation.model_validate({**obs, "reward": reward, "done": done})
        return StepResult(observation=o, reward=reward, done=done)

    def _parse_state(self, payload: dict[str, Any]) -> SREState:
        return SREState.model_validate(payload)


def build_app(
    app: str = "online-boutique",
    *,
    schedule: str | dict | None = None,
    profile: str = DEFAULT_PROFILE,
    evaluation_key: str | None = None,
    bundle_dir: str | None = None,
    max_concurrent_envs: int = 1,
    reward: str = "net",
) -> FastAPI:
    """OpenEnv's FastAPI app over ``SREMarathonEnvironment``. Each WebSocket session (``/ws``,
    which ``EnvClient`` uses) gets its own episode, up to ``max_concurrent_envs`` at once. The
    stateless ``/reset`` and ``/step`` endpoints build a new env for every request."""
    factory = functools.partial(
        SREMarathonEnvironment,
        app,
        schedule=schedule,
        profile=profile,
        evaluation_key=evaluation_key,
        bundle_dir=bundle_dir,
        reward=reward,
    )
    # CallToolAction as the action class makes OpenEnv's server accept both "call_tool" and
    # "list_tools" payloads
    return create_app(
        factory,
        CallToolAction,
        SREObservation,
        env_name="sre_gym",
        max_concurrent_envs=max_concurrent_envs,
    )


def serve(port: int = 8000, host: str = LOOPBACK, **app_options: Any) -> None:
    """Serve ``build_app(**app_options)`` at ``http://127.0.0.1:port`` until interrupted."""
    if host != LOOPBACK:
        raise ValueError(f"the OpenEnv server listens on {LOOPBACK} only, not {host!r}")
    import uvicorn

    uvicorn.run(build_app(**app_options), host=host, port=int(port), log_level="warning")
