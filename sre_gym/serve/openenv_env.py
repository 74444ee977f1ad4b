"""OpenEnv environments over both envs, so that LLM-RL trainers train on them unchanged.

OpenEnv (package ``openenv``, extra ``openenv``) is the environment interface that TRL, Unsloth,
ART, Oumi and torchforge drive, and that verifiers 0.4 loads through its ``openenv`` taskset: an
``Environment`` with ``reset(seed, episode_id, ...)``, ``step(action, timeout_s)`` and ``state``,
served by OpenEnv's own FastAPI server (``/reset``, ``/step``, ``/state``, ``/schema``,
``/health``, ``/metadata`` and the WebSocket ``/ws``; each WebSocket session is its own episode, up
to ``max_concurrent_envs``, and one more is refused with ``CAPACITY_REACHED``).

``SREMarathonEnvironment`` runs one SREMarathon-v0 episode, one tool call per step (through
``ToolCallSteps``; ``end_invocation`` lets the 120 simulated seconds pass), and
``IncidentArenaEnvironment`` one IncidentArena-v0 task, one call per step, the verdict as the final
reward. Both go through a session (``sre_gym.serve.sessions``), as ``sre-gym mcp`` does:

- **Any action gets an observation.** ``SREAction`` validates any payload; one that is not a tool
  call comes back as an error result naming what was expected (``error`` set, reward 0), costs one
  step and the episode goes on. ``ListToolsAction`` / ``{"type": "list_tools"}`` lists the tools.
- **A bounded context.** Each observation carries what is new since the last step (alerts new or
  changed, the call's result, the open incidents), at most ``observation_chars`` characters with
  truncation marked; ``context="cumulative"`` sends the whole history. The observation of reset
  also lists the tools (``available_tools``).
- **Bad reset parameters** (an unknown key, an unknown fault or task) are a 422 with the reason
  over HTTP, and an error message over the WebSocket (the session stays open).
- **Evaluation mode** (an evaluation key) holds rewards back until the end and shows no seed,
  score or verdict.

``openenv`` is imported here, in ``openenv_types`` and nowhere else, so ``import sre_gym`` never
loads it. A trainer's rollout::

    from sre_gym.serve.openenv_env import SREMarathonClient

    with SREMarathonClient(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(seed=7)
        while not result.done:
            result = env.step(SREAction(tool_name=..., arguments={...}))  # a model's call
"""

from __future__ import annotations

import functools
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment, Transform
from openenv.core.env_server.mcp_types import (
    CallToolAction,
    ListToolsAction,
    ListToolsObservation,
    Tool,
    ToolError,
    ToolErrorType,
)
from openenv.core.env_server.types import EnvironmentMetadata, Observation
from openenv.core.mcp_client import MCPToolClient

from sre_gym.serve.mcp_server import ARENA_INSTRUCTIONS, INSTRUCTIONS
from sre_gym.serve.openenv_types import (
    EXPECTED,
    ArenaObservation,
    SREAction,
    SREObservation,
    SREState,
)
from sre_gym.serve.sessions import (
    ARENA,
    MARATHON,
    ArenaSession,
    MarathonSession,
    ResetError,
    Step,
    make_session,
    marathon_tools,
)
from sre_gym.tools.policy import DEFAULT_PROFILE

LOOPBACK = "127.0.0.1"
RESET_KEYS = ("seed", "episode_id", "options")


def tool_list(profile: str = DEFAULT_PROFILE) -> list[Tool]:
    """A marathon profile's tools as OpenEnv ``Tool``s (``sre-gym tools --json``), then
    ``end_invocation``: the list the MCP server serves, in the same order."""
    return [Tool(**t) for t in marathon_tools(profile)]


class _SessionEnvironment(Environment[SREAction, Observation, SREState]):
    """An OpenEnv environment over one session (``sre_gym.serve.sessions``)."""

    # Every instance owns its own env, backend and evidence; the module-level caches it shares
    # with other instances are memos, safe across the server's session threads.
    SUPPORTS_CONCURRENT_SESSIONS = True
    obs_cls: type[Observation] = SREObservation

    def __init__(
        self, session: MarathonSession | ArenaSession, transform: Transform | None
    ) -> None:
        super().__init__(transform=transform)
        self.session = session
        self.tools = [Tool(**t) for t in session.tools()]
        self._state = SREState(env=session.env_id)

    # ------------------------------------------------------------------ OpenEnv API
    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Observation:
        """Start an episode. ``seed`` is the env's seed; ``episode_id`` names the episode in
        ``state`` (a fresh UUID by default); ``options`` go to the env (a marathon's
        ``{"faults": [...]}``, an arena's ``{"task": id}``). Anything else is a ``ResetError``."""
        if kwargs:
            # OpenEnv's server passes every reset field it gets: a misspelt one must not pass
            raise ResetError(
                f"unknown reset parameters: {', '.join(sorted(map(str, kwargs)))} "
                f"(reset takes {', '.join(RESET_KEYS)})"
            )
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ResetError(f"seed must be a non-negative integer, got {seed!r}")
        if episode_id is not None and (not isinstance(episode_id, str) or len(episode_id) > 255):
            raise ResetError("episode_id must be a string of at most 255 characters")
        self._reset_rubric()
        step = self.session.reset(seed=seed, options=options)
        self._state = SREState(episode_id=episode_id or str(uuid.uuid4()), env=self.session.env_id)
        self._sync_state()
        obs = self._observation(step)
        obs.available_tools = list(self.tools)
        return self._apply_transform(obs)

    def step(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        """Run one action. A tool list needs no reset and costs nothing; anything else is one
        call (see the module doc). ``timeout_s`` is not used: calls run on the simulated clock."""
        name, args, problem = _read(action)
        if name is None and problem is None:  # a tool list
            done = self.session.done
            return self._apply_transform(
                ListToolsObservation(tools=list(self.tools), reward=0.0, done=done)
            )
        s = self.session
        step = s.malformed(name, problem) if problem is not None else s.call(name, args)
        # the env's own error results (an unknown tool, bad arguments) stay results; an action
        # that is not a call, or one outside an episode, also sets OpenEnv's error
        kind = None
        if step.refused:
            kind = ToolErrorType.EXECUTION_ERROR
        elif problem is not None:
            kind = ToolErrorType.INVALID_ARGS
        self._sync_state()
        obs = self._observation(step, name or "")
        if kind is not None and step.result is not None:
            obs.error = ToolError(error_type=kind, message=str(step.result.get("error")))
        return self._apply_transform(obs)

    @property
    def state(self) -> SREState:
        return self._state.model_copy()

    def close(self) -> None:
        """Seal an unfinished episode when a bundle directory is set, then close the env."""
        self.session.close(seal_idle=False)

    # ------------------------------------------------------------------ helpers
    def _sync_state(self) -> None:
        s, st = self.session, self._state
        st.step_count = s.steps
        st.done = s.done
        if isinstance(s, MarathonSession):
            st.n_invocations = int(s.base.n_invocations)
            st.invocation = int(s.base.invocation) if s.started else 0
        else:
            st.task = s.base.task.id

    def _observation(self, step: Step, tool_name: str = "") -> Observation:
        view = dict(step.view)
        result = view.pop("result", step.result)
        return self.obs_cls(
            tool_name=tool_name[:64],
            result=result,
            reward=step.reward,
            done=step.done,
            metadata={"info": step.info},
            **view,
        )


def _read(action: Any) -> tuple[str | None, Any, str | None]:
    """(tool name, arguments, problem) of an action; (None, None, None) for a tool list."""
    if isinstance(action, ListToolsAction) or (
        isinstance(action, SREAction) and action.type == "list_tools"
    ):
        return None, None, None
    if isinstance(action, SREAction):
        return action.tool_name, action.arguments, action.problem
    if isinstance(action, CallToolAction):
        return action.tool_name, action.arguments, None
    return "", None, f"{EXPECTED}; got {type(action).__name__}"


class SREMarathonEnvironment(_SessionEnvironment):
    """One SREMarathon-v0 episode per ``reset``, one tool call per ``step`` (see the module doc).

    ``app``, ``schedule``, ``profile``, ``evaluation_key``, ``bundle_dir``, ``reward`` and
    ``max_calls`` are those of the env and of ``ToolCallSteps``; ``context`` and
    ``observation_chars`` set the context budget. With ``bundle_dir`` set, an episode left
    unfinished after at least one call (by ``reset`` or ``close``) is played out with no calls and
    sealed, as ``sre-gym mcp`` does.
    """

    obs_cls = SREObservation

    def __init__(
        self, app: str = "online-boutique", *, transform: Transform | None = None, **options: Any
    ) -> None:
        super().__init__(MarathonSession(app, **options), transform)

    @property
    def base(self) -> Any:
        return self.session.base

    def get_metadata(self) -> EnvironmentMetadata:
        from sre_gym import __version__

        return EnvironmentMetadata(name=MARATHON, description=INSTRUCTIONS, version=__version__)


class IncidentArenaEnvironment(_SessionEnvironment):
    """One IncidentArena-v0 task per ``reset`` (``options={"task": id}`` switches), one tool call
    per ``step``; ``declare_repair_complete`` ends the episode and the verdict is the reward."""

    obs_cls = ArenaObservation

    def __init__(
        self, task: str = "arena-008", *, transform: Transform | None = None, **options: Any
    ) -> None:
        super().__init__(ArenaSession(task, **options), transform)

    def get_metadata(self) -> EnvironmentMetadata:
        from sre_gym import __version__

        return EnvironmentMetadata(name=ARENA, description=ARENA_INSTRUCTIONS, version=__version__)


class SREMarathonClient(MCPToolClient):
    """OpenEnv's tool client (``list_tools``, ``call_tool``, ``step``) with typed results:
    resets and tool calls come back as ``SREObservation`` (``ArenaObservation`` from an arena
    server), the state as ``SREState``."""

    def _parse_result(self, payload: dict[str, Any]) -> StepResult:
        obs = payload.get("observation", {})
        cls = SREObservation if "alerts" in obs else ArenaObservation if "task" in obs else None
        if cls is None:  # a tool list: OpenEnv's own parsing
            return super()._parse_result(payload)
        reward, done = payload.get("reward"), bool(payload.get("done", False))
        o = cls.model_validate({**obs, "reward": reward, "done": done})
        return StepResult(observation=o, reward=reward, done=done)

    def _parse_state(self, payload: dict[str, Any]) -> SREState:
        return SREState.model_validate(payload)


def build_app(env: str = MARATHON, *, max_concurrent_envs: int = 1, **options: Any) -> FastAPI:
    """OpenEnv's FastAPI app over ``env``'s environment, one per WebSocket session, up to
    ``max_concurrent_envs`` at once; ``options`` are the session's (``sre_gym.serve.sessions``).
    A ``ResetError`` over HTTP is a 422 with the reason."""
    make_session(env, **options).close()  # bad options fail here, not in the first session
    cls = IncidentArenaEnvironment if env == ARENA else SREMarathonEnvironment
    factory = functools.partial(cls, **options)
    obs_cls = ArenaObservation if env == ARENA else SREObservation
    app = create_app(
        factory,
        SREAction,
        obs_cls,
        env_name="sre_gym",
        max_concurrent_envs=max_concurrent_envs,
    )

    async def bad_reset(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": str(exc)})

    app.add_exception_handler(ResetError, bad_reset)
    return app


def serve(port: int = 8000, host: str = LOOPBACK, **app_options: Any) -> None:
    """Serve ``build_app(**app_options)`` at ``http://127.0.0.1:port`` until interrupted."""
    if host != LOOPBACK:
        raise ValueError(f"the OpenEnv server listens on {LOOPBACK} only, not {host!r}")
    import sys

    import uvicorn

    # OpenEnv parses each WebSocket message with json.loads, which gives up near the recursion
    # limit (1,000 by default) and ends the session; at 10,000 a call nested thousands deep is
    # parsed and answered with the env's error result (a measured safe depth for 8 MB stacks)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    uvicorn.run(build_app(**app_options), host=host, port=int(port), log_level="warning")
